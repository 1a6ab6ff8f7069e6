package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFile writes an expected-failures file for a test and returns its
// path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "expected.yaml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// failing is a judge that fails the first n results of a requirement
// (every one for n < 0), standing in for a target that deviates.
func failing(requirement string, n int) func([]reports.ScenarioResult) []reports.ScenarioResult {
	return func(res []reports.ScenarioResult) []reports.ScenarioResult {
		for i := range res {
			if res[i].Requirement == requirement && n != 0 {
				res[i].Status, res[i].FailedStep, res[i].Error = reports.Failed, "the response status is 200", "expected 200, got 401 {}"
				n--
			}
		}
		return res
	}
}

const okName = "a signed request is accepted whatever JSON object it holds"

// TestCertifyExpectedFailures runs certify in-process with an
// expected-failures file and a stand-in for a deviating target, one
// change per case.
func TestCertifyExpectedFailures(t *testing.T) {
	const reason = "the sandbox's gateway answers 401 to a body it has not seen before"
	listOK := "- requirement: AUTH-OK\n  reason: \"" + reason + "\"\n"
	for _, tc := range []struct {
		name    string
		file    string
		judge   func([]reports.ScenarioResult) []reports.ScenarioResult
		code    int
		verdict string
		counts  string
		recap   string
	}{
		{"every listed failure expected", listOK, failing("AUTH-OK", -1), ExitOK,
			"verdict: passed with 3 expected failures (@AUTH-OK), declared with --expected-failures: every other selected scenario passed, 2 of 5",
			"firmakit: 5 scenarios: 2 passed, 0 failed, 0 not run, 3 expected failures",
			"  @AUTH-OK    3  expected: " + reason},
		{"listed by the scenario's name", "- scenario: " + okName + "\n  reason: r\n", failing("AUTH-OK", 1), ExitOK,
			"verdict: passed with 1 expected failure (@AUTH-OK)", "firmakit: 5 scenarios: 4 passed, 0 failed, 0 not run, 1 expected failure", "  @AUTH-OK    1  expected: r"},
		{"a partly failing entry is not stale", listOK, failing("AUTH-OK", 2), ExitOK,
			"verdict: passed with 2 expected failures (@AUTH-OK)", "firmakit: 5 scenarios: 3 passed, 0 failed, 0 not run, 2 expected failures", ""},
		{"an unlisted failure still fails", listOK, func(r []reports.ScenarioResult) []reports.ScenarioResult {
			return failing("AUTH-MISSING-ALL", 1)(failing("AUTH-OK", -1)(r))
		}, ExitFailed,
			"verdict: failed: 1 of 5 scenarios failed (@AUTH-MISSING-ALL); each failure names the step, what was sent and what came back; also 3 expected failures",
			"firmakit: 5 scenarios: 1 passed, 1 failed, 0 not run, 3 expected failures", "failed: 1 requirement, 1 scenario run"},
		{"an entry whose scenarios all pass is stale", "- requirement: \"@AUTH-MISSING-ALL\"\n  reason: fixed long ago\n", nil, ExitFailed,
			"verdict: failed: 1 of 6 scenarios failed (@AUTH-MISSING-ALL)", "firmakit: 6 scenarios: 5 passed, 1 failed, 0 not run",
			"  @AUTH-MISSING-ALL    1  stale expected failure: the entry for requirement AUTH-MISSING-ALL (line 1) declares a failure, but all 2 of its selected scenarios passed"},
		{"an inconclusive scenario stays inconclusive", listOK, func(r []reports.ScenarioResult) []reports.ScenarioResult {
			for i := range r {
				if r[i].Requirement == "AUTH-OK" {
					r[i].Status, r[i].Error = reports.Inconclusive, "paused"
					break
				}
			}
			return r
		}, ExitInconclusive, "verdict: inconclusive: 1 of 5 scenarios could not be judged (@AUTH-OK)", "firmakit: 5 scenarios: 4 passed, 0 failed, 0 not run, 1 inconclusive", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runJudged(t, tc.judge, "certify", "--lang", "en", "--tags", "@AUTH-OK,@AUTH-MISSING-ALL",
				"--expected-failures", writeFile(t, tc.file))
			require.Equal(t, tc.code, code, out+errOut)
			assert.Empty(t, errOut, "the counts are the last line")
			last := lastLines(out, 2)
			assert.True(t, strings.HasPrefix(last[0], tc.verdict), "%q", last[0])
			assert.Equal(t, tc.counts, last[1])
			assert.Contains(t, out, tc.recap)
		})
	}
}

