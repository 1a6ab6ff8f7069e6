package firmakit_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/require"
)

// A notification signed under an RFC 9421 preset for the URL it is posted
// to verifies as received there, with a key chosen by its keyid; its
// body, path, method and content type are covered; every key of a
// rotation signs under its own label.
func TestRFC9421WebhookRequest(t *testing.T) {
	p, err := firmakit.Preset("rfc9421")
	require.NoError(t, err)
	now := time.Unix(1_795_000_000, 0)
	body := []byte(`{"event_id":"evt_1","status":"SIGNED"}`)
	const k1, k2 = "k1:c2VjcmV0IG9uZSBzZWNyZXQgb25l", "k2:c2VjcmV0IHR3byBzZWNyZXQgdHdv"
	sign := func(secrets ...string) *http.Request {
		out := httptest.NewRequest(http.MethodPost, "https://merchant.example/hooks/shop?x=1", nil)
		out.Header.Set("Content-Type", "application/json")
		p.SignWebhookRequest(out, "evt_1", secrets, now, body)
		return out
	}
	received := func(out *http.Request, target string) *http.Request {
		in := httptest.NewRequest(http.MethodPost, target, strings.NewReader(string(body)))
		in.Header = out.Header.Clone()
		return in
	}

	out := sign(k1, k2)
	require.Equal(t, firmakit.ContentDigest(body), out.Header.Get("Content-Digest"))
	require.Contains(t, out.Header.Get("Signature-Input"), `sig1=("@method" "@path" "content-digest" "content-type");created=1795000000;keyid="k1";alg="hmac-sha256"`)
	require.Contains(t, out.Header.Get("Signature-Input"), `sig1-2=(`)
	require.Contains(t, out.Header.Get("Signature-Input"), `keyid="k2"`)

	// As received at the receiver's own address: @path is what counts.
	i, err := p.VerifyWebhookRequest(received(out, "/hooks/shop?x=1"), body, []string{k2}, now)
	require.NoError(t, err)
	require.Equal(t, 0, i)
	require.Equal(t, "k2", p.KeyName(k2))
	i, err = p.VerifyWebhookRequest(received(out, "/hooks/shop"), body, []string{"k9:b3RoZXI=", k1}, now)
	require.NoError(t, err, "the query is not covered")
	require.Equal(t, 1, i)

	_, err = p.VerifyWebhookRequest(received(out, "/hooks/other"), body, []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "another path")
	_, err = p.VerifyWebhookRequest(received(out, "/hooks/shop"), append(body, ' '), []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "another body under the digest")
	require.ErrorContains(t, err, "Content-Digest")
	_, err = p.VerifyWebhookRequest(received(out, "/hooks/shop"), body, []string{"k1:b3RoZXIga2V5IGJ5dGVz"}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "another key under the same keyid")
	_, err = p.VerifyWebhookRequest(received(out, "/hooks/shop"), body, []string{k1}, now.Add(6*time.Minute))
	require.ErrorIs(t, err, firmakit.ErrTooOld)

	put := received(out, "/hooks/shop")
	put.Method = http.MethodPut
	_, err = p.VerifyWebhookRequest(put, body, []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "another method")
	typed := received(out, "/hooks/shop")
	typed.Header.Set("Content-Type", "text/plain")
	_, err = p.VerifyWebhookRequest(typed, body, []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "another content type")
	undigested := received(out, "/hooks/shop")
	undigested.Header.Del("Content-Digest")
	_, err = p.VerifyWebhookRequest(undigested, body, []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrMalformedHeader, "a covered field left out")
	unsigned := received(out, "/hooks/shop")
	unsigned.Header.Del("Signature")
	_, err = p.VerifyWebhookRequest(unsigned, body, []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrMissingHeaders)

	// A bare key has no keyid of its own: firmakit names it by its
	// fingerprint, and a receiver tries it whatever keyid a signature names.
	bare := "c2VjcmV0IG9uZSBzZWNyZXQgb25l"
	out = sign(bare)
	require.Contains(t, out.Header.Get("Signature-Input"), `keyid="`+p.KeyName(bare)+`"`)
	_, err = p.VerifyWebhookRequest(received(out, "/hooks/shop"), body, []string{k2, bare}, now)
	require.NoError(t, err)
	_, err = p.VerifyWebhookRequest(received(out, "/hooks/shop"), body, []string{k1}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "the same material named k1 is not the key the keyid names")
}

// Under rfc9421-ed25519 the receiver needs the public key alone, and a
// public key cannot sign.
func TestRFC9421Ed25519(t *testing.T) {
	p, err := firmakit.Preset("rfc9421-ed25519")
	require.NoError(t, err)
	now := time.Unix(1_795_000_000, 0)
	body := []byte(`{"event_id":"evt_1"}`)
	out := httptest.NewRequest(http.MethodPost, "https://merchant.example/hooks/shop", nil)
	p.SignWebhookRequest(out, "evt_1", []string{edPublic, edSecret}, now, body)
	require.NotContains(t, out.Header.Get("Signature"), "sig1-2", "only the secret key signs")
	require.Equal(t, "application/json", out.Header.Get("Content-Type"), "set when covered and absent")
	in := httptest.NewRequest(http.MethodPost, "/hooks/shop", strings.NewReader(string(body)))
	in.Header = out.Header.Clone()
	i, err := p.VerifyWebhookRequest(in, body, []string{edPublic2, edPublic}, now)
	require.NoError(t, err)
	require.Equal(t, 1, i)
	require.Equal(t, edPublic, p.KeyName(edPublic))
	require.ErrorContains(t, p.Webhook.CheckWebhookKey("ops:"+edPublic, true), "public key cannot sign")
	require.NoError(t, p.Webhook.CheckWebhookKey("ops:"+edPublic, false))
	require.ErrorContains(t, p.Webhook.CheckWebhookKey("ops:whpk_AAAA", false), "32 bytes")
}

// An RFC 9421 profile must cover the body through content-digest, name
// its two fields and a label, and write its signatures base64.
func TestRFC9421ProfileValidation(t *testing.T) {
	b, _ := firmakit.PresetYAML("rfc9421")
	for change, want := range map[[2]string]string{
		{`components: ["@method", "@path", "content-digest", "content-type"]`, `components: ["@method", "@path"]`}:          "must name content-digest",
		{`components: ["@method", "@path", "content-digest", "content-type"]`, `components: []`}:                            "components is empty",
		{`components: ["@method", "@path", "content-digest", "content-type"]`, `components: ["@Method", "content-digest"]`}: "components",
		{"signature_key: sig1", "signature_key: Sig1"}:                                                                      "label",
		{"signature_input_header: Signature-Input", "signature_input_header: \"\""}:                                         "Signature-Input",
		{"encoding: base64", "encoding: hex"}:                                                                               "base64",
		{"timestamp_key: created", "timestamp_key: t"}:                                                                      "created",
		{"hash: sha256", "hash: sha512"}:                                                                                    "hmac-sha256",
	} {
		_, err := firmakit.ParseProfile([]byte(strings.Replace(string(b), change[0], change[1], 1)))
		require.ErrorContains(t, err, want, change[1])
	}
}
