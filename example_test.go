package firmakit_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/firmakit/firmakit"
)

// The test vectors of the bundled profile: a request signature and a
// webhook signature header.
func Example() {
	p := firmakit.BundledProfile()
	h := p.SignedHeaders("test_key_demo", "test_secret_demo", "POST", "/v1/check/merchant_demo", []byte("{}"), time.Unix(1763805600, 0))
	fmt.Println(h.Get("X-Service-Signature"))

	body := []byte(`{"event_id":"1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed","status":"SIGNED"}`)
	fmt.Println(p.WebhookSignature([]string{"whsec_test_demo"}, time.Unix(1763805600, 0), body))
	// Output:
	// 93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b
	// t=1763805600,v1=6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16
}

// A create-signature body for the demo template, as the demo clients and
// the suite send it.
func ExampleNewCreateRequest() {
	t := firmakit.Template{Name: "contrato_arriendo", Signers: []string{"signer_1", "signer_2"}}
	req := firmakit.NewCreateRequest(t, map[string]string{"monto_mensual": "450000"}, "DEMO_SIGNED contrato 42")
	b, _ := json.MarshalIndent(req, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "title": "DEMO_SIGNED contrato 42",
	//   "documents": [
	//     "contrato_arriendo"
	//   ],
	//   "signers": [
	//     {
	//       "key": "signer_1",
	//       "name": "Ana Pérez Ñuñez",
	//       "email": "firmante1@example.com"
	//     },
	//     {
	//       "key": "signer_2",
	//       "name": "Luis Soto-Ávila",
	//       "email": "firmante2@example.com"
	//     }
	//   ],
	//   "data": {
	//     "monto_mensual": "450000"
	//   }
	// }
}

// A template without data keys still gets a "data" object.
func ExampleNewCreateRequest_noData() {
	t := firmakit.Template{Name: "nda", Signers: []string{"signer_1"}}
	b, _ := json.Marshal(firmakit.NewCreateRequest(t, nil, "x"))
	fmt.Println(string(b))
	// Output:
	// {"title":"x","documents":["nda"],"signers":[{"key":"signer_1","name":"Ana Pérez Ñuñez","email":"firmante1@example.com"}],"data":{}}
}
