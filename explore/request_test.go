package explore

import (
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// A line that sends a request again writes the demo merchant's published
// test credentials as they are, and any other secret as the environment
// variable certify reads it from, never its value.
func TestCommandNeverWritesASecret(t *testing.T) {
	demo := firmakit.Demo()
	l := Line{BaseURL: "https://sandbox.example/", APIVersion: "v2", Profile: "stripe"}
	own := firmakit.Credential{KeyID: "live_key", Secret: "s3cr3t-own"}
	other := firmakit.Credential{KeyID: "their_key", Secret: "s3cr3t-other"}
	for _, tc := range []struct {
		name string
		r    Request
		want string
	}{
		{"the demo merchant's own key: sign's defaults", Request{Endpoint: Check, Merchant: "merchant_demo", Cred: demo.Credential, credential: credOwn, Body: []byte("{}")},
			"firmakit sign --curl --url 'https://sandbox.example/v2/check/merchant_demo' --profile 'stripe' --body '{}'"},
		{"the demo's other merchant", Request{Endpoint: Create, Merchant: "merchant_demo", Cred: demo.Other, credential: credOther, Body: []byte("{}")},
			"firmakit sign --curl --url 'https://sandbox.example/v1/signature/merchant_demo' --profile 'stripe' --key 'test_key_other' --secret 'test_secret_other' --body '{}'"},
		{"a merchant's own key", Request{Endpoint: Check, Merchant: "m", Cred: own, credential: credOwn, Offset: -400, Omit: []string{"key"}, Body: []byte("{}")},
			`firmakit sign --curl --url 'https://sandbox.example/v2/check/m' --profile 'stripe' --key 'live_key' --secret "$FIRMAKIT_SECRET" --timestamp-offset -400s --omit key --body '{}'`},
		{"its key with a character more", Request{Endpoint: Check, Merchant: "m", Cred: firmakit.Credential{KeyID: "live_keyx", Secret: own.Secret}, credential: credOwn,
			Stamp: "{now}.5", SigForm: firmakit.SignatureUpper, Empty: []string{"signature"}, Body: []byte("{}")},
			`firmakit sign --curl --url 'https://sandbox.example/v2/check/m' --profile 'stripe' --key 'live_keyx' --secret "$FIRMAKIT_SECRET" --timestamp-text '{now}.5' --empty signature --signature-form upper --body '{}'`},
		{"another merchant's key", Request{Endpoint: Check, Merchant: "m", Cred: other, credential: credOther, Body: []byte(`{"it's":1}`)},
			`firmakit sign --curl --url 'https://sandbox.example/v2/check/m' --profile 'stripe' --key 'their_key' --secret "$FIRMAKIT_OTHER_SECRET" --body '{"it'\''s":1}'`},
		{"a disabled key", Request{Endpoint: Check, Merchant: "m", Cred: other, credential: credDisabled, Body: []byte("{}")},
			`firmakit sign --curl --url 'https://sandbox.example/v2/check/m' --profile 'stripe' --key 'their_key' --secret "$FIRMAKIT_DISABLED_SECRET" --body '{}'`},
		{"an unknown key", Request{Endpoint: Check, Merchant: "m", Cred: unknownCredential, credential: credUnknown, Body: []byte("{}")},
			`firmakit sign --curl --url 'https://sandbox.example/v2/check/m' --profile 'stripe' --key 'firmakit_unknown_key' --secret 'firmakit_unknown_secret' --body '{}'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.r.Command(l)
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, got, "s3cr3t")
		})
	}
	r := Request{Endpoint: Check, Merchant: "m", Cred: own, Body: []byte("{}"), PadTo: 1 << 20}
	assert.Len(t, r.Sent(), 1<<20)
	assert.True(t, strings.HasPrefix(string(r.Sent()), "{ ") && strings.HasSuffix(string(r.Sent()), " }"), "spaces inside the object")
	l.BodyFile = "/tmp/body"
	assert.True(t, strings.HasSuffix(r.Command(l), "--body-file '/tmp/body'"), r.Command(l))
}
