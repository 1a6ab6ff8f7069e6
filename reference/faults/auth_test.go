package faults_test

import (
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// authCases are the cases of the faults of authentication, its routes, the body checks and the error answers.
func authCases() []faultCase {
	return []faultCase{
		{fault: "auth-empty-header-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{
					x.Send(t, reftest.Request{Header: setHeader(reftest.SigHeader, "")}).Line(),
					x.Send(t, reftest.Request{Header: setHeader(reftest.KeyHeader, "")}).Line(),
					x.Send(t, reftest.Request{Header: setHeader(reftest.TSHeader, "")}).Line(),
				}
			},
			correct: []string{"400 Missing headers", "400 Missing headers", "400 Missing headers"},
			faulty:  []string{invalidSig, invalidCreds, expired}},
		{fault: "auth-missing-headers-401",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Header: reftest.DropHeader(reftest.KeyHeader)}).Line()
			},
			correct: "400 Missing headers", faulty: "401 Missing headers"},
		{fault: "auth-missing-header-label",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Header: reftest.DropHeader(reftest.SigHeader)}).Line()
			},
			correct: "400 Missing headers", faulty: "400 Missing header"},
		{fault: "auth-future-timestamp-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return offsets(x, t, 400*time.Second, 86400*time.Second, -400*time.Second)
			},
			correct: []string{expired, expired, expired}, faulty: []string{authed, authed, expired}},
		{fault: "auth-old-timestamp-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return offsets(x, t, -400*time.Second, -86400*time.Second, 400*time.Second)
			},
			correct: []string{expired, expired, expired}, faulty: []string{authed, authed, expired}},
		{fault: "auth-tolerance-600s",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return offsets(x, t, -301*time.Second, 301*time.Second, -601*time.Second)
			},
			correct: []string{expired, expired, expired}, faulty: []string{authed, authed, expired}},
		{fault: "auth-tolerance-60s",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return offsets(x, t, -299*time.Second, 299*time.Second, -59*time.Second)
			},
			correct: []string{authed, authed, authed}, faulty: []string{expired, expired, authed}},
		{fault: "auth-timestamp-milliseconds-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{TS: strconv.FormatInt(x.Now.UnixMilli(), 10)}).Line()
			},
			correct: expired, faulty: authed},
		{fault: "auth-timestamp-lenient",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{x.Send(t, reftest.Request{TS: x.At(0) + ".5"}).Line(), x.Send(t, reftest.Request{TS: "+" + x.At(0)}).Line()}
			},
			correct: []string{expired, expired}, faulty: []string{authed, authed}},
		{fault: "auth-disabled-key-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Key: "test_key_disabled", Secret: "test_secret_disabled"}).Line()
			},
			correct: invalidCreds, faulty: authed},
		{fault: "auth-other-merchant-key-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Key: "test_key_other", Secret: "test_secret_other"}).Line()
			},
			correct: invalidCreds, faulty: authed},
		{fault: "auth-unknown-key-invalid-signature",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Key: "test_key_nope", Secret: "x"}).Line()
			},
			correct: invalidCreds, faulty: invalidSig},
		{fault: "auth-uppercase-signature-refused",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Header: func(h http.Header) { h.Set(reftest.SigHeader, strings.ToUpper(h.Get(reftest.SigHeader))) }}).Line()
			},
			correct: authed, faulty: invalidSig},
		{fault: "auth-method-not-signed",
			probe: signedBoth("", nil, func(_ *firmakit.RequestParts, p *firmakit.Profile) {
				p.Request.StringToSign = without(p.Request.StringToSign, firmakit.PartMethod)
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-query-not-signed",
			probe: signedBoth("/v1/check/merchant_demo?ref=42", nil, func(rp *firmakit.RequestParts, _ *firmakit.Profile) {
				rp.RequestTarget = "/v1/check/merchant_demo"
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-target-decoded",
			probe: signedBoth("/v1/check/merchant_demo?nota=a%2Fb%20c", nil, func(rp *firmakit.RequestParts, _ *firmakit.Profile) {
				rp.RequestTarget = "/v1/check/merchant_demo?nota=a/b c"
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-body-reserialised",
			probe: signedBoth("", ptr(`{"b": 1, "a": "x"}`), func(rp *firmakit.RequestParts, _ *firmakit.Profile) {
				rp.Body = []byte(`{"a":"x","b":1}`)
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-timestamp-not-signed",
			probe: signedBoth("", nil, func(_ *firmakit.RequestParts, p *firmakit.Profile) {
				p.Request.StringToSign = without(p.Request.StringToSign, firmakit.PartTimestamp)
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-signature-prefix-compared",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Header: func(h http.Header) { h.Set(reftest.SigHeader, h.Get(reftest.SigHeader)[:16]+strings.Repeat("0", 48)) }}).Line()
			},
			correct: invalidSig, faulty: authed},
		{fault: "auth-signature-before-credentials",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Key: "test_key_disabled", Secret: "test_secret_disabled", Header: setHeader(reftest.SigHeader, "00")}).Line()
			},
			correct: invalidCreds, faulty: invalidSig},
		{fault: "auth-credentials-before-timestamp",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Key: "test_key_nope", Secret: "x", TS: x.At(-400 * time.Second)}).Line()
			},
			correct: expired, faulty: invalidCreds},
		{fault: "auth-timestamp-before-headers",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{TS: x.At(-400 * time.Second), Header: reftest.DropHeader(reftest.KeyHeader)}).Line()
			},
			correct: "400 Missing headers", faulty: expired},
		{fault: "auth-json-before-signature",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Body: ptr(`{"a":`), Header: setHeader(reftest.SigHeader, "00")}).Line()
			},
			correct: invalidSig, faulty: "400 Body is not valid JSON: the body ends before the JSON value does"},
		{fault: "auth-error-status-code-mismatch",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Send(t, badSignature)
				return []string{strconv.Itoa(a.Status), string(a.Obj["status_code"])}
			},
			correct: []string{"401", "401"}, faulty: []string{"401", "400"}},
		{fault: "auth-error-text-plain",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Send(t, badSignature)
				mt, _, err := mime.ParseMediaType(a.Header.Get("Content-Type"))
				require.NoError(t, err)
				return []string{mt, a.Line()}
			},
			correct: []string{"application/json", invalidSig}, faulty: []string{"text/plain", invalidSig}},
		{fault: "auth-non-json-accepted",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return statuses(x, t, "nope", "", "{}{}") },
			correct: []int{400, 400, 400}, faulty: []int{200, 200, 200}},
		{fault: "auth-non-object-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return statuses(x, t, "[1,2]", `"x"`, "42", "null", "nope")
			},
			correct: []int{400, 400, 400, 400, 400}, faulty: []int{200, 200, 200, 200, 400}},
		{fault: "auth-invalid-json-500",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{x.Send(t, reftest.Request{Body: ptr(`{"a":`)}).Line(), x.Send(t, reftest.Request{Body: ptr(`[1]`)}).Line()}
			},
			correct: []string{"400 Body is not valid JSON: the body ends before the JSON value does", "400 Body must be a JSON object, got an array"},
			faulty:  []string{"500 Internal error", "400 Body must be a JSON object, got an array"}},
		{fault: "auth-no-body-limit",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return statuses(x, t, `{"a":"`+strings.Repeat("x", 1<<20)+`"}`)
			},
			correct: []int{413}, faulty: []int{200}},
		{fault: "auth-body-limit-512k",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				// Exactly 1 MiB, which the limit allows, and 1 byte more, which it refuses.
				pad := strings.Repeat("x", 1<<20-len(`{"a":""}`))
				return statuses(x, t, `{"a":"`+pad+`"}`, `{"a":"`+pad+`x"}`)
			},
			correct: []int{200, 413}, faulty: []int{413, 413}},
		{fault: "auth-check-any-api-version",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				var out []int
				for _, v := range []string{"v2", "V1", "v1.0", ""} {
					out = append(out, x.Send(t, reftest.Request{Path: "/" + v + "/check/merchant_demo"}).Status)
				}
				return out
			},
			correct: []int{404, 404, 404, 404}, faulty: []int{200, 200, 200, 200}},
		{fault: "auth-check-any-method",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				var out []string
				for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
					out = append(out, strconv.Itoa(x.Send(t, reftest.Request{Method: m}).Status))
				}
				return out
			},
			correct: []string{"405", "405", "405", "405", "200"}, faulty: []string{"200", "200", "200", "200", "200"}},
		{fault: "auth-create-any-method",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				b, _ := json.Marshal(reftest.CreateRequest())
				var out []int
				for _, m := range []string{http.MethodPut, http.MethodGet, http.MethodPost} {
					out = append(out, x.Send(t, reftest.Request{Method: m, Path: "/v1/signature/merchant_demo", Body: ptr(string(b))}).Status)
				}
				return out
			},
			correct: []int{405, 405, 201}, faulty: []int{201, 201, 201}},
		{fault: "auth-key-prefix-matched",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{x.Send(t, reftest.Request{Key: "test_key_demox", Secret: "test_secret_demo"}).Line(), x.Send(t, reftest.Request{Key: "test_key_dem", Secret: "test_secret_demo"}).Line()}
			},
			correct: []string{invalidCreds, invalidCreds}, faulty: []string{authed, invalidCreds}},
		{fault: "auth-signature-cleaned",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				var out []string
				for _, form := range []func(string) string{
					func(sig string) string { return "sha256=" + sig },
					func(sig string) string { return sig[:10] + " " + sig[10:] },
					func(sig string) string { return sig },
				} {
					out = append(out, x.Send(t, reftest.Request{Header: func(h http.Header) { h.Set(reftest.SigHeader, form(h.Get(reftest.SigHeader))) }}).Line())
				}
				return out
			},
			correct: []string{invalidSig, invalidSig, authed}, faulty: []string{authed, authed, authed}},
		{fault: "auth-chunked-body-unlimited",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				big := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
				return []int{x.Send(t, reftest.Request{Body: &big}).Status, x.Send(t, reftest.Request{Body: &big, Chunked: true}).Status}
			},
			correct: []int{413, 413}, faulty: []int{413, 200}},
		{fault: "auth-raw-controls-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return statuses(x, t, "{\"a\":\"x\x01y\"}", "{\"a\":\"x\ny\"}", `{"a":"x\u0001y"}`)
			},
			correct: []int{400, 400, 200}, faulty: []int{200, 200, 200}},
		{fault: "auth-merchant-cut-at-encoded-slash",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{x.Send(t, reftest.Request{Path: "/v1/check/merchant_demo%2Fx"}).Line(), x.Send(t, reftest.Request{Path: "/v1/check/merchant_demo"}).Line()}
			},
			correct: []string{"404 " + reference.NotFoundMessage("POST", "/v1/check/merchant_demo/x"), authed}, faulty: []string{authed, authed}},
		{fault: "auth-merchant-id-case-insensitive",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{x.Send(t, reftest.Request{Path: "/v1/check/MERCHANT_DEMO"}).Line(), x.Send(t, reftest.Request{Path: "/v1/check/merchant_demo_2"}).Line()}
			},
			correct: []string{invalidCreds, invalidCreds}, faulty: []string{authed, invalidCreds}},
		{fault: "auth-timestamp-leading-zero-refused",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{TS: "0" + x.At(0)}).Line()
			},
			correct: authed, faulty: expired},
		{fault: "auth-timestamp-spaces-ignored",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				ts := x.At(0)
				return x.Send(t, reftest.Request{TS: ts[:5] + " " + ts[5:]}).Line()
			},
			correct: expired, faulty: authed},
		{fault: "auth-content-type-parameters-refused",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []int{x.Send(t, reftest.Request{Header: setHeader("Content-Type", "application/json; charset=utf-8")}).Status,
					x.Send(t, reftest.Request{Header: setHeader("Content-Type", "application/json")}).Status}
			},
			correct: []int{200, 200}, faulty: []int{400, 200}},
		{fault: "auth-content-type-case-sensitive",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []int{x.Send(t, reftest.Request{Header: setHeader("Content-Type", "Application/JSON")}).Status,
					x.Send(t, reftest.Request{Header: setHeader("Content-Type", "application/json; charset=UTF-8")}).Status}
			},
			correct: []int{200, 200}, faulty: []int{400, 200}},
		{fault: "auth-trailing-data-accepted",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return statuses(x, t, "{}{}", "{} ]", "{} x", "[]{}") },
			correct: []int{400, 400, 400, 400}, faulty: []int{200, 200, 200, 400}},
		{fault: "auth-body-padding-refused",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return statuses(x, t, " {}", "\r\n{}\n", "{} ") },
			correct: []int{200, 200, 200}, faulty: []int{400, 400, 200}},
		{fault: "auth-create-body-limit-2mib",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				b, err := json.Marshal(reftest.CreateRequest())
				require.NoError(t, err)
				padded := string(b[:len(b)-1]) + strings.Repeat(" ", 1<<20+1-len(b)) + "}"
				return x.Send(t, reftest.Request{Path: "/v1/signature/merchant_demo", Body: &padded}).Status
			},
			correct: 413, faulty: 201},
		{fault: "auth-key-case-insensitive",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return x.Send(t, reftest.Request{Key: "TEST_KEY_DEMO", Secret: "test_secret_demo"}).Line()
			},
			correct: "401 Invalid credentials", faulty: authed},
		{fault: "auth-check-json5-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return statuses(x, t, `{"a":1,}`, `{/*c*/"a":1}`, `{'a':1}`, `{"a":NaN}`, `{"a":`)
			},
			correct: []int{400, 400, 400, 400, 400}, faulty: []int{200, 200, 200, 200, 400}},
		{fault: "auth-create-json5-accepted",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				b, err := json.Marshal(reftest.CreateRequest())
				require.NoError(t, err)
				body := string(b[:len(b)-1]) + ",}"
				return x.Send(t, reftest.Request{Path: "/v1/signature/merchant_demo", Body: &body}).Status
			},
			correct: 400, faulty: 201},
	}
}

