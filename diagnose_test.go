package firmakit_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var diagCreds = map[string]firmakit.Credential{
	"test_key_demo":     {KeyID: "test_key_demo", Secret: "test_secret_demo", MerchantID: "merchant_demo"},
	"test_key_disabled": {KeyID: "test_key_disabled", Secret: "test_secret_disabled", MerchantID: "merchant_demo", Disabled: true},
	"test_key_other":    {KeyID: "test_key_other", Secret: "test_secret_other", MerchantID: "merchant_other"},
}

func diagLookup(id string) (firmakit.Credential, bool) { c, ok := diagCreds[id]; return c, ok }

// diagRequest is one request as a client signed it and as it was sent.
type diagRequest struct {
	method, target, body string // sent
	key, secret, ts      string
	// what the client signed, when it differs from what it sent
	signMethod, signTarget, signBody *string
	signature                        *string // sent instead of the computed one
	drop                             string  // a header left out
}

func ptr(s string) *string { return &s }

// diagnoseOf signs r as its client did, verifies it as a server does and
// returns the diagnostic of the refusal.
func diagnoseOf(t *testing.T, r diagRequest, now time.Time) (*firmakit.Diagnostic, string) {
	t.Helper()
	p := firmakit.BundledProfile()
	rp := firmakit.RequestParts{Timestamp: r.ts, Method: r.method, Target: r.target, KeyID: r.key, Body: []byte(r.body)}
	if r.signMethod != nil {
		rp.Method = *r.signMethod
	}
	if r.signTarget != nil {
		rp.Target = *r.signTarget
	}
	if r.signBody != nil {
		rp.Body = []byte(*r.signBody)
	}
	sig := p.RequestSignature(r.secret, rp)
	if r.signMethod != nil && *r.signMethod != strings.ToUpper(*r.signMethod) {
		// RequestSignature upper-cases the method, as the profile says;
		// a client that does not is simulated by signing the string itself.
		sts := strings.Replace(string(p.StringToSign(rp)), strings.ToUpper(*r.signMethod), *r.signMethod, 1)
		sig = hmacHex(r.secret, sts)
	}
	if r.signature != nil {
		sig = *r.signature
	}
	h := http.Header{}
	h.Set(p.Request.KeyHeader, r.key)
	h.Set(p.Request.TimestampHeader, r.ts)
	h.Set(p.Request.SignatureHeader, sig)
	if r.drop != "" {
		h.Del(r.drop)
	}
	read := false
	_, err := p.VerifyRequest(r.method, r.target, "merchant_demo", h, diagLookup, now, func() ([]byte, error) {
		read = true
		return []byte(r.body), nil
	})
	require.Error(t, err, "the request must be refused")
	d := p.DiagnoseRequest(firmakit.RequestSeen{Method: r.method, Target: r.target, MerchantID: "merchant_demo", Header: h,
		Body: []byte(r.body), BodyRead: true, BodyNote: map[bool]string{false: "read for this diagnostic only"}[read]}, err, diagLookup, now)
	return d, sig
}

