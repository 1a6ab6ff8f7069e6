package firmakit

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sentinel errors of request and webhook verification. Verifiers wrap them
// with %w and a detail; callers test them with errors.Is.
var (
	// ErrMissingHeaders: a required header is absent or empty (400).
	ErrMissingHeaders = errors.New("Missing headers")
	// ErrExpired: the timestamp is not a number or is outside the tolerance (401).
	ErrExpired = errors.New("Request expired")
	// ErrTooOld: the timestamp is older than the tolerance. It matches
	// ErrExpired too, and reads as it, so the service's answer is the same.
	ErrTooOld error = &expiredError{"old"}
	// ErrTooNew: the timestamp is further in the future than the
	// tolerance. It matches ErrExpired too.
	ErrTooNew error = &expiredError{"new"}
	// ErrMalformedTimestamp: the timestamp is not a Unix time in base-10
	// seconds. It matches ErrExpired too.
	ErrMalformedTimestamp error = &expiredError{"malformed"}
	// ErrInvalidCredentials: the key is unknown, disabled or another merchant's (401).
	ErrInvalidCredentials = errors.New("Invalid credentials")
	// ErrInvalidSignature: the signature is malformed or does not match (401).
	ErrInvalidSignature = errors.New("Invalid signature")
	// ErrMalformedHeader: a webhook signature header that cannot be parsed.
	ErrMalformedHeader = errors.New("malformed signature header")
)

type encoding struct {
	encode func([]byte) string
	decode func(string) ([]byte, error)
	// decodeInto and decodedLen, when set, decode without allocating.
	decodeInto func(dst []byte, src string) (int, error)
	decodedLen func(n int) int
}

func encodingOf(name string) (encoding, error) {
	switch strings.ToLower(name) {
	case "hex":
		return encoding{encode: hex.EncodeToString, decode: hex.DecodeString,
			decodeInto: func(dst []byte, src string) (int, error) {
				if len(src)%2 == 1 || len(src)/2 > len(dst) {
					return 0, hex.ErrLength
				}
				for i := 0; i < len(src); i += 2 {
					hi, ok1 := unhex(src[i])
					lo, ok2 := unhex(src[i+1])
					if !ok1 || !ok2 {
						return 0, hex.InvalidByteError(src[i])
					}
					dst[i/2] = hi<<4 | lo
				}
				return len(src) / 2, nil
			},
			decodedLen: func(n int) int { return n / 2 }}, nil
	case "base64":
		return encoding{encode: base64.StdEncoding.EncodeToString, decode: decodeBase64(base64.StdEncoding)}, nil
	case "base64url":
		return encoding{encode: base64.URLEncoding.EncodeToString, decode: decodeBase64(base64.URLEncoding)}, nil
	}
	return encoding{}, fmt.Errorf("unknown encoding %q (want hex, base64 or base64url)", name)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeBase64 accepts the padded and the unpadded form, as senders differ.
func decodeBase64(enc *base64.Encoding) func(string) ([]byte, error) {
	return func(s string) ([]byte, error) {
		if strings.HasSuffix(s, "=") {
			return enc.DecodeString(s)
		}
		return enc.WithPadding(base64.NoPadding).DecodeString(s)
	}
}

// mac is the one HMAC implementation of firmakit. Every signature, of a
// request or a webhook, made or checked, goes through it.
type mac struct {
	newHash func() hash.Hash
	enc     encoding
	size    int
}

func newMAC(hashName, encName string) (mac, error) {
	h, err := hashFunc(hashName)
	if err != nil {
		return mac{}, err
	}
	e, err := encodingOf(encName)
	if err != nil {
		return mac{}, err
	}
	return mac{newHash: h, enc: e, size: h().Size()}, nil
}

// sum returns HMAC(secret, parts joined by sep) without building the joined
// string, so that a large body is hashed in place.
func (m mac) sum(secret []byte, sep string, parts ...[]byte) []byte {
	h := hmac.New(m.newHash, secret)
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte(sep))
		}
		h.Write(p)
	}
	return h.Sum(make([]byte, 0, m.size))
}

