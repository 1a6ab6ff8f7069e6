package reference_test

import (
	"testing"

	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.Equal(t, "on", c.KeyID, "the first credential that is not disabled")
}
