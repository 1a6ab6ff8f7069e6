package firmakit

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Written forms of a request's timestamp and signature that differ from
// what a correct client writes: 'firmakit sign' sends them on request, and
// the explorer (package explore) draws them, so that a line of 'firmakit
// sign' reproduces any request the explorer sent.

// TimestampText writes the time now in form, a text in which {now} is
// the Unix time in seconds, {now-ms} in milliseconds, {now-hex} in
// hexadecimal and {now-spaced} in seconds with a space after the fifth
// digit: "0{now}" has a leading zero, "{now}.5" a fraction. The rest of
// form is sent as it is.
func TimestampText(form string, now time.Time) string {
	sec := strconv.FormatInt(now.Unix(), 10)
	spaced := sec
	if len(sec) > 5 {
		spaced = sec[:5] + " " + sec[5:]
	}
	return strings.NewReplacer(
		"{now}", sec,
		"{now-ms}", strconv.FormatInt(now.UnixMilli(), 10),
		"{now-hex}", strconv.FormatInt(now.Unix(), 16),
		"{now-spaced}", spaced,
	).Replace(form)
}

// Forms of a request signature for RewriteSignature.
const (
	// SignatureUpper is a hex signature in upper case: the same bytes,
	// which defaults.md A check 4 accepts.
	SignatureUpper = "upper"
	// SignatureBase64 and SignatureHex are the same bytes in another
	// encoding than the profile's.
	SignatureBase64 = "base64"
	SignatureHex    = "hex"
	// SignatureCut is the signature with its last character cut off.
	SignatureCut = "cut"
	// SignatureSHA256Prefix is "sha256=" before the signature, as some
	// webhook schemes write theirs.
	SignatureSHA256Prefix = "sha256-prefix"
	// SignatureWrong is other bytes of the same length in the profile's
	// encoding: a well-formed signature that does not match.
	SignatureWrong = "wrong"
)

// SignatureForms lists the forms RewriteSignature takes.
var SignatureForms = []string{SignatureUpper, SignatureBase64, SignatureHex, SignatureCut, SignatureSHA256Prefix, SignatureWrong}

// ErrSignatureForm is returned, wrapped, by RewriteSignature for a form
// it does not know or that the profile's encoding has no variant for.
var ErrSignatureForm = errors.New("unknown signature form")

// RewriteSignature writes a request signature made under the profile in
// another form (SignatureForms). It returns an error wrapping
// ErrSignatureForm for an unknown form and for "upper" under an encoding
// other than hex, and the decoding error of a signature that is not in
// the profile's encoding.
func (p *Profile) RewriteSignature(sig, form string) (string, error) {
	switch form {
	case SignatureCut:
		if sig == "" {
			return "", nil
		}
		return sig[:len(sig)-1], nil
	case SignatureSHA256Prefix:
		return "sha256=" + sig, nil
	case SignatureUpper:
		if !strings.EqualFold(p.Request.Encoding, "hex") {
			return "", fmt.Errorf("%w: %q writes hex in upper case, and the profile's signatures are %s", ErrSignatureForm, form, p.Request.Encoding)
		}
		return strings.ToUpper(sig), nil
	case SignatureBase64, SignatureHex, SignatureWrong:
	default:
		return "", fmt.Errorf("%w %q (want one of %s)", ErrSignatureForm, form, strings.Join(SignatureForms, ", "))
	}
	b, err := p.DecodeRequestSignature(sig)
	if err != nil {
		return "", err
	}
	switch form {
	case SignatureBase64:
		return base64.StdEncoding.EncodeToString(b), nil
	case SignatureHex:
		return hex.EncodeToString(b), nil
	}
	if len(b) > 0 {
		b[0] ^= 0x01
	}
	return p.EncodeRequestSignature(b), nil
}

