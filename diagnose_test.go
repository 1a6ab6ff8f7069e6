package firmakit_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
	rp := firmakit.RequestParts{Timestamp: r.ts, Method: r.method, RequestTarget: r.target, KeyID: r.key, Body: []byte(r.body)}
	if r.signMethod != nil {
		rp.Method = *r.signMethod
	}
	if r.signTarget != nil {
		rp.RequestTarget = *r.signTarget
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
	d := p.DiagnoseRequest(firmakit.RequestSeen{Method: r.method, RequestTarget: r.target, MerchantID: "merchant_demo", Header: h,
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
		{"timestamp in milliseconds, an hour behind", func(r *diagRequest) { r.ts = strconv.FormatInt((now.Unix()-3600)*1000, 10) }, firmakit.CauseTimestampMilliseconds,
			"the timestamp 1763802000000 is in milliseconds: send Unix time in whole seconds (1763802000); in seconds it is 1763802000, 3600 s away"},
		{"timestamp in milliseconds, skewed ahead", func(r *diagRequest) { r.ts = "1762045394400" }, firmakit.CauseTimestampMilliseconds, "is in milliseconds"},
		{"timestamp in microseconds", func(r *diagRequest) { r.ts = ts + "123456" }, firmakit.CauseTimestampMicroseconds, "is in microseconds: send Unix time in whole seconds (1763805600)"},
		{"timestamp in microseconds, skewed", func(r *diagRequest) { r.ts = "1763800000000000" }, firmakit.CauseTimestampMicroseconds, "5600 s away"},
		{"timestamp in nanoseconds", func(r *diagRequest) { r.ts = ts + "123456789" }, firmakit.CauseTimestampNanoseconds, "is in nanoseconds: send Unix time in whole seconds (1763805600)"},
		{"timestamp in nanoseconds, skewed", func(r *diagRequest) { r.ts = "1700000000000000000" }, firmakit.CauseTimestampNanoseconds, "(1700000000)"},
		{"timestamp not a number", func(r *diagRequest) { r.ts = "2026-11-22T10:00:00Z" }, firmakit.CauseTimestampNotSeconds, "not a Unix time in whole seconds"},
		{"timestamp of 20 digits", func(r *diagRequest) { r.ts = "99999999999999999999" }, firmakit.CauseTimestampNotSeconds, "not a Unix time in whole seconds"},
		{"clock behind", func(r *diagRequest) { r.ts = strconv.FormatInt(now.Unix()-412, 10) }, firmakit.CauseClockSkew, "412 s behind the server's clock, beyond the tolerance of 300 s"},
		{"clock ahead", func(r *diagRequest) { r.ts = strconv.FormatInt(now.Unix()+301, 10) }, firmakit.CauseClockSkew, "301 s ahead of the server's clock"},
		{"unknown key", func(r *diagRequest) { r.key = "test_key_nope" }, firmakit.CauseUnknownKey, `the key "test_key_nope" is not a credential`},
		{"disabled key", func(r *diagRequest) { r.key, r.secret = "test_key_disabled", "test_secret_disabled" }, firmakit.CauseDisabledKey, "is disabled"},
		{"another merchant's key", func(r *diagRequest) { r.key, r.secret = "test_key_other", "test_secret_other" }, firmakit.CauseOtherMerchantKey, `belongs to another merchant than "merchant_demo"`},
		{"signature in base64", func(r *diagRequest) { r.signature = ptr("k7ovr15ezsrzM1PDXNf6hqJqbGqRUtyVUXaoU5cYjFs=") }, firmakit.CauseSignatureEncoding, "is not hex: it should be the 64 characters of hex of HMAC-SHA256, got 44"},
		{"signature of 40 hex characters", func(r *diagRequest) { r.signature = ptr(strings.Repeat("ab", 20)) }, firmakit.CauseSignatureEncoding,
			"X-Service-Signature has the wrong length: 40 hex characters, the profile's HMAC-SHA256 in hex has 64 (the length of an HMAC-SHA1)"},
		{"signature of 128 hex characters", func(r *diagRequest) { r.signature = ptr(strings.Repeat("AB", 64)) }, firmakit.CauseSignatureEncoding,
			"wrong length: 128 hex characters, the profile's HMAC-SHA256 in hex has 64 (the length of an HMAC-SHA512)"},
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
				Timestamp: r.ts, Method: r.method, RequestTarget: r.target, KeyID: r.key, Body: []byte(r.body)})
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
	d := p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/merchant_demo", MerchantID: "merchant_demo",
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
	d = p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/merchant_demo", Header: h, BodyNote: "not read"}, err, diagLookup, now)
	assert.Empty(t, d.StringToSign)
	assert.Contains(t, d.StringToSignNote, "X-Service-Timestamp header is missing")
	assert.Nil(t, d.ClockDifferenceSeconds)
	assert.Nil(t, d.BodyBytes)
	assert.False(t, d.BodyRead)
	assert.Equal(t, firmakit.HeaderSeen{Name: "X-Service-Timestamp", Missing: true}, d.Headers[1])

	// A string to sign past the limit is cut and marked.
	h.Set("X-Service-Timestamp", "1763805600")
	big := strings.Repeat("x", firmakit.MaxDiagnosticStringToSign)
	d = p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/merchant_demo", Header: h, Body: []byte(big), BodyRead: true},
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

// TestLoggedDiagnosticCannotBeReplayed: a client signs {} and sends
// {"a":1}; the answer tells it so, with everything it needs, while the
// copy a server logs for others to read holds neither the signature, which
// is valid for the message it signed, nor the body.
func TestLoggedDiagnosticCannotBeReplayed(t *testing.T) {
	now := time.Unix(1763805600, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	body := `{"a":"secret personal data 12345"}`
	d, sig := diagnoseOf(t, diagRequest{method: "POST", target: "/v1/check/merchant_demo", body: body, signBody: ptr("{}"),
		key: "test_key_demo", secret: "test_secret_demo", ts: ts}, now)
	require.Equal(t, firmakit.CauseBodyDiffers, d.CauseCode)
	answer, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Contains(t, string(answer), sig, "the client's own answer keeps its signature")
	assert.Contains(t, d.StringToSign, `secret personal data`, "and its body")

	l := d.Logged()
	logged, err := json.Marshal(l)
	require.NoError(t, err)
	assert.NotContains(t, string(logged), sig, "no signature to replay")
	assert.NotContains(t, string(logged), sig[:16])
	assert.NotContains(t, string(logged), "secret personal data", "no body")
	assert.Equal(t, firmakit.HeaderSeen{Name: "X-Service-Signature", Value: "(64 characters, not logged)"}, l.Headers[2])
	assert.Equal(t, `"1763805600\nPOST\n/v1/check/merchant_demo\n"`, l.StringToSign, "up to the body")
	assert.Equal(t, d.StringToSignBytes, l.StringToSignBytes, "the whole length still told")
	assert.True(t, l.StringToSignTruncated)
	assert.Contains(t, l.StringToSignNote, "the body is not logged")
	assert.Equal(t, d.BodySHA256, l.BodySHA256)
	assert.Equal(t, d.Cause, l.Cause, "the cause names no byte of the body")
	assert.Equal(t, sig, d.Headers[2].Value, "the original is unchanged")

	// Check 3's causes tell which keys exist: the answer to the client
	// says which, the log one code for all.
	for _, key := range []string{"test_key_nope", "test_key_disabled", "test_key_other"} {
		d, _ := diagnoseOf(t, diagRequest{method: "POST", target: "/v1/check/merchant_demo", body: "{}", key: key, secret: "x", ts: ts}, now)
		assert.NotEqual(t, firmakit.CauseInvalidCredentials, d.CauseCode)
		l := d.Logged()
		assert.Equal(t, firmakit.CauseInvalidCredentials, l.CauseCode, key)
		assert.NotContains(t, l.Cause, key)
		assert.NotContains(t, l.Cause, "disabled key")
	}
	var none *firmakit.Diagnostic
	assert.Nil(t, none.Logged())
}

// TestDiagnosticCutsEscapedText: the string to sign is cut at 16 KiB of
// escaped text, between two escapes and never inside a character, so a
// body that escapes to four times its size takes no more room, and what is
// shown is what 'firmakit sign' prints, up to the cut.
func TestDiagnosticCutsEscapedText(t *testing.T) {
	now := time.Unix(1763805600, 0)
	p := firmakit.BundledProfile()
	h := p.SignedHeaders("test_key_demo", "not_the_secret", "POST", "/v1/check/merchant_demo", nil, now)
	diagnose := func(body []byte) *firmakit.Diagnostic {
		return p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/merchant_demo", MerchantID: "merchant_demo",
			Header: h, Body: body, BodyRead: true}, firmakit.ErrInvalidSignature, diagLookup, now)
	}
	const prefix = len("1763805600\nPOST\n/v1/check/merchant_demo\n")
	for name, body := range map[string][]byte{
		"control bytes":    bytes.Repeat([]byte{0}, 20<<10),
		"invalid UTF-8":    bytes.Repeat([]byte{0xff}, 20<<10),
		"ñ across the cut": []byte(strings.Repeat("x", firmakit.MaxDiagnosticStringToSign-prefix-7) + strings.Repeat("ñ", 100)),
		"U+10FFFF":         []byte(strings.Repeat("\U0010ffff", 5<<10)),
	} {
		t.Run(name, func(t *testing.T) {
			d := diagnose(body)
			assert.True(t, d.StringToSignTruncated)
			assert.Equal(t, prefix+len(body), d.StringToSignBytes)
			assert.LessOrEqual(t, len(d.StringToSign), firmakit.MaxDiagnosticStringToSign+2, "quotes aside")
			assert.Greater(t, len(d.StringToSign), firmakit.MaxDiagnosticStringToSign-10, "cut near the limit")
			shown, err := strconv.Unquote(d.StringToSign)
			require.NoError(t, err, "a whole escape at the end")
			full := string(p.StringToSign(firmakit.RequestParts{Timestamp: "1763805600", Method: "POST", RequestTarget: "/v1/check/merchant_demo", KeyID: "test_key_demo", Body: body}))
			assert.True(t, strings.HasPrefix(full, shown), "a prefix of the string signed")
			assert.True(t, strings.HasPrefix(firmakit.EscapeStringToSign([]byte(full)), strings.TrimSuffix(d.StringToSign, `"`)),
				"written as 'firmakit sign' writes it")
			if utf8.ValidString(full) {
				assert.True(t, utf8.ValidString(shown), "no character split")
			}
		})
	}
}

