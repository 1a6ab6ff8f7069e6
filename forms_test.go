package firmakit_test

import (
	"errors"
	"os/exec"
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