// ShellQuote quotes s as one word of a POSIX shell command line, in
// single quotes: every byte is kept as it is, a line break too, so that a
// caller that wants one printable line keeps other bytes out of it (the
// explorer sends such a body from a file).
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Printable tells whether s reaches a terminal as it is: valid UTF-8
// without control characters, bidirectional controls or line separators,
// which EscapeText would escape.
func Printable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			return false
		}
		i += size
	}
	return true
}

// AuthRoles are the roles of a request's authentication headers, by
// which 'firmakit sign --omit' and --empty, and the explorer, name them.
var AuthRoles = []string{"key", "timestamp", "signature"}

// AuthHeader is the profile's name of a request's authentication header
// by its role (AuthRoles); "" for another word.
func (p *Profile) AuthHeader(role string) string {
	switch role {
	case "key":
		return p.Request.KeyHeader
	case "timestamp":
		return p.Request.TimestampHeader
	case "signature":
		return p.Request.SignatureHeader
	}
	return ""
}

// Otherwise is how a request's authentication is written otherwise than
// a correct client writes it; the zero value writes it right.
type Otherwise struct {
	// Stamp is the timestamp's written form (TimestampText); "" is the
	// Unix time in seconds.
	Stamp string
	// SigForm writes the signature in another form (RewriteSignature).
	SigForm string
	// Omit and Empty are the authentication headers, by role (AuthRoles),
	// left out and sent with an empty value.
	Omit, Empty []string
}

// SignHeaders signs a request at now with the credential (keyID,
// secret) and sets its authentication headers in h, written as o says:
// the one composer of what 'firmakit sign' prints and the explorer sends.
// parts gives the method, the request target and the body; the parts
// signed (their KeyID and Timestamp set) come back. An unknown role or
// signature form is an error.
func (p *Profile) SignHeaders(h http.Header, keyID, secret string, parts RequestParts, now time.Time, o Otherwise) (RequestParts, error) {
	parts.KeyID, parts.Timestamp = keyID, strconv.FormatInt(now.Unix(), 10)
	if o.Stamp != "" {
		parts.Timestamp = TimestampText(o.Stamp, now)
	}
	sig := p.RequestSignature(secret, parts)
	if o.SigForm != "" {
		var err error
		if sig, err = p.RewriteSignature(sig, o.SigForm); err != nil {
			return parts, err
		}
	}
	h.Set(p.Request.KeyHeader, keyID)
	h.Set(p.Request.TimestampHeader, parts.Timestamp)
	h.Set(p.Request.SignatureHeader, sig)
	for _, role := range slices.Concat(o.Empty, o.Omit) {
		if p.AuthHeader(role) == "" {
			return parts, fmt.Errorf("%q is no authentication header's role (want one of %s)", role, strings.Join(AuthRoles, ", "))
		}
	}
	for _, role := range o.Empty {
		h[http.CanonicalHeaderKey(p.AuthHeader(role))] = []string{""}
	}
	for _, role := range o.Omit {
		h.Del(p.AuthHeader(role))
	}
	return parts, nil
}

// CurlLine is a curl command that sends a request with headers h and a
// JSON body: body's bytes, or the file bodyFile holds when it is not "".
// --globoff and --path-as-is make curl send rawURL exactly as signed (no
// [] or {} globbing, no ./ or ../ folding); a header with an empty value
// is sent empty ("Name;"), as "Name:" would send none.
func CurlLine(method, rawURL string, h http.Header, body []byte, bodyFile string) string {
	line := "curl -sS --globoff --path-as-is -X " + method + " " + ShellQuote(rawURL) + " -H 'Content-Type: application/json'"
	for _, k := range slices.Sorted(maps.Keys(h)) {
		switch v := h.Get(k); {
		case strings.EqualFold(k, "Content-Type"):
			// written first, application/json, as signed
		case v != "":
			line += " -H " + ShellQuote(k+": "+v)
		default:
			line += " -H " + ShellQuote(k+";")
		}
	}
	if bodyFile != "" {
		return line + " --data-binary " + ShellQuote("@"+bodyFile)
	}
	return line + " --data-binary " + ShellQuote(string(body))
}