func TestDiagnoseCauses(t *testing.T) {
	now := time.Unix(1763805600, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	valid := diagRequest{method: "POST", target: "/v1/check/merchant_demo", body: `{"a": 1}`, key: "test_key_demo", secret: "test_secret_demo", ts: ts}
	for _, tc := range []struct {
		name   string
		change func(r *diagRequest)
		code   string
		says   string
	}{
		{"missing signature", func(r *diagRequest) { r.drop = "X-Service-Signature" }, firmakit.CauseMissingHeaders, "missing header: X-Service-Signature"},
		{"timestamp in milliseconds", func(r *diagRequest) { r.ts = ts + "123" }, firmakit.CauseTimestampMilliseconds, "in milliseconds: send Unix time in whole seconds (1763805600)"},
		{"timestamp not a number", func(r *diagRequest) { r.ts = "2026-11-22T10:00:00Z" }, firmakit.CauseTimestampNotSeconds, "not a Unix time in whole seconds"},
		{"clock behind", func(r *diagRequest) { r.ts = strconv.FormatInt(now.Unix()-412, 10) }, firmakit.CauseClockSkew, "412 s behind the server's clock, beyond the tolerance of 300 s"},
		{"clock ahead", func(r *diagRequest) { r.ts = strconv.FormatInt(now.Unix()+301, 10) }, firmakit.CauseClockSkew, "301 s ahead of the server's clock"},
		{"unknown key", func(r *diagRequest) { r.key = "test_key_nope" }, firmakit.CauseUnknownKey, `the key "test_key_nope" is not a credential`},
		{"disabled key", func(r *diagRequest) { r.key, r.secret = "test_key_disabled", "test_secret_disabled" }, firmakit.CauseDisabledKey, "is disabled"},
		{"another merchant's key", func(r *diagRequest) { r.key, r.secret = "test_key_other", "test_secret_other" }, firmakit.CauseOtherMerchantKey, `belongs to another merchant than "merchant_demo"`},
		{"signature in base64", func(r *diagRequest) { r.signature = ptr("k7ovr15ezsrzM1PDXNf6hqJqbGqRUtyVUXaoU5cYjFs=") }, firmakit.CauseSignatureEncoding, "should be the 64 characters of hex of HMAC-SHA256, got 44"},
		{"signed an empty body", func(r *diagRequest) { r.signBody = ptr("") }, firmakit.CauseBodyDiffers, "the body you signed differs from the body you sent: 8 bytes received, you signed 0 bytes (an empty body)"},
		{"signed {}", func(r *diagRequest) { r.signBody = ptr("{}") }, firmakit.CauseBodyDiffers, "8 bytes received, you signed 2 bytes ({})"},
		{"signed compact JSON", func(r *diagRequest) { r.signBody = ptr(`{"a":1}`) }, firmakit.CauseBodyDiffers, "you signed 7 bytes (the body re-encoded as compact JSON)"},
		{"sent a final line break", func(r *diagRequest) { r.body += "\n"; r.signBody = ptr(`{"a": 1}`) }, firmakit.CauseBodyDiffers, "9 bytes received, you signed 8 bytes (the body without its final line break)"},
		{"query not signed", func(r *diagRequest) { r.target += "?lang=es"; r.signTarget = ptr("/v1/check/merchant_demo") }, firmakit.CauseQueryNotSigned, "your path includes the query but you did not sign it"},
		{"path decoded", func(r *diagRequest) {
			r.target = "/v1/check/merchant%5Fdemo"
			r.signTarget = ptr("/v1/check/merchant_demo")
		}, firmakit.CausePathDecoded, `you signed the target percent-decoded ("/v1/check/merchant_demo")`},
		{"method in lower case", func(r *diagRequest) { r.signMethod = ptr("post") }, firmakit.CauseMethodCase, "you signed the method in lower case (post)"},
		{"wrong secret", func(r *diagRequest) { r.secret = "not_the_secret" }, firmakit.CauseSecretOrBytes, "the secret, or the bytes you sign, differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := valid
			tc.change(&r)
			d, sig := diagnoseOf(t, r, now)
			assert.Equal(t, tc.code, d.CauseCode, d.Cause)
			assert.Contains(t, d.Cause, tc.says)
			b, err := json.Marshal(d)
			require.NoError(t, err)
			for _, secret := range []string{"test_secret_demo", "test_secret_disabled", "test_secret_other", "not_the_secret"} {
				assert.NotContains(t, string(b), secret)
			}
			// The signature the server expected is never shown; the one
			// sent may be (it is not a secret) unless it is the expected one.
			want := firmakit.BundledProfile().RequestSignature(diagCreds["test_key_demo"].Secret, firmakit.RequestParts{
				Timestamp: r.ts, Method: r.method, Target: r.target, KeyID: r.key, Body: []byte(r.body)})
			if want != sig {
				assert.NotContains(t, strings.ToLower(string(b)), want, "the expected signature")
			}
		})
	}
}

