package reference_test

import (
	"bytes"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
)

// FuzzSignedBodies sends correctly signed requests with arbitrary bodies
// to both endpoints: whatever the body, the answer is never a 5xx and
// always the API's JSON shape.
func FuzzSignedBodies(f *testing.F) {
	s := &reference.Server{Addr: "127.0.0.1:0", DemoDelay: time.Hour}
	if err := s.Open(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	p := firmakit.BundledProfile()
	f.Add([]byte(createBody), true)
	f.Add([]byte(`{"title":"DEMO_SIGNED","documents":["contrato_arriendo","contrato_arriendo"]}`), true)
	f.Add([]byte(`{"signers":[{"key":5}],"data":{"a":{"b":1}}}`), true)
	f.Add([]byte(`[]`), false)
	f.Add([]byte("\xff\xfe{"), false)
	f.Fuzz(func(t *testing.T, body []byte, create bool) {
		path := "/v1/check/merchant_demo"
		if create {
			path = "/v1/signature/merchant_demo"
		}
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Host = "127.0.0.1" // the server answers loopback names only
		for k, v := range p.SignedHeaders("test_key_demo", "test_secret_demo", "POST", path, body, time.Now()) {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s answered %d to %q: %s", path, rec.Code, body, rec.Body)
		}
		if !bytes.Contains(rec.Body.Bytes(), []byte(`"status_code":`)) {
			t.Fatalf("%s answered %d without the API's body shape: %s", path, rec.Code, rec.Body)
		}
	})
}
