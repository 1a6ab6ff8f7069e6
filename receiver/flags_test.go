package receiver_test

import (
	"testing"

	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSecrets(t *testing.T) {
	got, err := receiver.ParseSecrets([]string{"a=s1", "a=s2", "*=all"})
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"a": {"s1", "s2"}, "*": {"all"}}, got)
	got, err = receiver.ParseSecrets(nil)
	require.NoError(t, err)
	assert.Nil(t, got, "none: the receiver's default")
	for _, bad := range []string{"whsec_verysecret", "=s", "a="} {
		_, err := receiver.ParseSecrets([]string{bad})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "want channel=secret")
		assert.NotContains(t, err.Error(), "verysecret", "no secret in the error")
	}
}

func TestParseChannelProfiles(t *testing.T) {
	_, err := receiver.ParseChannelProfiles([]string{"gh=github", "gh=stripe"})
	assert.EqualError(t, err, `--channel-profile gives channel "gh" twice`)
	got, err := receiver.ParseChannelProfiles([]string{"gh=github", "st=stripe"})
	require.NoError(t, err)
	assert.Equal(t, "X-Hub-Signature-256", got["gh"].Webhook.SignatureHeader)
	assert.Equal(t, "Stripe-Signature", got["st"].Webhook.SignatureHeader)
}
