package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func TestCertifyBundledReference(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK,@DEMO-REASON", "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "firmakit: 6 scenarios: 6 passed, 0 failed, 0 not run")
	for _, f := range []string{"junit.xml", "cucumber.json", "report.html", "certificate.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	var c reports.Certificate
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c))
	assert.Equal(t, "passed", c.Result)
	assert.Equal(t, 6, c.Summary.Passed)
	assert.Equal(t, "merchant_demo", c.Target.MerchantID)
}

// A foreign target is any service: here a 'firmakit serve' of its own,
// whose notifications go to the suite's in-process receiver. Without the
// disabled and other credentials, those scenarios are not run, and
// @reference scenarios are left out by default.
func TestCertifyForeignTargetWithOwnReceiver(t *testing.T) {
	hook := freeAddr(t)
	urls := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", "http://"+hook+"/hooks/merchant_demo", "--log-level", "warn")
	dir := t.TempDir()
	code, out, errOut := run(t, nil, "certify", "--target", urls["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--webhook-secret", "whsec_test_demo", "--listen", hook, "--lang", "es",
		"--tags", "@AUTH-DISABLED-KEY,@AUTH-OTHER-MERCHANT-KEY,@AUTH-WRONG-SECRET,@DEMO-NOTIFICATION", "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "firmakit: 11 scenarios: 7 passed, 0 failed, 4 not run")
	assert.Contains(t, out, "2 scenario(s) not run: no disabled credential given")
	assert.Contains(t, out, "2 scenario(s) not run: no other merchant's credential given")
	var c reports.Certificate
	b, _ := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, json.Unmarshal(b, &c))
	assert.Equal(t, 4, c.Summary.NotRun, "not run is never counted as passed")
	assert.Equal(t, 7, c.Summary.Passed)
}

func TestCertifyForeignTargetWithRemoteReceiver(t *testing.T) {
	recv := startInProcess(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--log-level", "warn")
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", recv["receiver"]+"/hooks/merchant_demo", "--log-level", "warn")
	code, out, errOut := run(t, map[string]string{
		"FIRMAKIT_TARGET": ref["reference"], "FIRMAKIT_KEY": "test_key_demo", "FIRMAKIT_SECRET": "test_secret_demo",
		"FIRMAKIT_WEBHOOK_SECRET": "whsec_test_demo", "FIRMAKIT_RECEIVER": recv["receiver"],
		"FIRMAKIT_DISABLED_KEY": "test_key_disabled", "FIRMAKIT_DISABLED_SECRET": "test_secret_disabled",
	}, "certify", "--lang", "en", "--tags", "@DEMO-SIGNED-DOCUMENT-URL,@DEMO-NOT-DEMO,@AUTH-DISABLED-KEY")
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "firmakit: 9 scenarios: 9 passed, 0 failed, 0 not run")
	assert.Contains(t, out, "notifications read from the receiver at "+recv["receiver"])
}

func TestCertifyFailsAgainstAWrongTarget(t *testing.T) {
	// The target's demo merchant signs notifications with another secret
	// than the one the suite is told: the signature check must fail.
	hook := freeAddr(t)
	urls := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", "http://"+hook+"/hooks/merchant_demo", "--log-level", "warn")
	code, out, _ := run(t, nil, "certify", "--target", urls["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--webhook-secret", "whsec_not_the_one", "--listen", hook, "--lang", "en", "--tags", "@DEMO-NOTIFICATION")
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, out, "expected a valid X-Service-Signature header for the webhook secret")
}

func TestCertifyUsageAndReachability(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"certify", "--target", "http://127.0.0.1:9"}, ExitUsage, "--key and --secret are required with --target"},
		{[]string{"certify", "--lang", "fr"}, ExitUsage, `language "fr": want es, en or all`},
		{[]string{"certify", "--concurrency", "0"}, ExitUsage, "--concurrency must be at least 1"},
		{[]string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w"}, ExitUnreachable, "target http://127.0.0.1:9 is unreachable"},
		{[]string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s"}, ExitUsage, "--webhook-secret is required"},
		{[]string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w", "--template", "t"}, ExitUsage, "--template-signers is required"},
	} {
		code, out, errOut := run(t, nil, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, out+errOut, tc.want)
	}
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--log-level", "warn")
	code, _, errOut := run(t, nil, "certify", "--target", ref["reference"], "--key", "k", "--secret", "s", "--webhook-secret", "w",
		"--receiver", "http://127.0.0.1:9")
	assert.Equal(t, ExitUnreachable, code)
	assert.Contains(t, errOut, "receiver http://127.0.0.1:9")
}
