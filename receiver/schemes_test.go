package receiver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One receiver serves channels signed under different schemes side by
// side; each record's reason names the scheme and says why in its words.
func TestChannelSchemes(t *testing.T) {
	stripe, _ := firmakit.Preset("stripe")
	github, _ := firmakit.Preset("github")
	sw, _ := firmakit.Preset("standard-webhooks")
	const swSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.ChannelProfiles = map[string]*firmakit.Profile{"st": stripe, "gh": github, "sw": sw, "swdemo": sw}
		rv.Secrets = map[string][]string{"st": {"whsec_st"}, "gh": {"gh secret"}, "sw": {swSecret}, "swdemo": {"whsec_test_demo"}, "merchant_demo": {"whsec_test_demo"}}
	})
	body := notification(firmakit.StateCreated, "evt_1", "sig_1")
	now := time.Now()
	signed := func(p *firmakit.Profile, secret string, at time.Time) http.Header {
		h := http.Header{}
		p.SignWebhook(h, "msg_1", []string{secret}, at, body)
		return h
	}
	for _, tc := range []struct {
		name, channel string
		header        http.Header
		check         string
		reason        string
	}{
		{"stripe valid", "st", signed(stripe, "whsec_st", now), "valid", ""},
		{"github valid, replay not judged", "gh", signed(github, "gh secret", now), "valid", "github: replay cannot be judged: github signs no timestamp"},
		{"github forged", "gh", signed(github, "other", now), "invalid", "github: no matching signature: none of 1 sha256= signature(s) in X-Hub-Signature-256 matches"},
		{"github under the bundled header", "gh", signed(firmakit.BundledProfile(), "gh secret", now), "missing", "github: no X-Hub-Signature-256 header"},
		{"standard-webhooks valid", "sw", signed(sw, swSecret, now), "valid", ""},
		{"standard-webhooks stale", "sw", signed(sw, swSecret, now.Add(-10*time.Minute)), "invalid", "standard-webhooks: stale timestamp: timestamp is 60"}, // 600 s, or a second more on a busy machine
		{"standard-webhooks future", "sw", signed(sw, swSecret, now.Add(10*time.Minute)), "invalid", "standard-webhooks: future timestamp"},
		{"standard-webhooks, a demo secret that is not base64", "swdemo", signed(sw, "whsec_test_demo", now), "valid", ""},
		{"standard-webhooks, another secret", "swdemo", signed(sw, swSecret, now), "invalid", "standard-webhooks: no matching signature: none of 1 v1, signature(s) in webhook-signature matches"},
		{"bundled channel unchanged", "merchant_demo", signed(firmakit.BundledProfile(), "whsec_test_demo", now), "valid", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", rv.URL()+"/hooks/"+tc.channel, bytes.NewReader(body))
			require.NoError(t, err)
			for k, v := range tc.header {
				req.Header[k] = v
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			var out map[string]any
			require.NoError(t, decodeJSON(resp, &out))
			var rec receiver.Record
			getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
			assert.Equal(t, tc.check, rec.Check)
			if tc.reason == "" {
				assert.Empty(t, rec.Reason)
			} else {
				assert.Contains(t, rec.Reason, tc.reason)
			}
		})
	}
}

// A receiver holding two Ed25519 public keys of a channel (rotation)
// verifies notifications signed with either secret key, and each record
// names the public key that verified it; another key pair's signature is
// refused. The receiver holds nothing that can sign.
func TestEd25519RotationNamesTheKey(t *testing.T) {
	ed, err := firmakit.Preset("standard-webhooks-ed25519")
	require.NoError(t, err)
	const (
		secret1 = "whsk_Sg36gITFIcSJEudY+Z/tRi01Mm6rI6gosz1w47Fpim4="
		public1 = "whpk_6+vT5lZZhcUZgkNS/dGInN8eZoX+vH99TOTOGJFSBOU="
		secret2 = "whsk_TIScWFxmqIgs9J5VW0N0Lv4GiNwdS4b/nVdMmM3v+T8="
		public2 = "whpk_8LN1phIj+0fZXoP4H55kyfyLYZaRhckihpLz67EgRJM="
		other   = "whsk_NzPT3jkm105pDkTHjyeQxMNsjwHFu/Yfy2FGqOADaDA="
	)
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.ChannelProfiles = map[string]*firmakit.Profile{"ed": ed}
		rv.Secrets = map[string][]string{"ed": {public1, public2}}
	})
	body := notification(firmakit.StateSigned, "evt_ed", "sig_ed")
	for _, tc := range []struct {
		secret, check, by string
	}{
		{secret1, receiver.CheckValid, public1},
		{secret2, receiver.CheckValid, public2},
		{other, receiver.CheckInvalid, ""},
	} {
		h := http.Header{}
		ed.SignWebhook(h, "msg_ed", []string{tc.secret}, time.Now(), body)
		req, err := http.NewRequest("POST", rv.URL()+"/hooks/ed", bytes.NewReader(body))
		require.NoError(t, err)
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, decodeJSON(resp, &out))
		var rec receiver.Record
		getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
		assert.Equal(t, tc.check, rec.Check, rec.Reason)
		assert.Equal(t, tc.by, rec.VerifiedBy)
	}
}

