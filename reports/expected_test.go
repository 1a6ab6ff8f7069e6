package reports_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseExpectations starts from a valid file and breaks one thing per
// case.
func TestParseExpectations(t *testing.T) {
	valid := "- requirement: AUTH-EXPIRED\n  reason: \"the gateway rewrites the timestamp header\"\n" +
		"- scenario: \"a disabled key is refused\"\n  reason: disabled keys are deleted, not disabled\n"
	list, err := reports.ParseExpectations([]byte(valid))
	require.NoError(t, err)
	assert.Equal(t, []reports.Expectation{
		{Requirement: "AUTH-EXPIRED", Reason: "the gateway rewrites the timestamp header", Line: 1},
		{Scenario: "a disabled key is refused", Reason: "disabled keys are deleted, not disabled", Line: 3},
	}, list)

	for _, tc := range []struct{ name, file, want string }{
		{"a tag with its @", "- requirement: \"@AUTH-EXPIRED\"\n  reason: r\n", ""},
		{"an empty file", "", ""},
		{"an empty list", "[]\n", ""},
		{"a comment only", "# nothing expected any more\n", ""},
		{"not a list", "requirement: AUTH-EXPIRED\nreason: r\n", "line 1: want a YAML list of entries"},
		{"an entry that is not a mapping", "- AUTH-EXPIRED\n", "entry 1 (line 1): want a YAML list"},
		{"neither", "- reason: r\n", "entry 1 (line 1): neither a requirement nor a scenario"},
		{"both", "- requirement: AUTH-EXPIRED\n  scenario: s\n  reason: r\n", "entry 1 (line 1): both a requirement and a scenario"},
		{"no reason", valid + "- requirement: AUTH-OK\n", "entry 3 (line 5), requirement AUTH-OK: no reason"},
		{"a blank reason", "- requirement: AUTH-OK\n  reason: \"  \"\n", "entry 1 (line 1), requirement AUTH-OK: no reason"},
		{"a misspelt key", "- requirement: AUTH-OK\n  reasn: r\n", `entry 1 (line 1): unknown key "reasn"`},
		{"a list for a value", "- requirement: [AUTH-OK]\n  reason: r\n", "entry 1 (line 1): requirement must be text"},
		{"a duplicate requirement", valid + "- requirement: \"@AUTH-EXPIRED\"\n  reason: again\n",
			"entry 3 (line 5), requirement AUTH-EXPIRED: listed already by entry 1 (line 1)"},
		{"a duplicate scenario", valid + "- scenario: a disabled key is refused\n  reason: again\n",
			`entry 3 (line 5), scenario "a disabled key is refused": listed already by entry 2 (line 3)`},
		{"not YAML", "- requirement: [\n", "yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reports.ParseExpectations([]byte(tc.file))
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, reports.ErrExpectations), err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// TestApplyExpectations starts from a run where every scenario passed
// (passing: AUTH-OK, two rows of AUTH-DISABLED-KEY, two of
// DEMO-NOTIFICATION, DEMO-SIGNED-DOCUMENT-URL) and changes one thing per
// case.
func TestApplyExpectations(t *testing.T) {
	fail := func(i ...int) func([]reports.ScenarioResult) {
		return func(r []reports.ScenarioResult) {
			for _, k := range i {
				r[k].Status, r[k].FailedStep, r[k].Error = reports.Failed, "the response is 401", "expected 401, got 200"
			}
		}
	}
	notify := reports.Expectation{Requirement: "DEMO-NOTIFICATION", Reason: "the sandbox sends no SIGNED notification", Line: 1}
	disabled := reports.Expectation{Scenario: "a disabled key is refused", Reason: "keys are deleted, not disabled", Line: 3}
	for _, tc := range []struct {
		name    string
		change  func([]reports.ScenarioResult)
		list    []reports.Expectation
		want    []string // the status of each result, the added ones last
		verdict string
	}{
		{"nothing listed, nothing failed", func([]reports.ScenarioResult) {}, nil,
			[]string{"passed", "passed", "passed", "passed", "passed", "passed"}, reports.Passed},
		{"a listed failure is an expected failure", fail(3, 4), []reports.Expectation{notify},
			[]string{"passed", "passed", "passed", "expected failure", "expected failure", "passed"}, reports.PassedWithExpectedFailures},
		{"a failure listed by its scenario's name", fail(1, 2), []reports.Expectation{disabled},
			[]string{"passed", "expected failure", "expected failure", "passed", "passed", "passed"}, reports.PassedWithExpectedFailures},
		{"an unlisted failure still fails", fail(0, 3), []reports.Expectation{notify},
			[]string{"failed", "passed", "passed", "expected failure", "passed", "passed"}, reports.Failed},
		{"a partly failing entry is not stale", fail(4), []reports.Expectation{notify},
			[]string{"passed", "passed", "passed", "passed", "expected failure", "passed"}, reports.PassedWithExpectedFailures},
		{"an entry whose scenarios all passed is stale", func([]reports.ScenarioResult) {}, []reports.Expectation{notify},
			[]string{"passed", "passed", "passed", "passed", "passed", "passed", "failed"}, reports.Failed},
		{"a stale entry beside an expected failure", fail(3), []reports.Expectation{notify, disabled},
			[]string{"passed", "passed", "passed", "expected failure", "passed", "passed", "failed"}, reports.Failed},
		{"an inconclusive scenario stays inconclusive", func(r []reports.ScenarioResult) { r[3].Status = reports.Inconclusive },
			[]reports.Expectation{notify}, []string{"passed", "passed", "passed", "inconclusive", "passed", "passed"}, reports.Inconclusive},
		{"a scenario not run stays not run", func(r []reports.ScenarioResult) { r[1].Status, r[2].Status = reports.NotRun, reports.NotRun },
			[]reports.Expectation{disabled}, []string{"passed", "not run", "not run", "passed", "passed", "passed"}, reports.Incomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := passing()
			tc.change(res)
			before := append([]reports.ScenarioResult(nil), res...)
			got := reports.ApplyExpectations(res, tc.list)
			assert.Equal(t, before, res, "the results given are left as they were")
			var statuses []string
			for _, r := range got {
				statuses = append(statuses, r.Status)
			}
			assert.Equal(t, tc.want, statuses)
			assert.Equal(t, tc.verdict, reports.Verdict(got))
			for i, r := range got {
				switch {
				case r.Status == reports.ExpectedFailure:
					assert.NotEmpty(t, r.ExpectedReason)
					assert.Equal(t, "expected 401, got 200", r.Error, "the failure's own error is kept")
					assert.Equal(t, "the response is 401", r.FailedStep)
				case i >= len(res):
					assert.Equal(t, reports.ExpectationsFeature, r.Feature)
					assert.Contains(t, r.Error, "stale expected failure")
					assert.Contains(t, r.Error, "remove the entry")
				}
			}
		})
	}

	// The stale result is named after its entry, with its requirement.
	got := reports.ApplyExpectations(passing(), []reports.Expectation{notify, disabled})
	require.Len(t, got, 8)
	assert.Equal(t, "expected failure entry: requirement DEMO-NOTIFICATION", got[6].Name)
	assert.Equal(t, "DEMO-NOTIFICATION", got[6].Requirement)
	assert.Equal(t, "stale expected failure: the entry for requirement DEMO-NOTIFICATION (line 1) declares a failure, but all 2 of its selected scenarios passed; "+
		"the deviation is gone: remove the entry from the --expected-failures file", got[6].Error)
	assert.Equal(t, `expected failure entry: scenario "a disabled key is refused"`, got[7].Name)
	assert.Equal(t, "AUTH-DISABLED-KEY", got[7].Requirement, "a scenario entry's stale result carries its scenario's requirement")
}

// TestCheckExpectations starts from an entry that covers selected
// scenarios (the run selects AUTH-OK and AUTH-DISABLED-KEY of passing())
// and changes one thing per case.
func TestCheckExpectations(t *testing.T) {
	all := passing()
	selected := all[:3]
	entry := func(requirement, scenario string, line int) reports.Expectation {
		return reports.Expectation{Requirement: requirement, Scenario: scenario, Reason: "r", Line: line}
	}
	ok := entry("AUTH-OK", "", 1)
	for _, tc := range []struct {
		name string
		list []reports.Expectation
		want string
	}{
		{"an entry that covers selected scenarios", []reports.Expectation{ok}, ""},
		{"one entry per scenario", []reports.Expectation{ok, entry("", "a disabled key is refused", 3)}, ""},
		{"a scenario under a listed requirement", []reports.Expectation{entry("AUTH-DISABLED-KEY", "", 1), entry("", "a disabled key is refused", 3)},
			`entry 2 (line 3), scenario "a disabled key is refused": covers "a disabled key is refused", which entry 1 (line 1), requirement AUTH-DISABLED-KEY, covers already; keep one of them`},
		{"a misspelt requirement", []reports.Expectation{entry("AUTH-OKK", "", 1)},
			`entry 1 (line 1), requirement AUTH-OKK: no scenario carries @AUTH-OKK; did you mean "AUTH-OK"?`},
		{"a requirement in lower case", []reports.Expectation{entry("auth-ok", "", 1)},
			`entry 1 (line 1), requirement auth-ok: no scenario carries @auth-ok; did you mean "AUTH-OK"?`},
		{"a misspelt scenario", []reports.Expectation{entry("", "a disabled key is refussed", 1)},
			`entry 1 (line 1), scenario "a disabled key is refussed": no scenario has that name (names are compared exactly, in the language of their feature file); did you mean "a disabled key is refused"?`},
		{"nothing near", []reports.Expectation{entry("NOPE-NOTHING-LIKE-IT", "", 1)},
			"entry 1 (line 1), requirement NOPE-NOTHING-LIKE-IT: no scenario carries @NOPE-NOTHING-LIKE-IT"},
		{"a requirement the selection leaves out", []reports.Expectation{ok, entry("DEMO-NOTIFICATION", "", 3)},
			"entry 2 (line 3), requirement DEMO-NOTIFICATION: the run's --lang and --tags select none of its scenarios; widen them, or drop the entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := reports.CheckExpectations(tc.list, selected, all)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

func TestSummaryCountsExpectedFailuresApart(t *testing.T) {
	res := passing()
	res[3].Status, res[4].Status, res[0].Status = reports.ExpectedFailure, reports.ExpectedFailure, reports.Inconclusive
	s := reports.Summarize(res)
	assert.Equal(t, reports.Summary{Scenarios: 6, Passed: 3, Inconclusive: 1, ExpectedFailures: 2}, s)
	assert.Equal(t, "6 scenarios: 3 passed, 0 failed, 0 not run, 2 expected failures, 1 inconclusive", s.String())
	res[4].Status = reports.Passed
	assert.Equal(t, "6 scenarios: 4 passed, 0 failed, 0 not run, 1 expected failure, 1 inconclusive", reports.Summarize(res).String())
	assert.Equal(t, "inconclusive: 1 of 6 scenarios could not be judged (@AUTH-OK): the suite's own process did not run on time, "+
		"so a timing check could not tell; run them again on a quieter machine or with a lower --concurrency; also 1 expected failure",
		reports.Explain("", res))
}

// A run whose only failures were expected, in every report.
func TestExpectedFailuresInEveryReport(t *testing.T) {
	run, _ := fixtureRun()
	reason := "the sandbox's gateway <re-signs> notifications"
	run.Expected = []reports.Expectation{{Requirement: "DEMO-NOTIFICATION", Reason: reason, Line: 1}}
	res := passing()
	res[4].Status, res[4].FailedStep, res[4].Error = reports.Failed, "its signature is valid", "expected a valid X-Service-Signature header"
	res = reports.ApplyExpectations(res, run.Expected)

	assert.Equal(t, "passed with 1 expected failure (@DEMO-NOTIFICATION), declared with --expected-failures: every other selected scenario passed, 5 of 6",
		reports.Explain(run.Tags, res))
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))

	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	check, err := reports.VerifyCertificate(b)
	require.NoError(t, err)
	assert.True(t, check.Holds, "the digest covers the expected failures")
	c := readCertificate(t, dir)
	assert.Equal(t, reports.PassedWithExpectedFailures, c.Result, "never plain passed")
	assert.Equal(t, reports.Summary{Scenarios: 6, Passed: 5, ExpectedFailures: 1}, c.Summary)
	assert.Empty(t, c.Failures)
	require.Len(t, c.ExpectedFailures, 1)
	e := c.ExpectedFailures[0]
	assert.Equal(t, "DEMO-NOTIFICATION", e.Requirement)
	assert.Equal(t, reason, e.Reason)
	assert.Equal(t, reports.ExpectedFailure, e.Status)
	assert.Equal(t, [3]int{2, 1, 1}, [3]int{e.Scenarios, e.ExpectedFailures, e.Passed})
	require.Len(t, e.Results, 1)
	assert.Equal(t, "expected a valid X-Service-Signature header", e.Results[0].Error)
	reqs := map[string]reports.RequirementResult{}
	for _, r := range c.Requirements {
		reqs[r.Tag] = r
	}
	assert.Equal(t, reports.ExpectedFailure, reqs["DEMO-NOTIFICATION"].Status)
	assert.Equal(t, 1, reqs["DEMO-NOTIFICATION"].ExpectedFailures)
	assert.Equal(t, 1, reqs["DEMO-NOTIFICATION"].Passed)
	// Tampering with a reason shows.
	tampered := bytes.Replace(b, []byte("re-signs"), []byte("re-sends"), 1)
	check, err = reports.VerifyCertificate(tampered)
	require.NoError(t, err)
	assert.False(t, check.Holds)
	assert.Contains(t, check.Changed, "expected_failures")

	j, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	require.NoError(t, checkJUnit(j))
	assert.Contains(t, string(j), `<skipped message="expected failure: the sandbox&#39;s gateway &lt;re-signs&gt; notifications">@DEMO-NOTIFICATION en/demo.feature&#xA;step: its signature is valid&#xA;expected a valid X-Service-Signature header</skipped>`)
	assert.Contains(t, string(j), `<property name="firmakit.verdict" value="passed with expected failures"></property>`)
	assert.Contains(t, string(j), `<testsuites name="firmakit" tests="6" failures="0" errors="0" skipped="1"`)

	for lang, want := range map[string][]string{
		"en": {`<div class="banner passed-with-expected-failures">Passed, but for the expected failures declared:`, "5 passed, 0 failed, 0 not run, expected failures: 1, of 6 scenarios",
			`<h2 id="expected">Expected failures</h2>`, `<td class="status expected-failure">expected failure</td>`, "1 of 2 failed, as declared; 1 passed"},
		"es": {`<div class="banner passed-with-expected-failures">Aprobado, salvo los fallos esperados declarados:`, "5 aprobados, 0 fallidos, 0 sin ejecutar, fallos esperados: 1, de 6 escenarios",
			`<h2 id="expected">Fallos esperados</h2>`, `<td class="status expected-failure">fallo esperado</td>`, "1 de 2 fallaron, como se declaró; 1 pasaron",
			"aprobado con 1 fallo esperado (@DEMO-NOTIFICATION), según --expected-failures"},
	} {
		run.ReportLang = lang
		require.NoError(t, reports.WriteAll(dir, run, res))
		page, err := os.ReadFile(filepath.Join(dir, "report.html"))
		require.NoError(t, err)
		for _, w := range append(want, "the sandbox&#39;s gateway &lt;re-signs&gt; notifications", "expected a valid X-Service-Signature header") {
			assert.Contains(t, string(page), w, lang)
		}
		assert.Equal(t, 1, strings.Count(string(page), `<th>`+map[string]string{"en": "expected failures", "es": "fallos esperados"}[lang]+`</th>`),
			"the requirements table counts them in a column of their own")
	}
}

// A stale entry fails the run in every report, and says so.
func TestStaleExpectationInEveryReport(t *testing.T) {
	run, _ := fixtureRun()
	run.Expected = []reports.Expectation{{Requirement: "AUTH-OK", Reason: "fixed since", Line: 4}}
	res := reports.ApplyExpectations(passing(), run.Expected)
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	c := readCertificate(t, dir)
	assert.Equal(t, reports.Failed, c.Result)
	require.Len(t, c.Failures, 1)
	assert.Contains(t, c.Failures[0].Error, "stale expected failure: the entry for requirement AUTH-OK (line 4)")
	require.Len(t, c.ExpectedFailures, 1)
	assert.Equal(t, reports.Stale, c.ExpectedFailures[0].Status)
	assert.Equal(t, 1, c.ExpectedFailures[0].Passed)
	j, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	require.NoError(t, checkJUnit(j))
	assert.Contains(t, string(j), `<testsuite name="expected-failures" tests="1" failures="1"`)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<td class="status stale">stale: remove the entry</td>`)
}

func readCertificate(t *testing.T, dir string) reports.Certificate {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	var c reports.Certificate
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}