func offsets(x *reftest.Exchange, t *testing.T, ds ...time.Duration) []string {
	var out []string
	for _, d := range ds {
		out = append(out, x.Send(t, reftest.Request{TS: x.At(d)}).Line())
	}
	return out
}

// signedBoth sends a request signed as the profile says, then the
// same request signed the way the fault does.
func signedBoth(path string, body *string, faulty func(*firmakit.RequestParts, *firmakit.Profile)) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any {
		return []string{
			x.Send(t, reftest.Request{Path: path, Body: body}).Line(),
			x.Send(t, reftest.Request{Path: path, Body: body, Sign: faulty}).Line(),
		}
	}
}

func statuses(x *reftest.Exchange, t *testing.T, bodies ...string) []int {
	var out []int
	for _, b := range bodies {
		out = append(out, x.Send(t, reftest.Request{Body: ptr(b)}).Status)
	}
	return out
}

var badSignature = reftest.Request{Header: setHeader(reftest.SigHeader, "00")}

// TestVerifierFaultsKeepValidRequests: a fault of the verifier breaks its
// own rule only, so a plainly signed request still passes, except under
// the faults that cut a part every request signs.
func TestVerifierFaultsKeepValidRequests(t *testing.T) {
	for _, f := range faults.List() {
		if f.Area != faults.AreaAuth || f.Name == "auth-method-not-signed" || f.Name == "auth-timestamp-not-signed" {
			continue
		}
		x := openExchange(t, faultCase{}, []string{f.Name})
		assert.Equal(t, "200 Authenticated", x.Send(t, reftest.Request{}).Line(), f.Name)
		assert.Equal(t, "201 Signature request created", x.Create(t, nil).Line(), f.Name)
	}
}
