package reports

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/firmakit/firmakit"
	"go.yaml.in/yaml/v3"
)

// Expectation is one entry of an expected-failures file: a known
// deviation of the target from the profile, declared with its reason, so
// that the failures it names are reported as ExpectedFailure instead of
// failing the run (ApplyExpectations).
type Expectation struct {
	// Requirement is a requirement tag, without @; Scenario a scenario's
	// name as its feature file writes it, in one language. An entry has
	// exactly one of them.
	Requirement string `yaml:"requirement" json:"requirement,omitempty"`
	Scenario    string `yaml:"scenario" json:"scenario,omitempty"`
	// Reason says why the target is expected to fail: it is shown beside
	// every failure the entry covers.
	Reason string `yaml:"reason" json:"reason"`
	// Line is the entry's line in its file, for messages; 0 when unknown.
	Line int `yaml:"-" json:"-"`
}

// String names the entry: "requirement AUTH-EXPIRED" or `scenario "…"`.
func (e Expectation) String() string {
	if e.Requirement != "" {
		return "requirement " + e.Requirement
	}
	return fmt.Sprintf("scenario %q", e.Scenario)
}

// Matches tells whether the entry covers a scenario's result: by its
// requirement tag, or by its name. The results ApplyExpectations adds for
// stale entries are covered by none.
func (e Expectation) Matches(r ScenarioResult) bool {
	switch {
	case r.Feature == ExpectationsFeature:
		return false
	case e.Requirement != "":
		return r.Requirement == e.Requirement
	}
	return e.Scenario != "" && r.Name == e.Scenario
}

// ExpectationsFeature is the Feature of the failed results that
// ApplyExpectations adds for stale entries: they come from the
// expected-failures file, not from a feature file.
const ExpectationsFeature = "expected-failures"

// ErrExpectations is wrapped by every error of ParseExpectations.
var ErrExpectations = errors.New("expected failures")

// expectationKeys are the keys an entry may have.
var expectationKeys = []string{"requirement", "scenario", "reason"}

// expectationFormat shows the file's format, for the messages that
// refuse one.
const expectationFormat = `want a YAML list of entries such as "- requirement: AUTH-EXPIRED" or "- scenario: <name>", each with "reason: <why>"`

// ParseExpectations reads an expected-failures file: a YAML list whose
// entries each name a requirement (its tag, with or without @) or a
// scenario (its name), never both, and give a reason:
//
//   - requirement: AUTH-EXPIRED
//     reason: "the gateway rewrites the timestamp header"
//   - scenario: "a request signed with another secret is refused"
//     reason: "…"
//
// An empty file, or an empty list, declares nothing. It returns an error
// wrapping ErrExpectations, naming the entry and its line, for a document
// that is not such a list, an entry with neither or both, an unknown key,
// no reason, and an entry listed twice. Whether the names exist is for
// the caller to check against the features it runs.
func ParseExpectations(data []byte) ([]Expectation, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrExpectations, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	switch {
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null":
		return nil, nil
	case root.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("%w: line %d: %s", ErrExpectations, root.Line, expectationFormat)
	}
	var list []Expectation
	for i, n := range root.Content {
		where := fmt.Sprintf("entry %d (line %d)", i+1, n.Line)
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%w: %s: %s", ErrExpectations, where, expectationFormat)
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			key, value := n.Content[j], n.Content[j+1]
			if !slices.Contains(expectationKeys, key.Value) {
				return nil, fmt.Errorf("%w: %s: unknown key %q; an entry has requirement or scenario, and reason", ErrExpectations, where, key.Value)
			}
			if value.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%w: %s: %s must be text", ErrExpectations, where, key.Value)
			}
		}
		var e Expectation
		if err := n.Decode(&e); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrExpectations, where, err)
		}
		e.Requirement = strings.TrimPrefix(strings.TrimSpace(e.Requirement), "@")
		e.Scenario, e.Reason, e.Line = strings.TrimSpace(e.Scenario), strings.TrimSpace(e.Reason), n.Line
		switch {
		case e.Requirement != "" && e.Scenario != "":
			return nil, fmt.Errorf("%w: %s: both a requirement and a scenario; give one per entry", ErrExpectations, where)
		case e.Requirement == "" && e.Scenario == "":
			return nil, fmt.Errorf("%w: %s: neither a requirement nor a scenario; %s", ErrExpectations, where, expectationFormat)
		case e.Reason == "":
			return nil, fmt.Errorf("%w: %s, %s: no reason; say why the target is expected to fail it", ErrExpectations, where, e)
		}
		for k, prev := range list {
			if prev.Requirement == e.Requirement && prev.Scenario == e.Scenario {
				return nil, fmt.Errorf("%w: %s, %s: listed already by entry %d (line %d)", ErrExpectations, where, e, k+1, prev.Line)
			}
		}
		list = append(list, e)
	}
	return list, nil
}

