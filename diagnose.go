package firmakit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// EscapeStringToSign writes a string to sign on one line, so that a
// merchant can compare it byte for byte with its own: it is Go's
// double-quoted string syntax (strconv.Quote), surrounding quotes
// included. A line feed is written \n, a carriage return \r, a tab \t, a
// backslash \\ and a double quote \"; other control characters and
// non-printable runes are \a, \v, \xNN, \uNNNN or \UNNNNNNNN, and a byte
// that is not valid UTF-8 is \xNN; printable characters, non-ASCII ones
// included, stay as they are. strconv.Unquote gives the bytes back; a JSON
// decoder does not (JSON has no \a, \v, \x nor \U escapes). 'firmakit
// sign' prints the string to sign this way, and so does the diagnostic of a
// refused request.
func EscapeStringToSign(b []byte) string { return strconv.Quote(string(b)) }

// escapeClip is EscapeStringToSign of the longest prefix of b whose
// escaped form, quotes left out, has at most n bytes: it cuts between two
// escapes, never inside one, and never inside a UTF-8 character. cut tells
// whether b was longer. Only the prefix is copied, so a large b costs what
// is shown, not its size.
func escapeClip(b []byte, n int) (quoted string, cut bool) {
	width := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if width += escapedWidth(r, size); width > n {
			return strconv.Quote(string(b[:i])), true
		}
		i += size
	}
	return strconv.Quote(string(b)), false
}

// escapedWidth is how many bytes strconv.Quote writes for one rune of
// size bytes (r is utf8.RuneError with size 1 for a byte that is not
// UTF-8).
func escapedWidth(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 4 // \xNN
	case r == '"' || r == '\\':
		return 2
	case r < utf8.RuneSelf && strconv.IsPrint(r):
		return 1
	case r < ' ' || r == 0x7f:
		if strings.ContainsRune("\a\b\f\n\r\t\v", r) {
			return 2
		}
		return 4
	case strconv.IsPrint(r):
		return size
	case r < 0x10000:
		return 6 // \uNNNN
	}
	return 10 // \UNNNNNNNN
}

// needsEscape tells whether s holds a byte that is not UTF-8 or a
// character that is not printable: what a JSON string would turn into
// U+FFFD or hide from a reader.
func needsEscape(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return true
		}
	}
	return false
}

// escapedField is EscapeStringToSign of s cut at n escaped bytes, for a
// field that shows s as received, or "" when s needs no escape.
func escapedField(s string, n int) string {
	if !needsEscape(s) {
		return ""
	}
	q, _ := escapeClip([]byte(s), n)
	return q
}

// MaxDiagnosticStringToSign is how many bytes of the escaped string to
// sign a diagnostic shows, quotes left out; a longer one (a large body)
// is cut there, between two escapes, and marked truncated, with its full
// length in StringToSignBytes.
const MaxDiagnosticStringToSign = 16 << 10

// MaxLoggedStringToSign is how many bytes of the escaped string to sign,
// up to the body, the logged copy of a diagnostic keeps (Diagnostic.Logged).
const MaxLoggedStringToSign = 2 << 10

// How many bytes of a header's value, and of the target, a diagnostic
// shows, so that a server that keeps diagnostics keeps little; their
// escaped forms are cut at as many escaped bytes.
const (
	maxDiagnosticHeader = 512
	maxDiagnosticTarget = 2048
)

// BodyVariantsMax is the largest body whose variants (without its final
// line break, re-encoded as compact JSON) a diagnostic signs to tell
// whether the client signed one of them: each costs a pass over the body.
const BodyVariantsMax = 64 << 10

