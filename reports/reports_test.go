package reports_test

import (
	"bytes"
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
		Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Elapsed: 1800 * time.Millisecond}
	disabled := "no disabled credential given (--disabled-key, --disabled-secret)"
	res := []reports.ScenarioResult{
		{Feature: "en/verification.feature", Line: 8, Name: "a signed request is accepted whatever JSON object it holds", Lang: "en", Requirement: "AUTH-OK", Kind: "spec",
			Status: reports.Passed, Duration: 12 * time.Millisecond, Warnings: []reports.Warning{{Step: "the response status should be 200",
				Message: `the answer carries a key the profile does not name: "<b>request_id</b>"`, Basis: reports.BasisPractice,
				Practice: "the documents do not say \"exactly\" of this body, so a client that reads the keys it knows is not affected"}}},
		{Feature: "en/verification.feature", Line: 131, Name: "a disabled key is refused", Row: "endpoint=signature", Lang: "en", Requirement: "AUTH-DISABLED-KEY", Kind: "spec",
			Needs: []string{"needs-disabled-credential"}, Status: reports.NotRun, Error: disabled, Duration: time.Millisecond},
		{Feature: "en/verification.feature", Line: 130, Name: "a disabled key is refused", Row: "endpoint=check", Lang: "en", Requirement: "AUTH-DISABLED-KEY", Kind: "spec",
			Needs: []string{"needs-disabled-credential"}, Status: reports.NotRun, Error: disabled, Duration: time.Millisecond},
		{Feature: "en/demo.feature", Line: 18, Name: "each reserved prefix gets exactly one signed notification of its state", Row: "title=DEMO_CREATED contract, state=CREATED",
			Lang: "en", Requirement: "DEMO-NOTIFICATION", Kind: "spec", Status: reports.Passed, Duration: 510 * time.Millisecond,
			Warnings: []reports.Warning{{Step: "its signature is valid for the webhook secret", Message: `the signature header has a space after its comma: "t=1763805600, v1=5d1e…"`,
				Basis: "defaults §B paragraph 1", Practice: "a receiver that trims each entry reads it; one that splits on \",\" alone is safer with the profile's own form"}},
			Timings:      []reports.Timing{{Label: "CREATED", After201: 502300 * time.Microsecond}},
			SignatureIDs: []string{"0f8fad5b-d9cb-469f-a165-70867728950e"}, EventIDs: []string{"evt_7c9e6679"}},
		{Feature: "en/demo.feature", Line: 22, Name: "each reserved prefix gets exactly one signed notification of its state", Row: "title=DEMO_SIGNED contract, state=SIGNED",
			Lang: "en", Requirement: "DEMO-NOTIFICATION", Kind: "spec", Duration: 520 * time.Millisecond,
			Timings:      []reports.Timing{{Label: "SIGNED", After201: 1730 * time.Millisecond}},
			SignatureIDs: []string{"1d9c1f6a-2b1e-4c8a-9d1e-5f1a2b3c4d5e"}, EventIDs: []string{"evt_0b1c2d3e", "evt_7c9e6679"},
			Status: reports.Failed, FailedStep: `its signature is valid for the webhook secret`, Error: `expected a valid X-Service-Signature header, got "<script>alert(1)</script>"`,
			Breaks: "defaults §B paragraph 1", Facts: &reports.Facts{Field: "X-Service-Signature", Seen: "<script>alert(1)</script>",
				Shape: `expected a valid X-Service-Signature header, got "…"`, Summary: `expected a valid X-Service-Signature header, got "<script>alert(1)</script>"`,
				Step: `its signature is valid for the webhook secret`}},
		{Feature: "en/demo.feature", Line: 23, Name: "a SIGNED notification carries the signed document", Lang: "en", Requirement: "DEMO-SIGNED-DOCUMENT-URL", Kind: "spec",
			Duration: 1600 * time.Millisecond, Status: reports.Inconclusive, FailedStep: `exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201`,
			Error: "the suite's process was paused 900 ms between the 201 and reading the notification\nthe delay cannot be judged",
			Facts: &reports.Facts{Shape: "the suite's process was paused # ms between the # and reading the notification",
				Summary: "the suite's process was paused 900 ms between the 201 and reading the notification",
				Step:    `exactly one "…" notification arrives between # and # ms after the #`}},
	}
	return run, res
}

