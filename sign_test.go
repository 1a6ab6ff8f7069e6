package firmakit_test

import (
	"bufio"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	vectorSig = "93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b"
	vectorTS  = "1763805600"
)

func TestRequestSignatureVector(t *testing.T) {
	p := firmakit.BundledProfile()
	rp := firmakit.RequestParts{Timestamp: vectorTS, Method: "POST", RequestTarget: "/v1/check/merchant_demo", Body: []byte("{}")}
	assert.Equal(t, "1763805600\nPOST\n/v1/check/merchant_demo\n{}", string(p.StringToSign(rp)))
	assert.Equal(t, vectorSig, p.RequestSignature("test_secret_demo", rp))
}

func TestWebhookSignatureVector(t *testing.T) {
	p := firmakit.BundledProfile()
	body := []byte(`{"event_id":"1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed","status":"SIGNED"}`)
	h := p.WebhookSignature([]string{"whsec_test_demo"}, time.Unix(1763805600, 0), body)
	assert.Equal(t, "t=1763805600,v1=6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16", h)
	require.NoError(t, p.VerifyWebhook(h, body, []string{"whsec_test_demo"}, time.Unix(1763805600, 0)))
	assert.Equal(t, h, p.WebhookSignatureAt([]string{"whsec_test_demo"}, "1763805600", body))
}

// TestWebhookSignatureAtAnyText: a timestamp that is not a Unix time is
// signed as written, and verification still refuses it, for its form.
func TestWebhookSignatureAtAnyText(t *testing.T) {
	p := firmakit.BundledProfile()
	body := []byte(`{"event_id":"e","status":"SIGNED"}`)
	h := p.WebhookSignatureAt([]string{"whsec_test_demo"}, "soon", body)
	require.True(t, strings.HasPrefix(h, "t=soon,v1="), h)
	parsed, err := p.ParseWebhookHeader(h)
	require.NoError(t, err)
	assert.NotEqual(t, p.WebhookSignature([]string{"whsec_test_demo"}, time.Unix(1763805600, 0), body), h)
	assert.NoError(t, p.CheckWebhookSignatureForm(parsed.Signatures[0]))
	err = p.VerifyWebhook(h, body, []string{"whsec_test_demo"}, time.Unix(1763805600, 0))
	assert.ErrorIs(t, err, firmakit.ErrExpired)
}

func lookup(key string) (firmakit.Credential, bool) {
	creds := map[string]firmakit.Credential{
		"test_key_demo":     {KeyID: "test_key_demo", Secret: "test_secret_demo", MerchantID: "merchant_demo"},
		"test_key_disabled": {KeyID: "test_key_disabled", Secret: "test_secret_disabled", MerchantID: "merchant_demo", Disabled: true},
		"test_key_other":    {KeyID: "test_key_other", Secret: "test_secret_other", MerchantID: "merchant_other"},
	}
	c, ok := creds[key]
	return c, ok
}