// Diagnostic tells a merchant's developer why a request was refused
// authentication, from what the server received. It holds nothing secret:
// never a credential's secret nor the signature the server expected (that
// would let anyone sign with a secret it does not know). Servers add it to
// their refusals only when asked to (firmakit serve --explain).
type Diagnostic struct {
	// CauseCode is the most likely cause, stable for programs (see the
	// Cause… constants); Cause says it in plain English.
	CauseCode string `json:"cause_code"`
	Cause     string `json:"cause"`
	// Method and RequestTarget are the request's method and target as received
	// (the path exactly as sent, plus "?" and the raw query).
	// RequestTargetEscaped is the target written by EscapeStringToSign, present
	// only when the target holds bytes that are not UTF-8 or characters
	// that are not printable, which a JSON string cannot show as sent.
	Method               string `json:"method"`
	RequestTarget        string `json:"target"`
	RequestTargetEscaped string `json:"target_escaped,omitempty"`
	// Headers are the profile's authentication headers, in the profile's
	// names, with their values as received.
	Headers []HeaderSeen `json:"headers"`
	// ServerTime is the server's clock in Unix seconds; Timestamp the
	// timestamp header as sent; ClockDifferenceSeconds is the timestamp
	// minus ServerTime (positive: the client's clock is ahead), present
	// when the timestamp is a whole number.
	ServerTime             int64  `json:"server_time"`
	Timestamp              string `json:"timestamp"`
	ClockDifferenceSeconds *int64 `json:"clock_difference_seconds,omitempty"`
	// BodyRead tells whether the server has the body's bytes; BodyBytes
	// and BodySHA256 (lower-case hex) describe them. BodyNote says why the
	// body was not read, or that it was read only for this diagnostic.
	BodyRead   bool   `json:"body_read"`
	BodyBytes  *int   `json:"body_bytes,omitempty"`
	BodySHA256 string `json:"body_sha256,omitempty"`
	BodyNote   string `json:"body_note,omitempty"`
	// StringToSign is what the server signs for this request, written by
	// EscapeStringToSign, and StringToSignBytes its length in bytes. It is
	// absent when the request lacks a part of it, and then
	// StringToSignNote says which. The logged copy (Logged) stops before
	// the body, and StringToSignNote says so.
	StringToSign          string `json:"string_to_sign,omitempty"`
	StringToSignBytes     int    `json:"string_to_sign_bytes,omitempty"`
	StringToSignTruncated bool   `json:"string_to_sign_truncated,omitempty"`
	StringToSignNote      string `json:"string_to_sign_note,omitempty"`

	// beforeBody is the escaped string to sign up to the body, for the
	// logged copy; cutBeforeBody tells that something follows it.
	beforeBody    string
	cutBeforeBody bool
	// signatureHeader names the header whose value the logged copy
	// replaces by its length in characters, signatureLength.
	signatureHeader string
	signatureLength int
}

// CauseInvalidCredentials is the one cause code of a check 3 refusal in
// the logged copy of a diagnostic (Logged), which does not say whether
// the key is unknown, disabled or another merchant's.
const CauseInvalidCredentials = "invalid_credentials"

// Logged returns the copy of d that a server may keep and show to others
// than the client it answered (GET /_sandbox/requests, a receiver's
// dashboard): it must not let a reader replay the request, nor read its
// body, nor learn which keys exist. So the signature header's value is
// replaced by its length, the string to sign stops before the body (the
// body is told by body_bytes and body_sha256 only), and the causes of
// check 3 become CauseInvalidCredentials.
func (d *Diagnostic) Logged() *Diagnostic {
	if d == nil {
		return nil
	}
	l := *d
	l.beforeBody, l.cutBeforeBody = "", false
	l.Headers = append([]HeaderSeen(nil), d.Headers...)
	for i, h := range l.Headers {
		if h.Name == d.signatureHeader && h.Value != "" {
			l.Headers[i] = HeaderSeen{Name: h.Name, Value: fmt.Sprintf("(%d characters, not logged)", d.signatureLength), Missing: h.Missing}
		}
	}
	switch d.CauseCode {
	case CauseUnknownKey, CauseDisabledKey, CauseOtherMerchantKey:
		l.CauseCode = CauseInvalidCredentials
		l.Cause = "the key is unknown, disabled, or another merchant's than the one of the path (the answer to the client says which; the log does not)"
	}
	if d.StringToSign != "" {
		l.StringToSign, l.StringToSignTruncated = d.beforeBody, d.cutBeforeBody
		if d.cutBeforeBody {
			l.StringToSignNote = "logged up to the body only: the body is not logged (body_bytes and body_sha256 tell it), the client's answer has it all"
		}
	}
	return &l
}

