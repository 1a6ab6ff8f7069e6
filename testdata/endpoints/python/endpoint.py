#!/usr/bin/env python3
"""A merchant's signature webhook, standard library only.

Usage: endpoint.py [PORT] [SECRET ...]
   or: ENDPOINT_PORT=0 WEBHOOK_SECRETS=whsec_a,whsec_b endpoint.py
Listens on 127.0.0.1 (ENDPOINT_HOST to change), any path.
Port 0 picks a free port; the real port is printed on stdout once listening.
"""
import hashlib, hmac, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("ENDPOINT_PORT", "0"))
SECRETS = sys.argv[2:] or [s for s in os.environ.get("WEBHOOK_SECRETS", "").split(",") if s]
TOLERANCE = 300
seen, lock = set(), threading.Lock()


class Webhook(BaseHTTPRequestHandler):
    def answer(self, code, payload):
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            return self.answer(411, {"error": "Content-Length required"})
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            return self.answer(400, {"error": "bad Content-Length"})
        if length > 1 << 20:
            return self.answer(413, {"error": "body too large"})
        raw = self.rfile.read(length)
        t, v1 = None, []
        for part in self.headers.get("X-Service-Signature", "").split(","):
            key, _, value = part.strip().partition("=")
            if key == "t":
                t = value
            elif key == "v1":
                v1.append(value)
        try:
            ts = int(t)
        except (TypeError, ValueError):
            return self.answer(400, {"error": "unparseable X-Service-Signature"})
        if not v1:
            return self.answer(400, {"error": "no v1 signature"})
        if abs(time.time() - ts) > TOLERANCE:
            return self.answer(401, {"error": "stale timestamp"})
        signed = t.encode() + b"." + raw
        expected = [hmac.new(s.encode(), signed, hashlib.sha256).hexdigest().encode() for s in SECRETS]
        if not any(hmac.compare_digest(e, sig.lower().encode()) for e in expected for sig in v1):
            return self.answer(401, {"error": "invalid signature"})
        try:
            event = json.loads(raw)
            event_id = event["event_id"]
        except (ValueError, TypeError, KeyError):
            event_id = None
        if not isinstance(event_id, str) or not event_id:
            return self.answer(400, {"error": "body is not a notification"})
        with lock:
            duplicate = event_id in seen
            seen.add(event_id)
        if not duplicate:
            print(json.dumps(event), file=sys.stderr, flush=True)
        self.answer(200, {"received": True, "duplicate": duplicate})

    def do_GET(self):
        self.answer(405, {"error": "POST only"})

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    if not SECRETS:
        sys.exit("endpoint.py: no webhook secret (argv or WEBHOOK_SECRETS)")
    server = ThreadingHTTPServer((os.environ.get("ENDPOINT_HOST", "127.0.0.1"), PORT), Webhook)
    print(server.server_address[1], flush=True)
    server.serve_forever()