// CheckExpectations checks the entries of an expected-failures file
// (ParseExpectations) against the features a run has: selected are the
// scenarios the run's language and tags select, all those of the whole
// feature set. It refuses an entry that covers no selected scenario: one
// naming what the features do not have, with the closest name they have,
// and one naming scenarios the language or tags left out. It also refuses
// an entry covering a scenario an earlier entry covers (a scenario entry
// under a requirement entry), whose reason would be ambiguous. The error
// names the entry and its line.
func CheckExpectations(list []Expectation, selected, all []ScenarioResult) error {
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

// closestName is firmakit.Closest for names in any case: the candidate
// nearest to word, ignoring case, as written.
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
	return lower[firmakit.Closest(word, keys)]
}

// ExpectationResult is what became of an expected-failures entry in a
// run, as the certificate lists it.
type ExpectationResult struct {
	Expectation
	// Status is ExpectedFailure when some of its scenarios failed as
	// declared, Stale when every one passed (the run then fails), else
	// what its scenarios came to (inconclusive, not run, …): a failure
	// must be seen to be expected.
	Status string `json:"status"`
	// Scenarios counts the results the entry covers, ExpectedFailures and
	// Passed those that failed as declared and those that passed.
	Scenarios        int `json:"scenarios"`
	ExpectedFailures int `json:"expected_failures"`
	Passed           int `json:"passed"`
	// Results are its scenarios that failed as declared, with their
	// errors.
	Results []ScenarioResult `json:"results"`
}

// Stale is the status of an expected-failures entry whose scenarios all
// passed: the deviation it declares is gone, and the entry must go too.
const Stale = "stale"

// judgeExpectation says what became of an entry in results, counting a
// covered failure (before ApplyExpectations) or expected failure (after)
// alike.
func judgeExpectation(e Expectation, results []ScenarioResult) ExpectationResult {
	out := ExpectationResult{Expectation: e, Results: []ScenarioResult{}}
	var notRun, inconclusive int
	for _, r := range results {
		if !e.Matches(r) {
			continue
		}
		out.Scenarios++
		switch r.Status {
		case Failed, ExpectedFailure:
			out.ExpectedFailures++
			r.Status, r.ExpectedReason = ExpectedFailure, e.Reason
			out.Results = append(out.Results, r)
		case Passed:
			out.Passed++
		case Inconclusive:
			inconclusive++
		default:
			notRun++
		}
	}
	switch {
	case out.ExpectedFailures > 0:
		out.Status = ExpectedFailure
	case out.Scenarios > 0 && out.Passed == out.Scenarios:
		out.Status = Stale
	default:
		out.Status = status(out.Passed, 0, notRun, inconclusive, 0)
	}
	return out
}

// ApplyExpectations rewrites a run's results by its expected-failures
// entries, and returns them in a new slice, results left as they were:
//
//   - a failed scenario an entry covers becomes ExpectedFailure, with the
//     entry's reason (ScenarioResult.ExpectedReason) and its own error
//     and failed step kept;
//   - a failure no entry covers still fails, and an inconclusive or not
//     run scenario stays so, listed or not: an expected failure must be
//     a failure seen;
//   - an entry every one of whose scenarios passed is stale: a failed
//     result named after it is added (Feature ExpectationsFeature,
//     Requirement the entry's, or its scenario's), so that the run fails
//     until the entry is removed. An entry whose scenarios partly passed
//     and partly failed is not stale.
func ApplyExpectations(results []ScenarioResult, list []Expectation) []ScenarioResult {
	out := make([]ScenarioResult, 0, len(results))
	for _, r := range results {
		if r.Status == Failed {
			for _, e := range list {
				if e.Matches(r) {
					r.Status, r.ExpectedReason = ExpectedFailure, e.Reason
					break
				}
			}
		}
		out = append(out, r)
	}
	for _, e := range list {
		j := judgeExpectation(e, results)
		if j.Status != Stale {
			continue
		}
		stale := ScenarioResult{Feature: ExpectationsFeature, Line: e.Line, Name: "expected failure entry: " + e.String(), Lang: "all",
			Requirement: e.Requirement, Status: Failed}
		for _, r := range results {
			if e.Matches(r) {
				stale.Kind = r.Kind
				if stale.Requirement == "" {
					stale.Requirement = r.Requirement
				}
				break
			}
		}
		where := ""
		if e.Line > 0 {
			where = fmt.Sprintf(" (line %d)", e.Line)
		}
		stale.Error = fmt.Sprintf("stale expected failure: the entry for %s%s declares a failure, but %s passed; "+
			"the deviation is gone: remove the entry from the --expected-failures file", e, where, passedCount(j.Scenarios))
		out = append(out, stale)
	}
	return out
}

// passedCount says that n scenarios passed, all of them.
func passedCount(n int) string {
	if n == 1 {
		return "its 1 selected scenario"
	}
	return fmt.Sprintf("all %d of its selected scenarios", n)
}
