package reference_test

import (
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoIsDefaultsF: the demo data read from demo.yaml is the table of
// defaults.md F.
func TestDemoIsDefaultsF(t *testing.T) {
	assert.Equal(t, reference.DemoMerchant{
		APIVersion:      "v1",
		MerchantID:      "merchant_demo",
		Sender:          firmakit.Sender{Name: "Comercio Demo", Email: "contratos@comercio-demo.test"},
		Credential:      reference.CredentialConfig{Key: "test_key_demo", Secret: "test_secret_demo"},
		Disabled:        reference.CredentialConfig{Key: "test_key_disabled", Secret: "test_secret_disabled", Disabled: true},
		OtherMerchantID: "merchant_other",
		Other:           reference.CredentialConfig{Key: "test_key_other", Secret: "test_secret_other"},
		WebhookSecrets:  []string{"whsec_test_demo"},
		Template: firmakit.Template{Name: "contrato_arriendo", Title: "Contrato de arriendo",
			Signers: []string{"signer_1", "signer_2"}, Data: []string{"nombre_arrendatario", "monto_mensual"}},
		Data: map[string]string{"nombre_arrendatario": "Ana Pérez", "monto_mensual": "450000"},
	}, reference.Demo())
}

func TestDemoIsACopy(t *testing.T) {
	d := reference.Demo()
	d.Data["monto_mensual"] = "1"
	d.Template.Signers[0] = "x"
	d.WebhookSecrets[0] = "x"
	again := reference.Demo()
	assert.Equal(t, "450000", again.Data["monto_mensual"])
	assert.Equal(t, "signer_1", again.Template.Signers[0])
	assert.Equal(t, "whsec_test_demo", again.WebhookSecrets[0])
}

func TestDefaultMerchant(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want, err string
	}{
		{"the demo configuration", "", "merchant_demo", ""},
		{"one merchant", "merchants: [{id: shop, sender: {email: a@b.c}}]", "shop", ""},
		{"several, the demo merchant among them", "merchants: [{id: shop, sender: {email: a@b.c}}, {id: merchant_demo, sender: {email: a@b.c}}]", "merchant_demo", ""},
		{"several, no demo merchant", "merchants: [{id: shop, sender: {email: a@b.c}}, {id: other, sender: {email: a@b.c}}]", "",
			"no default merchant: the configuration has 2 merchants (shop, other) and none is merchant_demo"},
		{"none", "merchants: []", "", "no default merchant: the configuration has no merchant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := reference.DemoConfig()
			if tc.yaml != "" {
				var err error
				cfg, err = reference.ParseConfig([]byte(tc.yaml), "")
				require.NoError(t, err)
			}
			m, err := cfg.DefaultMerchant()
			if tc.err != "" {
				require.ErrorIs(t, err, reference.ErrNoDefaultMerchant)
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.ID)
		})
	}
}

func TestExampleData(t *testing.T) {
	cfg, err := reference.ParseConfig([]byte(`merchants: [{id: shop, sender: {email: a@b.c}, credentials: [{key: off, secret: s, disabled: true}, {key: on, secret: s}],
  templates: [{name: t, signers: [s], data: [a, b], example: {a: "1"}}]}]`), "")
	require.NoError(t, err)
	m := cfg.Merchant("shop")
	assert.Equal(t, map[string]string{"a": "1", "b": "demo"}, m.Templates[0].ExampleData(), "demo where the example has no value")
	c, ok := m.EnabledCredential()
	assert.True(t, ok)
	assert.Equal(t, "on", c.Key, "the first credential that is not disabled")
}
