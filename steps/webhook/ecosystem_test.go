// Endpoints written in Python and Node run the webhook suite whole: make
// test runs them in its power stage, without -race (the same steps run
// under -race in TestWebhookSuiteAgainstTheStrictReceiver).

//go:build !race

package webhook_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/firmakit/firmakit/steps/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startEndpoint starts a merchant's endpoint written in another language
// (testdata/endpoints), on a free loopback port, and returns its URL. The
// interpreters are Debian's, which make deps installs.
func startEndpoint(t *testing.T, interpreter, script string) string {
	t.Helper()
	if _, err := exec.LookPath(interpreter); err != nil {
		t.Fatalf("%s is not installed: make deps installs it (%v)", interpreter, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, interpreter, "../../testdata/endpoints/"+script, "0", shopSecret)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	port := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		port <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case p := <-port:
		require.Regexp(t, `^\d+$`, p, "%s printed no port; stderr: %s", script, stderr.String())
		return "http://127.0.0.1:" + p + "/webhook"
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start within 30 s; stderr: %s", script, stderr.String())
	}
	return ""
}

// TestEndpointsOfTheEcosystemPass: merchant endpoints written the way the
// ecosystem writes them from the profile, not by firmakit's authors (in
// Python's standard library: int(), hmac.compare_digest, json; in Node's
// http and crypto), pass the webhook suite in both languages, with
// warnings at most: a failure is a check that fails a correct endpoint.
func TestEndpointsOfTheEcosystemPass(t *testing.T) {
	t.Parallel()
	for _, e := range []struct{ interpreter, script string }{
		{"python3", "python/endpoint.py"},
		{"node", "node/endpoint.js"},
	} {
		t.Run(e.script, func(t *testing.T) {
			t.Parallel()
			url := startEndpoint(t, e.interpreter, e.script)
			s := &webhook.Suite{Endpoint: &webhook.Endpoint{URL: url, Secret: shopSecret, MerchantID: "shop"}, RunOptions: engine.RunOptions{Lang: "all", Randomize: -1, Output: io.Discard}}
			_, err := s.Run()
			require.NoError(t, err)
			assert.Contains(t, []string{reports.Passed, reports.PassedWithWarnings}, s.Verdict(), "%s:\n%s", e.script, unpassedWebhook(s))
			for _, r := range s.Results() {
				for _, w := range r.Warnings {
					t.Logf("%s %s @%s: %s", e.script, r.Lang, r.Requirement, w.Message)
				}
			}
		})
	}
}