// normalise blanks what changes with the features and the profile file
// (and so every digest over them), so that the golden files check the
// shape and the arithmetic.
func normalise(s string) string {
	return regexp.MustCompile(`(sha256 |": ")[0-9a-f]{64}\b`).ReplaceAllString(s, `$1<sha256>`)
}

func TestCertificateGolden(t *testing.T) {
	run, res := fixtureRun()
	c, err := reports.Build(run, res)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	got := normalise(string(b))
	golden := filepath.Join("testdata", "certificate.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "run go test ./reports -update after an intended change")

	assert.Equal(t, reports.Failed, c.Result)
	assert.Equal(t, reports.Summary{Scenarios: 6, Passed: 2, Failed: 1, NotRun: 2, Inconclusive: 1, Warned: 2, Warnings: 2}, c.Summary)
	require.Len(t, c.NotRun, 1)
	assert.Equal(t, reports.NotRunGroup{Reason: "no disabled credential given (--disabled-key, --disabled-secret)", Scenarios: 2,
		Requirements: []string{"AUTH-DISABLED-KEY"}, Needs: []string{"needs-disabled-credential"},
		Flags: []string{"--disabled-key", "--disabled-secret"}, LeaveOut: "~@reference && ~@needs-disabled-credential"}, c.NotRun[0])
	assert.Equal(t, []string{"2 scenarios not run: no disabled credential given (--disabled-key, --disabled-secret); to leave them out: --tags '~@reference && ~@needs-disabled-credential'"}, c.NotRunReasons)
	require.Len(t, c.Inconclusive, 1)
	assert.Equal(t, "DEMO-SIGNED-DOCUMENT-URL", c.Inconclusive[0].Requirement)
	items := map[string]reports.ItemResult{}
	for _, it := range c.Interface {
		items[it.Ref] = it
	}
	assert.Equal(t, reports.Failed, items["§6.2 rule 2"].Status, "an item fails with any of its scenarios")
	assert.Equal(t, reports.NotTested, items["§6.3 bullet 2"].Status)
	assert.Equal(t, reports.NotSelected, items["§6.2 rule 1"].Status, "its scenarios were not selected")
	assert.Equal(t, reports.PartNotSelected, items["§4.1 rule 1"].Status, "AUTH-OK passed, AUTH-EXPIRY-BOUNDARY was not selected")
	assert.Equal(t, reports.NotRun, items["§5 bullet 4"].Status, "AUTH-DISABLED-KEY was selected but not run; the others not selected")
	assert.Equal(t, reports.Inconclusive, items["§6.2 rule 3"].Status, "DEMO-SIGNED-DOCUMENT-URL was inconclusive, DEMO-SIGNED-DOCUMENT-OPENS not selected")
	reqs := map[string]reports.RequirementResult{}
	for _, r := range c.Requirements {
		reqs[r.Tag] = r
	}
	assert.Equal(t, reports.Inconclusive, reqs["DEMO-SIGNED-DOCUMENT-URL"].Status)
	assert.Equal(t, 1, reqs["DEMO-SIGNED-DOCUMENT-URL"].Inconclusive)
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
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#failures ~ .cause pre").textContent`))
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
	assert.Contains(t, html, `<div class="banner failed">The suite failed`)
	assert.Contains(t, html, "2 passed, 1 failed, 2 not run, 1 inconclusive, 2 with warnings, of 6 scenarios")
	assert.Contains(t, html, "&lt;script&gt;alert(1)&lt;/script&gt;", "error messages are escaped")
	assert.NotContains(t, html, "<script>alert(1)")
	assert.Contains(t, html, "What passing does not prove")
	assert.True(t, strings.Contains(html, "§7 401 Invalid credentials"))
	assert.Contains(t, html, "<td><code>--disabled-key</code> <code>--disabled-secret</code> </td><td><code>--tags '~@reference &amp;&amp; ~@needs-disabled-credential'</code></td>",
		"the not-run table says the flags that run them and the tags that leave them out")
	assert.Contains(t, html, `<h2 id="inconclusive">Inconclusive</h2>`)
	for _, f := range []string{"certificate.json", "junit.xml"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	var c reports.Certificate
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c))
	assert.Equal(t, "firmakit.certificate/v1", c.Schema)
}

