package firmakit_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
)

// The figure to reach: VerifyRequest of a 1 KiB body within 1.5x of a bare
// HMAC over the same string to sign. Compare the two lines of
// `go test -run - -bench 'HMAC|VerifyRequest' -benchmem .`.
func benchBody() []byte {
	b := make([]byte, 1024)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

func BenchmarkBareHMAC1KiB(b *testing.B) {
	body := benchBody()
	msg := append([]byte("1763805600\nPOST\n/v1/check/merchant_demo\n"), body...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		h := hmac.New(sha256.New, []byte("test_secret_demo"))
		h.Write(msg)
		_ = h.Sum(nil)
	}
}

func BenchmarkVerifyRequest1KiB(b *testing.B) {
	p := firmakit.BundledProfile()
	body := benchBody()
	now := time.Now()
	h := p.SignedHeaders("test_key_demo", "test_secret_demo", "POST", "/v1/check/merchant_demo", body, now)
	read := func() ([]byte, error) { return body, nil }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, lookup, now, read); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyWebhook1KiB(b *testing.B) {
	p := firmakit.BundledProfile()
	body := benchBody()
	now := time.Now()
	sig := p.WebhookSignature([]string{"whsec_test_demo"}, now, body)
	secrets := []string{"whsec_test_demo"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.VerifyWebhook(sig, body, secrets, now); err != nil {
			b.Fatal(err)
		}
	}
}

// body1MiB is a JSON object of 1 MiB with spaces and a final line break,
// the body that makes a diagnostic try every variant it knows.
func body1MiB() []byte {
	b := []byte(`{"items": [`)
	for len(b) < 1<<20-64 {
		b = append(b, `{"n": 1, "text": "abcdefghijklmnopqrstuvwxyz"}, `...)
	}
	return append(b, "{}]}\n"...)
}

// A refusal under --explain against the verification it explains: compare
// `go test -run - -bench '1MiB' -benchmem .`.
func BenchmarkVerify1MiB(b *testing.B) {
	p := firmakit.BundledProfile()
	body := body1MiB()
	now := time.Now()
	h := p.SignedHeaders("test_key_demo", "not_the_secret", "POST", "/v1/check/merchant_demo", body, now)
	read := func() ([]byte, error) { return body, nil }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.VerifyRequest("POST", "/v1/check/merchant_demo", "merchant_demo", h, lookup, now, read); err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkDiagnose1MiB(b *testing.B) {
	p := firmakit.BundledProfile()
	body := body1MiB()
	now := time.Now()
	h := p.SignedHeaders("test_key_demo", "not_the_secret", "POST", "/v1/check/merchant_demo", body, now)
	seen := firmakit.RequestSeen{Method: "POST", RequestTarget: "/v1/check/merchant_demo", MerchantID: "merchant_demo", Header: h, Body: body, BodyRead: true}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if d := p.DiagnoseRequest(seen, firmakit.ErrInvalidSignature, lookup, now); d.CauseCode != firmakit.CauseSecretOrBytes {
			b.Fatal(d.CauseCode)
		}
	}
}

// BenchmarkWebhookPresets1KiB verifies a 1 KiB notification under each
// preset, beside a bare HMAC-SHA256 of the same body in the same
// benchmark: the figure is each preset's time over the bare one's
// (target 1.5x). `go test -run - -bench WebhookPresets -benchmem .`
func BenchmarkWebhookPresets1KiB(b *testing.B) {
	body := benchBody()
	now := time.Now()
	b.Run("bare-hmac", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			h := hmac.New(sha256.New, []byte("whsec_test_demo"))
			h.Write([]byte("1763805600."))
			h.Write(body)
			_ = h.Sum(nil)
		}
	})
	for _, name := range firmakit.Presets() {
		p, err := firmakit.Preset(name)
		if err != nil {
			b.Fatal(err)
		}
		secrets := []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
		h := http.Header{}
		p.SignWebhook(h, "msg_p5jXN8AQM9LWM0D4loKWxJek", secrets, now, body)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := p.VerifyWebhookHeaders(h, body, secrets, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
