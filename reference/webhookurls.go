package reference

import (
	"fmt"
	"strings"
)

// WebhookURLs is the flag 'firmakit serve --webhook-url', which points
// merchants' webhooks elsewhere than their configuration: merchant_id=URL,
// repeatable; a bare URL is the default merchant's
// (Config.DefaultMerchant). A value from the environment may hold several,
// comma-separated: a comma starts a new one only before "id=http" or
// "http", so that a URL may hold commas. Its errors name the flag.
type WebhookURLs []string

func (f *WebhookURLs) String() string { return strings.Join(*f, ",") }

func (f *WebhookURLs) Set(v string) error {
	for i, part := range strings.Split(v, ",") {
		if i > 0 && !startsWebhook(part) {
			(*f)[len(*f)-1] += "," + part
			continue
		}
		*f = append(*f, strings.TrimSpace(part))
	}
	return nil
}

// startsWebhook tells whether s begins a --webhook-url value.
func startsWebhook(s string) bool {
	s = strings.TrimSpace(s)
	if id, rest, ok := strings.Cut(s, "="); ok && !strings.Contains(id, "/") {
		s = rest
	}
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Apply points the merchants' webhooks of cfg as f says and returns the
// merchants it set; every refusal says what to write.
func (f WebhookURLs) Apply(cfg *Config) (map[string]bool, error) {
	set := map[string]bool{}
	for _, v := range f {
		id, u, named := strings.Cut(v, "=")
		if !named || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
			m, err := cfg.DefaultMerchant()
			if err != nil {
				return nil, fmt.Errorf("--webhook-url %s names no merchant, and %v: write merchant_id=URL", v, err)
			}
			id, u = m.ID, v
		}
		switch {
		case id == "":
			return nil, fmt.Errorf("--webhook-url %q: want merchant_id=URL, or a URL for the default merchant", v)
		case cfg.Merchant(id) == nil:
			return nil, fmt.Errorf("--webhook-url %s: no merchant %q in the configuration", v, id)
		case set[id]:
			return nil, fmt.Errorf("--webhook-url: merchant %s is given twice", id)
		}
		if err := cfg.SetWebhook(id, u); err != nil {
			return nil, fmt.Errorf("--webhook-url %s: %v", v, err)
		}
		set[id] = true
	}
	return set, nil
}
