package reports_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExitOf(t *testing.T) {
	for _, tc := range []struct {
		verdict string
		status  int
		code    int
		godog   bool
	}{
		{reports.Passed, 0, reports.ExitPassed, false},
		{reports.Passed, 1, reports.ExitFailed, true},
		{reports.Failed, 1, reports.ExitFailed, false},
		{reports.Failed, 0, reports.ExitFailed, false},
		{reports.Inconclusive, 0, reports.ExitInconclusive, false},
		{reports.Inconclusive, 1, reports.ExitFailed, true},
		{reports.Incomplete, 0, reports.ExitIncomplete, false},
		{reports.PassedWithWarnings, 0, reports.ExitPassed, false},
		{reports.PassedWithExpectedFailures, 0, reports.ExitPassed, false},
	} {
		code, err := reports.ExitOf(tc.verdict, tc.status)
		assert.Equal(t, tc.code, code, "%s, godog status %d", tc.verdict, tc.status)
		if tc.godog {
			assert.ErrorIs(t, err, reports.ErrGodogOnly, "%s, godog status %d", tc.verdict, tc.status)
		} else {
			assert.NoError(t, err, "%s, godog status %d", tc.verdict, tc.status)
		}
	}
}

// TestPlanOutputs: JUnit is firmakit's to write (to standard output or
// its file), godog keeps its own formats, a Cucumber JSON file is
// completed after the run, the report folder gets every row of Formats;
// an unknown format and a --report-lang without a folder or out of the
// report's languages are refused before anything runs.
func TestPlanOutputs(t *testing.T) {
	for _, tc := range []struct{ in, godog string }{
		{"firmakit", "firmakit"},
		{"firmakit,junit:out/j.xml", "firmakit"},
		{"junit", ""},
		{"pretty,junit:j.xml,cucumber:c.json", "pretty,cucumber:c.json"},
	} {
		o, err := reports.PlanOutputs(tc.in, "", "")
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.godog, o.Godog, tc.in)
		assert.Equal(t, tc.godog, o.ForGodog(o.Godog), "no report folder: nothing added")
	}
	dir := filepath.Join(t.TempDir(), "made")
	o, err := reports.PlanOutputs("progress", dir, "es")
	require.NoError(t, err)
	assert.DirExists(t, dir)
	assert.Equal(t, "progress,cucumber:"+filepath.Join(dir, "cucumber.json"), o.ForGodog(o.Godog))
	assert.Equal(t, "cucumber:"+filepath.Join(dir, "cucumber.json"), o.ForGodog(""))

	for _, tc := range []struct{ list, dir, lang, want string }{
		{"junti", "", "", `--format "junti": no format "junti" (did you mean "junit"?)`},
		{"firmakit,xml:a", "", "", `no format "xml"`},
		{"firmakit", "", "es", "--report-lang is the language of report.html: give --report DIR too"},
		{"firmakit", dir, "pt", `--report-lang "pt": want es or en`},
		{"firmakit", filepath.Join(dir, "cucumber.json", "x"), "", "--report: "},
	} {
		if tc.dir != "" && strings.HasSuffix(tc.dir, "x") {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cucumber.json"), nil, 0o644))
		}
		_, err := reports.PlanOutputs(tc.list, tc.dir, tc.lang)
		var ue *reports.UsageError
		require.ErrorAs(t, err, &ue, tc.list)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// TestFinishWritesEveryFormat: one call judges the results (--strict,
// then the expected failures), writes the JUnit XML --format asked for,
// completes godog's Cucumber JSON, writes every format in the report
// folder, and ends with the verdict and the counts.
func TestFinishWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(t.TempDir(), "j.xml")
	o, err := reports.PlanOutputs("firmakit,junit:"+junit, dir, "")
	require.NoError(t, err)
	// What godog wrote while the suite ran.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cucumber.json"), []byte(`[{"uri":"features/en/auth.feature","name":"f","elements":[`+
		`{"name":"s","line":3,"type":"scenario","steps":[{"name":"a step","line":4,"result":{"status":"passed"}}]}]}]`), 0o644))
	warned := reports.ScenarioResult{Feature: "features/en/auth.feature", Line: 3, Name: "s", Requirement: "AUTH-EXPIRED",
		Status: reports.Passed, Warnings: []reports.Warning{{Message: "late", Basis: "defaults §B"}}}
	var out bytes.Buffer
	f := reports.Finish{Run: reports.Run{Tool: "firmakit", Profile: firmakit.BundledProfile(), Lang: "en", Elapsed: 1500 * time.Millisecond},
		Results: []reports.ScenarioResult{warned}, Strict: true, Outputs: o}
	end, err := f.Write(&out)
	require.NoError(t, err)
	assert.Equal(t, reports.Failed, end.Verdict, "--strict fails a warning")
	assert.Equal(t, reports.ExitFailed, end.Exit)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Contains(t, out.String(), "wall time 1.5s\n")
	assert.Contains(t, out.String(), "report: "+filepath.Join(dir, "report.html")+" (also "+filepath.Join(dir, "certificate.json")+", "+
		filepath.Join(dir, "junit.xml")+", "+filepath.Join(dir, "cucumber.json")+")\n")
	assert.True(t, strings.HasPrefix(lines[len(lines)-2], "verdict: "), out.String())
	assert.True(t, strings.HasPrefix(lines[len(lines)-1], "firmakit: "), out.String())
	for _, file := range []string{junit, filepath.Join(dir, "junit.xml")} {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Contains(t, string(data), "<failure", file)
	}
	for _, f := range reports.Formats {
		assert.FileExists(t, filepath.Join(dir, f.File))
	}
	var cert struct{ Verdict string }
	data, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cert))
	assert.True(t, strings.HasPrefix(cert.Verdict, reports.Failed+":"), cert.Verdict)
	cucumber, err := os.ReadFile(filepath.Join(dir, "cucumber.json"))
	require.NoError(t, err)
	assert.Contains(t, string(cucumber), `"failed"`, "godog's file agrees with the verdict")

	// The same failure expected: the run passes, with it.
	f = reports.Finish{Run: reports.Run{Tool: "firmakit", Profile: firmakit.BundledProfile(), Lang: "en",
		Expected: []reports.Expectation{{Requirement: "AUTH-EXPIRED", Reason: "known"}}},
		Results: []reports.ScenarioResult{warned}, Strict: true, GodogStatus: 1}
	out.Reset()
	end, err = f.Write(&out)
	require.NoError(t, err)
	assert.Equal(t, reports.PassedWithExpectedFailures, end.Verdict)
	assert.Equal(t, reports.ExitPassed, end.Exit, "godog's 1 said no more than the expected failure")
	assert.NoError(t, end.Err)
}

