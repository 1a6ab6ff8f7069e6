package webhook_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebhookVectors: the vectors are the suite's deliveries, one per
// row and one more per extra delivery, each with a stable code; the
// profile's verifier and the model endpoint, their clocks at the
// reference time, accept exactly the cases marked accept; and the
// README's Python check agrees.
func TestWebhookVectors(t *testing.T) {
	p := firmakit.BundledProfile()
	at := time.Unix(1795000000, 0)
	v, err := webhook.MakeVectors(p, shopSecret, "shop", at)
	require.NoError(t, err)
	assert.Equal(t, webhook.VectorsVersion, v.Version)
	assert.Equal(t, int64(1795000000), v.ReferenceTime)
	rows, err := webhook.Select("en", "")
	require.NoError(t, err)
	// The generated rows (16) give 9 valid header neighbours, 13 boundary
	// bodies, 3 refused first deliveries (the fourth is cut short: no
	// case) and 4 retries, 6 states in turn, 84 forged header neighbours,
	// and 40 forgeries up to 16 KiB for each of 5 states (the 10 past
	// 64 KiB are left out).
	require.Len(t, v.Cases, rows-16+1+1+2+2+9+13+3+4+6+84+5*40,
		"a case per listed row, the second delivery of each duplicate, two more events of one contract, the CREATED after each out-of-order row, and the generated deliveries")

	codes := map[string]bool{}
	model := &shop{secret: shopSecret, now: func() time.Time { return at }}
	for _, c := range v.Cases {
		assert.False(t, codes[c.Code], "code %s is unique", c.Code)
		codes[c.Code] = true
		var h string
		for k, val := range c.Headers {
			if strings.EqualFold(k, p.Webhook.SignatureHeader) {
				h = val
			}
		}
		verr := p.VerifyWebhook(h, []byte(c.Body), []string{shopSecret}, at)
		assert.Equal(t, c.Expect == "accept", verr == nil, "%s: %v", c.Code, verr)

		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader([]byte(c.Body)))
		for k, val := range c.Headers {
			req.Header[k] = []string{val}
		}
		if k := strings.ToLower(p.Webhook.SignatureHeader); req.Header[k] != nil {
			req.Header.Set(k, req.Header[k][0]) // as Go's server reads it
		}
		rec := httptest.NewRecorder()
		model.ServeHTTP(rec, req)
		assert.Equal(t, c.Expect == "accept", rec.Code < 300, "%s: the model endpoint answered %d", c.Code, rec.Code)
	}
	for _, code := range []string{"WH-STATE/state=CREATED", "WH-SIGNATURE-FORM/form=v0-only", "WH-DUPLICATE#2", "WH-BODY-TEXT/state=SIGNED,text=long-title",
		"WH-TIME-WINDOW/seconds=-290", "WH-TIMESTAMP-FORM/form=nan"} {
		assert.True(t, codes[code], code)
	}

	file := filepath.Join(t.TempDir(), "vectors.json")
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, b, 0o600))
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("no python3 for the README's check: make deps installs it")
	}
	out, err := exec.Command("python3", "testdata/check_vectors.py", file).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "cases agree")
}

// Under the Ed25519 preset the vectors name the public key, and a
// verifier holding only it accepts exactly the cases marked accept
// (a lenient case may go either way).
func TestWebhookVectorsEd25519(t *testing.T) {
	p, err := firmakit.Preset("standard-webhooks-ed25519")
	require.NoError(t, err)
	const secret = "whsk_Sg36gITFIcSJEudY+Z/tRi01Mm6rI6gosz1w47Fpim4="
	at := time.Unix(1795000000, 0)
	v, err := webhook.MakeVectors(p, secret, "shop", at)
	require.NoError(t, err)
	require.Equal(t, "whpk_6+vT5lZZhcUZgkNS/dGInN8eZoX+vH99TOTOGJFSBOU=", v.PublicKey)
	accepted := 0
	for _, c := range v.Cases {
		h := http.Header{}
		for k, val := range c.Headers {
			h.Add(k, val)
		}
		verr := p.VerifyWebhookHeaders(h, []byte(c.Body), []string{v.PublicKey}, at)
		if c.Lenient {
			continue
		}
		assert.Equal(t, c.Expect == "accept", verr == nil, "%s: %v", c.Code, verr)
		if verr == nil {
			accepted++
		}
	}
	assert.Greater(t, accepted, 20, "the valid deliveries verify with the public key")
}

// Under each RFC 9421 preset the vectors name the URL they are posted
// to, and a verifier holding only the verifying key accepts exactly the
// cases marked accept.
func TestWebhookVectorsRFC9421(t *testing.T) {
	for _, c := range []struct{ preset, secret, verifier string }{
		{"rfc9421", "k1:dGhlIGVuZHBvaW50J3MgaG1hYy1zaGEyNTYgc2VjcmV0", "k1:dGhlIGVuZHBvaW50J3MgaG1hYy1zaGEyNTYgc2VjcmV0"},
		{"rfc9421-ed25519", "whsk_Sg36gITFIcSJEudY+Z/tRi01Mm6rI6gosz1w47Fpim4=", "whpk_6+vT5lZZhcUZgkNS/dGInN8eZoX+vH99TOTOGJFSBOU="},
	} {
		t.Run(c.preset, func(t *testing.T) {
			p, err := firmakit.Preset(c.preset)
			require.NoError(t, err)
			at := time.Unix(1795000000, 0)
			v, err := webhook.MakeVectors(p, c.secret, "shop", at)
			require.NoError(t, err)
			require.NotEmpty(t, v.URL)
			accepted := 0
			for _, vc := range v.Cases {
				req := httptest.NewRequest(http.MethodPost, v.URL, strings.NewReader(vc.Body))
				for k, val := range vc.Headers {
					req.Header.Add(k, val)
				}
				_, verr := p.VerifyWebhookRequest(req, []byte(vc.Body), []string{c.verifier}, at)
				if vc.Lenient {
					continue
				}
				assert.Equal(t, vc.Expect == "accept", verr == nil, "%s: %v", vc.Code, verr)
				if verr == nil {
					accepted++
				}
			}
			assert.Greater(t, accepted, 20, "the valid deliveries verify")
		})
	}
}
