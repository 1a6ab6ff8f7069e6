package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/gateway"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole program against the reference behind a gateway as a sandbox
// has one: HTTPS with HTTP/2 under a CA of its own (given with
// --ca-cert), a tight rate limit that says when to come back, and latency
// each way; the notifications go straight to certify's receiver. The run
// passes, and its recap says what the requests met and the --rate to give
// next time.
func TestCertifyBehindAGateway(t *testing.T) {
	d := firmakit.Demo()
	hook := freeAddr(t)
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
	require.NoError(t, ref.Config.SetWebhook(d.MerchantID, "http://"+hook+"/hooks/"+d.MerchantID))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	g := &gateway.Server{Upstream: ref.URL(), TLS: true, Rate: 5, Burst: 3, RetryAfter: true, Latency: 20 * time.Millisecond, Seed: 1}
	require.NoError(t, g.Open())
	t.Cleanup(func() { g.Close() })
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, g.CACertPEM(), 0o644))

	code, out, errOut := run(t, nil, "certify", "--target", g.URL(), "--ca-cert", ca, "--merchant", d.MerchantID,
		"--key", d.Credential.KeyID, "--secret", d.Credential.Secret,
		"--disabled-key", d.Disabled.KeyID, "--disabled-secret", d.Disabled.Secret,
		"--other-key", d.Other.KeyID, "--other-secret", d.Other.Secret,
		"--webhook-secret", d.WebhookSecrets[0], "--listen", hook,
		"--lang", "en", "--tags", "@AUTH-OK,@AUTH-EXPIRED,@AUTH-WRONG-SECRET,@AUTH-UNKNOWN-KEY")
	st := g.Stats()
	t.Logf("gateway: %+v\n%s", st, out)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Regexp(t, `(?m)^verdict: passed: every selected scenario passed, \d+ of \d+$`, out)
	line := regexp.MustCompile(`(?m)^network: .*$`).FindString(out)
	require.NotEmpty(t, line, "the recap says what the requests met:\n%s", out)
	assert.Regexp(t, `\d+ rate-limited \(429`, line)
	m := regexp.MustCompile(`to avoid the limit next time: --rate ([0-9.]+)`).FindStringSubmatch(line)
	require.NotNil(t, m, "a --rate is suggested: %s", line)
	rate, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	assert.Positive(t, rate)
	assert.LessOrEqual(t, rate, g.Rate, "the --rate suggested is one the gateway lets through: %s", line)
	assert.Positive(t, st.RateLimited, "the gateway rate-limited")
	assert.Positive(t, st.Forwarded, "and forwarded the rest, over TLS")
}
