package firmakit

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Cause codes of a Diagnostic: one per most likely cause of a refusal.
// They are stable; the English text beside them may change.
const (
	CauseMissingHeaders        = "missing_headers"
	CauseTimestampMilliseconds = "timestamp_milliseconds"
	CauseTimestampMicroseconds = "timestamp_microseconds"
	CauseTimestampNanoseconds  = "timestamp_nanoseconds"
	CauseTimestampNotSeconds   = "timestamp_not_seconds"
	CauseClockSkew             = "clock_skew"
	CauseUnknownKey            = "unknown_key"
	CauseDisabledKey           = "disabled_key"
	CauseOtherMerchantKey      = "other_merchant_key"
	CauseSignatureEncoding     = "signature_encoding"
	CauseBodyDiffers           = "body_differs"
	CauseQueryNotSigned        = "query_not_signed"
	CausePathDecoded           = "path_decoded"
	CauseMethodCase            = "method_case"
	CauseSecretOrBytes         = "secret_or_bytes"
	CauseOther                 = "other"
)

// causeRule is one line of the table of causes: the first rule that
// holds for a refusal names its cause.
type causeRule struct {
	code string
	// refusal is the verifier's outcome the rule explains.
	refusal error
	// holds returns the cause in plain English, "" when it does not hold.
	holds func(f *findings) string
}

// causeRules are tried in order. Rules that recompute a signature need
// the credential's secret and the body; without them they do not hold.
var causeRules = []causeRule{
	{CauseMissingHeaders, ErrMissingHeaders, func(f *findings) string {
		return fmt.Sprintf("missing header: %s (absent, empty, or sent twice with different values); send %s, %s and %s on every request",
			strings.Join(f.missing, ", "), f.profile.Request.KeyHeader, f.profile.Request.TimestampHeader, f.profile.Request.SignatureHeader)
	}},
	{CauseTimestampMilliseconds, ErrExpired, func(f *findings) string { return f.timestampUnit(1e3, "milliseconds") }},
	{CauseTimestampMicroseconds, ErrExpired, func(f *findings) string { return f.timestampUnit(1e6, "microseconds") }},
	{CauseTimestampNanoseconds, ErrExpired, func(f *findings) string { return f.timestampUnit(1e9, "nanoseconds") }},
	{CauseTimestampNotSeconds, ErrExpired, func(f *findings) string {
		if f.tsOK {
			return ""
		}
		return fmt.Sprintf("the timestamp %q is not a Unix time in whole seconds: send base-10 digits only, such as %d", ClipBytes(f.auth.Timestamp, 40), f.now.Unix())
	}},
	{CauseClockSkew, ErrExpired, func(f *findings) string {
		diff, tol := f.ts-f.now.Unix(), int64(f.profile.Request.Tolerance/time.Second)
		way := "behind"
		if diff > 0 {
			way = "ahead of"
		}
		return fmt.Sprintf("your timestamp is %d s %s the server's clock, beyond the tolerance of %d s: sign just before sending, and keep your clock in time (NTP)", abs(diff), way, tol)
	}},
	{CauseUnknownKey, ErrInvalidCredentials, func(f *findings) string {
		if f.credOK {
			return ""
		}
		return fmt.Sprintf("the key %q is not a credential of this service: check the value of %s", ClipBytes(f.auth.KeyID, 80), f.profile.Request.KeyHeader)
	}},
	{CauseDisabledKey, ErrInvalidCredentials, func(f *findings) string {
		if !f.cred.Disabled {
			return ""
		}
		return fmt.Sprintf("the key %q is disabled: sign with an enabled credential", f.auth.KeyID)
	}},
	{CauseOtherMerchantKey, ErrInvalidCredentials, func(f *findings) string {
		return fmt.Sprintf("the key %q belongs to another merchant than %q of the path: use a key of %s, or that merchant's id in the path", f.auth.KeyID, ClipBytes(f.req.MerchantID, 80), ClipBytes(f.req.MerchantID, 80))
	}},
	{CauseSignatureEncoding, ErrInvalidSignature, func(f *findings) string {
		if f.signatureDecodes() {
			return ""
		}
		rq := f.profile.Request
		m := cachedMAC(rq.Hash, rq.Encoding)
		want := len(m.enc.encode(make([]byte, m.size)))
		if b, err := m.enc.decode(f.auth.Signature); err == nil {
			return fmt.Sprintf("%s has the wrong length: %d %s characters, the profile's HMAC-%s in %s has %d%s",
				rq.SignatureHeader, len(f.auth.Signature), rq.Encoding, strings.ToUpper(rq.Hash), rq.Encoding, want, hashOfSize(len(b)))
		}
		return fmt.Sprintf("%s is not %s: it should be the %d characters of %s of HMAC-%s, got %d characters",
			rq.SignatureHeader, rq.Encoding, want, rq.Encoding, strings.ToUpper(rq.Hash), len(f.auth.Signature))
	}},
	{CauseBodyDiffers, ErrInvalidSignature, func(f *findings) string {
		for c := range bodyCandidates(f.req.Body) {
			rp := f.parts()
			rp.Body = c.body
			if f.signedWith(rp, false) {
				return fmt.Sprintf("the body you signed differs from the body you sent: %d bytes received, you signed %d bytes (%s); sign the exact bytes you send",
					len(f.req.Body), len(c.body), c.what)
			}
		}
		return ""
	}},
	{CauseQueryNotSigned, ErrInvalidSignature, func(f *findings) string {
		path, _, hasQuery := strings.Cut(f.req.RequestTarget, "?")
		rp := f.parts()
		rp.RequestTarget = path
		if !hasQuery || !f.signedWith(rp, false) {
			return ""
		}
		return fmt.Sprintf("your path includes the query but you did not sign it: sign %q, with the ? and the query", ClipBytes(f.req.RequestTarget, 200))
	}},
	{CausePathDecoded, ErrInvalidSignature, func(f *findings) string {
		rp := f.parts()
		rp.RequestTarget = DecodeRequestTarget(f.req.RequestTarget)
		if rp.RequestTarget == f.req.RequestTarget || !f.signedWith(rp, false) {
			return ""
		}
		return fmt.Sprintf("you signed the target percent-decoded (%q); sign it exactly as sent on the wire: %q", ClipBytes(rp.RequestTarget, 200), ClipBytes(f.req.RequestTarget, 200))
	}},
	{CauseMethodCase, ErrInvalidSignature, func(f *findings) string {
		rp := f.parts()
		rp.Method = strings.ToLower(f.req.Method)
		if !f.signedWith(rp, true) {
			return ""
		}
		return fmt.Sprintf("you signed the method in lower case (%s): sign it in upper case, %s", rp.Method, strings.ToUpper(f.req.Method))
	}},
	{CauseSecretOrBytes, ErrInvalidSignature, func(f *findings) string {
		msg := "the signature does not match: the secret, or the bytes you sign, differ; compare your string to sign with string_to_sign here and with the one 'firmakit sign' prints"
		if len(f.req.Body) > BodyVariantsMax {
			msg += fmt.Sprintf(" (the body is over %d KiB, so the variants a client may have signed instead, without its final line break or re-encoded as compact JSON, were not tried)", BodyVariantsMax>>10)
		}
		return msg
	}},
}