// HeaderSeen is one authentication header as a server received it.
// Missing is true when it is absent, empty, or sent several times with
// different values (then Value joins them with ", ").
// ValueEscaped is Value written by EscapeStringToSign, present only when
// the value holds bytes that are not UTF-8 or characters that are not
// printable.
type HeaderSeen struct {
	Name         string `json:"name"`
	Value        string `json:"value"`
	ValueEscaped string `json:"value_escaped,omitempty"`
	Missing      bool   `json:"missing,omitempty"`
}

// RequestSeen is what a server received of a refused request, for
// DiagnoseRequest.
type RequestSeen struct {
	Method        string
	RequestTarget string // as the func RequestTarget returns it
	MerchantID    string // the merchant of the path
	Header        http.Header
	// Body holds the bytes read when BodyRead is true; BodyNote says
	// why it was not read, or how it was.
	Body     []byte
	BodyRead bool
	BodyNote string
}

// DiagnoseRequest explains why VerifyRequest refused a request with
// verifyErr: what the server saw, the string to sign it built, and the
// most likely cause. To tell causes apart it signs variants of the request
// with the credential's secret (the body as signed by a client that
// re-encodes it, the target without its query, …) and compares them with
// the signature sent; neither the secret nor any signature it computes
// appears in the result. lookup is the verifier's.
func (p *Profile) DiagnoseRequest(req RequestSeen, verifyErr error, lookup CredentialLookup, now time.Time) *Diagnostic {
	d := &Diagnostic{Method: ClipBytes(req.Method, maxDiagnosticHeader), RequestTarget: ClipBytes(req.RequestTarget, maxDiagnosticTarget),
		RequestTargetEscaped: escapedField(req.RequestTarget, maxDiagnosticTarget), ServerTime: now.Unix(), BodyRead: req.BodyRead, BodyNote: req.BodyNote}
	f := &findings{profile: p, err: verifyErr, req: req, now: now}
	f.auth, _ = p.RequestAuthFrom(req.Header)
	for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		joined := strings.Join(req.Header.Values(name), ", ")
		h := HeaderSeen{Name: name, Value: ClipBytes(joined, maxDiagnosticHeader), ValueEscaped: escapedField(joined, maxDiagnosticHeader)}
		switch name {
		case p.Request.KeyHeader:
			h.Missing = f.auth.KeyID == ""
		case p.Request.TimestampHeader:
			h.Missing = f.auth.Timestamp == ""
		default:
			h.Missing = f.auth.Signature == ""
			d.signatureHeader, d.signatureLength = name, utf8.RuneCountInString(joined)
		}
		if h.Missing {
			f.missing = append(f.missing, name)
		}
		d.Headers = append(d.Headers, h)
	}
	d.Timestamp = ClipBytes(strings.Join(req.Header.Values(p.Request.TimestampHeader), ", "), maxDiagnosticHeader)
	if ts, ok := unixSeconds(f.auth.Timestamp); ok {
		diff := ts - now.Unix()
		d.ClockDifferenceSeconds = &diff
		f.ts, f.tsOK = ts, true
	}
	if req.BodyRead {
		n := len(req.Body)
		sum := sha256.Sum256(req.Body)
		d.BodyBytes, d.BodySHA256 = &n, hex.EncodeToString(sum[:])
	}
	if note := p.missingPart(f); note != "" {
		d.StringToSignNote = note
	} else {
		rp := f.parts()
		// Only what is shown is copied: at most one raw byte per escaped
		// byte, plus the rest of a character.
		prefix, total, bodyAt := p.signedPrefix(&rp, MaxDiagnosticStringToSign+utf8.UTFMax)
		d.StringToSignBytes = total
		d.StringToSign, d.StringToSignTruncated = escapeClip(prefix, MaxDiagnosticStringToSign)
		d.StringToSignTruncated = d.StringToSignTruncated || len(prefix) < total
		before := prefix
		if bodyAt >= 0 {
			before = prefix[:bodyAt]
		}
		d.beforeBody, d.cutBeforeBody = escapeClip(before, MaxLoggedStringToSign)
		d.cutBeforeBody = d.cutBeforeBody || len(before) < total
	}
	if lookup != nil && f.auth.KeyID != "" {
		f.cred, f.credOK = lookup(f.auth.KeyID)
	}
	d.CauseCode, d.Cause = diagnose(f)
	return d
}

