package engine

import (
	"bytes"
	"testing"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
)

// The steps mark a timing check that could not be judged inconclusive;
// from there on the run counts it, names it and never calls it passed.
// Each case adds one result to a run where everything passed.
func TestSuiteCountsInconclusive(t *testing.T) {
	passed := reports.ScenarioResult{Feature: "en/demo.feature", Line: 7, Lang: "en", Requirement: "DEMO-NOTIFICATION", Name: "n", Status: reports.Passed}
	for _, tc := range []struct {
		name    string
		add     *reports.ScenarioResult
		summary string
		verdict string
		mark    string
	}{
		{"all passed", nil, "firmakit: 2 scenarios: 2 passed, 0 failed, 0 not run", "verdict: passed: ", "ok "},
		{"one inconclusive", &reports.ScenarioResult{Feature: "en/demo.feature", Line: 9, Lang: "en", Requirement: "DEMO-SIGNED-DOCUMENT-URL", Name: "d",
			Status: reports.Inconclusive, FailedStep: "the notification arrives in time", Error: "paused 900 ms"},
			"firmakit: 3 scenarios: 2 passed, 0 failed, 0 not run, 1 inconclusive", "verdict: inconclusive: 1 of 3 scenarios could not be judged (@DEMO-SIGNED-DOCUMENT-URL)",
			"INCONCLUSIVE en  @DEMO-SIGNED-DOCUMENT-URL"},
		{"one failed", &reports.ScenarioResult{Feature: "en/demo.feature", Line: 9, Lang: "en", Requirement: "DEMO-SIGNED-DOCUMENT-URL", Name: "d",
			Status: reports.Failed, FailedStep: "the notification arrives in time", Error: "came after 2 s"},
			"firmakit: 3 scenarios: 2 passed, 1 failed, 0 not run", "verdict: failed: 1 of 3 scenarios failed (@DEMO-SIGNED-DOCUMENT-URL)", "FAIL    en  @DEMO-SIGNED-DOCUMENT-URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress bytes.Buffer
			s := &RunOptions{Progress: &progress}
			s.NoteResult(passed)
			p2 := passed
			p2.Line = 8
			s.NoteResult(p2)
			if tc.add != nil {
				s.NoteResult(*tc.add)
			}
			assert.Equal(t, tc.summary, s.Summary())
			assert.Contains(t, s.VerdictLine(), tc.verdict)
			assert.Contains(t, progress.String(), tc.mark)
			if tc.add != nil {
				assert.Contains(t, progress.String(), "step: the notification arrives in time\n        "+tc.add.Error)
			}
		})
	}
}

// A selected scenario that godog did not run is reported not run, with
// its requirement, need tags and row, never left out of the counts.
func TestUnranIsNotRun(t *testing.T) {
	sel, err := selectFrom(loaderOf(features.ServiceSet), "en", "@AUTH-DISABLED-KEY")
	if !assert.NoError(t, err) || !assert.Len(t, sel, 2) {
		return
	}
	r := unran(sel[0])
	assert.Equal(t, reports.NotRun, r.Status)
	assert.Equal(t, "AUTH-DISABLED-KEY", r.Requirement)
	assert.Equal(t, "spec", r.Kind)
	assert.Equal(t, []string{"needs-disabled-credential"}, r.Needs)
	assert.Equal(t, "endpoint=check", r.Row)
	assert.Equal(t, "en/verification.feature", r.Feature)
	assert.Greater(t, r.Line, 0)
	assert.Equal(t, "selected, but godog did not run it", r.Error)
}

// A result filed beyond the selection (the service suite's ledger)
// counts in the total; failures and the rest are counted by status.
func TestProgressCountsTheLedgerAndFailures(t *testing.T) {
	var got []Progress
	s := &RunOptions{selected: 2, OnResult: func(_ reports.ScenarioResult, p Progress) { got = append(got, p) }}
	s.NoteResult(reports.ScenarioResult{Status: reports.Failed})
	s.NoteResult(reports.ScenarioResult{Status: reports.Inconclusive})
	s.NoteResult(reports.ScenarioResult{Status: reports.NotRun, Requirement: "RUN-LEDGER"})
	assert.Equal(t, []Progress{{Done: 1, Total: 2, Failed: 1}, {Done: 2, Total: 2, Failed: 1, Inconclusive: 1},
		{Done: 3, Total: 3, Failed: 1, Inconclusive: 1, NotRun: 1}}, got)
}
