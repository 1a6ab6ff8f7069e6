package reference_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MustOpenServer opens a reference server on a free loopback port and
// closes it with the test.
func MustOpenServer(t testing.TB, change func(*reference.Server)) *reference.Server {
	t.Helper()
	s := &reference.Server{Addr: "127.0.0.1:0"}
	if change != nil {
		change(s)
	}
	require.NoError(t, s.Open())
	t.Cleanup(func() { s.Close() })
	return s
}

type call struct {
	method, path string
	body         []byte
	header       http.Header
}

// signed returns a request to path signed by the demo credential now.
func signed(path string, body string) call {
	p := firmakit.BundledProfile()
	return call{method: "POST", path: path, body: []byte(body),
		header: p.SignedHeaders("test_key_demo", "test_secret_demo", "POST", path, []byte(body), time.Now())}
}

func (c call) do(t testing.TB, base string) (int, firmakit.APIResponse, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	require.NoError(t, err)
	for k, v := range c.header {
		req.Header[k] = v
	}
	// JSON unless the case says otherwise; an empty list sends none.
	if _, given := req.Header["Content-Type"]; !given && c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out firmakit.APIResponse
	require.NoError(t, json.Unmarshal(raw, &out), "body is not the API's JSON shape: %s", raw)
	assert.Equal(t, resp.StatusCode, out.StatusCode, "status_code equals the HTTP status: %s", raw)
	return resp.StatusCode, out, string(raw)
}

const createBody = `{"title":"Contrato 42","documents":["contrato_arriendo"],
 "signers":[{"key":"signer_2","name":"Luis Soto","email":"luis@example.com"},{"key":"signer_1","name":"Ana Pérez","email":"ana@example.com"}],
 "data":{"nombre_arrendatario":"Ana Pérez","monto_mensual":"450000"}}`

