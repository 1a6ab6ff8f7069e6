"""Schemathesis 4 hooks that sign requests as firmakit's bundled profile says.

Each request to a merchant endpoint carries three headers: the credential's
key, a Unix timestamp in seconds, and the lowercase hex HMAC-SHA256, under
the credential's secret, of timestamp, method, path with query and raw body
joined by newlines (defaults.md A). OpenAPI cannot say this, so this hook
does it, just before each call:

- only when all three headers are present: a negative case that removed
  one (Schemathesis' missing_required_header) keeps it removed, and gets
  400 Missing headers;
- over the exact bytes sent: the body is serialized here, and handed to
  Schemathesis as bytes, which it sends as they are.

The server URL of the document must have no path of its own (firmakit
openapi --server http://host:port), so that the path signed is the
operation's. The key and secret come from FIRMAKIT_KEY and FIRMAKIT_SECRET
(the demo's by default).
"""

import hashlib
import hmac
import json
import os
import time
from urllib.parse import urlencode

import schemathesis

KEY = os.environ.get("FIRMAKIT_KEY", "test_key_demo")
SECRET = os.environ.get("FIRMAKIT_SECRET", "test_secret_demo")
KEY_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER = "X-Service-Key", "X-Service-Timestamp", "X-Service-Signature"


def body_bytes(body):
    """The bytes sent for a case's body: JSON, compact, UTF-8."""
    if isinstance(body, (bytes, bytearray)):
        return bytes(body)
    if body is None or type(body).__name__ == "NotSet":
        return b""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def sign(method, target, body, secret, timestamp):
    """The profile's signature: hex HMAC-SHA256 of the string to sign."""
    message = b"\n".join([timestamp.encode(), method.upper().encode(), target.encode(), body])
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def find(headers, name):
    """The name a header is stored under, in any case, or None."""
    for key in headers:
        if key.lower() == name.lower():
            return key
    return None


@schemathesis.hook
def before_call(ctx, case, kwargs):
    headers = case.headers if case.headers is not None else {}
    if any(find(headers, h) is None for h in (KEY_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER)):
        return  # a case without one of them tests the refusal: left as it is
    raw = body_bytes(case.body)
    if raw:
        case.body = raw
    target = case.formatted_path
    if case.query:
        target += "?" + urlencode(case.query, doseq=True)
    timestamp = str(int(time.time()))
    headers[find(headers, KEY_HEADER)] = KEY
    headers[find(headers, TIMESTAMP_HEADER)] = timestamp
    headers[find(headers, SIGNATURE_HEADER)] = sign(case.method, target, raw, SECRET, timestamp)
    case.headers = headers