// TestVerifyRequest starts from one valid request and changes one thing per case.
func TestVerifyRequest(t *testing.T) {
	p := firmakit.BundledProfile()
	now := time.Unix(1763805600, 0)
	valid := func() (http.Header, string, string, []byte) {
		return http.Header{
			"X-Service-Key":       {"test_key_demo"},
			"X-Service-Timestamp": {vectorTS},
			"X-Service-Signature": {vectorSig},
		}, "POST", "/v1/check/merchant_demo", []byte("{}")
	}
	resign := func(h http.Header, key, secret, ts, method, target string, body []byte) {
		h.Set("X-Service-Key", key)
		h.Set("X-Service-Timestamp", ts)
		h.Set("X-Service-Signature", p.RequestSignature(secret, firmakit.RequestParts{Timestamp: ts, Method: method, RequestTarget: target, Body: body}))
	}
	cases := []struct {
		name   string
		change func(h http.Header, method, target *string, body *[]byte)
		want   error
	}{
		{"valid", func(http.Header, *string, *string, *[]byte) {}, nil},
		{"upper-case hex accepted", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Signature", strings.ToUpper(vectorSig)) }, nil},
		{"no key", func(h http.Header, _, _ *string, _ *[]byte) { h.Del("X-Service-Key") }, firmakit.ErrMissingHeaders},
		{"no timestamp", func(h http.Header, _, _ *string, _ *[]byte) { h.Del("X-Service-Timestamp") }, firmakit.ErrMissingHeaders},
		{"no signature", func(h http.Header, _, _ *string, _ *[]byte) { h.Del("X-Service-Signature") }, firmakit.ErrMissingHeaders},
		{"empty key", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Key", " ") }, firmakit.ErrMissingHeaders},
		{"conflicting duplicate key", func(h http.Header, _, _ *string, _ *[]byte) { h.Add("X-Service-Key", "test_key_other") }, firmakit.ErrMissingHeaders},
		{"missing wins over expired", func(h http.Header, _, _ *string, _ *[]byte) {
			h.Del("X-Service-Key")
			h.Set("X-Service-Timestamp", "1")
		}, firmakit.ErrMissingHeaders},
		{"timestamp not a number", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Timestamp", "abc") }, firmakit.ErrExpired},
		{"timestamp negative", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Timestamp", "-1763805600") }, firmakit.ErrExpired},
		{"timestamp 20 digits", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Timestamp", "17638056001763805600") }, firmakit.ErrExpired},
		{"301 s old", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_demo", "test_secret_demo", "1763805299", *m, *tg, *b)
		}, firmakit.ErrExpired},
		{"301 s ahead", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_demo", "test_secret_demo", "1763805901", *m, *tg, *b)
		}, firmakit.ErrExpired},
		{"300 s old accepted", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_demo", "test_secret_demo", "1763805300", *m, *tg, *b)
		}, nil},
		{"300 s ahead accepted", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_demo", "test_secret_demo", "1763805900", *m, *tg, *b)
		}, nil},
		{"expired wins over bad signature", func(h http.Header, _, _ *string, _ *[]byte) {
			h.Set("X-Service-Timestamp", "1763805000")
		}, firmakit.ErrExpired},
		{"unknown key", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Key", "nope") }, firmakit.ErrInvalidCredentials},
		{"disabled key", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_disabled", "test_secret_disabled", vectorTS, *m, *tg, *b)
		}, firmakit.ErrInvalidCredentials},
		{"other merchant's key", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_other", "test_secret_other", vectorTS, *m, *tg, *b)
		}, firmakit.ErrInvalidCredentials},
		{"not hex", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Signature", "zz"+vectorSig[2:]) }, firmakit.ErrInvalidSignature},
		{"truncated", func(h http.Header, _, _ *string, _ *[]byte) { h.Set("X-Service-Signature", vectorSig[:62]) }, firmakit.ErrInvalidSignature},
		{"other body", func(_ http.Header, _, _ *string, b *[]byte) { *b = []byte(`{"a":1}`) }, firmakit.ErrInvalidSignature},
		{"other path", func(_ http.Header, _, tg *string, _ *[]byte) { *tg = "/v1/check/merchant_demo?x=1" }, firmakit.ErrInvalidSignature},
		{"other method", func(_ http.Header, m, _ *string, _ *[]byte) { *m = "PUT" }, firmakit.ErrInvalidSignature},
		{"wrong secret", func(h http.Header, m, tg *string, b *[]byte) {
			resign(h, "test_key_demo", "test_secret_other", vectorTS, *m, *tg, *b)
		}, firmakit.ErrInvalidSignature},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, method, target, body := valid()
			tc.change(h, &method, &target, &body)
			_, err := p.VerifyRequest(method, target, "merchant_demo", h, lookup, now, func() ([]byte, error) { return body, nil })
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.want), "got %v, want %v", err, tc.want)
		})
	}
}

func TestVerifyRequestDoesNotReadBodyBeforeCredentials(t *testing.T) {
	p := firmakit.BundledProfile()
	h := http.Header{"X-Service-Key": {"nope"}, "X-Service-Timestamp": {vectorTS}, "X-Service-Signature": {vectorSig}}
	read := false
	_, err := p.VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, lookup, time.Unix(1763805600, 0),
		func() ([]byte, error) { read = true; return nil, nil })
	assert.ErrorIs(t, err, firmakit.ErrInvalidCredentials)
	assert.False(t, read)
}

