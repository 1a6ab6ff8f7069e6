package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keygen's pair works as printed: the secret key signs under the preset,
// the public key alone verifies, and a public key is refused to sign.
func TestKeygen(t *testing.T) {
	for _, tc := range []struct {
		preset string
		args   []string
	}{
		{"standard-webhooks-ed25519", nil},
		{"rfc9421-ed25519", []string{"--key-id", "ops-2026"}},
		{"rfc9421-ed25519", []string{"--pem"}},
		{"rfc9421", []string{"--key-id", "k1"}},
		{"standard-webhooks", nil},
	} {
		t.Run(tc.preset+strings.Join(tc.args, ""), func(t *testing.T) {
			code, out, _ := run(t, nil, append([]string{"keygen", "--json", "--profile", tc.preset}, tc.args...)...)
			require.Equal(t, ExitOK, code)
			var keys map[string]string
			require.NoError(t, json.Unmarshal([]byte(out), &keys))
			p, err := firmakit.Preset(tc.preset)
			require.NoError(t, err)
			verifier := keys["public"]
			if !p.Webhook.Asymmetric() {
				require.Empty(t, verifier, "an HMAC scheme has no public key")
				verifier = keys["secret"]
			} else {
				require.Error(t, p.Webhook.CheckWebhookKey(verifier, true), "a public key cannot sign")
			}
			require.NoError(t, p.Webhook.CheckWebhookKey(keys["secret"], true))
			body := []byte(`{"event_id":"evt_k"}`)
			now := time.Now()
			out1 := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8090/hooks/shop", nil)
			p.SignWebhookRequest(out1, "evt_k", []string{keys["secret"]}, now, body)
			in := httptest.NewRequest(http.MethodPost, "/hooks/shop", nil)
			in.Header = out1.Header.Clone()
			_, err = p.VerifyWebhookRequest(in, body, []string{verifier}, now)
			require.NoError(t, err)
			if len(tc.args) == 2 && tc.args[0] == "--key-id" {
				assert.Equal(t, tc.args[1], p.KeyName(verifier))
			}
		})
	}
	code, _, errOut := run(t, nil, "keygen", "--pem")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--pem is for an Ed25519 profile")
	code, _, errOut = run(t, nil, "keygen", "--key-id", "x")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--key-id is for an RFC 9421 profile")
}