func TestDiagnosticContent(t *testing.T) {
	now := time.Unix(1763805600, 0)
	p := firmakit.BundledProfile()
	h := http.Header{}
	h.Set("X-Service-Key", "test_key_nope")
	h.Set("X-Service-Timestamp", "1763805590")
	h.Set("X-Service-Signature", "00")
	_, err := p.VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, diagLookup, now, func() ([]byte, error) { return []byte("{}"), nil })
	require.ErrorIs(t, err, firmakit.ErrInvalidCredentials)
	d := p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", Target: "/v1/check/merchant_demo", MerchantID: "merchant_demo",
		Header: h, Body: []byte("{}"), BodyRead: true}, err, diagLookup, now)
	assert.Equal(t, `"1763805590\nPOST\n/v1/check/merchant_demo\n{}"`, d.StringToSign, "built even for an unknown key")
	assert.Equal(t, 42, d.StringToSignBytes)
	require.NotNil(t, d.ClockDifferenceSeconds)
	assert.Equal(t, int64(-10), *d.ClockDifferenceSeconds)
	assert.Equal(t, int64(1763805600), d.ServerTime)
	require.NotNil(t, d.BodyBytes)
	assert.Equal(t, 2, *d.BodyBytes)
	assert.Equal(t, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", d.BodySHA256)
	assert.Equal(t, []firmakit.HeaderSeen{{Name: "X-Service-Key", Value: "test_key_nope"},
		{Name: "X-Service-Timestamp", Value: "1763805590"}, {Name: "X-Service-Signature", Value: "00"}}, d.Headers)

	// Without the timestamp nor the body, no string to sign is built, and
	// the diagnostic says why.
	h.Del("X-Service-Timestamp")
	_, err = p.VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, diagLookup, now, nil)
	d = p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", Target: "/v1/check/merchant_demo", Header: h, BodyNote: "not read"}, err, diagLookup, now)
	assert.Empty(t, d.StringToSign)
	assert.Contains(t, d.StringToSignNote, "X-Service-Timestamp header is missing")
	assert.Nil(t, d.ClockDifferenceSeconds)
	assert.Nil(t, d.BodyBytes)
	assert.False(t, d.BodyRead)
	assert.Equal(t, firmakit.HeaderSeen{Name: "X-Service-Timestamp", Missing: true}, d.Headers[1])

	// A string to sign past the limit is cut and marked.
	h.Set("X-Service-Timestamp", "1763805600")
	big := strings.Repeat("x", firmakit.MaxDiagnosticStringToSign)
	d = p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", Target: "/v1/check/merchant_demo", Header: h, Body: []byte(big), BodyRead: true},
		firmakit.ErrInvalidSignature, diagLookup, now)
	assert.True(t, d.StringToSignTruncated)
	assert.Equal(t, firmakit.MaxDiagnosticStringToSign+40, d.StringToSignBytes)
}

func TestEscapeStringToSign(t *testing.T) {
	for in, want := range map[string]string{
		"1763805600\nPOST\n/v1/check/merchant_demo\n{}": `"1763805600\nPOST\n/v1/check/merchant_demo\n{}"`,
		"tab\there, \"quoted\" \\ back":                 `"tab\there, \"quoted\" \\ back"`,
		"ñandú\r\n":                                     `"ñandú\r\n"`,
		"\xff\x00":                                      `"\xff\x00"`,
	} {
		got := firmakit.EscapeStringToSign([]byte(in))
		assert.Equal(t, want, got)
		back, err := strconv.Unquote(got)
		require.NoError(t, err)
		assert.Equal(t, in, back, "reversible")
		assert.NotContains(t, got, "\n", "one line")
	}
}

func hmacHex(secret, s string) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil))
}
