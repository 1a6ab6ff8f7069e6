package firmakit

import (
	_ "embed"
	"slices"

	"go.yaml.in/yaml/v3"
)

// demoYAML is the bundled demo data of defaults.md F, the one place it is
// written: published test data, never for production.
//
//go:embed demo.yaml
var demoYAML []byte

// DemoYAML returns the bundled demo merchants as a merchant configuration
// file (the reference server's format), a fresh copy at every call.
func DemoYAML() []byte { return slices.Clone(demoYAML) }

// DemoMerchant is the bundled demo data as a client of the service needs
// it: the first merchant of demo.yaml is the demo merchant, the second
// "another merchant".
type DemoMerchant struct {
	APIVersion string // the first version segment the check path accepts
	MerchantID string
	Sender     Sender
	Credential Credential // the demo merchant's enabled credential
	Disabled   Credential // a disabled credential of the demo merchant
	// OtherMerchantID and Other are another merchant and its credential,
	// OtherWebhookSecrets its webhook secrets.
	OtherMerchantID     string
	Other               Credential
	OtherWebhookSecrets []string
	WebhookSecrets      []string
	// Template is the demo merchant's first template, Data the example
	// values of its data keys.
	Template Template
	Data     map[string]string
}

// demoFile is what Demo reads of demo.yaml.
type demoFile struct {
	APIVersions []string `yaml:"api_versions"`
	Merchants   []struct {
		ID             string       `yaml:"id"`
		Sender         Sender       `yaml:"sender"`
		Credentials    []Credential `yaml:"credentials"`
		WebhookSecrets []string     `yaml:"webhook_secrets"`
		Templates      []struct {
			Template `yaml:",inline"`
			Example  map[string]string `yaml:"example"`
		} `yaml:"templates"`
	} `yaml:"merchants"`
}

// Demo returns the bundled demo merchant, a fresh copy at every call.
func Demo() DemoMerchant {
	var f demoFile
	if err := yaml.Unmarshal(demoYAML, &f); err != nil || len(f.APIVersions) == 0 || len(f.Merchants) < 2 || len(f.Merchants[0].Templates) == 0 {
		panic("firmakit: demo.yaml must list an API version, the demo merchant with a template, and another merchant")
	}
	m, other := f.Merchants[0], f.Merchants[1]
	d := DemoMerchant{APIVersion: f.APIVersions[0], MerchantID: m.ID, Sender: m.Sender,
		OtherMerchantID: other.ID, WebhookSecrets: slices.Clone(m.WebhookSecrets), OtherWebhookSecrets: slices.Clone(other.WebhookSecrets)}
	for _, cr := range m.Credentials {
		cr.MerchantID = m.ID
		switch {
		case !cr.Disabled && d.Credential.KeyID == "":
			d.Credential = cr
		case cr.Disabled && d.Disabled.KeyID == "":
			d.Disabled = cr
		}
	}
	for _, cr := range other.Credentials {
		if !cr.Disabled {
			cr.MerchantID = other.ID
			d.Other = cr
			break
		}
	}
	t := m.Templates[0]
	d.Template = t.Template
	d.Template.Signers, d.Template.Data = slices.Clone(t.Signers), slices.Clone(t.Data)
	d.Data = make(map[string]string, len(t.Data))
	for _, k := range t.Data {
		d.Data[k] = "demo"
		if v, ok := t.Example[k]; ok {
			d.Data[k] = v
		}
	}
	return d
}