func decodeJSON(resp *http.Response, out any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// A forwarded notification keeps every header that signs it under the
// channel's scheme, so the endpoint behind can verify it.
func TestForwardKeepsTheSchemesHeaders(t *testing.T) {
	sw, _ := firmakit.Preset("standard-webhooks")
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	got := make(chan http.Header, 1)
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	defer endpoint.Close()
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.ChannelProfiles = map[string]*firmakit.Profile{"sw": sw}
		rv.Secrets = map[string][]string{"sw": {secret}}
		rv.ForwardTo = endpoint.URL
	})
	body := notification(firmakit.StateSigned, "evt_1", "sig_1")
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/sw", bytes.NewReader(body))
	sw.SignWebhook(req.Header, "msg_1", []string{secret}, time.Now(), body)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	h := <-got
	assert.NoError(t, sw.VerifyWebhookHeaders(h, body, []string{secret}, time.Now()), "forwarded headers: %v", h)
}

// A replay re-signed with other secrets is signed under the record's
// channel's scheme.
func TestReplayResignsUnderTheChannelsScheme(t *testing.T) {
	gh, _ := firmakit.Preset("github")
	got := make(chan http.Header, 1)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	defer sink.Close()
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.AllowPrivateReplay = true
		rv.ChannelProfiles = map[string]*firmakit.Profile{"gh": gh}
		rv.Secrets = map[string][]string{"gh": {"gh secret"}}
	})
	body := notification(firmakit.StateSigned, "evt_1", "sig_1")
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/gh", bytes.NewReader(body))
	gh.SignWebhook(req.Header, "evt_1", []string{"gh secret"}, time.Now(), body)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	resp, err = http.Post(rv.URL()+"/api/events/1/replay", "application/json", strings.NewReader(`{"url":"`+sink.URL+`/x","secrets":["new secret"]}`))
	require.NoError(t, err)
	resp.Body.Close()
	h := <-got
	assert.NoError(t, gh.VerifyWebhookHeaders(h, body, []string{"new secret"}, time.Now()), "replayed headers: %v", h)
}

// Behind the public URL it was given, a receiver checks an RFC 9421
// signature against the URL the sender posted to (that URL and the path
// it received), not its own address; a signature for another path fails.
func TestRFC9421BehindThePublicURL(t *testing.T) {
	p, err := firmakit.Preset("rfc9421")
	require.NoError(t, err)
	const key = "k1:c2VjcmV0IG9uZSBzZWNyZXQgb25l"
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.Profile = p
		rv.PublicURL = "https://hooks.example/relay"
		rv.Token = "t0ken"
		rv.Secrets = map[string][]string{"shop": {key}}
	})
	body := notification(firmakit.StateSigned, "evt_pub", "sig_pub")
	for _, tc := range []struct {
		signedFor, check, by string
	}{
		{"https://hooks.example/relay/hooks/shop", receiver.CheckValid, "k1"},
		{"https://hooks.example/hooks/shop", receiver.CheckInvalid, ""},
	} {
		out := httptest.NewRequest(http.MethodPost, tc.signedFor, nil)
		p.SignWebhookRequest(out, "evt_pub", []string{key}, time.Now(), body)
		req, err := http.NewRequest("POST", rv.URL()+"/hooks/shop", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header = out.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, decodeJSON(resp, &got))
		var rec receiver.Record
		getJSON(t, fmt.Sprintf("%s/api/events/%v?token=t0ken", rv.URL(), got["received"]), &rec)
		assert.Equal(t, tc.check, rec.Check, "%s: %s", tc.signedFor, rec.Reason)
		assert.Equal(t, tc.by, rec.VerifiedBy)
	}
}
