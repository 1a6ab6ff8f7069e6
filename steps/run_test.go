package steps_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"

	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A target without the disabled and the other merchant's credentials:
// those scenarios are not run, with their reason, and the run is
// incomplete, never passed.
func TestSuiteWithoutCredentialsIsIncomplete(t *testing.T) {
	ref, rv := startReference(t, nil)
	target := steps.DemoTarget(ref.URL(), rv, true)
	target.Disabled, target.Other = firmakit.Credential{}, firmakit.Credential{}
	const tags = "@AUTH-DISABLED-KEY,@AUTH-OTHER-MERCHANT-KEY,@AUTH-OK"
	selected, err := steps.Select("en", tags)
	require.NoError(t, err)
	var progress bytes.Buffer
	s := &steps.Suite{Target: target, RunOptions: steps.RunOptions{Lang: "en", Tags: tags, Output: &bytes.Buffer{}, Progress: &progress}}
	status, err := s.Run()
	require.NoError(t, err)
	assert.Equal(t, 0, status, "godog's status: nothing failed")

	res := s.Results()
	require.Len(t, res, selected, "Select counts what godog runs")
	ok, err := steps.Select("en", "@AUTH-OK")
	require.NoError(t, err)
	assert.Equal(t, reports.Incomplete, s.Verdict())
	assert.Equal(t, fmt.Sprintf("firmakit: %d scenarios: %d passed, 0 failed, 4 not run", ok+4, ok), s.Summary())
	assert.Equal(t, []string{
		"2 scenarios not run: no disabled credential given (--disabled-key, --disabled-secret); to leave them out: --tags '" + tags + " && ~@needs-disabled-credential'",
		"2 scenarios not run: no other merchant's credential given (--other-key, --other-secret); to leave them out: --tags '" + tags + " && ~@needs-other-merchant'",
	}, s.NotRun())
	assert.Equal(t, fmt.Sprintf("verdict: incomplete: 4 of %d scenarios not run; give", ok+4)+" --disabled-key and --disabled-secret, --other-key and --other-secret, "+
		"or leave them out with --tags '"+tags+" && ~@needs-disabled-credential && ~@needs-other-merchant'", s.VerdictLine())

	// In file order, each row told apart, the need tag never taken for the
	// requirement.
	var got []string
	for _, r := range res {
		if r.Requirement == "AUTH-OK" {
			assert.Equal(t, reports.Passed, r.Status)
			assert.Empty(t, r.Needs)
			assert.Contains(t, r.Row, "body=")
		} else {
			got = append(got, r.Requirement+" "+r.Row+" "+r.Status+" "+strings.Join(r.Needs, ","))
		}
		assert.Equal(t, "spec", r.Kind)
		assert.Greater(t, r.Line, 0)
		assert.Greater(t, r.Duration, time.Duration(0))
	}
	assert.Equal(t, []string{
		"AUTH-DISABLED-KEY endpoint=check not run needs-disabled-credential",
		"AUTH-DISABLED-KEY endpoint=signature not run needs-disabled-credential",
		"AUTH-OTHER-MERCHANT-KEY endpoint=check not run needs-other-merchant",
		"AUTH-OTHER-MERCHANT-KEY endpoint=signature not run needs-other-merchant",
	}, got)
	for i := 1; i < len(res); i++ {
		assert.Less(t, res[i-1].Line, res[i].Line)
	}
	assert.Contains(t, progress.String(), "not run en  @AUTH-DISABLED-KEY")

	// The same run with the credentials passes.
	s = &steps.Suite{Target: steps.DemoTarget(ref.URL(), rv, true), RunOptions: steps.RunOptions{Lang: "en", Tags: tags, Output: &bytes.Buffer{}}}
	_, err = s.Run()
	require.NoError(t, err)
	assert.Equal(t, reports.Passed, s.Verdict())
	assert.Empty(t, s.NotRun())
	assert.Equal(t, fmt.Sprintf("verdict: passed: every selected scenario passed, %d of %d", ok+4, ok+4), s.VerdictLine())
}

// A profile whose retry schedule, waited out and watched past its end,
// lasts longer than a scenario waits: the scenario that lets it run out
// is not run, with its reason and how to leave it out, and creates
// nothing.
func TestExhaustedScheduleTooLongIsNotRun(t *testing.T) {
	ref, rv := startReference(t, nil)
	target := steps.DemoTarget(ref.URL(), rv, true)
	target.Profile.Webhook.Retries = []time.Duration{time.Minute, 5 * time.Minute}
	s := &steps.Suite{Target: target, RunOptions: steps.RunOptions{Lang: "en", Tags: "@DEMO-RETRY-EXHAUSTED", Output: &bytes.Buffer{}}}
	status, err := s.Run()
	require.NoError(t, err)
	assert.Equal(t, 0, status)
	assert.Equal(t, reports.Incomplete, s.Verdict())
	require.Len(t, s.NotRun(), 1)
	assert.Contains(t, s.NotRun()[0], "lasts 6m0s, and watching past its end 5m0s more: longer than the 10m0s a scenario waits")
	assert.Contains(t, s.NotRun()[0], "~@DEMO-RETRY-EXHAUSTED")
}