// A run whose only failures were expected, through every report, and the
// certificate still verifies.
func TestCertifyExpectedFailuresReports(t *testing.T) {
	const reason = "the gateway <rewrites> the body"
	dir := t.TempDir()
	file := writeFile(t, "# known deviations of our sandbox\n- requirement: AUTH-OK\n  reason: \""+reason+"\"\n")
	code, out, errOut := runJudged(t, failing("AUTH-OK", -1), "certify", "--lang", "en", "--tags", "@AUTH-OK,@AUTH-MISSING-ALL",
		"--expected-failures", file, "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "expected failures, declared with --expected-failures (they do not fail the run): 1 requirement, 3 scenario runs\n"+
		"  @AUTH-OK    3  expected: "+reason+"\n")
	assert.NotContains(t, out, "likely cause")

	c := readCertificate(t, dir)
	assert.Equal(t, reports.PassedWithExpectedFailures, c.Result)
	assert.Equal(t, reports.Summary{Scenarios: 5, Passed: 2, ExpectedFailures: 3}, c.Summary)
	assert.Empty(t, c.Failures)
	require.Len(t, c.ExpectedFailures, 1)
	assert.Equal(t, "AUTH-OK", c.ExpectedFailures[0].Requirement)
	assert.Equal(t, reason, c.ExpectedFailures[0].Reason)
	assert.Equal(t, reports.ExpectedFailure, c.ExpectedFailures[0].Status)
	assert.Len(t, c.ExpectedFailures[0].Results, 3)
	code, vout, verr := run(t, nil, "report", "verify", filepath.Join(dir, "certificate.json"))
	assert.Equal(t, ExitOK, code, verr)
	assert.Contains(t, vout, "holds")

	doc := readJUnit(t, filepath.Join(dir, "junit.xml"))
	assert.Equal(t, [3]int{5, 0, 3}, [3]int{doc.Tests, doc.Failures, doc.Skipped})
	var skipped []string
	for _, s := range doc.Suites {
		for _, tc := range s.Cases {
			if tc.Skipped != nil {
				skipped = append(skipped, tc.Skipped.Message)
			}
		}
	}
	assert.Equal(t, []string{"expected failure: " + reason, "expected failure: " + reason, "expected failure: " + reason}, skipped)

	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "the gateway &lt;rewrites&gt; the body")
	assert.Contains(t, string(page), `<div class="banner passed-with-expected-failures">`)
}

// TestCertifyRefusesExpectedFailures: a file certify cannot use is exit 2
// before anything starts, with one line naming the entry.
func TestCertifyRefusesExpectedFailures(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
	}{
		{"no such file", "", "--expected-failures: open "},
		{"no reason", "- requirement: AUTH-OK\n", "entry 1 (line 1), requirement AUTH-OK: no reason"},
		{"neither", "- reason: r\n", "entry 1 (line 1): neither a requirement nor a scenario"},
		{"both", "- requirement: AUTH-OK\n  scenario: " + okName + "\n  reason: r\n", "entry 1 (line 1): both a requirement and a scenario"},
		{"a duplicate", "- requirement: AUTH-OK\n  reason: r\n- requirement: \"@AUTH-OK\"\n  reason: r\n",
			"entry 2 (line 3), requirement AUTH-OK: listed already by entry 1 (line 1)"},
		{"a scenario under a listed requirement", "- requirement: AUTH-OK\n  reason: r\n- scenario: " + okName + "\n  reason: r\n",
			`entry 2 (line 3), scenario "` + okName + `": covers "` + okName + `", which entry 1 (line 1), requirement AUTH-OK, covers already`},
		{"a misspelt requirement", "- requirement: AUTH-OKK\n  reason: r\n", `entry 1 (line 1), requirement AUTH-OKK: no scenario carries @AUTH-OKK; did you mean "AUTH-OK"?`},
		{"a requirement in lower case", "- requirement: auth-ok\n  reason: r\n", `did you mean "AUTH-OK"?`},
		{"a misspelt scenario", "- scenario: a signed request is acepted whatever JSON object it holds\n  reason: r\n",
			`no scenario has that name (names are compared exactly, in the language of their feature file); did you mean "` + okName + `"?`},
		{"a requirement the tags leave out", "- requirement: AUTH-EXPIRED\n  reason: r\n",
			"entry 1 (line 1), requirement AUTH-EXPIRED: the run's --lang and --tags select none of its scenarios; widen them, or drop the entry"},
		{"a scenario of the other language", "- scenario: se acepta una solicitud firmada, sea cual sea el objeto JSON que lleve\n  reason: r\n",
			"the run's --lang and --tags select none of its scenarios"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing.yaml")
			if tc.file != "" {
				path = writeFile(t, tc.file)
			}
			code, out, errOut := run(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK", "--expected-failures", path)
			assert.Equal(t, ExitUsage, code, out+errOut)
			assert.Empty(t, out, "nothing started")
			assert.Contains(t, errOut, tc.want)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line: %q", errOut)
		})
	}
}

// certify-webhook takes the same file: a real failure of the endpoint,
// listed, does not fail the run, though godog saw it fail.
func TestCertifyWebhookExpectedFailures(t *testing.T) {
	naive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(naive.Close)
	args := []string{"certify-webhook", "--endpoint", naive.URL, "--webhook-secret", "whsec_shop", "--lang", "en", "--tags", "@WH-WRONG-SECRET,@WH-STATE"}
	code, out, errOut := run(t, nil, append(args, "--expected-failures", writeFile(t, "- requirement: WH-WRONG-SECRET\n  reason: we verify later, in a queue\n"))...)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, lastLines(out, 2)[0], "verdict: passed with 1 expected failure (@WH-WRONG-SECRET)")
	assert.Contains(t, out, "expected: we verify later, in a queue")

	code, out, errOut = run(t, nil, append(args, "--expected-failures", writeFile(t, "- requirement: WH-WRONG-SECRT\n  reason: r\n"))...)
	assert.Equal(t, ExitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `no scenario carries @WH-WRONG-SECRT; did you mean "WH-WRONG-SECRET"?`)
}

func TestCertifyHelpNamesExpectedFailures(t *testing.T) {
	for _, cmd := range []string{"certify", "certify-webhook"} {
		_, out, errOut := run(t, nil, cmd, "--help")
		assert.Contains(t, out+errOut, "-expected-failures", cmd)
		assert.Contains(t, out+errOut, "reason: WHY", cmd)
	}
}