func TestVerifyWebhook(t *testing.T) {
	p := firmakit.BundledProfile()
	body := []byte(`{"event_id":"e1","status":"SIGNED"}`)
	now := time.Unix(1763805600, 0)
	secrets := []string{"whsec_new", "whsec_test_demo"}
	good := p.WebhookSignature([]string{"whsec_test_demo"}, now, body)
	cases := []struct {
		name    string
		header  string
		body    []byte
		secrets []string
		now     time.Time
		want    error
	}{
		{"valid", good, body, secrets, now, nil},
		{"rotation: second entry matches", p.WebhookSignature([]string{"whsec_old", "whsec_new"}, now, body), body, secrets, now, nil},
		{"unknown entries ignored", good + ",v0=abc", body, secrets, now, nil},
		{"upper-case hex", strings.Replace(good, good[16:], strings.ToUpper(good[16:]), 1), body, secrets, now, nil},
		{"empty", "", body, secrets, now, firmakit.ErrMissingHeaders},
		{"no timestamp", "v1=abc", body, secrets, now, firmakit.ErrMalformedHeader},
		{"no signature", "t=1763805600", body, secrets, now, firmakit.ErrMalformedHeader},
		{"garbage", "hello", body, secrets, now, firmakit.ErrMalformedHeader},
		{"two timestamps", "t=1,t=2,v1=aa", body, secrets, now, firmakit.ErrMalformedHeader},
		{"stale", good, body, secrets, now.Add(301 * time.Second), firmakit.ErrExpired},
		{"future", good, body, secrets, now.Add(-301 * time.Second), firmakit.ErrExpired},
		{"299 s old", good, body, secrets, now.Add(299 * time.Second), nil},
		{"timestamp not a number", "t=abc,v1=aa", body, secrets, now, firmakit.ErrExpired},
		{"other body", good, []byte(`{"event_id":"e1","status":"CANCELED"}`), secrets, now, firmakit.ErrInvalidSignature},
		{"other secret", good, body, []string{"whsec_x"}, now, firmakit.ErrInvalidSignature},
		{"no secrets", good, body, nil, now, firmakit.ErrInvalidSignature},
		{"timestamp changed", strings.Replace(good, "t=1763805600", "t=1763805601", 1), body, secrets, now, firmakit.ErrInvalidSignature},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := p.VerifyWebhook(tc.header, tc.body, tc.secrets, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

func TestProfileVariants(t *testing.T) {
	p, err := firmakit.ParseProfile([]byte(`
request:
  key_header: X-Api-Key
  timestamp_header: X-Api-Time
  signature_header: X-Api-Sig
  hash: sha512
  encoding: base64
  string_to_sign: [method, target, timestamp, key, body]
  separator: "|"
webhook:
  signature_header: X-Hook-Sig
  hash: sha512
  encoding: base64
notification:
  status: state
`))
	require.NoError(t, err)
	assert.Equal(t, 300*time.Second, p.Request.Tolerance, "tolerance kept from the bundled profile")
	now := time.Unix(1763805600, 0)
	h := p.SignedHeaders("test_key_demo", "test_secret_demo", "POST", "/v1/check/merchant_demo", []byte("{}"), now)
	assert.Len(t, h.Get("X-Api-Sig"), 88, "base64 of 64 bytes")
	assert.Equal(t, "POST|/v1/check/merchant_demo|1763805600|test_key_demo|{}",
		string(p.StringToSign(firmakit.RequestParts{Timestamp: "1763805600", Method: "post", RequestTarget: "/v1/check/merchant_demo", KeyID: "test_key_demo", Body: []byte("{}")})))
	_, err = p.VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, lookup, now, func() ([]byte, error) { return []byte("{}"), nil })
	require.NoError(t, err)
	// The bundled profile does not accept it: other header names.
	_, err = firmakit.BundledProfile().VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, lookup, now, func() ([]byte, error) { return []byte("{}"), nil })
	assert.ErrorIs(t, err, firmakit.ErrMissingHeaders)

	body, err := p.EncodeNotification(firmakit.Notification{EventID: "e", SignatureID: "s", Status: firmakit.StateSigned})
	require.NoError(t, err)
	assert.Contains(t, string(body), `"state":"SIGNED"`)
	sig := p.WebhookSignature([]string{"k"}, now, body)
	require.NoError(t, p.VerifyWebhook(sig, body, []string{"k"}, now))
}

func TestParseProfileErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"request: {hash: md5}", "unknown hash"},
		{"request: {encoding: rot13}", "unknown encoding"},
		{"request: {string_to_sign: [time]}", "unknown part"},
		{"request: {key_header: ''}", "request.key_header is empty"},
		{"request: {tolerance: -1s}", "tolerances must be positive"},
		{"request: {typo: 1}", `line 1: request has no field "typo"; its fields are key_header, timestamp_header, signature_header, ` +
			"string_to_sign, separator, hash, encoding, tolerance"},
		{"webhook:\n  signature_heder: X", `line 2: webhook has no field "signature_heder"; its fields are signature_header, timestamp_key,`},
		{"requests: {}", `the profile has no field "requests"; its fields are name, request, webhook, notification`},
		{"request:\n  tolerance: soon", `line 2: request.tolerance: "soon" is not a duration such as 300s or 1m`},
		{"webhook: {retries: [1s, later]}", `line 1: webhook.retries: "later" is not a duration such as 300s or 1m`},
		{"request: {string_to_sign: timestamp}", `request.string_to_sign: "timestamp" is not a list such as [timestamp, method, target, body]`},
		{"request: [1, 2]", `line 1: request: a list is not a map of request fields`},
		{"webhook: {timestamp_key: 'a=b'}", "may not contain"},
	} {
		_, err := firmakit.ParseProfile([]byte(tc.yaml))
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "firmakit.", "no Go type names")
		assert.NotContains(t, err.Error(), "time.Duration", "no Go type names")
	}
}

