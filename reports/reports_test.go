package reports_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func fixtureRun() (reports.Run, []reports.ScenarioResult) {
	run := reports.Run{Tool: "firmakit", Version: "test", Target: "http://127.0.0.1:8080", MerchantID: "merchant_demo",
		Profile: firmakit.BundledProfile(), Lang: "en", Tags: "~@reference",
		Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Elapsed: 1800 * time.Millisecond,
		NotRun: []string{"2 scenario(s) not run: no disabled credential given (--disabled-key, --disabled-secret)"}}
	res := []reports.ScenarioResult{
		{Feature: "en/verification.feature", Name: "a signed request is accepted whatever JSON object it holds", Lang: "en", Requirement: "AUTH-OK", Kind: "spec", Status: reports.Passed},
		{Feature: "en/verification.feature", Name: "a disabled key is refused", Lang: "en", Requirement: "AUTH-DISABLED-KEY", Kind: "spec", Status: reports.NotRun},
		{Feature: "en/verification.feature", Name: "a disabled key is refused", Lang: "en", Requirement: "AUTH-DISABLED-KEY", Kind: "spec", Status: reports.NotRun},
		{Feature: "en/demo.feature", Name: "each reserved prefix gets exactly one signed notification of its state", Lang: "en", Requirement: "DEMO-NOTIFICATION", Kind: "spec", Status: reports.Passed},
		{Feature: "en/demo.feature", Name: "each reserved prefix gets exactly one signed notification of its state", Lang: "en", Requirement: "DEMO-NOTIFICATION", Kind: "spec",
			Status: reports.Failed, FailedStep: `its signature is valid for the webhook secret`, Error: `expected a valid X-Service-Signature header, got "<script>alert(1)</script>"`},
	}
	return run, res
}

// normalise blanks what changes with the features and the profile file,
// so that the golden file checks the shape and the arithmetic.
func normalise(s string) string {
	return regexp.MustCompile(`"(features_sha256|sha256)": "[0-9a-f]{64}"`).ReplaceAllString(s, `"$1": "<sha256>"`)
}

func TestCertificateGolden(t *testing.T) {
	run, res := fixtureRun()
	c, err := reports.Build(run, res)
	require.NoError(t, err)
	b, err := json.MarshalIndent(c, "", "  ")
	require.NoError(t, err)
	got := normalise(string(b)) + "\n"
	golden := filepath.Join("testdata", "certificate.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "run go test ./reports -update after an intended change")

	assert.Equal(t, reports.Failed, c.Result)
	assert.Equal(t, 2, c.Summary.NotRun)
	items := map[string]reports.ItemResult{}
	for _, it := range c.Interface {
		items[it.Ref] = it
	}
	assert.Equal(t, reports.Failed, items["§6.2 rule 2"].Status, "an item fails with any of its scenarios")
	assert.Equal(t, reports.NotTested, items["§6.3 bullet 2"].Status)
	assert.Equal(t, reports.NotSelected, items["§6.2 rule 1"].Status, "its scenarios were not selected")
	assert.Equal(t, reports.PartNotSelected, items["§4.1 rule 1"].Status, "AUTH-OK passed, AUTH-EXPIRY-BOUNDARY was not selected")
	assert.Equal(t, reports.NotRun, items["§5 bullet 4"].Status, "AUTH-DISABLED-KEY was selected but not run; the others not selected")
}

// TestReportInABrowser opens the report as a person would.
func TestReportInABrowser(t *testing.T) {
	run, res := fixtureRun()
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	ctx := browser.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "report.html"))))
	banner, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(".banner.failed")))
	require.NoError(t, err)
	assert.Contains(t, banner, "The suite failed")
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("h2 + table pre").textContent`))
	require.NoError(t, err)
	assert.Equal(t, `expected a valid X-Service-Signature header, got "<script>alert(1)</script>"`, shown, "the error shows as text")
	scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script").length`))
	require.NoError(t, err)
	assert.Equal(t, 0, scripts)
	failedItems, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("td.status.failed").length`))
	require.NoError(t, err)
	assert.Greater(t, failedItems, 5, "the items checked by the failed requirement are shown failed")
}

func TestReportHTML(t *testing.T) {
	run, res := fixtureRun()
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	html := string(page)
	assert.Contains(t, html, "The suite failed")
	assert.Contains(t, html, "2 passed, 1 failed, 2 not run, of 5 scenarios")
	assert.Contains(t, html, "&lt;script&gt;alert(1)&lt;/script&gt;", "error messages are escaped")
	assert.NotContains(t, html, "<script>alert(1)")
	assert.Contains(t, html, "What passing does not prove")
	assert.True(t, strings.Contains(html, "§7 401 Invalid credentials"))
	var c reports.Certificate
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c))
	assert.Equal(t, "firmakit.certificate/v1", c.Schema)
}
