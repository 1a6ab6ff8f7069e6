package faults_test

import (
	"encoding/json"
	"github.com/stretchr/testify/require"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reference/internal/reftest"
)

// validationCases are the cases of the faults of a create request's validation.
func validationCases() []faultCase {
	return []faultCase{
		{fault: "validation-values-trimmed",
			probe: createLine(func(r map[string]any) {
				for _, sg := range r["signers"].([]any) {
					sg.(map[string]any)["key"] = " " + sg.(map[string]any)["key"].(string)
				}
				r["documents"].([]any)[0] = "contrato_arriendo "
			}),
			correct: "400 unknown document: contrato_arriendo ", faulty: created},
		{fault: "auth-escaped-keys-unread",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				b, err := json.Marshal(reftest.CreateRequest())
				require.NoError(t, err)
				escaped := strings.Replace(string(b), `"title":`, `"\u0074itle":`, 1)
				return x.Send(t, reftest.Request{Path: "/v1/signature/merchant_demo", Body: &escaped}).Line()
			},
			correct: created, faulty: "400 title is required"},
		{fault: "validation-email-plus-refused",
			probe: createLine(func(r map[string]any) {
				r["signers"].([]any)[0].(map[string]any)["email"] = "luis+contratos@example.com"
			}),
			correct: created, faulty: "400 invalid email for signer_2"},
		{fault: "validation-name-max-60",
			probe: createLine(func(r map[string]any) {
				r["signers"].([]any)[0].(map[string]any)["name"] = strings.Repeat("Luis Soto ", 7)
			}),
			correct: created, faulty: "400 name is required for signer_2"},
		{fault: "validation-message-without-field",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{
					x.Create(t, func(r map[string]any) { delete(r, "title") }).Line(),
					x.Create(t, func(r map[string]any) { delete(r["data"].(map[string]any), "monto_mensual") }).Line(),
					x.Create(t, func(r map[string]any) { r["signers"].([]any)[1].(map[string]any)["email"] = "ana@" }).Line(),
					x.Create(t, func(r map[string]any) { r["documents"] = []any{"nope"} }).Line(),
				}
			},
			correct: []string{"400 title is required", "400 missing data key: monto_mensual", "400 invalid email for signer_1", "400 unknown document: nope"},
			faulty:  []string{"400 a required field is missing", "400 missing data key", "400 invalid email", "400 unknown document"}},
		{fault: "validation-unknown-data-key-accepted",
			probe:   createLine(func(r map[string]any) { r["data"].(map[string]any)["montto"] = "1" }),
			correct: "400 unknown data key: montto", faulty: created},
		{fault: "validation-missing-data-key-accepted",
			probe:   createLine(func(r map[string]any) { delete(r["data"].(map[string]any), "monto_mensual") }),
			correct: "400 missing data key: monto_mensual", faulty: created},
		{fault: "validation-missing-signer-accepted",
			probe:   createLine(func(r map[string]any) { r["signers"] = r["signers"].([]any)[1:] }),
			correct: "400 missing signer: signer_2", faulty: created},
		{fault: "validation-duplicate-signer-accepted",
			probe:   createLine(addSigner("signer_1", "otra@example.com")),
			correct: "400 signer listed twice: signer_1", faulty: created},
		{fault: "validation-unknown-signer-accepted",
			probe:   createLine(addSigner("testigo", "testigo@example.com")),
			correct: "400 unknown signer: testigo", faulty: created},
		{fault: "validation-invalid-email-accepted",
			probe: createLine(func(r map[string]any) {
				r["signers"].([]any)[1].(map[string]any)["email"] = "ana@"
			}),
			correct: "400 invalid email for signer_1", faulty: created},
		{fault: "validation-unknown-document-accepted",
			probe:   createLine(func(r map[string]any) { r["documents"] = []any{"contrato_arriendo", "anexo"} }),
			correct: "400 unknown document: anexo", faulty: created},
		{fault: "validation-missing-title-accepted",
			probe:   createLine(func(r map[string]any) { delete(r, "title") }),
			correct: "400 title is required", faulty: created},
		{fault: "validation-wrong-type-500",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{
					x.Create(t, func(r map[string]any) { r["title"] = 42 }).Line(),
					x.Create(t, func(r map[string]any) { r["signers"] = map[string]any{} }).Line(),
					x.Create(t, func(r map[string]any) { delete(r, "title") }).Line(),
				}
			},
			correct: []string{"400 title must be a string", "400 signers must be an array of objects with key, name and email strings", "400 title is required"},
			faulty:  []string{"500 Internal error", "500 Internal error", "400 title is required"}},
		{fault: "validation-messages-reworded",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{
					x.Create(t, func(r map[string]any) { delete(r, "title") }).Line(),
					x.Create(t, func(r map[string]any) { delete(r["data"].(map[string]any), "monto_mensual") }).Line(),
					x.Create(t, func(r map[string]any) { r["signers"].([]any)[1].(map[string]any)["email"] = "ana@" }).Line(),
				}
			},
			correct: []string{"400 title is required", "400 missing data key: monto_mensual", "400 invalid email for signer_1"},
			faulty:  []string{"400 title missing", "400 data key missing: monto_mensual", "400 email not valid for signer_1"}},
		{fault: "validation-routing-unchecked",
			probe:   createLine(func(r map[string]any) { r["routing"] = "mixed" }),
			correct: "400 routing must be parallel or sequential", faulty: created},
		{fault: "validation-routing-case-insensitive",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				var out []string
				for _, v := range []string{"Parallel", " sequential", "mixed"} {
					a := x.Create(t, func(r map[string]any) { r["routing"] = v })
					out = append(out, a.Line()+" "+reftest.Str(a.Data()["routing"]))
				}
				return out
			},
			correct: []string{"400 routing must be parallel or sequential ", "400 routing must be parallel or sequential ", "400 routing must be parallel or sequential "},
			faulty:  []string{created + " parallel", created + " sequential", "400 routing must be parallel or sequential "}},
		{fault: "validation-create-any-version", probe: otherVersionCreate,
			correct: []int{404, 404, 0}, faulty: []int{201, 201, 2}},
		{fault: "validation-create-other-version-notifies", probe: otherVersionCreate,
			correct: []int{404, 404, 0}, faulty: []int{404, 404, 2}},
	}
}

func addSigner(key, email string) func(map[string]any) {
	return func(r map[string]any) {
		r["signers"] = append(r["signers"].([]any), map[string]any{"key": key, "name": "Otra Persona", "email": email})
	}
}

// otherVersionCreate sends a demo contract to two other version
// segments of the create path: their statuses, then how many
// notifications came.
func otherVersionCreate(t *testing.T, x *reftest.Exchange) any {
	req := reftest.CreateRequest()
	req["title"] = "DEMO_SIGNED contrato 42"
	b, _ := json.Marshal(req)
	var out []int
	for _, v := range []string{"v2", ""} {
		out = append(out, x.Send(t, reftest.Request{Path: "/" + v + "/signature/merchant_demo", Body: ptr(string(b))}).Status)
	}
	return append(out, len(x.Notifications(2, time.Second)))
}
