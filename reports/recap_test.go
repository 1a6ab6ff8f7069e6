package reports_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
)

// recap is the end of a run's output against the service: WriteRecap,
// then WriteLikelyCauses.
func recap(w io.Writer, results []reports.ScenarioResult, width int) {
	reports.WriteRecap(w, results, width)
	reports.WriteLikelyCauses(w, results)
}

// The recap sums up hundreds of failures in a line per requirement, with
// the likely cause, whatever their number; cut lines keep whole
// characters.
func TestRecapIsShort(t *testing.T) {
	var res []reports.ScenarioResult
	for _, lang := range []string{"en", "es"} {
		for i := 0; i < 240; i++ {
			res = append(res, reports.ScenarioResult{Lang: lang, Feature: lang + "/x.feature", Line: i, Requirement: fmt.Sprintf("REQ-%d", i%6),
				Row: fmt.Sprint(i), Status: reports.Failed, FailedStep: "the contract is created", FailureKind: reports.FailureInvalidSignature,
				Error: `expected 201 for the contract "ñandú ñandú ñandú ñandú", got 401 {"status_code":401,"message":"Invalid signature"}` + "\n  sent: POST /v1/signature/m"})
		}
	}
	res = append(res, reports.ScenarioResult{Lang: "en", Requirement: "DEMO-LATE", Status: reports.Inconclusive, Error: "ran late"},
		reports.ScenarioResult{Lang: "en", Requirement: "AUTH-OK", Status: reports.Passed})
	var b bytes.Buffer
	recap(&b, res, 60)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	assert.Len(t, lines, 1+6+1+1+1, "a heading and a line per requirement, for failed then inconclusive, then the cause:\n%s", b.String())
	assert.Equal(t, "failed: 6 requirements, 480 scenario runs", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "  @REQ-0   80  expected 201 for the contract"), lines[1])
	for _, l := range lines[1:7] {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 59, "within the terminal's width")
		assert.True(t, utf8.ValidString(l), "%q", l)
	}
	assert.Equal(t, "inconclusive: 1 requirement, 1 scenario run", lines[7])
	assert.True(t, strings.HasPrefix(lines[9], "likely cause of 480 failures: Signed requests got 401 Invalid signature"), lines[9])

	b.Reset()
	recap(&b, []reports.ScenarioResult{{Status: reports.Passed}}, 0)
	assert.Empty(t, b.String(), "nothing to sum up when everything passed")
}

// A likely cause says whether it explains failures or results that got no
// verdict; a rule's kind is no likely cause, and has no line.
func TestLikelyCausesNameWhatTheyExplain(t *testing.T) {
	res := []reports.ScenarioResult{
		{Lang: "en", Feature: "en/x.feature", Line: 1, Requirement: "AUTH-OK", Status: reports.Failed, FailureKind: reports.FailureExpired, Error: "expected 200, got 401"},
		{Lang: "en", Feature: "en/x.feature", Line: 2, Requirement: "AUTH-OK", Status: reports.Inconclusive, FailureKind: reports.FailureUnreachable, Error: "connection refused"},
		{Lang: "en", Feature: "en/x.feature", Line: 3, Requirement: "AUTH-OK", Status: reports.Inconclusive, FailureKind: reports.FailureUnreachable, Error: "connection refused"},
		{Lang: "en", Feature: "en/x.feature", Line: 4, Requirement: "DEMO-LATE", Status: reports.Inconclusive, Error: "this process ran late"},
		{Lang: "en", Feature: "en/x.feature", Line: 5, Requirement: "SIG-CREATE", Status: reports.Failed, FailureKind: reports.FailureEnvelope,
			Error: `expected data.title "a", got "b"`, Facts: &reports.Facts{Field: "title", Shape: `expected data.title "…", got "…"`}},
	}
	var b bytes.Buffer
	reports.WriteLikelyCauses(&b, res)
	assert.Equal(t, "likely cause of 1 failure: Requests got 401 Request expired: the target's clock and this machine's differ by more than the profile's tolerance, or the target reads the timestamp header another way.\n"+
		"likely cause of 2 inconclusive results: No answer came back on any attempt (the connection refused, reset or closed without one): when the target answered the run's other requests, it drops these (a handler that crashes?) or something on the way does, so look at its logs for them; else check --target and that the service is running.\n", b.String())
}

// An inconclusive run whose unjudged results all got no answer on any
// attempt says so, not that this process ran late; one timing result
// among them brings the timing explanation back.
func TestInconclusiveWithoutAnswersSaysSo(t *testing.T) {
	res := []reports.ScenarioResult{
		{Lang: "en", Requirement: "AUTH-OK", Status: reports.Passed},
		{Lang: "en", Requirement: "SIG-REFUSED-INVALID", Status: reports.Inconclusive, FailureKind: reports.FailureUnreachable, Error: "connection closed without an answer"},
	}
	for _, lang := range []string{"en", "es"} {
		line := reports.ExplainIn(lang, "", res)
		assert.Contains(t, line, map[string]string{"en": "got no answer on any attempt", "es": "no obtuvieron respuesta en ningún intento"}[lang])
		assert.NotContains(t, line, map[string]string{"en": "did not run on time", "es": "no se ejecutó a tiempo"}[lang])
	}
	res = append(res, reports.ScenarioResult{Lang: "en", Requirement: "DEMO-NOTIFICATION", Status: reports.Inconclusive, Error: "this process ran late"})
	assert.Contains(t, reports.ExplainIn("en", "", res), "did not run on time")
}
