package main

import (
	"os"

	"github.com/firmakit/firmakit/reports"
)

// expectedFailuresUsage is the help of --expected-failures, shared by
// certify and certify-webhook.
const expectedFailuresUsage = "YAML file of known deviations: a list of entries, each '- requirement: TAG' or '- scenario: NAME' " +
	"with 'reason: WHY'; a listed failure is reported as an expected failure and does not fail the run, an entry whose scenarios all pass does"

// selectExpected refuses a selection of nothing (a usage error naming
// --tags) and loads the --expected-failures file against it
// (reports.ParseExpectations, then reports.CheckExpectations): no entries
// for an empty file name, else a usage error (exit 2) naming the file and
// the entry for a file that cannot be read or used.
func selectExpected(selected func(lang, tags string) ([]reports.ScenarioResult, error), lang, tags, file string) ([]reports.Expectation, error) {
	sel, err := selected(lang, tags)
	if err != nil {
		return nil, usageError("--tags: %v", err)
	}
	all, err := selected("all", "")
	if err != nil {
		return nil, err
	}
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, usageError("--expected-failures: %v", err)
	}
	list, err := reports.ParseExpectations(data)
	if err == nil {
		err = reports.CheckExpectations(list, sel, all)
	}
	if err != nil {
		return nil, usageError("--expected-failures %s: %v", file, err)
	}
	return list, nil
}

// expectFailures applies a run's expected-failures entries to its results
// (reports.ApplyExpectations) and returns them with godog's status: godog
// says 1 when a scenario failed, which says nothing more once every
// failure it saw was expected.
func expectFailures(results []reports.ScenarioResult, list []reports.Expectation, godogStatus int) ([]reports.ScenarioResult, int) {
	if len(list) == 0 {
		return results, godogStatus
	}
	out := reports.ApplyExpectations(results, list)
	if godogStatus != 0 && reports.Summarize(results).Failed > 0 && reports.Summarize(out).Failed == 0 {
		godogStatus = 0
	}
	return out, godogStatus
}
