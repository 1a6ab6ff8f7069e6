package firmakit_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
)

func preset(t testing.TB, name string) *firmakit.Profile {
	t.Helper()
	p, err := firmakit.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The published vectors of each scheme, verified as received.
func TestPresetVectors(t *testing.T) {
	cases := []struct {
		preset string
		header http.Header
		body   string
		secret string
		now    time.Time
	}{
		// Standard Webhooks' own test vector (libraries' tests, Svix docs).
		{"standard-webhooks", http.Header{
			"Webhook-Id":        {"msg_p5jXN8AQM9LWM0D4loKWxJek"},
			"Webhook-Timestamp": {"1614265330"},
			"Webhook-Signature": {"v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="},
		}, `{"test": 2432232314}`, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", time.Unix(1614265330, 0)},
		// GitHub's documentation: "Validating webhook deliveries".
		{"github", http.Header{
			"X-Hub-Signature-256": {"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"},
		}, "Hello, World!", "It's a Secret to Everybody", time.Unix(0, 0)},
	}
	for _, c := range cases {
		t.Run(c.preset, func(t *testing.T) {
			p := preset(t, c.preset)
			if err := p.VerifyWebhookHeaders(c.header, []byte(c.body), []string{c.secret}, c.now); err != nil {
				t.Fatalf("published vector refused: %v", err)
			}
			if err := p.VerifyWebhookHeaders(c.header, []byte(c.body+" "), []string{c.secret}, c.now); !errors.Is(err, firmakit.ErrInvalidSignature) {
				t.Fatalf("changed body: got %v, want ErrInvalidSignature", err)
			}
		})
	}
}

// Every preset verifies what it signs, with rotation, and refuses a
// forgery, a missing header and (when it has a timestamp) a stale one.
func TestPresetsRoundTrip(t *testing.T) {
	now := time.Unix(1_763_805_600, 0)
	body := []byte(`{"event_id":"evt_1","status":"signed"}`)
	secrets := map[string][]string{"standard-webhooks": {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kIHNlY3JldA=="}}
	for _, name := range firmakit.Presets() {
		t.Run(name, func(t *testing.T) {
			p := preset(t, name)
			s := secrets[name]
			if s == nil {
				s = []string{"whsec_one", "whsec_two"}
			}
			for i := range s {
				h := http.Header{}
				p.SignWebhook(h, "evt_1", s[i:i+1], now, body)
				if err := p.VerifyWebhookHeaders(h, body, s, now); err != nil {
					t.Fatalf("secret %d: %v (headers %v)", i, err, h)
				}
			}
			h := http.Header{}
			p.SignWebhook(h, "evt_1", s, now, body)
			rotated := s[1:]
			if p.Webhook.SignatureFormat == "entries" && p.Webhook.SignatureSeparator == "" {
				rotated = s[:1] // one entry: signed with the first secret only
			}
			if err := p.VerifyWebhookHeaders(h, body, rotated, now); err != nil {
				t.Fatalf("rotation: %v (headers %v)", err, h)
			}
			if err := p.VerifyWebhookHeaders(h, []byte(`{"forged":1}`), s, now); !errors.Is(err, firmakit.ErrInvalidSignature) {
				t.Fatalf("forged body: got %v", err)
			}
			if err := p.VerifyWebhookHeaders(http.Header{}, body, s, now); !errors.Is(err, firmakit.ErrMissingHeaders) {
				t.Fatalf("no headers: got %v", err)
			}
			late := now.Add(p.Webhook.Tolerance + time.Minute)
			err := p.VerifyWebhookHeaders(h, body, s, late)
			if p.Webhook.HasTimestamp() != errors.Is(err, firmakit.ErrTooOld) {
				t.Fatalf("stale (has timestamp %v): got %v", p.Webhook.HasTimestamp(), err)
			}
		})
	}
}

func TestTimestampSentinels(t *testing.T) {
	p := firmakit.BundledProfile()
	now := time.Unix(1_763_805_600, 0)
	body := []byte("{}")
	cases := []struct {
		ts   string
		want error
	}{
		{"1763805000", firmakit.ErrTooOld},
		{"1763806200", firmakit.ErrTooNew},
		{"17638056000000", firmakit.ErrTooNew},
		{"now", firmakit.ErrMalformedTimestamp},
		{"-5", firmakit.ErrMalformedTimestamp},
	}
	all := []error{firmakit.ErrTooOld, firmakit.ErrTooNew, firmakit.ErrMalformedTimestamp}
	for _, c := range cases {
		err := p.VerifyWebhook(p.WebhookSignatureAt([]string{"s"}, c.ts, body), body, []string{"s"}, now)
		if !errors.Is(err, c.want) || !errors.Is(err, firmakit.ErrExpired) {
			t.Errorf("%s: got %v, want %v (and ErrExpired)", c.ts, err, c.want)
		}
		for _, other := range all {
			if other != c.want && errors.Is(err, other) {
				t.Errorf("%s: %v also matches %v", c.ts, err, other)
			}
		}
		if !strings.HasPrefix(err.Error(), "Request expired: ") {
			t.Errorf("%s: message %q no longer starts as the service's answer", c.ts, err)
		}
	}
}

// Combinations that describe no scheme are refused, naming the field.
func TestWebhookSchemeValidation(t *testing.T) {
	cases := []struct{ yaml, field string }{
		{"webhook: {signature_format: xml}", "webhook.signature_format"},
		{"webhook: {timestamp_from: query}", "webhook.timestamp_from"},
		{"webhook: {signature_format: entries}", "webhook.timestamp_from is field"},
		{"webhook: {timestamp_from: header}", "webhook.timestamp_header"},
		{"webhook: {id_from: header}", "webhook.id_header"},
		{"webhook: {signed_content: [id, timestamp, body]}", "webhook.signed_content names id"},
		{"webhook: {timestamp_from: none}", "webhook.signed_content names timestamp"},
		{"webhook: {signed_content: [timestamp]}", "body exactly once"},
		{"webhook: {signed_content: [timestamp, path, body]}", `unknown part "path"`},
		{"webhook: {secret_encoding: hex}", "webhook.secret_encoding"},
		{"webhook: {signature_key: ''}", "webhook.signature_key"},
		{"webhook: {signature_prefix: 'v1,'}", "webhook.signature_prefix"},
	}
	for _, c := range cases {
		_, err := firmakit.ParseProfile([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want an error naming %s", c.yaml, err, c.field)
		}
	}
	for _, name := range firmakit.Presets() {
		b, _ := firmakit.PresetYAML(name)
		if _, err := firmakit.ParseProfile(b); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

func TestResolveProfile(t *testing.T) {
	p, err := firmakit.ResolveProfile("github")
	if err != nil || p.Webhook.SignatureHeader != "X-Hub-Signature-256" {
		t.Fatalf("github: %v %v", p, err)
	}
	_, err = firmakit.ResolveProfile("gitlab")
	if err == nil || !strings.Contains(err.Error(), "standard-webhooks") {
		t.Fatalf("unknown name: %v", err)
	}
}

// The cases of the Standard Webhooks Go library's own table test
// (standard-webhooks/standard-webhooks, libraries/go/webhook_test.go at
// b2fa7b87), each with the sentinel a caller acts on.
func TestStandardWebhooksLibraryCases(t *testing.T) {
	p := preset(t, "standard-webhooks")
	const secret = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // the library takes it with or without whsec_
	payload := []byte(`{"test": 2432232314}`)
	now := time.Now()
	signed := func(at time.Time) http.Header {
		h := http.Header{}
		p.SignWebhook(h, "msg_p5jXN8AQM9LWM0D4loKWxJek", []string{secret}, at, payload)
		return h
	}
	const other = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
	cases := []struct {
		name   string
		at     time.Time
		change func(http.Header)
		want   error
	}{
		{"valid signature is valid", now, nil, nil},
		{"missing id", now, func(h http.Header) { h.Del("webhook-id") }, firmakit.ErrMissingHeaders},
		{"missing timestamp", now, func(h http.Header) { h.Del("webhook-timestamp") }, firmakit.ErrMissingHeaders},
		{"missing signature", now, func(h http.Header) { h.Del("webhook-signature") }, firmakit.ErrMissingHeaders},
		{"invalid signature", now, func(h http.Header) { h.Set("webhook-signature", other) }, firmakit.ErrInvalidSignature},
		{"partial signature", now, func(h http.Header) { h.Set("webhook-signature", "v1,") }, firmakit.ErrMalformedHeader},
		{"old timestamp", now.Add(-5*time.Minute - time.Second), nil, firmakit.ErrTooOld},
		{"new timestamp", now.Add(5*time.Minute + time.Second), nil, firmakit.ErrTooNew},
		{"valid multi sig", now, func(h http.Header) {
			h.Set("webhook-signature", strings.Join([]string{other, "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=", h.Get("webhook-signature"), other}, " "))
		}, nil},
	}
	for _, c := range cases {
		for _, s := range []string{secret, "whsec_" + secret} {
			h := signed(c.at)
			if c.change != nil {
				c.change(h)
			}
			err := p.VerifyWebhookHeaders(h, payload, []string{s}, now)
			if (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s (secret %s): got %v, want %v", c.name, s[:6], err, c.want)
			}
		}
	}
	// An empty key is refused, not taken as a key of no bytes.
	if _, err := p.Webhook.WebhookKey("whsec_"); err == nil {
		t.Error("whsec_ with nothing after it was taken as a key")
	}
}