func TestHostileRequests(t *testing.T) {
	// A fixed clock, so that the 299 s and 301 s cases sit where they say.
	now := time.Now()
	s := MustOpenServer(t, func(s *reference.Server) { s.Clock = reftest.StoppedClock(func() time.Time { return now }) })
	p := firmakit.BundledProfile()
	const check = "/v1/check/merchant_demo"
	ts := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	sign := func(key, secret, stamp, method, path, body string) http.Header {
		return http.Header{
			"X-Service-Key": {key}, "X-Service-Timestamp": {stamp},
			"X-Service-Signature": {p.RequestSignature(secret, firmakit.RequestParts{Timestamp: stamp, Method: method, RequestTarget: path, Body: []byte(body)})},
		}
	}
	demo := func(stamp, body string) http.Header {
		return sign("test_key_demo", "test_secret_demo", stamp, "POST", check, body)
	}
	without := func(h http.Header, name string) http.Header { h.Del(name); return h }
	with := func(h http.Header, name, v string) http.Header { h.Set(name, v); return h }
	bigTitle := strings.Repeat("ñ", 10000)
	var manySigners strings.Builder
	manySigners.WriteString(`{"title":"x","documents":["contrato_arriendo"],"data":{"nombre_arrendatario":"a","monto_mensual":"1"},"signers":[`)
	for i := 1; i <= 10000; i++ {
		if i > 1 {
			manySigners.WriteByte(',')
		}
		fmt.Fprintf(&manySigners, `{"key":"signer_%d","name":"n","email":"n%d@example.com"}`, i, i)
	}
	manySigners.WriteString("]}")
	huge := "{\"a\":\"" + strings.Repeat("x", 1<<20) + "\"}"

	cases := []struct {
		name    string
		call    call
		status  int
		message string
	}{
		{"valid", call{"POST", check, []byte("{}"), demo(ts(0), "{}")}, 200, "Authenticated"},
		{"no key", call{"POST", check, []byte("{}"), without(demo(ts(0), "{}"), "X-Service-Key")}, 400, "Missing headers"},
		{"no timestamp", call{"POST", check, []byte("{}"), without(demo(ts(0), "{}"), "X-Service-Timestamp")}, 400, "Missing headers"},
		{"no signature", call{"POST", check, []byte("{}"), without(demo(ts(0), "{}"), "X-Service-Signature")}, 400, "Missing headers"},
		{"no headers at all", call{"POST", check, []byte("{}"), http.Header{}}, 400, "Missing headers"},
		{"empty key", call{"POST", check, []byte("{}"), with(demo(ts(0), "{}"), "X-Service-Key", "")}, 400, "Missing headers"},
		{"empty timestamp", call{"POST", check, []byte("{}"), with(demo(ts(0), "{}"), "X-Service-Timestamp", "")}, 400, "Missing headers"},
		{"empty signature", call{"POST", check, []byte("{}"), with(demo(ts(0), "{}"), "X-Service-Signature", "")}, 400, "Missing headers"},
		{"duplicated key header, two values", call{"POST", check, []byte("{}"), func() http.Header {
			h := demo(ts(0), "{}")
			h.Add("X-Service-Key", "test_key_other")
			return h
		}()}, 400, "Missing headers"},
		{"duplicated signature header, same value", call{"POST", check, []byte("{}"), func() http.Header {
			h := demo(ts(0), "{}")
			h.Add("X-Service-Signature", h.Get("X-Service-Signature"))
			return h
		}()}, 200, "Authenticated"},
		{"missing and expired", call{"POST", check, []byte("{}"), without(demo("1", "{}"), "X-Service-Key")}, 400, "Missing headers"},
		{"timestamp not numeric", call{"POST", check, []byte("{}"), demo("abc", "{}")}, 401, "Request expired"},
		{"timestamp negative", call{"POST", check, []byte("{}"), demo("-"+ts(0), "{}")}, 401, "Request expired"},
		{"timestamp 20 digits", call{"POST", check, []byte("{}"), demo("17638056001763805600", "{}")}, 401, "Request expired"},
		{"timestamp with decimals", call{"POST", check, []byte("{}"), demo(ts(0)+".5", "{}")}, 401, "Request expired"},
		{"timestamp in milliseconds", call{"POST", check, []byte("{}"), demo(strconv.FormatInt(now.UnixMilli(), 10), "{}")}, 401, "Request expired"},
		{"301 s old", call{"POST", check, []byte("{}"), demo(ts(-301*time.Second), "{}")}, 401, "Request expired"},
		{"301 s ahead", call{"POST", check, []byte("{}"), demo(ts(301*time.Second), "{}")}, 401, "Request expired"},
		{"299 s old", call{"POST", check, []byte("{}"), demo(ts(-299*time.Second), "{}")}, 200, "Authenticated"},
		{"299 s ahead", call{"POST", check, []byte("{}"), demo(ts(299*time.Second), "{}")}, 200, "Authenticated"},
		{"expired and bad signature", call{"POST", check, []byte("{}"), with(demo(ts(-400*time.Second), "{}"), "X-Service-Signature", "00")}, 401, "Request expired"},
		{"unknown key", call{"POST", check, []byte("{}"), with(demo(ts(0), "{}"), "X-Service-Key", "nope")}, 401, "Invalid credentials"},
		{"disabled key", call{"POST", check, []byte("{}"), sign("test_key_disabled", "test_secret_disabled", ts(0), "POST", check, "{}")}, 401, "Invalid credentials"},
		{"another merchant's key", call{"POST", check, []byte("{}"), sign("test_key_other", "test_secret_other", ts(0), "POST", check, "{}")}, 401, "Invalid credentials"},
		{"bad credentials and bad signature", call{"POST", check, []byte("{}"), with(with(demo(ts(0), "{}"), "X-Service-Key", "nope"), "X-Service-Signature", "zz")}, 401, "Invalid credentials"},
		{"signature not hex", call{"POST", check, []byte("{}"), with(demo(ts(0), "{}"), "X-Service-Signature", "not-hex!")}, 401, "Invalid signature"},
		{"signature truncated", call{"POST", check, []byte("{}"), func() http.Header {
			h := demo(ts(0), "{}")
			h.Set("X-Service-Signature", h.Get("X-Service-Signature")[:40])
			return h
		}()}, 401, "Invalid signature"},
		{"signature upper case", call{"POST", check, []byte("{}"), func() http.Header {
			h := demo(ts(0), "{}")
			h.Set("X-Service-Signature", strings.ToUpper(h.Get("X-Service-Signature")))
			return h
		}()}, 200, "Authenticated"},
		{"signature of another body", call{"POST", check, []byte(`{"a":1}`), demo(ts(0), "{}")}, 401, "Invalid signature"},
		{"signature of another path", call{"POST", check, []byte("{}"), sign("test_key_demo", "test_secret_demo", ts(0), "POST", "/v1/signature/merchant_demo", "{}")}, 401, "Invalid signature"},
		{"signature of another method", call{"POST", check, []byte("{}"), sign("test_key_demo", "test_secret_demo", ts(0), "PUT", check, "{}")}, 401, "Invalid signature"},
		{"signature with another merchant's secret", call{"POST", check, []byte("{}"), sign("test_key_demo", "test_secret_other", ts(0), "POST", check, "{}")}, 401, "Invalid signature"},
		{"query added after signing", call{"POST", check + "?x=1", []byte("{}"), demo(ts(0), "{}")}, 401, "Invalid signature"},
		{"invalid JSON", signed(check, `{"a":`), 400, "Body is not valid JSON: the body ends before the JSON value does"},
		{"JSON array", signed(check, `[1,2]`), 400, "Body must be a JSON object, got an array"},
		{"JSON null", signed(check, `null`), 400, "Body must be a JSON object, got null"},
		{"two JSON values", signed(check, `{}{}`), 400, "Body is not valid JSON: unexpected data after the value at byte 2"},
		{"empty body", signed(check, ``), 400, "Body is empty: send a JSON object, such as {}"},
		{"body over 1 MiB", signed(check, huge), 413, "Request body too large: 1048584 bytes, the limit is 1048576 bytes"},
		{"content type not JSON", withType(signed(check, "{}"), "text/plain"), 400, `Content-Type "text/plain" is not JSON: send the body as application/json`},
		{"content type a form", withType(signed(check, "{}"), "application/x-www-form-urlencoded"), 400, `Content-Type "application/x-www-form-urlencoded" is not JSON: send the body as application/json`},
		{"content type that does not parse", withType(signed(check, "{}"), "application/json;;"), 400, `Content-Type "application/json;;" is not JSON: send the body as application/json`},
		{"content type not JSON, body not JSON", withType(signed(check, "x"), "text/plain"), 400, `Content-Type "text/plain" is not JSON: send the body as application/json`},
		{"content type not JSON and bad signature", withType(call{"POST", check, []byte("{}"), with(demo(ts(0), "{}"), "X-Service-Signature", "00")}, "text/plain"), 401, "Invalid signature"},
		{"content type not JSON and expired", withType(call{"POST", check, []byte("{}"), demo(ts(-301*time.Second), "{}")}, "text/plain"), 401, "Request expired"},
		{"content type not JSON and no headers", withType(call{"POST", check, []byte("{}"), http.Header{}}, "text/plain"), 400, "Missing headers"},
		{"content type JSON with a charset", withType(signed(check, "{}"), "application/json; charset=utf-8"), 200, "Authenticated"},
		{"content type of a JSON suffix", withType(signed(check, "{}"), "application/merge-patch+json"), 200, "Authenticated"},
		{"no content type", withType(signed(check, "{}"), ""), 200, "Authenticated"},
		{"merchant id percent-encoded, signed as sent", signed("/v1/check/merchant%5Fdemo", "{}"), 200, "Authenticated"},
		{"version percent-encoded, signed as sent", signed("/%76%31/check/merchant_demo", "{}"), 200, "Authenticated"},
		{"merchant id percent-encoded, signed decoded", call{"POST", "/v1/check/merchant%5Fdemo", []byte("{}"), demo(ts(0), "{}")}, 401, "Invalid signature"},
		{"merchant id percent-encoded to another merchant", signed("/v1/check/merchant%5Fother", "{}"), 401, "Invalid credentials"},
		{"encoded slash in the merchant id", signed("/v1/check/merchant_demo%2Fextra", "{}"), 404, "Not found: POST /v1/check/merchant_demo/extra is not an endpoint of this service (it has POST /{api_version}/check/{merchant_id} and POST /v1/signature/{merchant_id})"},
		{"create: merchant id percent-encoded", signed("/v1/signature/merchant%5Fdemo", createBody), 201, "Signature request created"},
		{"unknown api version", signed("/v2/check/merchant_demo", "{}"), 404, `Unknown api version: "v2" (accepted: v1)`},
		{"wrong method", call{"GET", check, nil, demo(ts(0), "{}")}, 405, "Method not allowed: GET /v1/check/merchant_demo; this endpoint takes POST"},
		{"merchant segment with a slash", signed("/v1/check/merchant_demo/extra", "{}"), 404, "Not found: POST /v1/check/merchant_demo/extra is not an endpoint of this service (it has POST /{api_version}/check/{merchant_id} and POST /v1/signature/{merchant_id})"},
		{"wrong method on a GET route", call{"POST", "/_sandbox/deliveries", []byte("{}"), nil}, 405, "Method not allowed: POST /_sandbox/deliveries; this endpoint takes GET"},
		{"unknown route", call{"POST", "/v1/nope", []byte("{}"), nil}, 404, "Not found: POST /v1/nope is not an endpoint of this service (it has POST /{api_version}/check/{merchant_id} and POST /v1/signature/{merchant_id})"},
		{"hostile merchant id", signed("/v1/check/%3Cscript%3E", "{}"), 401, "Invalid credentials"},
		{"create: unicode title", signed("/v1/signature/merchant_demo", strings.Replace(createBody, "Contrato 42", "Contrato ñandú 😀 \u202e", 1)), 201, "Signature request created"},
		{"create: 10,000-character title", signed("/v1/signature/merchant_demo", strings.Replace(createBody, "Contrato 42", bigTitle, 1)), 400, "title is too long: 10000 characters, at most 500"},
		{"create: 10,000 signers", signed("/v1/signature/merchant_demo", manySigners.String()), 400, "too many signers: 10000, at most 100"},
		{"create: title a number", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"Contrato 42"`, "42", 1)), 400, "title must be a string"},
		{"create: no title", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"title":"Contrato 42",`, "", 1)), 400, "title is required"},
		{"create: unknown document", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `["contrato_arriendo"]`, `["x"]`, 1)), 400, "unknown document: x"},
		{"create: missing data key", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `,"monto_mensual":"450000"`, "", 1)), 400, "missing data key: monto_mensual"},
		{"create: unknown data key", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"monto_mensual":"450000"`, `"monto_mensual":"1","montto":"2"`, 1)), 400, "unknown data key: montto"},
		{"create: missing signer", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `{"key":"signer_2","name":"Luis Soto","email":"luis@example.com"},`, "", 1)), 400, "missing signer: signer_2"},
		{"create: invalid email", signed("/v1/signature/merchant_demo", strings.Replace(createBody, "ana@example.com", "ana@", 1)), 400, "invalid email for signer_1"},
		{"create: signer twice", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"signer_2"`, `"signer_1"`, 1)), 400, "signer listed twice: signer_1"},
		{"create: signers wrong type", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"signers":[`, `"signers":"x","s":[`, 1)), 400, "unknown field: s (allowed: title, documents, signers, data, routing)"},
		{"create: bad routing", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"title"`, `"routing":"serial","title"`, 1)), 400, "routing must be parallel or sequential"},
		{"create: data wrong type", signed("/v1/signature/merchant_demo", strings.Replace(createBody, `"450000"`, `[1]`, 1)), 400, "data key monto_mensual must be a string"},
		{"create: array body", signed("/v1/signature/merchant_demo", `[]`), 400, "Body must be a JSON object, got an array"},
	}
	require.GreaterOrEqual(t, len(cases), 30)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, out, raw := tc.call.do(t, s.URL())
			assert.Less(t, status, 500)
			assert.Equal(t, tc.status, status, raw)
			assert.Equal(t, tc.message, out.Message, raw)
		})
	}
}