func TestDemoState(t *testing.T) {
	for title, want := range map[string]firmakit.State{
		"DEMO_SIGNED": firmakit.StateSigned, "DEMO_SIGNED contrato 42": firmakit.StateSigned,
		"DEMO_CANCELED😀": firmakit.StateCanceled, "DEMO_BOUNCED": firmakit.StateBounced,
		"DEMO_REJECTED x": firmakit.StateRejected, "DEMO_CREATED": firmakit.StateCreated,
		"demo_signed x": "", "x DEMO_SIGNED": "", "DEMO_SIGN": "", " DEMO_SIGNED": "", "": "",
	} {
		got, ok := firmakit.DemoState(title)
		assert.Equal(t, want, got, title)
		assert.Equal(t, want != "", ok, title)
	}
}

func TestNotificationRoundTrip(t *testing.T) {
	p := firmakit.BundledProfile()
	n := firmakit.Notification{EventID: "e", Type: firmakit.NotificationType, MerchantID: "m", SignatureID: "s",
		Title: "DEMO_CANCELED <b>", Status: firmakit.StateCanceled, Reason: "r", Demo: true, CreatedAt: "2026-11-22T10:00:00.512Z"}
	b, err := p.EncodeNotification(n)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "document_url")
	assert.NotContains(t, string(b), "null")
	got, raw, err := p.DecodeNotification(b)
	require.NoError(t, err)
	assert.Equal(t, n, got)
	assert.Contains(t, raw, "reason")
	_, _, err = p.DecodeNotification([]byte(`{"status": 5}`))
	assert.ErrorContains(t, err, "wrong type")
	_, _, err = p.DecodeNotification([]byte(`[1]`))
	assert.Error(t, err)
	_, _, err = p.DecodeNotification([]byte(`null`))
	assert.Error(t, err)
}

func TestBundledProfileCopiesAreIndependent(t *testing.T) {
	a := firmakit.BundledProfile()
	a.Request.KeyHeader = "X-Changed"
	a.Request.StringToSign[0] = "body"
	b := firmakit.BundledProfile()
	assert.Equal(t, "X-Service-Key", b.Request.KeyHeader)
	assert.Equal(t, []string{"timestamp", "method", "target", "body"}, b.Request.StringToSign)
}

// An error quotes at most 40 bytes of a refused timestamp and never cuts a
// character in two: %q shows "ñ", not "\xc3".
func TestRefusedTimestampIsQuotedWhole(t *testing.T) {
	p := firmakit.BundledProfile()
	for _, ts := range []string{strings.Repeat("1", 39) + "ñandú", strings.Repeat("1", 38) + "ñandú", "ñ"} {
		err := p.CheckTimestamp(ts, time.Now())
		require.ErrorIs(t, err, firmakit.ErrExpired)
		assert.NotContains(t, err.Error(), `\x`, ts)
		assert.True(t, utf8.ValidString(err.Error()), ts)
	}
}

// TestRequestTargetIsAsSent: the signed target is the path as it came on
// the wire, percent-encoding kept, even though routing decodes it.
func TestRequestTargetIsAsSent(t *testing.T) {
	for _, tc := range []struct{ requestURI, want string }{
		{"/v1/check/merchant_demo", "/v1/check/merchant_demo"},
		{"/v1/check/merchant%5Fdemo", "/v1/check/merchant%5Fdemo"},
		{"/%76%31/check/merchant_demo?q=%C3%B1+a", "/%76%31/check/merchant_demo?q=%C3%B1+a"},
		{"/v1/check/m?", "/v1/check/m?"},
		{"http://example.test/v1/check/merchant%5Fdemo?x=1", "/v1/check/merchant%5Fdemo?x=1"},
		{"http://example.test?x=1", "/?x=1"},
		{"http://example.test", "/"},
	} {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("POST " + tc.requestURI + " HTTP/1.1\r\nHost: example.test\r\n\r\n")))
		require.NoError(t, err, tc.requestURI)
		assert.Equal(t, tc.want, firmakit.RequestTarget(r), tc.requestURI)
		r.URL.Path, r.URL.RawPath = "/decoded", "" // what routing does leaves the target alone
		assert.Equal(t, tc.want, firmakit.RequestTarget(r), tc.requestURI)
	}
}