// equal decodes sig and compares it with want in constant time. A signature
// that does not decode, or decodes to another length, never matches.
func (m mac) equal(want []byte, sig string) bool {
	got, err := m.enc.decode(sig)
	if err != nil || len(got) != len(want) {
		return false
	}
	return hmac.Equal(got, want)
}

var macCache sync.Map // "hash/encoding" -> mac

func cachedMAC(hashName, encName string) mac {
	k := hashName + "/" + encName
	if m, ok := macCache.Load(k); ok {
		return m.(mac)
	}
	m, err := newMAC(hashName, encName)
	if err != nil {
		// Profiles are validated when loaded; reaching this is a programming error.
		panic("firmakit: " + err.Error())
	}
	macCache.Store(k, m)
	return m
}

// RequestParts is what a request signature covers.
type RequestParts struct {
	Timestamp     string // the timestamp header's value exactly as sent
	Method        string
	RequestTarget string // path as sent on the wire, plus "?" and the raw query if any
	KeyID         string
	Body          []byte
}

// RequestTarget returns the request target of r as the profile signs it:
// the path exactly as sent (percent-encoding kept) plus "?" and the raw query.
// A server request carries it in RequestURI, whatever routing does to
// r.URL; an absolute-form target (http://host/path) is cut to its path.
// A client request, which has no RequestURI, is read from its URL.
func RequestTarget(r *http.Request) string {
	if t := r.RequestURI; t != "" {
		if strings.HasPrefix(t, "/") {
			return t
		}
		if _, rest, ok := strings.Cut(t, "://"); ok {
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				if rest[i] == '?' {
					return "/" + rest[i:]
				}
				return rest[i:]
			}
			return "/"
		}
	}
	t := r.URL.EscapedPath()
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		t += "?" + r.URL.RawQuery
	}
	return t
}

// StringToSign returns the exact bytes a request signature covers, for
// showing to a merchant who debugs its own signing code.
func (p *Profile) StringToSign(rp RequestParts) []byte {
	return p.appendSigned(nil, &rp, func(buf []byte) []byte { return append(buf, rp.Body...) }, false)
}

// appendSigned appends the string to sign to buf. At the body part it
// calls atBody with what it has gathered and goes on with what atBody
// returns, so that a MAC can take the body in place instead of a copy.
// keepMethod writes the method as given instead of upper case, as a
// client that forgets to upper-case it signs (DiagnoseRequest tries it).
func (p *Profile) appendSigned(buf []byte, rp *RequestParts, atBody func([]byte) []byte, keepMethod bool) []byte {
	for i, name := range p.Request.StringToSign {
		if i > 0 {
			buf = append(buf, p.Request.Separator...)
		}
		switch name {
		case PartTimestamp:
			buf = append(buf, rp.Timestamp...)
		case PartMethod:
			for j := 0; j < len(rp.Method); j++ {
				c := rp.Method[j]
				if 'a' <= c && c <= 'z' && !keepMethod {
					c -= 'a' - 'A'
				}
				buf = append(buf, c)
			}
		case PartRequestTarget:
			buf = append(buf, rp.RequestTarget...)
		case PartPath:
			path, _, _ := strings.Cut(rp.RequestTarget, "?")
			buf = append(buf, path...)
		case PartKey:
			buf = append(buf, rp.KeyID...)
		case PartBody:
			buf = atBody(buf)
		}
	}
	return buf
}

// RequestSignature returns the encoded signature of a request under the profile.
func (p *Profile) RequestSignature(secret string, rp RequestParts) string {
	m := cachedMAC(p.Request.Hash, p.Request.Encoding)
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	return m.enc.encode(p.requestMAC(m, secret, &rp, s))
}

// scratch holds the buffers of one signature computation, pooled so that
// verifying a request allocates little more than the HMAC itself.
type scratch struct{ parts, sum, sig []byte }

var scratchPool = sync.Pool{New: func() any {
	return &scratch{parts: make([]byte, 0, 256), sum: make([]byte, 0, 64), sig: make([]byte, 64)}
}}