// TestFinishKeepsGodogsFailure: expected failures that do not explain
// godog's failure leave the run failed.
func TestFinishKeepsGodogsFailure(t *testing.T) {
	list := []reports.Expectation{{Requirement: "A", Reason: "r"}}
	res := func(reqs ...string) []reports.ScenarioResult {
		var out []reports.ScenarioResult
		for _, r := range reqs {
			out = append(out, reports.ScenarioResult{Requirement: r, Status: reports.Failed})
		}
		return append(out, reports.ScenarioResult{Requirement: "A", Status: reports.Passed})
	}
	for _, tc := range []struct {
		name    string
		results []reports.ScenarioResult
		list    []reports.Expectation
		exit    int
		godog   bool
	}{
		{"every failure godog saw was expected", res("A"), list, reports.ExitPassed, false},
		{"one was not", res("A", "B"), list, reports.ExitFailed, false},
		{"no failure explains godog's", []reports.ScenarioResult{{Requirement: "A", Status: reports.Passed}}, nil, reports.ExitFailed, true},
	} {
		f := reports.Finish{Run: reports.Run{Tool: "firmakit", Profile: firmakit.BundledProfile(), Expected: tc.list}, Results: tc.results, GodogStatus: 1}
		end, err := f.Write(&bytes.Buffer{})
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.exit, end.Exit, tc.name)
		if tc.godog {
			assert.ErrorIs(t, end.Err, reports.ErrGodogOnly, tc.name)
		} else {
			assert.NoError(t, end.Err, tc.name)
		}
	}
}
