package interop_test

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/firmakit/firmakit/steps/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startEndpoint runs a merchant's endpoint written with lib's own
// verification (js/endpoint.mjs) and returns its URL.
func startEndpoint(t *testing.T, l lib) string {
	t.Helper()
	node(t, request{Op: "verify", Lib: l.name, Secret: l.verifier(), Body: "{}"}) // fails with the install hint when node or the packages are missing
	cmd := exec.Command("node", "endpoint.mjs", l.name, l.verifier())
	cmd.Dir = "js"
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "endpoint.mjs did not start")
	var port int
	_, err = fmt.Sscanf(line, "listening %d", &port)
	require.NoError(t, err, line)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return fmt.Sprintf("http://127.0.0.1:%d/webhook", port)
}

// certifyEndpoint runs the webhook set (English) against an endpoint under
// a preset and returns the requirements of what did not pass, by status.
func certifyEndpoint(t *testing.T, url, preset, secret string) map[string][]string {
	t.Helper()
	p, err := firmakit.Preset(preset)
	require.NoError(t, err)
	s := &webhook.Suite{Endpoint: &webhook.Endpoint{URL: url, Secret: secret, Profile: p}, RunOptions: engine.RunOptions{Lang: "en", Concurrency: 4, Output: io.Discard}}
	_, err = s.Run()
	require.NoError(t, err)
	require.NotEmpty(t, s.Results())
	got := map[string][]string{}
	for _, r := range s.Results() {
		if r.Status != reports.Passed {
			got[r.Status] = append(got[r.Status], r.Requirement+" "+r.Row+": "+firstLine(r.Error))
		}
		if len(r.Warnings) > 0 {
			got[warned] = append(got[warned], r.Requirement+" "+r.Row+": "+r.Warnings[0].Message)
		}
	}
	for _, v := range got {
		sort.Strings(v)
	}
	return got
}

// warned is the key of certifyEndpoint's map for the scenarios that
// passed with warnings.
const warned = "passed with warnings"

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// An endpoint written with the Standard Webhooks library (or Svix's)
// passes certify-webhook under the standard-webhooks preset: every
// scenario of the set, forgeries included, judged in that scheme.
func TestCertifyWebhookPassesTheStandardWebhooksLibrary(t *testing.T) {
	for _, l := range libs {
		if l.preset != "standard-webhooks" {
			continue
		}
		t.Run(l.name, func(t *testing.T) {
			got := certifyEndpoint(t, startEndpoint(t, l), l.preset, l.secret)
			for _, w := range got[warned] {
				t.Logf("%s: passed with a warning: %s", l.name, w)
			}
			delete(got, warned)
			assert.Empty(t, got, "an endpoint verifying with %s should pass the whole set, with warnings at most", l.name)
		})
	}
}

// An endpoint that verifies Standard Webhooks' v1a (Ed25519) with the
// public key alone passes certify-webhook under the
// standard-webhooks-ed25519 preset, which signs with the secret key:
// every scenario of the set, forgeries (another key pair) included.
func TestCertifyWebhookPassesAnEd25519Endpoint(t *testing.T) {
	l := libs[4]
	require.Equal(t, "node-ed25519", l.name)
	got := certifyEndpoint(t, startEndpoint(t, l), l.preset, l.secret)
	for _, w := range got[warned] {
		t.Logf("passed with a warning: %s", w)
	}
	delete(got, warned)
	assert.Empty(t, got, "an endpoint verifying v1a with the public key should pass the whole set, with warnings at most")
}

// rfcLibs are endpoints that verify RFC 9421 with the npm library
// http-message-signatures (js/endpoint.mjs), one per algorithm, with the
// key as firmakit's preset takes it; the endpoint holds the verifier.
var rfcLibs = []lib{
	{"http-message-signatures", "rfc9421", "k1:dGhlIGVuZHBvaW50J3MgaG1hYy1zaGEyNTYgc2VjcmV0", ""},
	{"http-message-signatures", "rfc9421-ed25519", "whsk_Sg36gITFIcSJEudY+Z/tRi01Mm6rI6gosz1w47Fpim4=", "whpk_6+vT5lZZhcUZgkNS/dGInN8eZoX+vH99TOTOGJFSBOU="},
}