// diagnose returns the code and text of the first rule that holds.
func diagnose(f *findings) (string, string) {
	for _, r := range causeRules {
		if !f.is(r.refusal) {
			continue
		}
		if msg := r.holds(f); msg != "" {
			return r.code, msg
		}
	}
	return CauseOther, "the request was refused before its signature could be checked (" + ClipBytes(f.errText(), 200) + ")"
}

func (f *findings) errText() string {
	if f.err == nil {
		return "no error"
	}
	return f.err.Error()
}

type bodyCandidate struct {
	what string
	body []byte
}

// bodyCandidates yields bodies a client may have signed instead of the one
// it sent, cheapest first, each built only when the one before did not
// match: none, an empty object, and, for a body of at most
// BodyVariantsMax bytes, the body without its final line break and the
// body re-encoded as compact JSON.
func bodyCandidates(sent []byte) iter.Seq[bodyCandidate] {
	return func(yield func(bodyCandidate) bool) {
		if !yield(bodyCandidate{"an empty body", nil}) || !yield(bodyCandidate{"{}", []byte("{}")}) {
			return
		}
		if len(sent) > BodyVariantsMax {
			return
		}
		if t := bytes.TrimRight(sent, "\r\n"); len(t) < len(sent) {
			if !yield(bodyCandidate{"the body without its final line break", t}) {
				return
			}
		}
		var compact bytes.Buffer
		if json.Compact(&compact, sent) == nil && compact.Len() < len(sent) {
			yield(bodyCandidate{"the body re-encoded as compact JSON", compact.Bytes()})
		}
	}
}

// timestampUnit tells, for a timestamp sent in a unit perSecond times
// finer than seconds, that it is in that unit: the digits, read as that
// unit, are within a factor of two of the server's clock. It holds
// whatever the tolerance, since such a value is never a time in seconds.
func (f *findings) timestampUnit(perSecond uint64, unit string) string {
	ts := f.auth.Timestamp
	if ts == "" || len(ts) > 20 || strings.TrimLeft(ts, "0123456789") != "" {
		return ""
	}
	v, err := strconv.ParseUint(ts, 10, 64)
	now := f.now.Unix()
	if err != nil || now <= 0 {
		return ""
	}
	sec := int64(v / perSecond)
	if sec < now/2 || sec > now*2 {
		return ""
	}
	msg := fmt.Sprintf("the timestamp %s is in %s: send Unix time in whole seconds (%d)", ts, unit, sec)
	if tol := int64(f.profile.Request.Tolerance / time.Second); abs(sec-now) > tol {
		msg += fmt.Sprintf("; in seconds it is %d, %d s away from the server's clock, beyond the tolerance of %d s too", sec, abs(sec-now), tol)
	}
	return msg
}

// hashOfSize names the HMAC whose output has n bytes, for a signature of
// the wrong length: a client that signs with another hash.
func hashOfSize(n int) string {
	switch n {
	case sha1.Size:
		return " (the length of an HMAC-SHA1)"
	case sha256.Size:
		return " (the length of an HMAC-SHA256)"
	case sha512.Size384:
		return " (the length of an HMAC-SHA384)"
	case sha512.Size:
		return " (the length of an HMAC-SHA512)"
	}
	return ""
}

// DecodeRequestTarget returns a request target percent-decoded, path and query:
// what a client (or a server) that signs the decoded URL signs instead of
// the target as sent. An escape that does not decode is left as it is.
func DecodeRequestTarget(target string) string {
	path, query, hasQuery := strings.Cut(target, "?")
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	if q, err := url.QueryUnescape(query); err == nil {
		query = q
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
