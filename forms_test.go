package firmakit_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimestampText(t *testing.T) {
	now := time.Unix(1763805600, 250e6)
	for form, want := range map[string]string{
		"{now}":        "1763805600",
		"0{now}":       "01763805600",
		"{now}.5":      "1763805600.5",
		"{now-ms}":     "1763805600250",
		"0x{now-hex}":  "0x692189a0",
		"{now-spaced}": "17638 05600",
		"yesterday":    "yesterday",
	} {
		assert.Equal(t, want, firmakit.TimestampText(form, now), form)
	}
}

// Each form of the test vector's signature (defaults.md A): the same
// bytes written otherwise, or other bytes.
func TestRewriteSignature(t *testing.T) {
	p := firmakit.BundledProfile()
	for form, want := range map[string]string{
		firmakit.SignatureUpper:        "93BA2FAF7E5ECECABF3335C35CD0CFB586A26C6A9152DC955176A85397188C5B",
		firmakit.SignatureBase64:       "k7ovr35ezsq/MzXDXNDPtYaibGqRUtyVUXaoU5cYjFs=",
		firmakit.SignatureHex:          vectorSig,
		firmakit.SignatureCut:          vectorSig[:63],
		firmakit.SignatureSHA256Prefix: "sha256=" + vectorSig,
		firmakit.SignatureWrong:        "92" + vectorSig[2:],
	} {
		got, err := p.RewriteSignature(vectorSig, form)
		require.NoError(t, err, form)
		assert.Equal(t, want, got, form)
	}
	_, err := p.RewriteSignature(vectorSig, "lower")
	assert.True(t, errors.Is(err, firmakit.ErrSignatureForm), "%v", err)
	b64, err := firmakit.ParseProfile([]byte("request:\n  encoding: base64\n"))
	require.NoError(t, err)
	_, err = b64.RewriteSignature("k7ovr35ezsq/MzXDXNDPtYaibGqRUtyVUXaoU5cYjFs=", firmakit.SignatureUpper)
	assert.True(t, errors.Is(err, firmakit.ErrSignatureForm), "upper case is a form of hex only: %v", err)
	hex, err := b64.RewriteSignature("k7ovr35ezsq/MzXDXNDPtYaibGqRUtyVUXaoU5cYjFs=", firmakit.SignatureHex)
	require.NoError(t, err)
	assert.Equal(t, vectorSig, hex)
}

// A quoted word reaches a program byte for byte through a shell.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `{"title":"Contrato \t"}`, "a\tb\nc", "\xff\xfe", "ñandú 😀", `back\slash`, "$HOME `x` \"q\""} {
		q := firmakit.ShellQuote(s)
		for _, shell := range []string{"sh", "bash"} {
			if _, err := exec.LookPath(shell); err != nil {
				continue
			}
			out, err := exec.Command(shell, "-c", "printf %s "+q).Output()
			require.NoError(t, err, "%s: %s", shell, q)
			assert.Equal(t, s, string(out), "%s: %s", shell, q)
		}
	}
	assert.Equal(t, `'it'\''s'`, firmakit.ShellQuote("it's"))
}

func TestPrintable(t *testing.T) {
	for s, want := range map[string]bool{"": true, `{"a":"\t"}`: true, "ñandú 😀": true, "a\tb": false, "a\nb": false, "\xff": false, "\x7f": false, "\u0085": false, "a\u202eb": false, "a\u2028b": false} {
		assert.Equal(t, want, firmakit.Printable(s), "%q", s)
	}
}

func TestSignHeadersWritesTheAuthenticationOtherwise(t *testing.T) {
	p := firmakit.BundledProfile()
	now := time.Unix(1795000000, 0)
	parts := firmakit.RequestParts{Method: "POST", RequestTarget: "/v1/check/m", Body: []byte("{}")}

	right := http.Header{}
	signed, err := p.SignHeaders(right, "k", "s", parts, now, firmakit.Otherwise{})
	require.NoError(t, err)
	assert.Equal(t, "1795000000", right.Get(p.Request.TimestampHeader))
	assert.Equal(t, p.RequestSignature("s", signed), right.Get(p.Request.SignatureHeader))
	req := httptest.NewRequest("POST", "/v1/check/m", strings.NewReader("{}"))
	p.SignRequest(req, "k", "s", []byte("{}"), now)
	for _, h := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		assert.Equal(t, req.Header.Get(h), right.Get(h), "the same headers as SignRequest: %s", h)
	}

	h := http.Header{}
	_, err = p.SignHeaders(h, "k", "s", parts, now, firmakit.Otherwise{Stamp: "0{now}", SigForm: firmakit.SignatureUpper, Omit: []string{"key"}, Empty: []string{"signature"}})
	require.NoError(t, err)
	assert.Equal(t, "01795000000", h.Get(p.Request.TimestampHeader))
	assert.NotContains(t, h, http.CanonicalHeaderKey(p.Request.KeyHeader))
	assert.Equal(t, []string{""}, h[http.CanonicalHeaderKey(p.Request.SignatureHeader)])

	_, err = p.SignHeaders(http.Header{}, "k", "s", parts, now, firmakit.Otherwise{Omit: []string{"date"}})
	assert.ErrorContains(t, err, `"date" is no authentication header's role`)
	_, err = p.SignHeaders(http.Header{}, "k", "s", parts, now, firmakit.Otherwise{SigForm: "rot13"})
	assert.ErrorIs(t, err, firmakit.ErrSignatureForm)
}

func TestCurlLine(t *testing.T) {
	h := http.Header{"X-B": {"it's"}, "X-A": {""}, "Content-Type": {"text/plain"}}
	assert.Equal(t, `curl -sS --globoff --path-as-is -X POST 'http://h/v1/check/m?a=[1]' -H 'Content-Type: application/json' -H 'X-A;' -H 'X-B: it'\''s' --data-binary '{}'`,
		firmakit.CurlLine("POST", "http://h/v1/check/m?a=[1]", h, []byte("{}"), ""))
	assert.Equal(t, `curl -sS --globoff --path-as-is -X POST 'http://h/' -H 'Content-Type: application/json' --data-binary '@my body.json'`,
		firmakit.CurlLine("POST", "http://h/", nil, []byte("ignored"), "my body.json"))
}
