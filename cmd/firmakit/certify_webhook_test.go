package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strictReceiver opens a receiver that verifies as the profile says and
// answers 401 to anything not valid: a model endpoint.
func strictReceiver(t *testing.T, channel, secret string) *receiver.Receiver {
	t.Helper()
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Strict: true, Secrets: map[string][]string{channel: {secret}}}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	return rv
}

// failedTags lists, in order of first failure, the requirement tags of the
// FAIL lines of certify's output.
func failedTags(out string) []string {
	var tags []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^FAIL +(?:es|en) +@(\S+)`).FindAllStringSubmatch(out, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			tags = append(tags, m[1])
		}
	}
	return tags
}

// TestCertifyWebhookPassesTheStrictReceiver: the whole webhook set, both
// languages, against a model endpoint: exit 0, the verdict and the counts
// last, the four reports, a certificate that names the endpoint.
func TestCertifyWebhookPassesTheStrictReceiver(t *testing.T) {
	rv := strictReceiver(t, "shop", "whsec_shop")
	dir := t.TempDir()
	code, out, errOut := run(t, map[string]string{"FIRMAKIT_WEBHOOK_SECRET": "whsec_shop"},
		"certify-webhook", "--endpoint", rv.HookURL("shop"), "--merchant", "shop", "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Equal(t, []string{"verdict: passed: every selected scenario passed, 52 of 52", "firmakit: 52 scenarios: 52 passed, 0 failed, 0 not run"},
		lastLines(out, 2))
	assert.NotContains(t, out, "hint:")
	assert.Contains(t, out, "firmakit certify-webhook: playing the service for the endpoint "+rv.HookURL("shop"))
	assert.Regexp(t, `(?m)^ok +es +@WH-ROTATION +durante una rotación de secretos`, out, "a line per scenario")
	for _, f := range []string{"junit.xml", "cucumber.json", "report.html", "certificate.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	c := readCertificate(t, dir)
	assert.Equal(t, reports.Passed, c.Result)
	assert.Equal(t, rv.HookURL("shop"), c.Target.URL)
	assert.Equal(t, "merchant webhook endpoint", c.Target.Label)
	assert.Equal(t, "shop", c.Target.MerchantID)
	assert.Equal(t, "webhook", c.Suite.Set)
	assert.Len(t, c.Requirements, 11)
	for _, r := range c.Requirements {
		assert.Contains(t, r.Exchange, "sent: POST "+rv.HookURL("shop"), r.Tag)
	}
	doc := readJUnit(t, filepath.Join(dir, "junit.xml"))
	assert.Equal(t, 52, doc.Tests)
	assert.Len(t, doc.Suites, 4, "a testsuite per feature file")
}

// TestCertifyWebhookFailsWrongEndpoints: an endpoint that answers 200 to
// everything fails every refusal requirement, one that verifies a
// re-serialised body every acceptance requirement; each is named, with
// the hint of its mistake, and certify-webhook exits 1.
func TestCertifyWebhookFailsWrongEndpoints(t *testing.T) {
	p := firmakit.BundledProfile()
	naive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(naive.Close)
	reserialising := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &v)
		again, _ := json.Marshal(v)
		if p.VerifyWebhook(r.Header.Get("X-Service-Signature"), again, []string{"whsec_shop"}, time.Now()) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
		}
	}))
	t.Cleanup(reserialising.Close)
	for _, tc := range []struct {
		name   string
		url    string
		failed []string
		hint   string
	}{
		{"answers 200 to everything", naive.URL, []string{"WH-BODY-CHANGED", "WH-HEADER-MALFORMED", "WH-HEADER-MISSING", "WH-TIMESTAMP-AHEAD",
			"WH-TIMESTAMP-CHANGED", "WH-TIMESTAMP-OLD", "WH-WRONG-SECRET"}, "hint: Everything was accepted, the forged notifications too"},
		{"verifies a re-serialised body", reserialising.URL, []string{"WH-DUPLICATE", "WH-RAW-BYTES", "WH-ROTATION", "WH-STATE"},
			"hint: Everything was refused, the valid notifications too (answered 401)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", tc.url, "--webhook-secret", "whsec_shop", "--lang", "en", "--seed", "0", "--report", dir)
			require.Equal(t, ExitFailed, code, out+errOut)
			got := failedTags(out)
			assert.ElementsMatch(t, tc.failed, got)
			last := lastLines(out, 2)
			assert.Regexp(t, `^verdict: failed: \d+ of 26 scenarios failed \(@WH-`, last[0])
			for _, tag := range tc.failed {
				assert.Contains(t, last[0], "@"+tag, "the verdict names each failed requirement")
			}
			assert.Contains(t, out, tc.hint)
			c := readCertificate(t, dir)
			assert.Equal(t, reports.Failed, c.Result)
			require.NotEmpty(t, c.Hints)
			assert.Contains(t, "hint: "+c.Hints[0], tc.hint)
			for _, r := range c.Requirements {
				assert.Equal(t, contains(tc.failed, r.Tag), r.Status == reports.Failed, r.Tag)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestCertifyWebhookUsageAndReachability: bad flags and selections are
// exit 2 before anything is sent; an endpoint nobody listens on is exit 3.
func TestCertifyWebhookUsageAndReachability(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			hits.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--webhook-secret", "s"}, "--endpoint is required"},
		{[]string{"--endpoint", "ftp://x/y", "--webhook-secret", "s"}, `--endpoint "ftp://x/y" is not an http(s) URL`},
		{[]string{"--endpoint", srv.URL}, "--webhook-secret is required"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--lang", "fr"}, `--lang: language "fr": want es, en or all`},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--tags", "@AUTH-OK"}, "no scenario carries @AUTH-OK"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--tags", "@WH-STAT"}, "the closest known tags: @WH-STATE"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--tags", "@WH-STATE or @WH-ROTATION"}, "is not one tag: godog reads @a,@b as a or b"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--tags", "@WH-STATE && @WH-ROTATION"}, "selects no scenario"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--concurrency", "0"}, "--concurrency must be at least 1"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "extra"}, `unexpected argument "extra"`},
	} {
		code, out, errOut := run(t, nil, append([]string{"certify-webhook"}, tc.args...)...)
		assert.Equal(t, ExitUsage, code, "%v: %s%s", tc.args, out, errOut)
		assert.Contains(t, errOut, tc.want, tc.args)
	}
	assert.Zero(t, hits.Load(), "nothing is posted before the flags are right")

	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL + "/webhook"
	gone.Close()
	code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", url, "--webhook-secret", "s")
	assert.Equal(t, ExitUnreachable, code, out+errOut)
	assert.Contains(t, errOut, "endpoint "+url+" is unreachable")
	assert.False(t, strings.Contains(out, "verdict:"), "nothing ran")
}
