package firmakit_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
)

func FuzzParseWebhookHeader(f *testing.F) {
	p := firmakit.BundledProfile()
	f.Add("t=1763805600,v1=6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16")
	f.Add("t=,v1=")
	f.Add(",,,=")
	f.Fuzz(func(t *testing.T, h string) {
		parsed, err := p.ParseWebhookHeader(h)
		if err == nil && (len(parsed.Signatures) == 0) {
			t.Fatalf("accepted %q with no signature", h)
		}
	})
}

func FuzzVerifyWebhook(f *testing.F) {
	p := firmakit.BundledProfile()
	now := time.Unix(1763805600, 0)
	f.Add("t=1763805600,v1=6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16", []byte(`{"event_id":"1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed","status":"SIGNED"}`))
	f.Add("t=99999999999999999999,v1=00", []byte("{}"))
	f.Fuzz(func(t *testing.T, h string, body []byte) {
		if err := p.VerifyWebhook(h, body, []string{"whsec_test_demo"}, now); err == nil {
			// Only a header holding the real signature of body for its own
			// timestamp may pass.
			parsed, perr := p.ParseWebhookHeader(h)
			if perr != nil {
				t.Fatalf("accepted %q that does not parse: %v", h, perr)
			}
			ts, _ := strconv.ParseInt(parsed.Timestamp, 10, 64)
			want := p.WebhookSignature([]string{"whsec_test_demo"}, time.Unix(ts, 0), body)
			want = want[strings.Index(want, "v1=")+3:]
			for _, s := range parsed.Signatures {
				if strings.EqualFold(s, want) {
					return
				}
			}
			t.Fatalf("accepted %q for body %q without its signature", h, body)
		}
	})
}

func FuzzVerifyRequest(f *testing.F) {
	p := firmakit.BundledProfile()
	now := time.Unix(1763805600, 0)
	f.Add("test_key_demo", "1763805600", "93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b", "/v1/check/merchant_demo", []byte("{}"))
	f.Add("", "-1", "ZZ", "/", []byte(nil))
	f.Fuzz(func(t *testing.T, key, ts, sig, target string, body []byte) {
		h := http.Header{"X-Service-Key": {key}, "X-Service-Timestamp": {ts}, "X-Service-Signature": {sig}}
		_, err := p.VerifyRequest("POST", target, "merchant_demo", h, lookup, now, func() ([]byte, error) { return body, nil })
		if err == nil && key != "test_key_demo" {
			t.Fatalf("accepted key %q", key)
		}
	})
}
