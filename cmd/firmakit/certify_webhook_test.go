package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
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
	assert.Equal(t, []string{"verdict: passed: every selected scenario passed, 154 of 154", "firmakit: 154 scenarios: 154 passed, 0 failed, 0 not run"},
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
	assert.Len(t, c.Requirements, 27)
	for _, r := range c.Requirements {
		assert.Contains(t, r.Exchange, "sent: POST "+rv.HookURL("shop"), r.Tag)
	}
	doc := readJUnit(t, filepath.Join(dir, "junit.xml"))
	assert.Equal(t, 154, doc.Tests)
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
		{"answers 200 to everything", naive.URL, []string{"WH-BODY-CHANGED", "WH-FORGERY-PATHS", "WH-HEADER-FORGED", "WH-HEADER-MALFORMED", "WH-HEADER-MISSING",
			"WH-SIGNATURE-FORM", "WH-TIMESTAMP-AHEAD", "WH-TIMESTAMP-CHANGED", "WH-TIMESTAMP-FORM-OLD", "WH-TIMESTAMP-OLD", "WH-WRONG-SECRET"},
			"hint: Everything was accepted, the forged notifications too"},
		{"verifies a re-serialised body", reserialising.URL, []string{"WH-BODY-TEXT", "WH-BOUNDARY-BYTES", "WH-DUPLICATE", "WH-DUPLICATE-EXACT",
			"WH-EVENTS-OVER-TIME", "WH-HEADER-NEIGHBOURS", "WH-HTTP-FORM", "WH-OUT-OF-ORDER", "WH-RAW-BYTES", "WH-REAL-CONTRACT", "WH-RETRY-AFTER-FAILURE", "WH-ROTATION",
			"WH-SAME-CONTRACT", "WH-STATE", "WH-TIME-WINDOW"},
			"hint: Everything was refused, the valid notifications too (answered 401)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", tc.url, "--webhook-secret", "whsec_shop", "--lang", "en", "--seed", "0", "--report", dir)
			require.Equal(t, ExitFailed, code, out+errOut)
			got := failedTags(out)
			assert.ElementsMatch(t, tc.failed, got)
			last := lastLines(out, 2)
			assert.Regexp(t, `^verdict: failed: \d+ of 77 scenarios failed \(@WH-`, last[0])
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
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--report-lang", "fr", "--report", t.TempDir()}, `--report-lang "fr": want es or en`},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--report-lang", "es"}, "--report-lang is the language of report.html: give --report DIR too"},
		{[]string{"--endpoint", srv.URL, "--webhook-secret", "s", "--format", "prety"}, `no format "prety" (did you mean "pretty"?)`},
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