// An endpoint that verifies RFC 9421 with an independent library (and
// the Content-Digest with Node's crypto) passes certify-webhook under
// each RFC 9421 preset: every scenario the scheme has, forgeries
// included; the rows of forms RFC 9421 has no room for are not run, each
// saying why.
func TestCertifyWebhookPassesAnRFC9421Endpoint(t *testing.T) {
	for _, l := range rfcLibs {
		t.Run(l.preset, func(t *testing.T) {
			got := certifyEndpoint(t, startEndpoint(t, l), l.preset, l.secret)
			for _, w := range got[warned] {
				t.Logf("passed with a warning: %s", w)
			}
			delete(got, warned)
			for _, n := range got[reports.NotRun] {
				assert.Contains(t, n, "WH-SIGNATURE-FORM", n)
			}
			assert.Len(t, got[reports.NotRun], 4, "v0-only, v2-only, no-dot, body-then-t")
			delete(got, reports.NotRun)
			assert.Empty(t, got, "an endpoint verifying RFC 9421 with the library should pass every scenario the scheme has")
		})
	}
}

// The same endpoint that trusts a verified signature without comparing
// the body with the Content-Digest it covers fails: a body changed after
// signing is taken.
func TestCertifyWebhookFailsAnRFC9421EndpointThatSkipsTheDigest(t *testing.T) {
	l := rfcLibs[0]
	l.name = "http-message-signatures-no-digest"
	got := certifyEndpoint(t, startEndpoint(t, l), l.preset, l.secret)
	failed := strings.Join(got[reports.Failed], "\n")
	assert.Contains(t, failed, "WH-BODY-CHANGED")
	assert.Contains(t, failed, "WH-FORGERY-PATHS")
}

// Stripe's library refuses a t too old, but takes one from the future:
// under the stripe preset, whose tolerance holds both ways as the bundled
// profile's does, exactly those scenarios fail, and the generated rows
// that carry a t ahead (every forged header neighbour and every path's
// forgery signed over a t past the tolerance, ahead). It takes a t of "NaN"
// signed as written too (its age, NaN, is never greater than the
// tolerance): the service never signs such a t, so that is a warning.
func TestCertifyWebhookJudgesTheStripeLibrary(t *testing.T) {
	l := libs[3]
	require.Equal(t, "stripe", l.name)
	got := certifyEndpoint(t, startEndpoint(t, l), l.preset, l.secret)
	var failed []string
	for _, f := range got[reports.Failed] {
		req, _, _ := strings.Cut(f, ":")
		failed = append(failed, req)
	}
	assert.Equal(t, []string{"WH-FORGERY-PATHS state=BOUNCED", "WH-FORGERY-PATHS state=CANCELED", "WH-FORGERY-PATHS state=CREATED",
		"WH-FORGERY-PATHS state=REJECTED", "WH-FORGERY-PATHS state=SIGNED", "WH-HEADER-FORGED ",
		"WH-TIMESTAMP-AHEAD seconds=10", "WH-TIMESTAMP-AHEAD seconds=30", "WH-TIMESTAMP-AHEAD seconds=86400"}, failed)
	for _, f := range got[reports.Failed] {
		if strings.HasPrefix(f, "WH-FORGERY-PATHS") {
			// Of each path's 50 forgeries, the 10 signed over a t ahead.
			assert.Contains(t, f, ": 10 of 50 generated deliveries broke their sentence", f)
		}
	}
	var warnedRows []string
	for _, w := range got[warned] {
		req, _, _ := strings.Cut(w, ":")
		warnedRows = append(warnedRows, req)
	}
	assert.Contains(t, warnedRows, "WH-TIMESTAMP-FORM form=nan")
	assert.Empty(t, got[reports.NotRun], "the stripe scheme has a timestamp: every scenario runs")
	assert.Empty(t, got[reports.Inconclusive])
}

// Under GitHub's scheme, which signs no timestamp, the scenarios about
// the timestamp cannot run: they are reported not run, each saying why,
// and every other scenario passes against octokit's verification.
func TestCertifyWebhookSaysWhatGitHubsSchemeCannotRun(t *testing.T) {
	l := libs[2]
	require.Equal(t, "octokit", l.name)
	got := certifyEndpoint(t, startEndpoint(t, l), l.preset, l.secret)
	assert.Empty(t, got[reports.Failed])
	assert.Empty(t, got[reports.Inconclusive])
	notRun := got[reports.NotRun]
	require.NotEmpty(t, notRun)
	for _, n := range notRun {
		assert.Contains(t, n, "not applicable: the github scheme", n)
	}
	joined := strings.Join(notRun, "\n")
	for _, req := range []string{"WH-TIMESTAMP-OLD", "WH-TIMESTAMP-AHEAD", "WH-TIME-WINDOW", "WH-TIMESTAMP-FORM", "WH-ROTATION"} {
		assert.Contains(t, joined, req)
	}
}