// A cause of a likely cause is headed by what probably went wrong; one of
// a rule's kind by its own shape, the part of the documents explained
// beneath.
func TestReportHeadsACauseByWhatIsKnown(t *testing.T) {
	run, res := fixtureRun()
	for i := range res {
		if res[i].Status == reports.Failed {
			res[i].FailureKind = reports.FailureNotificationForm
		}
	}
	var b bytes.Buffer
	c, err := reports.Build(run, res)
	require.NoError(t, err)
	require.NoError(t, reports.WriteHTML(&b, run, c, res))
	assert.True(t, strings.Contains(b.String(), `1 failed</span> expected a valid X-Service-Signature header, got &#34;…&#34;</h3>`+"\n\n"+
		`<div class="muted">Notifications do not have the profile&#39;s form`), "a rule's kind: the failure heads, the part of the documents beneath")
	for i := range res {
		if res[i].Status == reports.Failed {
			res[i].FailureKind = reports.FailureWebhookSignature
		}
	}
	b.Reset()
	require.NoError(t, reports.WriteHTML(&b, run, c, res))
	assert.True(t, strings.Contains(b.String(), `1 failed</span> Every such notification&#39;s signature is invalid`), "a likely cause heads")
	assert.True(t, strings.Contains(b.String(), `Error, as the results share it: <code>expected a valid X-Service-Signature header, got &#34;…&#34;</code>`), "the failure beneath")
}

// passing is a run where every scenario passed; each case below changes
// one thing in it.
func passing() []reports.ScenarioResult {
	_, res := fixtureRun()
	for i := range res {
		res[i].Status, res[i].FailedStep, res[i].Error, res[i].Breaks, res[i].Warnings = reports.Passed, "", "", "", nil
	}
	return res
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func([]reports.ScenarioResult) []reports.ScenarioResult
		want   string
		banner string
	}{
		{"every scenario passed", func(r []reports.ScenarioResult) []reports.ScenarioResult { return r },
			reports.Passed, "Every selected scenario passed"},
		{"one failed", func(r []reports.ScenarioResult) []reports.ScenarioResult { r[3].Status = reports.Failed; return r },
			reports.Failed, "The suite failed"},
		{"one inconclusive", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[3].Status = reports.Inconclusive
			return r
		},
			reports.Inconclusive, "Inconclusive: a timing check could not be judged"},
		{"one not run", func(r []reports.ScenarioResult) []reports.ScenarioResult { r[1].Status = reports.NotRun; return r },
			reports.Incomplete, "Incomplete: not every selected scenario was run"},
		{"a status nobody knows counts as not run", func(r []reports.ScenarioResult) []reports.ScenarioResult { r[1].Status = "pending"; return r },
			reports.Incomplete, "Incomplete"},
		{"failed wins over inconclusive and not run", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[1].Status, r[2].Status, r[3].Status = reports.NotRun, reports.Inconclusive, reports.Failed
			return r
		}, reports.Failed, "The suite failed"},
		{"inconclusive wins over not run", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[1].Status, r[2].Status = reports.NotRun, reports.Inconclusive
			return r
		}, reports.Inconclusive, "Inconclusive"},
		{"no scenario at all", func([]reports.ScenarioResult) []reports.ScenarioResult { return nil },
			reports.Incomplete, "Incomplete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.change(passing())
			assert.Equal(t, tc.want, reports.Verdict(res))
			run, _ := fixtureRun()
			c, err := reports.Build(run, res)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Result, "the certificate")
			assert.True(t, strings.HasPrefix(c.Verdict, tc.want+": "), c.Verdict)
			dir := t.TempDir()
			require.NoError(t, reports.WriteAll(dir, run, res))
			page, err := os.ReadFile(filepath.Join(dir, "report.html"))
			require.NoError(t, err)
			assert.Contains(t, string(page), `<div class="banner `+tc.want+`">`+tc.banner, "the report")
			j, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
			require.NoError(t, err)
			assert.Contains(t, string(j), `<property name="firmakit.verdict" value="`+tc.want+`"></property>`, "the JUnit XML")
		})
	}
}