// TestCertifyWebhookReportLanguageAndVerify: certify-webhook's page goes
// through the translated report, and its certificate, with what the
// webhook set adds, verifies with 'firmakit report verify'; an edited
// one does not, and the command names what changed.
func TestCertifyWebhookReportLanguageAndVerify(t *testing.T) {
	rv := strictReceiver(t, "shop", "whsec_shop")
	dir := t.TempDir()
	code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", rv.HookURL("shop"), "--webhook-secret", "whsec_shop", "--merchant", "shop",
		"--lang", "en", "--tags", "@WH-STATE", "--report", dir, "--report-lang", "es")
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "report: "+filepath.Join(dir, "report.html")+" (also "+filepath.Join(dir, "certificate.json"))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<html lang="es">`)
	assert.Contains(t, string(page), "endpoint de webhook del comercio <code>"+rv.HookURL("shop")+"</code>")
	assert.Contains(t, string(page), "<summary>lo que se envió y lo que respondió</summary>")
	assert.Contains(t, string(page), "No se mide si el endpoint compara las firmas en tiempo constante.")
	c := readCertificate(t, dir)
	assert.Equal(t, reports.WebhookTarget, c.Target.Label)
	assert.Equal(t, "webhook", c.Suite.Set)
	assert.NotEmpty(t, c.NotProven)

	cert := filepath.Join(dir, "certificate.json")
	code, out, errOut = run(t, nil, "report", "verify", cert)
	require.Equal(t, ExitOK, code, errOut)
	assert.Regexp(t, `^`+regexp.QuoteMeta(cert)+` holds: its sha256 [0-9a-f]{64} matches its content`, out)

	b, err := os.ReadFile(cert)
	require.NoError(t, err)
	edited := bytes.Replace(b, []byte(`"label": "merchant webhook endpoint"`), []byte(`"label": "payment service"`), 1)
	require.NotEqual(t, b, edited)
	require.NoError(t, os.WriteFile(cert, edited, 0o644))
	code, out, errOut = run(t, nil, "report", "verify", cert)
	assert.Equal(t, ExitFailed, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, cert+" does not hold: changed since certify wrote it: target (")
}

// TestCertifyWebhookOnATerminal: on a terminal, certify-webhook shows the
// run as certify does: the first failure of each requirement, not the
// scenarios that passed, then the recap, its hints, and the counts last.
func TestCertifyWebhookOnATerminal(t *testing.T) {
	naive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(naive.Close)
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" },
		isTerminal: func(io.Writer) (bool, int) { return true, 100 },
		// The failure given a kind the service's report explains, so that
		// the absence of "likely cause" below says it is not explained
		// here, not merely that no kind was set.
		judge: func(rs []reports.ScenarioResult) []reports.ScenarioResult {
			for i := range rs {
				if rs[i].Status == reports.Failed {
					rs[i].FailureKind = reports.FailureInvalidSignature
				}
			}
			return rs
		}}
	code := m.Run(context.Background(), []string{"certify-webhook", "--endpoint", naive.URL, "--webhook-secret", "whsec_shop",
		"--lang", "en", "--tags", "@WH-STATE,@WH-WRONG-SECRET"})
	require.Equal(t, ExitFailed, code, out.String()+errOut.String())
	s := out.String()
	assert.Equal(t, 1, strings.Count(s, "FAIL    en  @WH-WRONG-SECRET a notification signed with another secret is refused: "), s)
	assert.NotContains(t, s, "ok      en", "passed scenarios are counted, not listed")
	assert.Contains(t, s, "failed: 1 requirement, 1 scenario run\n")
	assert.Contains(t, s, "hint: Everything was accepted, the forged notifications too (answered 200)")
	assert.NotContains(t, s, "likely cause of", "the service's diagnoses are not the endpoint's")
	last := lastLines(s, 2)
	assert.Regexp(t, `^verdict: failed: 1 of \d+ scenarios failed \(@WH-WRONG-SECRET`, last[0])
	assert.Regexp(t, `^firmakit: \d+ scenarios: \d+ passed, 1 failed, 0 not run$`, last[1])
}

// TestCertifyWebhookWithTheMerchantsContracts: an endpoint that looks
// contracts up answers 404 to made-up ones; without ids the run stops
// with one diagnosis, with --signature-id and --signature-ids it passes,
// and the output and the certificate name the contracts used.
func TestCertifyWebhookWithTheMerchantsContracts(t *testing.T) {
	p := firmakit.BundledProfile()
	known := map[string]bool{"ctr-1": true, "ctr-2": true, "ctr-3": true}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		if err := p.VerifyWebhook(r.Header.Get("X-Service-Signature"), raw, []string{"whsec_shop"}, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		n, _, err := p.DecodeNotification(raw)
		if err != nil || !known[n.SignatureID] {
			http.Error(w, "no such contract", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"FIRMAKIT_WEBHOOK_SECRET": "whsec_shop"}

	code, out, errOut := run(t, env, "certify-webhook", "--endpoint", srv.URL, "--lang", "en")
	assert.Equal(t, ExitFailed, code, out+errOut)
	assert.Equal(t, 1, strings.Count(out+errOut, "--signature-id ID"), "one diagnosis:\n%s", out+errOut)
	assert.NotContains(t, out, "FAIL ", "no scenario ran")

	file := filepath.Join(t.TempDir(), "contracts.txt")
	require.NoError(t, os.WriteFile(file, []byte("# contracts of the shop\nctr-2\n\nctr-3 # the last one\n"), 0o600))
	dir := t.TempDir()
	code, out, errOut = run(t, env, "certify-webhook", "--endpoint", srv.URL, "--lang", "en",
		"--signature-id", "ctr-1", "--signature-ids", file, "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "contracts (signature_id) of merchant merchant_demo: ctr-1, ctr-2, ctr-3")
	assert.Equal(t, []string{"ctr-1", "ctr-2", "ctr-3"}, readCertificate(t, dir).Target.SignatureIDs)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<code>ctr-1</code>, <code>ctr-2</code>, <code>ctr-3</code>")
}

// TestVectorsCommand: firmakit vectors writes the webhook set's cases as
// versioned JSON, to a file or to standard output.
func TestVectorsCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "vectors.json")
	code, out, errOut := run(t, nil, "vectors", "--webhook-secret", "whsec_shop", "--at", "1795000000", "--out", file)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "firmakit vectors: 386 cases (profile \"bundled\", reference time 1795000000) written to "+file)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var v struct {
		Version       int    `json:"version"`
		Secret        string `json:"secret"`
		ReferenceTime int64  `json:"reference_time"`
		Cases         []struct {
			Code, Expect string
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &v))
	assert.Equal(t, 1, v.Version)
	assert.Equal(t, "whsec_shop", v.Secret)
	assert.Equal(t, "WH-STATE/state=CREATED", v.Cases[0].Code)
	assert.Equal(t, "accept", v.Cases[0].Expect)

	code, _, errOut = run(t, nil, "vectors", "extra")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `unexpected argument "extra"`)
}