// TestDiagnosticEscapesTargetAndHeaders: a target or header value with
// bytes that are not UTF-8 is also given escaped, so that a JSON reader
// sees the bytes that were sent instead of U+FFFD.
func TestDiagnosticEscapesTargetAndHeaders(t *testing.T) {
	now := time.Unix(1763805600, 0)
	p := firmakit.BundledProfile()
	h := p.SignedHeaders("test_key_\xff", "x", "POST", "/v1/check/merchant_demo", nil, now)
	d := p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/m\xe9rchant?q=\xc3", MerchantID: "merchant_demo",
		Header: h, Body: []byte("{}"), BodyRead: true}, firmakit.ErrInvalidCredentials, diagLookup, now)
	assert.Equal(t, `"/v1/check/m\xe9rchant?q=\xc3"`, d.RequestTargetEscaped)
	assert.Equal(t, `"test_key_\xff"`, d.Headers[0].ValueEscaped)
	assert.Empty(t, d.Headers[1].ValueEscaped, "only when needed")
	b, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"target_escaped":"\"/v1/check/m\\xe9rchant?q=\\xc3\""`)
	d = p.DiagnoseRequest(firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/merchant_demo?ñ=1", Header: h}, firmakit.ErrInvalidCredentials, diagLookup, now)
	assert.Empty(t, d.RequestTargetEscaped, "printable UTF-8 needs no escape")
}

// TestDiagnoseLargeBodyTriesNoVariants: the variants of a body (without
// its final line break, compact JSON) cost a pass over the body each; over
// BodyVariantsMax they are not tried, and the cause says so.
func TestDiagnoseLargeBodyTriesNoVariants(t *testing.T) {
	now := time.Unix(1763805600, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	for _, tc := range []struct {
		size int
		code string
		says string
	}{
		{firmakit.BodyVariantsMax - 1, firmakit.CauseBodyDiffers, "without its final line break"},
		{firmakit.BodyVariantsMax + 100, firmakit.CauseSecretOrBytes, "the body is over 64 KiB, so the variants"},
	} {
		signed := `{"s":"` + strings.Repeat("x", tc.size-9) + `"}`
		d, _ := diagnoseOf(t, diagRequest{method: "POST", target: "/v1/check/merchant_demo", body: signed + "\n", signBody: &signed,
			key: "test_key_demo", secret: "test_secret_demo", ts: ts}, now)
		assert.Equal(t, tc.code, d.CauseCode, tc.size)
		assert.Contains(t, d.Cause, tc.says)
	}
}