// withType gives a call this Content-Type; "" sends none.
func withType(c call, ct string) call {
	if c.header == nil {
		c.header = http.Header{}
	}
	if ct == "" {
		c.header["Content-Type"] = []string{}
	} else {
		c.header.Set("Content-Type", ct)
	}
	return c
}

func TestCreateSignatureEnvelope(t *testing.T) {
	s := MustOpenServer(t, nil)
	status, out, raw := signed("/v1/signature/merchant_demo", createBody).do(t, s.URL())
	require.Equal(t, 201, status, raw)
	assert.Equal(t, "Signature request created", out.Message)
	env := out.Data
	require.NotNil(t, env)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, env.SignatureID)
	assert.Equal(t, "PENDIENTE", env.Status)
	assert.Equal(t, "Contrato 42", env.Title)
	assert.Equal(t, "parallel", env.Routing)
	assert.Equal(t, firmakit.Sender{Name: "Comercio Demo", Email: "contratos@comercio-demo.test"}, env.Sender)
	assert.Equal(t, []firmakit.Document{{Key: "document_0", Title: "Contrato de arriendo"}}, env.Documents)
	assert.Equal(t, []firmakit.Recipient{
		{Key: "signer_1", Name: "Ana Pérez", Email: "ana@example.com", Status: "pending"},
		{Key: "signer_2", Name: "Luis Soto", Email: "luis@example.com", Status: "pending"},
	}, env.Recipients)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, env.CreatedAt)
	// No demo title, so no delivery.
	assert.Empty(t, s.Deliveries())
}

