package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfileListAndShow(t *testing.T) {
	code, out, _ := run(t, nil, "profile", "list")
	require.Equal(t, ExitOK, code)
	for _, name := range []string{"bundled", "stripe", "standard-webhooks", "github", "shopify"} {
		assert.Contains(t, out, name)
	}
	assert.Contains(t, out, "no timestamp, replay cannot be judged")

	// What show prints is a file that --profile loads as the preset.
	code, out, _ = run(t, nil, "profile", "show", "standard-webhooks")
	require.Equal(t, ExitOK, code)
	f := filepath.Join(t.TempDir(), "sw.yaml")
	require.NoError(t, os.WriteFile(f, []byte(out), 0o600))
	p, err := firmakit.LoadProfile(f)
	require.NoError(t, err)
	want, _ := firmakit.Preset("standard-webhooks")
	assert.Equal(t, want, p)

	code, _, errOut := run(t, nil, "profile", "show", "gitlab")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "profile list")
	code, _, errOut = run(t, nil, "sign", "--url", "http://127.0.0.1:1/x", "--profile", "gitlab")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "not a preset (bundled, github, rfc9421, rfc9421-ed25519, shopify, standard-webhooks, standard-webhooks-ed25519, stripe)")
}

// sign --webhook-secret reproduces each scheme's published vector.
func TestSignWebhookVectors(t *testing.T) {
	code, out, _ := run(t, nil, "sign", "--profile", "standard-webhooks", "--url", "http://127.0.0.1:8090/hooks/sw",
		"--webhook-secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "--webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		"--timestamp", "1614265330", "--body", `{"test": 2432232314}`)
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "Webhook-Signature: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=\n")
	assert.Contains(t, out, "Webhook-Timestamp: 1614265330\n")
	code, out, _ = run(t, nil, "sign", "--profile", "github", "--url", "http://127.0.0.1:8090/hooks/gh",
		"--webhook-secret", "It's a Secret to Everybody", "--body", "Hello, World!")
	require.Equal(t, ExitOK, code)
	assert.Equal(t, "X-Hub-Signature-256: sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17", strings.TrimSpace(out))
}

func TestChannelProfileFlag(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"github", "not channel=PRESET or channel=FILE"},
		{"gh=gitlab", "--channel-profile gh: unknown profile \"gitlab\""},
	} {
		code, _, errOut := run(t, nil, "receive", "--listen", "127.0.0.1:0", "--channel-profile", tc.arg)
		assert.Equal(t, ExitUsage, code, tc.arg)
		assert.Contains(t, errOut, tc.want, tc.arg)
	}
	code, _, errOut := run(t, nil, "receive", "--listen", "127.0.0.1:0", "--channel-profile", "gh=github", "--channel-profile", "gh=stripe")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `--channel-profile gives channel "gh" twice`)
}

// The suites refuse, before running, a scheme their webhook sentences
// cannot write, and take the fields schemes.
func TestSuitesSayWhichSchemesTheySpeak(t *testing.T) {
	for _, name := range []string{"standard-webhooks", "github", "shopify"} {
		code, _, errOut := run(t, nil, "certify", "--profile", name)
		assert.Equal(t, ExitUsage, code, name)
		assert.Contains(t, errOut, name+" is not one of them yet", name)
	}
	p, _ := firmakit.Preset("stripe")
	assert.NoError(t, suiteSpeaks(p))
	assert.NoError(t, suiteSpeaks(firmakit.BundledProfile()))
}