// signedPrefix returns the start of rp's string to sign: all of it when
// it has at most limit bytes, else at least limit bytes of it. It also
// returns the full length, and where the body starts (-1 when the profile
// signs no body). The body is copied only as far as the prefix goes.
func (p *Profile) signedPrefix(rp *RequestParts, limit int) (prefix []byte, total, bodyAt int) {
	bodyAt, kept := -1, 0
	buf := p.appendSigned(nil, rp, func(buf []byte) []byte {
		bodyAt = len(buf)
		kept = min(len(rp.Body), max(limit-len(buf), 0))
		return append(buf, rp.Body[:kept]...)
	}, false)
	total = len(buf)
	if bodyAt >= 0 && kept < len(rp.Body) {
		total += len(rp.Body) - kept
		buf = buf[:bodyAt+kept] // what follows the body is past the limit
	}
	return buf, total, bodyAt
}

// missingPart says which part of the string to sign the request lacks,
// "" when it has them all.
func (p *Profile) missingPart(f *findings) string {
	for _, part := range p.Request.StringToSign {
		switch {
		case part == PartTimestamp && f.auth.Timestamp == "":
			return "not built: the " + p.Request.TimestampHeader + " header is missing, and it is part of the string to sign"
		case part == PartKey && f.auth.KeyID == "":
			return "not built: the " + p.Request.KeyHeader + " header is missing, and it is part of the string to sign"
		case part == PartBody && !f.req.BodyRead:
			return "not built: the body was not read"
		}
	}
	return ""
}

// unixSeconds parses a timestamp the way the verifier does: base-10
// digits only.
func unixSeconds(ts string) (int64, bool) {
	if ts == "" || len(ts) > 18 {
		return 0, false
	}
	for i := 0; i < len(ts); i++ {
		if ts[i] < '0' || ts[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	return n, err == nil
}

// findings is what the cause rules look at.
type findings struct {
	profile *Profile
	err     error
	req     RequestSeen
	now     time.Time
	auth    RequestAuth
	missing []string
	ts      int64
	tsOK    bool
	cred    Credential
	credOK  bool
}

// parts are the request's parts as the verifier signs them.
func (f *findings) parts() RequestParts {
	return RequestParts{Timestamp: f.auth.Timestamp, Method: f.req.Method, RequestTarget: f.req.RequestTarget, KeyID: f.auth.KeyID, Body: f.req.Body}
}

// signedWith tells whether the signature sent is the one of rp under the
// credential's secret; keepMethod signs the method as given instead of
// upper case. It is false when the server has no secret to try.
func (f *findings) signedWith(rp RequestParts, keepMethod bool) bool {
	if !f.credOK || !f.req.BodyRead {
		return false
	}
	p := f.profile
	m := cachedMAC(p.Request.Hash, p.Request.Encoding)
	h := hmac.New(m.newHash, []byte(f.cred.Secret))
	rest := p.appendSigned(nil, &rp, func(buf []byte) []byte {
		h.Write(buf)
		h.Write(rp.Body) // in place: a large body is never copied
		return buf[:0]
	}, keepMethod)
	h.Write(rest)
	return m.equal(h.Sum(nil), f.auth.Signature)
}

// signatureDecodes tells whether the signature sent is in the profile's
// encoding and of the hash's length.
func (f *findings) signatureDecodes() bool {
	m := cachedMAC(f.profile.Request.Hash, f.profile.Request.Encoding)
	b, err := m.enc.decode(f.auth.Signature)
	return err == nil && len(b) == m.size
}

// is tells whether the verifier's error is one of the sentinels.
func (f *findings) is(target error) bool { return errors.Is(f.err, target) }
