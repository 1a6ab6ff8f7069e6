package reference_test

import (
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shopsConfig is a merchants file of two merchants, neither the demo one.
const shopsConfig = `merchants:
  - id: shop_a
    sender: {name: A, email: a@shop.test}
    credentials: [{key: key_a, secret: secret_a}]
    templates: [{name: t, signers: [signer_1]}]
  - id: shop_b
    sender: {name: B, email: b@shop.test}
    credentials: [{key: key_b, secret: secret_b}]
    templates: [{name: t, signers: [signer_1]}]
`

func TestWebhookURLFlag(t *testing.T) {
	const hook = "http://127.0.0.1:9/hooks/x"
	parse := func(y string) func() *reference.Config {
		return func() *reference.Config {
			cfg, err := reference.ParseConfig([]byte(y), "")
			require.NoError(t, err)
			return cfg
		}
	}
	shops, demo := parse(shopsConfig), reference.DemoConfig
	one := parse(strings.SplitN(shopsConfig, "  - id: shop_b", 2)[0])
	for _, tc := range []struct {
		name   string
		cfg    func() *reference.Config
		values []string
		want   map[string]string // merchant: webhook
		err    string
	}{
		{"named", shops, []string{"shop_b=" + hook}, map[string]string{"shop_b": hook}, ""},
		{"two named", shops, []string{"shop_a=" + hook, "shop_b=" + hook + "?b"}, map[string]string{"shop_a": hook, "shop_b": hook + "?b"}, ""},
		{"bare, the demo configuration", demo, []string{hook}, map[string]string{"merchant_demo": hook}, ""},
		{"bare, one merchant", one, []string{hook}, map[string]string{"shop_a": hook}, ""},
		{"a URL with = in its query is still bare", one, []string{hook + "?a=b"}, map[string]string{"shop_a": hook + "?a=b"}, ""},
		{"bare, several merchants and no demo one", shops, []string{hook}, nil,
			"--webhook-url " + hook + " names no merchant, and no default merchant: the configuration has 2 merchants (shop_a, shop_b) and none is merchant_demo: write merchant_id=URL"},
		{"unknown merchant", shops, []string{"shop_c=" + hook}, nil, `--webhook-url shop_c=` + hook + `: no merchant "shop_c" in the configuration`},
		{"no merchant before =", shops, []string{"=" + hook}, nil, `--webhook-url "=` + hook + `": want merchant_id=URL, or a URL for the default merchant`},
		{"a merchant twice", shops, []string{"shop_a=" + hook, "shop_a=" + hook}, nil, "--webhook-url: merchant shop_a is given twice"},
		{"not a URL", shops, []string{"shop_a=ftp://x"}, nil, `--webhook-url shop_a=ftp://x: signature_webhook "ftp://x" is not an http(s) URL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			var f reference.WebhookURLs
			for _, v := range tc.values {
				require.NoError(t, f.Set(v))
			}
			set, err := f.Apply(cfg)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			got := map[string]string{}
			for id := range set {
				got[id] = cfg.Merchant(id).SignatureWebhook
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestWebhookURLFlagSplitsTheEnvironmentAtEntries(t *testing.T) {
	var f reference.WebhookURLs
	require.NoError(t, f.Set("shop_a=http://h/a?x=1,2, shop_b=https://h/b,http://h/demo"))
	assert.Equal(t, reference.WebhookURLs{"shop_a=http://h/a?x=1,2", "shop_b=https://h/b", "http://h/demo"}, f)
}