// TestRefusedBeforeRoutingAnswersInShape: requests that net/http refuses
// before any handler (a target that does not parse, a method that is not
// a token, headers over the limit) still get the API's JSON body, with
// status_code equal to the HTTP status and a message that says what to fix.
func TestRefusedBeforeRoutingAnswersInShape(t *testing.T) {
	s := MustOpenServer(t, nil)
	addr := strings.TrimPrefix(s.URL(), "http://")
	valid := "POST /v1/check/merchant_demo HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	cases := []struct {
		name, request string
		status        int
		message       string
	}{
		{"valid, unsigned", valid, 400, "Missing headers"},
		{"target with an invalid escape", strings.Replace(valid, "merchant_demo", "%zz", 1), 400,
			`Malformed request target "/v1/check/%zz": invalid percent-encoding "%zz"; write a literal % as %25`},
		{"version with an invalid escape", strings.Replace(valid, "/v1/", "/%v1/", 1), 400,
			`Malformed request target "/%v1/check/merchant_demo": invalid percent-encoding "%v1"; write a literal % as %25`},
		{"method not a token", strings.Replace(valid, "POST", "PO(ST", 1), 400, `Invalid method "PO(ST": a method is letters such as POST`},
		{"unknown method", strings.Replace(valid, "POST", "BREW", 1), 405, "Method not allowed: BREW /v1/check/merchant_demo; this endpoint takes POST"},
		{"header over the limit", strings.Replace(valid, "\r\n\r\n", "\r\nX-Pad: "+strings.Repeat("a", reference.MaxHeaderBytes+8192)+"\r\n\r\n", 1), 431,
			fmt.Sprintf("Request header fields too large: the request line and headers may take at most %d bytes", reference.MaxHeaderBytes)},
		{"no Host", strings.Replace(valid, "Host: "+addr+"\r\n", "", 1), 400, "Bad request: missing required Host header"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, ct, raw := rawRequest(t, addr, tc.request)
			assert.Equal(t, tc.status, status, raw)
			assert.Equal(t, "application/json", ct)
			var out firmakit.APIResponse
			require.NoError(t, json.Unmarshal([]byte(raw), &out), raw)
			assert.Equal(t, firmakit.APIResponse{StatusCode: tc.status, Message: tc.message}, out)
		})
	}
}

// rawRequest sends bytes as they are and returns the answer's status,
// Content-Type and body.
func rawRequest(t *testing.T, addr, request string) (int, string, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestRoutingIsOneOfTwoValuesWhenSent: routing is optional (parallel by
// default), but sent, it is parallel or sequential; null and "" are
// neither (defaults §C bullet 4).
func TestRoutingIsOneOfTwoValuesWhenSent(t *testing.T) {
	x := reftest.Open(t, nil, nil, nil)
	for _, v := range []any{nil, "", "Parallel"} {
		assert.Equal(t, "400 routing must be parallel or sequential", x.Create(t, func(r map[string]any) { r["routing"] = v }).Line(), "%#v", v)
	}
	a := x.Create(t, nil)
	assert.Equal(t, "201 Signature request created", a.Line())
	assert.Equal(t, "parallel", reftest.Str(a.Data()["routing"]), "absent: the default")
}
