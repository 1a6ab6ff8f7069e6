package firmakit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/internal/textclip"
)

// EscapeStringToSign writes a string to sign on one line, so that a
// merchant can compare it byte for byte with its own: it is Go's
// double-quoted string syntax (strconv.Quote), surrounding quotes
// included. A line feed is written \n, a carriage return \r, a tab \t, a
// backslash \\ and a double quote \"; other control characters and
// non-printable runes are \xNN, \uNNNN or \UNNNNNNNN, and a byte that is
// not valid UTF-8 is \xNN; printable characters, non-ASCII ones included,
// stay as they are. strconv.Unquote (or a JSON decoder, for text without
// \x escapes) gives the bytes back. 'firmakit sign' prints the string to
// sign this way, and so does the diagnostic of a refused request.
func EscapeStringToSign(b []byte) string { return strconv.Quote(string(b)) }

// MaxDiagnosticStringToSign is how many bytes of the string to sign a
// diagnostic shows; a longer one (a large body) is cut there and marked
// truncated, with its full length in StringToSignBytes.
const MaxDiagnosticStringToSign = 16 << 10

// How many bytes of a header's value, and of the target, a diagnostic
// shows, so that a server that keeps diagnostics keeps little.
const (
	maxDiagnosticHeader = 512
	maxDiagnosticTarget = 2048
)

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
	// Method and Target are the request's method and target as received
	// (the path exactly as sent, plus "?" and the raw query).
	Method string `json:"method"`
	Target string `json:"target"`
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
	// StringToSignNote says which.
	StringToSign          string `json:"string_to_sign,omitempty"`
	StringToSignBytes     int    `json:"string_to_sign_bytes,omitempty"`
	StringToSignTruncated bool   `json:"string_to_sign_truncated,omitempty"`
	StringToSignNote      string `json:"string_to_sign_note,omitempty"`
}

// HeaderSeen is one authentication header as a server received it.
// Missing is true when it is absent, empty, or sent several times with
// different values (then Value joins them with ", ").
type HeaderSeen struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Missing bool   `json:"missing,omitempty"`
}

// RequestSeen is what a server received of a refused request, for
// DiagnoseRequest.
type RequestSeen struct {
	Method     string
	Target     string // as RequestTarget returns it
	MerchantID string // the merchant of the path
	Header     http.Header
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
	d := &Diagnostic{Method: textclip.Bytes(req.Method, maxDiagnosticHeader), Target: textclip.Bytes(req.Target, maxDiagnosticTarget),
		ServerTime: now.Unix(), BodyRead: req.BodyRead, BodyNote: req.BodyNote}
	f := &findings{profile: p, err: verifyErr, req: req, now: now}
	f.auth, _ = p.RequestAuthFrom(req.Header)
	for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		vals := req.Header.Values(name)
		h := HeaderSeen{Name: name, Value: textclip.Bytes(strings.Join(vals, ", "), maxDiagnosticHeader)}
		switch name {
		case p.Request.KeyHeader:
			h.Missing = f.auth.KeyID == ""
		case p.Request.TimestampHeader:
			h.Missing = f.auth.Timestamp == ""
		default:
			h.Missing = f.auth.Signature == ""
		}
		if h.Missing {
			f.missing = append(f.missing, name)
		}
		d.Headers = append(d.Headers, h)
	}
	d.Timestamp = textclip.Bytes(strings.Join(req.Header.Values(p.Request.TimestampHeader), ", "), maxDiagnosticHeader)
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
		sts := p.StringToSign(f.parts())
		d.StringToSignBytes = len(sts)
		if len(sts) > MaxDiagnosticStringToSign {
			sts, d.StringToSignTruncated = sts[:MaxDiagnosticStringToSign], true
		}
		d.StringToSign = EscapeStringToSign(sts)
	}
	if lookup != nil && f.auth.KeyID != "" {
		f.cred, f.credOK = lookup(f.auth.KeyID)
	}
	d.CauseCode, d.Cause = diagnose(f)
	return d
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
	return RequestParts{Timestamp: f.auth.Timestamp, Method: f.req.Method, Target: f.req.Target, KeyID: f.auth.KeyID, Body: f.req.Body}
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
	sts := p.appendSigned(nil, &rp, func(buf []byte) []byte { return append(buf, rp.Body...) }, keepMethod)
	return m.equal(m.sum([]byte(f.cred.Secret), "", sts), f.auth.Signature)
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