// requestMAC streams the string to sign into the HMAC: the short parts are
// gathered in s.parts, the body is written as it is, never copied.
func (p *Profile) requestMAC(m mac, secret string, rp *RequestParts, s *scratch) []byte {
	h := hmac.New(m.newHash, []byte(secret))
	buf := p.appendSigned(s.parts[:0], rp, func(buf []byte) []byte {
		h.Write(buf)
		h.Write(rp.Body)
		return buf[:0]
	}, false)
	h.Write(buf)
	s.parts = buf
	s.sum = h.Sum(s.sum[:0])
	return s.sum
}

// equalScratch is mac.equal decoding into pooled memory.
func (m mac) equalScratch(want []byte, sig string, s *scratch) bool {
	if m.enc.decodeInto != nil {
		if m.enc.decodedLen(len(sig)) != len(want) {
			return false
		}
		n, err := m.enc.decodeInto(s.sig[:cap(s.sig)], sig)
		return err == nil && n == len(want) && hmac.Equal(s.sig[:n], want)
	}
	return m.equal(want, sig)
}

// SignedHeaders returns the three authentication headers for a request made
// at time now.
func (p *Profile) SignedHeaders(keyID, secret, method, target string, body []byte, now time.Time) http.Header {
	ts := strconv.FormatInt(now.Unix(), 10)
	h := http.Header{}
	h.Set(p.Request.KeyHeader, keyID)
	h.Set(p.Request.TimestampHeader, ts)
	h.Set(p.Request.SignatureHeader, p.RequestSignature(secret, RequestParts{
		Timestamp: ts, Method: method, RequestTarget: target, KeyID: keyID, Body: body,
	}))
	return h
}

// SignRequest sets the authentication headers on r for the given body,
// which must be the exact bytes r sends.
func (p *Profile) SignRequest(r *http.Request, keyID, secret string, body []byte, now time.Time) {
	for k, v := range p.SignedHeaders(keyID, secret, r.Method, RequestTarget(r), body, now) {
		r.Header[k] = v
	}
}

// Credential is one key of a merchant: as a merchant's configuration
// writes it (key, secret, disabled), as a verifier looks it up (with its
// merchant), and as a client signs with it. It is the one credential type
// of firmakit.
type Credential struct {
	KeyID      string `yaml:"key" json:"key"`
	Secret     string `yaml:"secret" json:"-"`
	MerchantID string `yaml:"-" json:"merchant_id,omitempty"`
	Disabled   bool   `yaml:"disabled" json:"disabled,omitempty"`
}

// Given tells whether both the key id and the secret were supplied.
func (c Credential) Given() bool { return c.KeyID != "" && c.Secret != "" }

// CredentialLookup finds a credential by key id; ok is false when unknown.
type CredentialLookup func(keyID string) (cred Credential, ok bool)

// RequestAuth is the headers of a request that carry its authentication.
type RequestAuth struct {
	KeyID, Timestamp, Signature string
}

// RequestAuthFrom reads the authentication headers of h under the profile.
// A header sent twice with different values counts as missing, since a
// verifier can't know which one was signed.
func (p *Profile) RequestAuthFrom(h http.Header) (RequestAuth, error) {
	var a RequestAuth
	var missing []string
	for _, f := range []struct {
		name string
		dst  *string
	}{{p.Request.KeyHeader, &a.KeyID}, {p.Request.TimestampHeader, &a.Timestamp}, {p.Request.SignatureHeader, &a.Signature}} {
		vals := h[f.name]
		if vals == nil {
			vals = h.Values(f.name)
		}
		v := ""
		for i, o := range vals {
			if o = strings.TrimSpace(o); i == 0 {
				v = o
			} else if o != v {
				v = ""
			}
		}
		if v == "" {
			missing = append(missing, f.name)
		}
		*f.dst = v
	}
	if len(missing) > 0 {
		return a, fmt.Errorf("%w: %s", ErrMissingHeaders, strings.Join(missing, ", "))
	}
	return a, nil
}

