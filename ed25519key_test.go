package firmakit_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/require"
)

// A key pair of the tests, and a second one (a retired key).
const (
	edSecret  = "whsk_Sg36gITFIcSJEudY+Z/tRi01Mm6rI6gosz1w47Fpim4="
	edPublic  = "whpk_6+vT5lZZhcUZgkNS/dGInN8eZoX+vH99TOTOGJFSBOU="
	edSecret2 = "whsk_TIScWFxmqIgs9J5VW0N0Lv4GiNwdS4b/nVdMmM3v+T8="
	edPublic2 = "whpk_8LN1phIj+0fZXoP4H55kyfyLYZaRhckihpLz67EgRJM="
)

// Every way a key may be written reads as the same key pair; a text that
// is not a key says what a key looks like.
func TestParseEd25519Key(t *testing.T) {
	priv, pub, err := firmakit.ParseEd25519Key(edSecret)
	require.NoError(t, err)
	secret, public := firmakit.Ed25519KeyPair(priv)
	require.Equal(t, edSecret, secret)
	require.Equal(t, edPublic, public)

	_, pub2, err := firmakit.ParseEd25519Key(edPublic)
	require.NoError(t, err)
	require.True(t, pub.Equal(pub2))

	full := firmakit.Ed25519SecretPrefix + base64.StdEncoding.EncodeToString(priv)
	priv3, _, err := firmakit.ParseEd25519Key(full)
	require.NoError(t, err, "the 64-byte private key")
	require.True(t, priv.Equal(priv3))

	der, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	priv4, _, err := firmakit.ParseEd25519Key(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	require.NoError(t, err)
	require.True(t, priv.Equal(priv4))
	der, err = x509.MarshalPKIXPublicKey(pub)
	require.NoError(t, err)
	priv5, pub5, err := firmakit.ParseEd25519Key(string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	require.NoError(t, err)
	require.Nil(t, priv5, "a public key has no private half")
	require.True(t, pub.Equal(pub5))

	other := append(ed25519.PrivateKey(nil), priv...)
	other[40] ^= 1 // the public half is not the seed's
	for text, want := range map[string]string{
		"whsec_abc": "whsk_",
		"whsk_!!":   "base64",
		"whsk_" + base64.StdEncoding.EncodeToString([]byte("short")):   "32 bytes",
		"whpk_" + base64.StdEncoding.EncodeToString([]byte("short")):   "32 bytes",
		"whsk_" + base64.StdEncoding.EncodeToString(other):             "public half",
		"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----": "PEM private key",
		"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----": "not an Ed25519 key",
	} {
		_, _, err := firmakit.ParseEd25519Key(text)
		require.Error(t, err, text)
		require.Contains(t, err.Error(), want, text)
	}
}

// Under the v1a preset the service signs with its secret keys and a
// receiver verifies with the public keys alone; the key that verified is
// named; a public key cannot sign; v1 entries beside v1a are another
// scheme's and verify nothing.
func TestEd25519SchemeSignsPrivateVerifiesPublic(t *testing.T) {
	p, err := firmakit.Preset("standard-webhooks-ed25519")
	require.NoError(t, err)
	require.True(t, p.Webhook.Asymmetric())
	now := time.Unix(1_763_805_600, 0)
	body := []byte(`{"event_id":"evt_1","status":"signed"}`)

	h := http.Header{}
	p.SignWebhook(h, "evt_1", []string{edSecret, edSecret2}, now, body)
	entries := strings.Split(h.Get("webhook-signature"), " ")
	require.Len(t, entries, 2, "one v1a entry per key (rotation)")
	for _, e := range entries {
		require.True(t, strings.HasPrefix(e, "v1a,"), e)
	}
	i, err := p.VerifyWebhookKey(h, body, []string{edPublic2}, now)
	require.NoError(t, err, "the retired key's entry verifies with its public key")
	require.Equal(t, 0, i)
	i, err = p.VerifyWebhookKey(h, body, []string{edPublic2, edPublic}, now)
	require.NoError(t, err)
	require.Equal(t, 0, i, "the first key that verifies is named")
	require.Equal(t, edPublic2, p.KeyName(edPublic2))
	require.Equal(t, edPublic, p.KeyName(edSecret), "a secret key is named by its public key")

	one := http.Header{}
	p.SignWebhook(one, "evt_1", []string{edSecret}, now, body)
	i, err = p.VerifyWebhookKey(one, body, []string{edPublic2, edPublic}, now)
	require.NoError(t, err)
	require.Equal(t, 1, i)
	_, err = p.VerifyWebhookKey(one, body, []string{edPublic2}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "another key pair")
	_, err = p.VerifyWebhookKey(one, append(body, ' '), []string{edPublic}, now)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature, "a changed body")
	_, err = p.VerifyWebhookKey(one, body, []string{edPublic}, now.Add(6*time.Minute))
	require.ErrorIs(t, err, firmakit.ErrTooOld)

	pubOnly := http.Header{}
	p.SignWebhook(pubOnly, "evt_1", []string{edPublic}, now, body)
	require.Empty(t, pubOnly.Get("webhook-signature"), "a public key cannot sign")
	require.Empty(t, p.WebhookMACText(edPublic, "evt_1", "1", body))

	// A sender in both schemes: the v1 entry (an HMAC) beside the v1a one.
	hmacPreset, err := firmakit.Preset("standard-webhooks")
	require.NoError(t, err)
	v1 := hmacPreset.WebhookMACText("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_1", "1763805600", body)
	mixed := one.Clone()
	mixed.Set("webhook-signature", "v1,"+v1+" "+one.Get("webhook-signature"))
	_, err = p.VerifyWebhookKey(mixed, body, []string{edPublic}, now)
	require.NoError(t, err)
	onlyV1 := one.Clone()
	onlyV1.Set("webhook-signature", "v1,"+v1)
	_, err = p.VerifyWebhookKey(onlyV1, body, []string{edPublic}, now)
	require.ErrorIs(t, err, firmakit.ErrMalformedHeader, "no v1a entry at all")

	// One byte more than an Ed25519 signature is not one, however decoded.
	sig := strings.TrimPrefix(entries[0], "v1a,")
	long := p.Webhook.LengthenSignature(sig)
	raw, err := base64.StdEncoding.DecodeString(long)
	require.NoError(t, err)
	require.Len(t, raw, ed25519.SignatureSize+1)
	require.Error(t, p.CheckWebhookSignatureForm(long))
	require.NoError(t, p.CheckWebhookSignatureForm(sig))
}

// An Ed25519 scheme's profile must say its keys are Ed25519 keys, and the
// other way round.
func TestEd25519ProfileNamesItsKeys(t *testing.T) {
	b, _ := firmakit.PresetYAML("standard-webhooks-ed25519")
	_, err := firmakit.ParseProfile([]byte(strings.Replace(string(b), "secret_encoding: ed25519", "secret_encoding: whsec-base64", 1)))
	require.ErrorContains(t, err, "secret_encoding is ed25519")
	_, err = firmakit.ParseProfile([]byte(strings.Replace(string(b), "hash: ed25519", "hash: sha256", 1)))
	require.ErrorContains(t, err, "is for webhook.hash ed25519")
	_, err = firmakit.ParseProfile([]byte(strings.Replace(string(b), "hash: ed25519", "hash: md5", 1)))
	require.ErrorContains(t, err, "ed25519")
	require.False(t, errors.Is(err, firmakit.ErrInvalidSignature))
}

// The Standard Webhooks Go library's own v1a vector (its
// TestAsymmetricWebhookSign): the seed "TESTSIGNINGKEYDONOTUSETHISFORANY"
// signs msg_p5jXN8AQM9LWM0D4loKWxJek at 1614265330 as the library does,
// and the public key alone verifies it. The library takes the seed
// without its whsk_ too; firmakit asks for the prefix, since a bare
// 32-byte key could be either half.
func TestStandardWebhooksV1aVector(t *testing.T) {
	p, err := firmakit.Preset("standard-webhooks-ed25519")
	require.NoError(t, err)
	const seed = "VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk="
	at := time.Unix(1614265330, 0)
	body := []byte(`{"test": 2432232314}`)
	h := http.Header{}
	p.SignWebhook(h, "msg_p5jXN8AQM9LWM0D4loKWxJek", []string{"whsk_" + seed}, at, body)
	require.Equal(t, "v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag==", h.Get("webhook-signature"))
	priv, _, err := firmakit.ParseEd25519Key("whsk_" + seed)
	require.NoError(t, err)
	_, public := firmakit.Ed25519KeyPair(priv)
	require.NoError(t, p.VerifyWebhookHeaders(h, body, []string{public}, at))
	require.ErrorContains(t, p.Webhook.CheckWebhookKey(seed, true), "bare base64 key")
	require.ErrorContains(t, p.Webhook.CheckWebhookKey(strings.TrimPrefix(public, "whpk_"), false), "bare base64 key")
	require.NoError(t, p.Webhook.CheckWebhookKey("whsec_test_demo", true), "a text that is no key stands for its derived pair")
}
