package reference

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/firmakit/firmakit"
)

// DemoMerchant is the bundled demo data of defaults.md F as a client of the
// reference server needs it. It is read from the embedded demo.yaml, the
// one place where that data is written: its first merchant is the demo
// merchant, its second "another merchant". Published test data: never for
// production.
type DemoMerchant struct {
	APIVersion string // the first version segment the check path accepts
	MerchantID string
	Sender     firmakit.Sender
	Credential CredentialConfig // the demo merchant's enabled credential
	Disabled   CredentialConfig // a disabled credential of the demo merchant
	// OtherMerchantID and Other are another merchant and its credential.
	OtherMerchantID string
	Other           CredentialConfig
	WebhookSecrets  []string
	// Template is the demo merchant's first template, Data the example
	// values of its data keys.
	Template firmakit.Template
	Data     map[string]string
}

// Demo returns the bundled demo merchant, a fresh copy at every call.
func Demo() DemoMerchant {
	c := DemoConfig()
	if len(c.Merchants) < 2 || len(c.Merchants[0].Templates) == 0 {
		panic("reference: demo.yaml must list the demo merchant, with a template, and another merchant")
	}
	m, other := c.Merchants[0], c.Merchants[1]
	d := DemoMerchant{APIVersion: c.APIVersions[0], MerchantID: m.ID, Sender: m.Sender,
		OtherMerchantID: other.ID, WebhookSecrets: slices.Clone(m.WebhookSecrets)}
	for _, cr := range m.Credentials {
		switch {
		case !cr.Disabled && d.Credential.Key == "":
			d.Credential = cr
		case cr.Disabled && d.Disabled.Key == "":
			d.Disabled = cr
		}
	}
	d.Other, _ = other.EnabledCredential()
	t := m.Templates[0]
	d.Template = t.Template
	d.Template.Signers, d.Template.Data = slices.Clone(t.Signers), slices.Clone(t.Data)
	d.Data = t.ExampleData()
	return d
}

// ErrNoDefaultMerchant is returned by DefaultMerchant when a configuration
// has several merchants and none is the demo merchant.
var ErrNoDefaultMerchant = errors.New("no default merchant")

// DefaultMerchant returns the merchant that a setting naming no merchant
// applies to (a bare 'firmakit serve --webhook-url URL', the demo buttons of
// 'firmakit up'): the only merchant of the configuration, else the demo
// merchant. With several merchants and no demo merchant it returns an
// error wrapping ErrNoDefaultMerchant that lists them.
func (c *Config) DefaultMerchant() (*Merchant, error) {
	if len(c.Merchants) == 1 {
		return c.Merchants[0], nil
	}
	if m := c.Merchant(Demo().MerchantID); m != nil {
		return m, nil
	}
	if len(c.Merchants) == 0 {
		return nil, fmt.Errorf("%w: the configuration has no merchant", ErrNoDefaultMerchant)
	}
	ids := make([]string, 0, len(c.Merchants))
	for _, m := range c.Merchants {
		ids = append(ids, m.ID)
	}
	return nil, fmt.Errorf("%w: the configuration has %d merchants (%s) and none is %s",
		ErrNoDefaultMerchant, len(ids), strings.Join(ids, ", "), Demo().MerchantID)
}