// CheckTimestamp checks a request timestamp against now and the
// profile's tolerance, in both directions.
func (p *Profile) CheckTimestamp(ts string, now time.Time) error {
	return checkTimestamp(ts, now, p.Request.Tolerance)
}

// expiredError is the type of the sentinels that tell why a timestamp was
// refused; each is a kind of ErrExpired and reads as it.
type expiredError struct{ kind string }

func (e *expiredError) Error() string        { return ErrExpired.Error() }
func (e *expiredError) Is(target error) bool { return target == ErrExpired }

func checkTimestamp(ts string, now time.Time, tolerance time.Duration) error {
	// Leading zeros are base-10 digits too ("01763805600" is valid, and
	// signed as sent); only the significant digits are bounded.
	if ts == "" || len(strings.TrimLeft(ts, "0")) > 18 {
		return fmt.Errorf("%w: timestamp %q is not a Unix time in seconds", ErrMalformedTimestamp, ClipBytes(ts, 40))
	}
	for i := 0; i < len(ts); i++ {
		if ts[i] < '0' || ts[i] > '9' {
			return fmt.Errorf("%w: timestamp %q is not a Unix time in seconds", ErrMalformedTimestamp, ClipBytes(ts, 40))
		}
	}
	sec, _ := strconv.ParseInt(strings.TrimLeft(ts, "0"), 10, 64)
	skew := now.Unix() - sec
	tol := int64(tolerance / time.Second)
	switch {
	case skew > tol:
		return fmt.Errorf("%w: timestamp is %ds old (tolerance %ds)", ErrTooOld, skew, tol)
	case -skew > tol:
		return fmt.Errorf("%w: timestamp is %ds in the future (tolerance %ds)", ErrTooNew, -skew, tol)
	}
	return nil
}

// VerifyRequest runs checks 1 to 4 of defaults.md A in order and returns the
// first failure, wrapping ErrMissingHeaders, ErrExpired,
// ErrInvalidCredentials or ErrInvalidSignature. body is read only by check 4:
// it is called once the headers, time and credentials have passed, so that
// a server can refuse those without reading a body at all.
func (p *Profile) VerifyRequest(method, target, merchantID string, h http.Header, lookup CredentialLookup, now time.Time, body func() ([]byte, error)) (Credential, error) {
	a, err := p.RequestAuthFrom(h)
	if err != nil {
		return Credential{}, err
	}
	if err := p.CheckTimestamp(a.Timestamp, now); err != nil {
		return Credential{}, err
	}
	cred, ok := lookup(a.KeyID)
	switch {
	case !ok:
		return Credential{}, fmt.Errorf("%w: unknown key", ErrInvalidCredentials)
	case cred.Disabled:
		return Credential{}, fmt.Errorf("%w: key is disabled", ErrInvalidCredentials)
	case cred.MerchantID != merchantID:
		return Credential{}, fmt.Errorf("%w: key belongs to another merchant", ErrInvalidCredentials)
	}
	b, err := body()
	if err != nil {
		return cred, err
	}
	m := cachedMAC(p.Request.Hash, p.Request.Encoding)
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	rp := RequestParts{Timestamp: a.Timestamp, Method: method, RequestTarget: target, KeyID: a.KeyID, Body: b}
	if !m.equalScratch(p.requestMAC(m, cred.Secret, &rp, s), a.Signature, s) {
		return cred, fmt.Errorf("%w: signature does not match the request", ErrInvalidSignature)
	}
	return cred, nil
}

// DecodeRequestSignature decodes a request signature written in the
// profile's encoding, as a server does before comparing it.
func (p *Profile) DecodeRequestSignature(sig string) ([]byte, error) {
	e, err := encodingOf(p.Request.Encoding)
	if err != nil {
		return nil, err
	}
	return e.decode(sig)
}

// EncodeRequestSignature writes signature bytes in the profile's request
// encoding.
func (p *Profile) EncodeRequestSignature(b []byte) string {
	e, err := encodingOf(p.Request.Encoding)
	if err != nil {
		return ""
	}
	return e.encode(b)
}
