package firmakit_test

import (
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// TestDemoIsDefaultsF: the demo data read from demo.yaml is the table of
// defaults.md F.
func TestDemoIsDefaultsF(t *testing.T) {
	assert.Equal(t, firmakit.DemoMerchant{
		APIVersion:          "v1",
		MerchantID:          "merchant_demo",
		Sender:              firmakit.Sender{Name: "Comercio Demo", Email: "contratos@comercio-demo.test"},
		Credential:          firmakit.Credential{KeyID: "test_key_demo", Secret: "test_secret_demo", MerchantID: "merchant_demo"},
		Disabled:            firmakit.Credential{KeyID: "test_key_disabled", Secret: "test_secret_disabled", MerchantID: "merchant_demo", Disabled: true},
		OtherMerchantID:     "merchant_other",
		Other:               firmakit.Credential{KeyID: "test_key_other", Secret: "test_secret_other", MerchantID: "merchant_other"},
		OtherWebhookSecrets: []string{"whsec_test_other"},
		WebhookSecrets:      []string{"whsec_test_demo"},
		Template: firmakit.Template{Name: "contrato_arriendo", Title: "Contrato de arriendo",
			Signers: []string{"signer_1", "signer_2"}, Data: []string{"nombre_arrendatario", "monto_mensual"}},
		Data: map[string]string{"nombre_arrendatario": "Ana Pérez", "monto_mensual": "450000"},
	}, firmakit.Demo())
}

func TestDemoIsACopy(t *testing.T) {
	d := firmakit.Demo()
	d.Data["monto_mensual"] = "1"
	d.Template.Signers[0] = "x"
	d.WebhookSecrets[0] = "x"
	again := firmakit.Demo()
	assert.Equal(t, "450000", again.Data["monto_mensual"])
	assert.Equal(t, "signer_1", again.Template.Signers[0])
	assert.Equal(t, "whsec_test_demo", again.WebhookSecrets[0])
}