func TestExplain(t *testing.T) {
	other := "no other merchant's credential given (--other-key, --other-secret)"
	for _, tc := range []struct {
		name   string
		tags   string
		change func([]reports.ScenarioResult)
		want   string
	}{
		{"passed", "", func([]reports.ScenarioResult) {},
			"passed: every selected scenario passed, 6 of 6"},
		{"failed", "", func(r []reports.ScenarioResult) { r[3].Status = reports.Failed },
			"failed: 1 of 6 scenarios failed (@DEMO-NOTIFICATION); each failure names the step, what was sent and what came back"},
		{"failed, with the others counted", "", func(r []reports.ScenarioResult) {
			r[3].Status, r[5].Status, r[1].Status = reports.Failed, reports.Inconclusive, reports.NotRun
		}, "failed: 1 of 6 scenarios failed (@DEMO-NOTIFICATION); each failure names the step, what was sent and what came back; also 1 inconclusive, 1 not run"},
		{"inconclusive", "", func(r []reports.ScenarioResult) { r[5].Status = reports.Inconclusive },
			"inconclusive: 1 of 6 scenarios could not be judged (@DEMO-SIGNED-DOCUMENT-URL): the suite's own process did not run on time, " +
				"so a timing check could not tell; run them again on a quieter machine or with a lower --concurrency"},
		{"incomplete, for want of a credential", "", func(r []reports.ScenarioResult) {
			r[1].Status, r[1].Error = reports.NotRun, "no disabled credential given (--disabled-key, --disabled-secret)"
		}, "incomplete: 1 of 6 scenarios not run; give --disabled-key and --disabled-secret, or leave them out with --tags '~@needs-disabled-credential'"},
		{"incomplete, keeping the run's tags", "~@reference", func(r []reports.ScenarioResult) {
			r[1].Status, r[1].Error = reports.NotRun, "no disabled credential given (--disabled-key, --disabled-secret)"
		}, "incomplete: 1 of 6 scenarios not run; give --disabled-key and --disabled-secret, or leave them out with --tags '~@reference && ~@needs-disabled-credential'"},
		{"incomplete, for want of two credentials", "", func(r []reports.ScenarioResult) {
			r[1].Status, r[1].Error = reports.NotRun, "no disabled credential given (--disabled-key, --disabled-secret)"
			r[0].Status, r[0].Error, r[0].Needs = reports.NotRun, other, []string{"needs-other-merchant"}
		}, "incomplete: 2 of 6 scenarios not run; give --disabled-key and --disabled-secret, --other-key and --other-secret, " +
			"or leave them out with --tags '~@needs-disabled-credential && ~@needs-other-merchant'"},
		{"incomplete, no need tag: left out by requirement", "", func(r []reports.ScenarioResult) {
			r[3].Status, r[3].Error = reports.NotRun, "the receiver is not on this process's clock"
		}, "incomplete: 1 of 6 scenarios not run; leave them out with --tags '~@DEMO-NOTIFICATION'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := passing()
			tc.change(res)
			assert.Equal(t, tc.want, reports.Explain(tc.tags, res))
		})
	}
}

func TestNotRunGroups(t *testing.T) {
	res := passing()
	disabled := "no disabled credential given (--disabled-key, --disabled-secret)"
	res[1].Status, res[1].Error = reports.NotRun, disabled
	res[2].Status, res[2].Error = reports.NotRun, disabled
	groups := reports.NotRunGroups("", res)
	require.Len(t, groups, 1)
	assert.Equal(t, "2 scenarios not run: no disabled credential given (--disabled-key, --disabled-secret); to leave them out: --tags '~@needs-disabled-credential'", groups[0].String())

	// One scenario of the reason lacks the need tag: the group has no
	// need in common, so it is left out by requirement and no flag is named.
	res[2].Needs = nil
	groups = reports.NotRunGroups("@AUTH-DISABLED-KEY,@AUTH-OK", res)
	require.Len(t, groups, 1)
	assert.Empty(t, groups[0].Flags)
	assert.Equal(t, "@AUTH-DISABLED-KEY,@AUTH-OK && ~@AUTH-DISABLED-KEY", groups[0].LeaveOut)

	assert.Empty(t, reports.NotRunGroups("", passing()))
}

