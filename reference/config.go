package reference

import (
	"bytes"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/firmakit/firmakit"
	"go.yaml.in/yaml/v3"
)

// Config is the merchant configuration of a reference server.
type Config struct {
	// APIVersions are the version segments accepted on the check path.
	APIVersions []string    `yaml:"api_versions"`
	Merchants   []*Merchant `yaml:"merchants"`

	byID  map[string]*Merchant
	byKey map[string]firmakit.Credential
}

// Merchant is one merchant of the service.
type Merchant struct {
	ID               string                `yaml:"id"`
	Sender           firmakit.Sender       `yaml:"sender"`
	Credentials      []firmakit.Credential `yaml:"credentials"`
	SignatureWebhook string                `yaml:"signature_webhook"`
	WebhookSecrets   []string              `yaml:"webhook_secrets"`
	Templates        []*TemplateConfig     `yaml:"templates"`
	templates        map[string]*firmakit.Template
}

// TemplateConfig is a template given by its fields, or by a Word document
// (Docx, relative to the configuration file) from which they are derived.
// Example optionally gives values of its data keys, for the demo contracts
// that clients create (firmakit up's buttons, firmakit demo).
type TemplateConfig struct {
	firmakit.Template `yaml:",inline"`
	Docx              string            `yaml:"docx"`
	Example           map[string]string `yaml:"example"`
}

// ExampleData returns a value for each data key of the template: its
// Example value, else "demo".
func (tc *TemplateConfig) ExampleData() map[string]string {
	out := make(map[string]string, len(tc.Data))
	for _, k := range tc.Data {
		out[k] = "demo"
		if v, ok := tc.Example[k]; ok {
			out[k] = v
		}
	}
	return out
}

// DemoConfig returns the bundled demo merchants of defaults.md F: published
// test data, never for production.
func DemoConfig() *Config {
	c, err := ParseConfig(firmakit.DemoYAML(), "")
	if err != nil {
		panic("reference: embedded demo configuration is invalid: " + err.Error())
	}
	return c
}

// LoadConfig reads a merchant configuration file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("merchant config: %w", err)
	}
	c, err := ParseConfig(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("merchant config %s: %w", path, err)
	}
	return c, nil
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// ParseConfig reads and validates a merchant configuration. dir resolves
// relative .docx paths.
func ParseConfig(data []byte, dir string) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("invalid merchant config: %w", err)
	}
	if len(c.APIVersions) == 0 {
		c.APIVersions = []string{"v1"}
	}
	c.byID = map[string]*Merchant{}
	c.byKey = map[string]firmakit.Credential{}
	for i, m := range c.Merchants {
		if m == nil || !idPattern.MatchString(m.ID) {
			return nil, fmt.Errorf("merchant %d: id must be 1 to 128 letters, digits, '_', '.' or '-'", i+1)
		}
		if c.byID[m.ID] != nil {
			return nil, fmt.Errorf("merchant %s: listed twice", m.ID)
		}
		c.byID[m.ID] = m
		if _, err := mail.ParseAddress(m.Sender.Email); err != nil {
			return nil, fmt.Errorf("merchant %s: sender email %q is invalid", m.ID, m.Sender.Email)
		}
		if m.SignatureWebhook != "" {
			if err := checkWebhookURL(m.SignatureWebhook); err != nil {
				return nil, fmt.Errorf("merchant %s: %w", m.ID, err)
			}
		}
		for i := range m.Credentials {
			cr := &m.Credentials[i]
			cr.MerchantID = m.ID
			if cr.KeyID == "" || cr.Secret == "" {
				return nil, fmt.Errorf("merchant %s: a credential needs a key and a secret", m.ID)
			}
			if _, dup := c.byKey[cr.KeyID]; dup {
				return nil, fmt.Errorf("merchant %s: credential key %s is used twice", m.ID, cr.KeyID)
			}
			c.byKey[cr.KeyID] = *cr
		}
		m.templates = map[string]*firmakit.Template{}
		for _, tc := range m.Templates {
			t := tc.Template
			if tc.Docx != "" {
				path := tc.Docx
				if dir != "" && !filepath.IsAbs(path) {
					path = filepath.Join(dir, path)
				}
				d, err := InspectDocxFile(path)
				if err != nil {
					return nil, fmt.Errorf("merchant %s: %w", m.ID, err)
				}
				if t.Name != "" {
					d.Name = t.Name
				}
				t = d
			}
			if t.Name == "" || len(t.Signers) == 0 {
				return nil, fmt.Errorf("merchant %s: a template needs a name and at least one signer", m.ID)
			}
			if t.Title == "" {
				t.Title = t.Name
			}
			if m.templates[t.Name] != nil {
				return nil, fmt.Errorf("merchant %s: template %s is listed twice", m.ID, t.Name)
			}
			for k := range tc.Example {
				if !slices.Contains(t.Data, k) {
					return nil, fmt.Errorf("merchant %s: template %s: example key %s is not one of its data keys", m.ID, t.Name, k)
				}
			}
			tc.Template = t
			m.templates[t.Name] = &tc.Template
		}
	}
	return &c, nil
}

func checkWebhookURL(s string) error {
	_, err := firmakit.ParseHTTPURL(s)
	if err != nil {
		return fmt.Errorf("signature_webhook %q is not an http(s) URL", s)
	}
	return nil
}

// Merchant returns the merchant with the given id, or nil.
func (c *Config) Merchant(id string) *Merchant { return c.byID[id] }

// Credential looks a credential up by key id; it is the lookup that request
// verification uses.
func (c *Config) Credential(key string) (firmakit.Credential, bool) {
	cr, ok := c.byKey[key]
	return cr, ok
}

// SetWebhook points a merchant's signature_webhook at u.
func (c *Config) SetWebhook(merchantID, u string) error {
	m := c.byID[merchantID]
	if m == nil {
		return fmt.Errorf("no merchant %q in the configuration", merchantID)
	}
	if err := checkWebhookURL(u); err != nil {
		return err
	}
	m.SignatureWebhook = u
	return nil
}

// SetWebhooks points every merchant's signature_webhook at url(its id):
// a receiver's channel per merchant, as HookURL gives them.
func (c *Config) SetWebhooks(url func(merchantID string) string) error {
	for _, m := range c.Merchants {
		if err := c.SetWebhook(m.ID, url(m.ID)); err != nil {
			return err
		}
	}
	return nil
}

// EnabledCredential returns the merchant's first credential that is not
// disabled, and false when it has none.
func (m *Merchant) EnabledCredential() (firmakit.Credential, bool) {
	for _, c := range m.Credentials {
		if !c.Disabled {
			return c, true
		}
	}
	return firmakit.Credential{}, false
}

// Template returns the merchant's template of that name, or nil.
func (m *Merchant) Template(name string) *firmakit.Template { return m.templates[name] }

// AcceptsVersion tells whether v is an accepted api_version.
func (c *Config) AcceptsVersion(v string) bool {
	for _, a := range c.APIVersions {
		if a == v {
			return true
		}
	}
	return false
}
