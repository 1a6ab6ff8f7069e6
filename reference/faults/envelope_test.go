package faults_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/require"
)

// halfSecond is a time at .500 of a second, a minute ago (within the
// timestamp's tolerance, which the requests signed at the present meet).
var halfSecond = time.Now().Add(-time.Minute).Truncate(time.Second).Add(500 * time.Millisecond)

// envelopeCases are the cases of the faults of the envelope and its 201.
func envelopeCases() []faultCase {
	return []faultCase{
		{fault: "envelope-extra-field",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return reftest.Keys(dataOf(t, x, nil)) },
			correct: envelopeKeys(), faulty: reftest.Sorted(append(envelopeKeys(), "merchant_id"))},
		{fault: "envelope-routing-missing",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return reftest.Keys(dataOf(t, x, nil)) },
			correct: envelopeKeys(), faulty: without(envelopeKeys(), "routing")},
		{fault: "envelope-sender-null",
			probe:   field("sender", nil),
			correct: `{"name":"Comercio Demo","email":"contratos@comercio-demo.test"}`, faulty: "null"},
		{fault: "envelope-status-lowercase",
			probe:   field("status", nil),
			correct: `"PENDIENTE"`, faulty: `"pendiente"`},
		{fault: "envelope-title-collapsed",
			probe:   field("title", func(r map[string]any) { r["title"] = "  Contrato   de arriendo\t42 " }),
			correct: `"  Contrato   de arriendo\t42 "`, faulty: `"Contrato de arriendo 42"`},
		{fault: "envelope-title-truncated",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return utf8.RuneCountInString(reftest.Str(dataOf(t, x, func(r map[string]any) { r["title"] = strings.Repeat("ñ", 300) })["title"]))
			},
			correct: 300, faulty: 200},
		{fault: "envelope-title-ascii",
			probe:   field("title", func(r map[string]any) { r["title"] = "Contrato ñandú 😀" }),
			correct: `"Contrato ñandú 😀"`, faulty: `"Contrato ?and? ?"`},
		{fault: "envelope-recipients-request-order",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return recipients(t, x, "key") },
			correct: []string{"signer_1", "signer_2"}, faulty: []string{"signer_2", "signer_1"}},
		{fault: "envelope-recipient-status-uppercase",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return recipients(t, x, "status") },
			correct: []string{"pending", "pending"}, faulty: []string{"PENDING", "PENDING"}},
		{fault: "envelope-documents-from-1",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return documents(t, x, "key") },
			correct: []string{"document_0"}, faulty: []string{"document_1"}},
		{fault: "envelope-document-title-is-name",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return documents(t, x, "title") },
			correct: []string{"Contrato de arriendo"}, faulty: []string{"contrato_arriendo"}},
		{fault: "envelope-created-at-no-millis", probe: createdAt,
			expect: func(x *reftest.Exchange, faulty bool) any {
				if faulty {
					return x.Now.UTC().Format("2006-01-02T15:04:05Z")
				}
				return firmakit.FormatTime(x.Now)
			}},
		// The clock stopped at .500 of a second, where the fault shows.
		{fault: "envelope-created-at-trims-zeros", probe: createdAt,
			server: func(s *reference.Server) {
				s.Clock = reftest.StoppedClock(func() time.Time { return halfSecond })
			},
			expect: func(_ *reftest.Exchange, faulty bool) any {
				if faulty {
					return halfSecond.UTC().Format("2006-01-02T15:04:05.9Z")
				}
				return firmakit.FormatTime(halfSecond)
			}},
		{fault: "envelope-created-at-offset", probe: createdAt,
			expect: func(x *reftest.Exchange, faulty bool) any {
				if faulty {
					return x.Now.In(time.FixedZone("", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
				}
				return firmakit.FormatTime(x.Now)
			}},
		{fault: "envelope-created-at-past", probe: createdAt,
			expect: func(x *reftest.Exchange, faulty bool) any {
				if faulty {
					return firmakit.FormatTime(x.Now.Add(-time.Hour))
				}
				return firmakit.FormatTime(x.Now)
			}},
		{fault: "envelope-signature-id-not-uuid",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				id := reftest.Str(a.Data()["signature_id"])
				return []bool{reftest.UUIDPattern.MatchString(id), reftest.Str(n["signature_id"]) == id}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "envelope-signature-id-reused",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a, b := reftest.Str(dataOf(t, x, nil)["signature_id"]), reftest.Str(dataOf(t, x, nil)["signature_id"])
				return []bool{reftest.UUIDPattern.MatchString(a), a == b}
			},
			correct: []bool{true, false}, faulty: []bool{true, true}},
		{fault: "envelope-created-at-client-clock",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				b, err := json.Marshal(reftest.CreateRequest())
				require.NoError(t, err)
				body := string(b)
				a := x.Send(t, reftest.Request{Path: "/v1/signature/merchant_demo", Body: &body, TS: strconv.FormatInt(x.Now.Add(-200*time.Second).Unix(), 10)})
				return reftest.Str(a.Data()["created_at"])
			},
			expect: func(x *reftest.Exchange, faulty bool) any {
				if faulty {
					return firmakit.FormatTime(time.Unix(x.Now.Add(-200*time.Second).Unix(), 0))
				}
				return firmakit.FormatTime(x.Now)
			}},
		{fault: "envelope-title-line-breaks-normalised",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{
					reftest.Str(dataOf(t, x, func(r map[string]any) { r["title"] = "Contrato\r\nde arriendo" })["title"]),
					reftest.Str(dataOf(t, x, func(r map[string]any) { r["title"] = "Contrato\u2028de\tarriendo" })["title"]),
				}
			},
			correct: []string{"Contrato\r\nde arriendo", "Contrato\u2028de\tarriendo"}, faulty: []string{"Contrato\nde arriendo", "Contrato\nde\tarriendo"}},
		{fault: "envelope-routing-ignored",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{
					string(dataOf(t, x, func(r map[string]any) { r["routing"] = "sequential" })["routing"]),
					string(dataOf(t, x, func(r map[string]any) { r["routing"] = "parallel" })["routing"]),
				}
			},
			correct: []string{`"sequential"`, `"parallel"`}, faulty: []string{`"parallel"`, `"parallel"`}},
		{fault: "envelope-http-200",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Create(t, nil)
				return []string{strconv.Itoa(a.Status), string(a.Obj["status_code"]), reftest.Str(a.Obj["message"])}
			},
			correct: []string{"201", "201", "Signature request created"}, faulty: []string{"200", "200", "Signature request created"}},
		{fault: "envelope-status-code-200",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Create(t, nil)
				return []string{strconv.Itoa(a.Status), string(a.Obj["status_code"])}
			},
			correct: []string{"201", "201"}, faulty: []string{"201", "200"}},
		{fault: "envelope-message-missing",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return reftest.Keys(x.Create(t, nil).Obj) },
			correct: []string{"data", "message", "status_code"}, faulty: []string{"data", "status_code"}},
		{fault: "envelope-sender-email-invalid",
			probe:   field("sender", nil),
			correct: `{"name":"Comercio Demo","email":"contratos@comercio-demo.test"}`, faulty: `{"name":"Comercio Demo","email":"contratos at comercio-demo.test"}`},
		{fault: "envelope-message-reworded",
			probe:   createLine(nil),
			correct: created, faulty: "201 Signature request accepted"},
		{fault: "envelope-sender-not-merchant",
			probe:   field("sender", nil),
			correct: `{"name":"Comercio Demo","email":"contratos@comercio-demo.test"}`, faulty: `{"name":"Servicio de Firma","email":"no-reply@firma.test"}`},
	}
}

func dataOf(t *testing.T, x *reftest.Exchange, change func(map[string]any)) map[string]json.RawMessage {
	a := x.Create(t, change)
	require.Contains(t, []int{200, 201}, a.Status, string(a.Raw))
	return a.Data()
}

func createdAt(t *testing.T, x *reftest.Exchange) any {
	return reftest.Str(dataOf(t, x, nil)["created_at"])
}

func field(name string, change func(map[string]any)) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any { return string(dataOf(t, x, change)[name]) }
}

func recipients(t *testing.T, x *reftest.Exchange, key string) []string {
	var rs []map[string]string
	require.NoError(t, json.Unmarshal(dataOf(t, x, nil)["recipients"], &rs))
	var out []string
	for _, r := range rs {
		out = append(out, r[key])
	}
	return out
}

func documents(t *testing.T, x *reftest.Exchange, key string) []string {
	var ds []map[string]string
	require.NoError(t, json.Unmarshal(dataOf(t, x, nil)["documents"], &ds))
	var out []string
	for _, d := range ds {
		out = append(out, d[key])
	}
	return out
}
