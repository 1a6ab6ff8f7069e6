package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/firmakit/firmakit/reports"
)

// expectedFailuresUsage is the help of --expected-failures, shared by
// certify and certify-webhook.
const expectedFailuresUsage = "YAML file of known deviations: a list of entries, each '- requirement: TAG' or '- scenario: NAME' " +
	"with 'reason: WHY'; a listed failure is reported as an expected failure and does not fail the run, an entry whose scenarios all pass does"

// selectExpected refuses a selection of nothing (a usage error naming
// --tags) and loads the expected failures of file against it, each one a
// scenario the selection has (see loadExpectedFailures).
func selectExpected(selected func(lang, tags string) ([]reports.ScenarioResult, error), lang, tags, file string) ([]reports.Expectation, error) {
	sel, err := selected(lang, tags)
	if err != nil {
		return nil, usageError("--tags: %v", err)
	}
	all, err := selected("all", "")
	if err != nil {
		return nil, err
	}
	return loadExpectedFailures(file, sel, all)
}

// loadExpectedFailures reads --expected-failures (reports.ParseExpectations)
// and checks each entry against the features: selected are the scenarios
// the run's language and tags select, all those of the whole feature set.
// It returns no entries for an empty path, and a usage error (exit 2) that
// names the entry for a file that cannot be read or parsed, or an entry
// that the selection has no scenario for, or that covers a scenario
// another entry covers already.
func loadExpectedFailures(path string, selected, all []reports.ScenarioResult) ([]reports.Expectation, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError("--expected-failures: %v", err)
	}
	list, err := reports.ParseExpectations(data)
	if err != nil {
		return nil, usageError("--expected-failures %s: %v", path, err)
	}
	if err := checkExpectations(list, selected, all); err != nil {
		return nil, usageError("--expected-failures %s: %v", path, err)
	}
	return list, nil
}

// checkExpectations refuses an entry that covers no selected scenario:
// one naming what the features do not have, with the closest name they
// have, and one naming scenarios the language or tags left out. It also
// refuses an entry covering a scenario an earlier entry covers (a
// scenario entry under a requirement entry), whose reason would be
// ambiguous.
func checkExpectations(list []reports.Expectation, selected, all []reports.ScenarioResult) error {
	coveredBy := map[int]int{} // a selected scenario's index → the entry covering it
	for i, e := range list {
		where := fmt.Sprintf("entry %d (line %d), %s", i+1, e.Line, e)
		n := 0
		for k, r := range selected {
			if !e.Matches(r) {
				continue
			}
			n++
			if j, ok := coveredBy[k]; ok {
				return fmt.Errorf("%s: covers %q, which entry %d (line %d), %s, covers already; keep one of them",
					where, r.Name, j+1, list[j].Line, list[j])
			}
			coveredBy[k] = i
		}
		if n > 0 {
			continue
		}
		for _, r := range all {
			if e.Matches(r) {
				return fmt.Errorf("%s: the run's --lang and --tags select none of its scenarios; widen them, or drop the entry", where)
			}
		}
		var word string
		var names []string
		for _, r := range all {
			if e.Requirement != "" {
				word = e.Requirement
				names = append(names, r.Requirement)
			} else {
				word = e.Scenario
				names = append(names, r.Name)
			}
		}
		what := fmt.Sprintf("no scenario carries @%s", e.Requirement)
		if e.Requirement == "" {
			what = "no scenario has that name (names are compared exactly, in the language of their feature file)"
		}
		if near := closestName(word, names); near != "" {
			what += fmt.Sprintf("; did you mean %q?", near)
		}
		return fmt.Errorf("%s: %s", where, what)
	}
	return nil
}

// closestName is closest for names in any case: the candidate nearest
// to word, ignoring case, as written.
func closestName(word string, candidates []string) string {
	lower := map[string]string{}
	var keys []string
	for _, c := range candidates {
		k := strings.ToLower(c)
		if _, ok := lower[k]; !ok {
			lower[k] = c
			keys = append(keys, k)
		}
	}
	return lower[closest(word, keys)]
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