func TestLeaveOut(t *testing.T) {
	for _, tc := range []struct {
		tags  string
		leave []string
		want  string
	}{
		{"", []string{"needs-other-merchant"}, "~@needs-other-merchant"},
		{"", []string{"@needs-other-merchant"}, "~@needs-other-merchant"},
		{"~@reference", []string{"needs-other-merchant"}, "~@reference && ~@needs-other-merchant"},
		{"@a,@b", []string{"x", "y"}, "@a,@b && ~@x && ~@y"},
		{"  ", []string{"x"}, "~@x"},
		{"@a", nil, "@a"},
	} {
		assert.Equal(t, tc.want, reports.LeaveOut(tc.tags, tc.leave...), "%q %v", tc.tags, tc.leave)
	}
}

// The page, in each language, against golden files with the digests
// blanked: any change to what a person reads shows in review.
func TestReportGolden(t *testing.T) {
	for _, lang := range []string{"en", "es"} {
		t.Run(lang, func(t *testing.T) {
			run, res := fixtureRun()
			run.ReportLang = lang
			dir := t.TempDir()
			require.NoError(t, reports.WriteAll(dir, run, res))
			b, err := os.ReadFile(filepath.Join(dir, "report.html"))
			require.NoError(t, err)
			got := normalise(string(b))
			golden := filepath.Join("testdata", "report."+lang+".golden.html")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.True(t, string(want) == got, "report.html differs from %s: run go test ./reports -update after an intended change", golden)
		})
	}
}

// TestReportOnAPhone opens the Spanish page in Chromium as a 400 px wide
// phone: the page is laid out for that width, nothing makes it scroll
// sideways, and it is in Spanish.
func TestReportOnAPhone(t *testing.T) {
	run, res := fixtureRun()
	run.ReportLang = "es"
	// What tends to push a page wider: an unbroken token in an error, a
	// long tag expression, a long outline row.
	res[4].Error += "\n  sent: POST /v1/check/merchant_demo [X-Service-Signature: " + strings.Repeat("9f", 120) + "]"
	res[1].Row = "endpoint=" + strings.Repeat("check_", 40)
	run.Tags = "~@reference && ~@needs-other-merchant && ~@AUTH-SIGNATURE-UPPERCASE && ~@AUTH-QUERY-DECODED && ~@DEMO-NOT-DEMO-LEADING-SPACE"
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	ctx := browser.New(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(400, 800, chromedp.EmulateMobile),
		chromedp.Navigate("file://"+filepath.Join(dir, "report.html"))))
	eval := func(js string) int {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		require.NoError(t, err, js)
		return v
	}
	assert.Equal(t, 400, eval(`window.innerWidth`), "laid out for the phone's width (viewport meta)")
	assert.LessOrEqual(t, eval(`document.documentElement.scrollWidth`), 400, "the page does not scroll sideways")
	assert.LessOrEqual(t, eval(`document.body.scrollWidth`), eval(`document.documentElement.clientWidth`), "nor does its body")
	assert.LessOrEqual(t, eval(`Math.ceil(document.querySelector("svg.timeline").getBoundingClientRect().right)`), 400, "the timeline fits")
	assert.Equal(t, 0, eval(`[...document.querySelectorAll("body *")].filter(e => !e.closest(".scroll") && e.getBoundingClientRect().right > window.innerWidth + 1).length`),
		"no element outside a scrolling table sticks out on the right")
	lang, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang + " " + document.querySelector("h1").textContent`))
	require.NoError(t, err)
	assert.Equal(t, "es Informe de conformidad de firmakit", lang)
	banner, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(".banner")))
	require.NoError(t, err)
	assert.Contains(t, banner, "La suite falló")
	cells := eval(`document.querySelectorAll(".grid .cell").length`)
	assert.Equal(t, 4, cells, "a box per requirement of the run")
	dots := eval(`document.querySelectorAll("svg.timeline circle").length`)
	assert.Equal(t, 2, dots, "a dot per notification timing")
	scripts := eval(`document.querySelectorAll("script").length`)
	assert.Equal(t, 0, scripts)
	if os.Getenv("FIRMAKIT_SCREENSHOT") != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(os.Getenv("FIRMAKIT_SCREENSHOT"), png, 0o644))
	}
}
