package interop_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stripe/stripe-go/v82/webhook"
)

// The stripe preset against stripe-go's own webhook package, the Go
// library Stripe's users run, both ways: what stripe-go signs, firmakit
// verifies; what firmakit signs, stripe-go verifies; a forged body, a
// foreign secret and a stale timestamp are refused by both, each with its
// own sentinel.
func TestStripeGo(t *testing.T) {
	const secret = "whsec_test_interop"
	p, err := firmakit.Preset("stripe")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	forged := []byte(strings.Replace(body, "signed", "rejected", 1))

	t.Run("theirs verify", func(t *testing.T) {
		s := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(body), Secret: secret, Timestamp: now})
		h := http.Header{}
		h.Set("Stripe-Signature", s.Header)
		if err := p.VerifyWebhookHeaders(h, []byte(body), []string{secret}, now); err != nil {
			t.Fatalf("firmakit refused stripe-go's %q: %v", s.Header, err)
		}
		if err := p.VerifyWebhookHeaders(h, forged, []string{secret}, now); !errors.Is(err, firmakit.ErrInvalidSignature) {
			t.Fatalf("a forged body under stripe-go's signature: %v, want ErrInvalidSignature", err)
		}
		if err := p.VerifyWebhookHeaders(h, []byte(body), []string{"whsec_other"}, now); !errors.Is(err, firmakit.ErrInvalidSignature) {
			t.Fatalf("another secret: %v, want ErrInvalidSignature", err)
		}
		stale := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(body), Secret: secret, Timestamp: now.Add(-time.Hour)})
		h.Set("Stripe-Signature", stale.Header)
		if err := p.VerifyWebhookHeaders(h, []byte(body), []string{secret}, now); !errors.Is(err, firmakit.ErrTooOld) {
			t.Fatalf("signed an hour ago: %v, want ErrTooOld", err)
		}
	})

	t.Run("ours verify", func(t *testing.T) {
		h := http.Header{}
		p.SignWebhook(h, "evt_0001", []string{secret}, now, []byte(body))
		sig := h.Get("Stripe-Signature")
		if sig == "" {
			t.Fatalf("firmakit's stripe preset wrote no Stripe-Signature: %v", h)
		}
		if err := webhook.ValidatePayload([]byte(body), sig, secret); err != nil {
			t.Fatalf("stripe-go refused firmakit's %q: %v", sig, err)
		}
		if err := webhook.ValidatePayload(forged, sig, secret); !errors.Is(err, webhook.ErrNoValidSignature) {
			t.Fatalf("stripe-go on a forged body: %v, want ErrNoValidSignature", err)
		}
		if err := webhook.ValidatePayload([]byte(body), sig, "whsec_other"); !errors.Is(err, webhook.ErrNoValidSignature) {
			t.Fatalf("stripe-go with another secret: %v, want ErrNoValidSignature", err)
		}
		old := http.Header{}
		p.SignWebhook(old, "evt_0001", []string{secret}, now.Add(-time.Hour), []byte(body))
		if err := webhook.ValidatePayload([]byte(body), old.Get("Stripe-Signature"), secret); !errors.Is(err, webhook.ErrTooOld) {
			t.Fatalf("stripe-go on firmakit's signature of an hour ago: %v, want ErrTooOld", err)
		}
	})

	t.Run("rotation", func(t *testing.T) {
		// firmakit signs with every secret of a rotation; stripe-go takes
		// the header with either one.
		h := http.Header{}
		p.SignWebhook(h, "evt_0001", []string{"whsec_old", secret}, now, []byte(body))
		for _, s := range []string{"whsec_old", secret} {
			if err := webhook.ValidatePayload([]byte(body), h.Get("Stripe-Signature"), s); err != nil {
				t.Fatalf("stripe-go with %s refused %q: %v", s, h.Get("Stripe-Signature"), err)
			}
		}
	})
}
