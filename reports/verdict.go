package reports

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/firmakit/firmakit/features"
)

// Verdict is a run's outcome from its scenario results: Failed if any
// scenario failed; else Inconclusive if any was inconclusive; else
// Incomplete if any was not run, or if there are no results at all (a run
// that checked nothing proves nothing); else PassedWithExpectedFailures
// if any was an expected failure; else PassedWithWarnings if any passed
// with warnings; else Passed. The command line, the
// certificate, the HTML report and the JUnit XML all take it from here.
func Verdict(results []ScenarioResult) string {
	s := Summarize(results)
	switch {
	case s.Failed > 0:
		return Failed
	case s.Inconclusive > 0:
		return Inconclusive
	case s.NotRun > 0 || s.Scenarios == 0:
		return Incomplete
	case s.ExpectedFailures > 0:
		return PassedWithExpectedFailures
	case s.Warned > 0:
		return PassedWithWarnings
	}
	return Passed
}

// Summarize counts results by status. A status other than passed, failed,
// inconclusive and expected failure counts as not run, never as passed.
func Summarize(results []ScenarioResult) Summary {
	s := Summary{Scenarios: len(results)}
	for _, r := range results {
		switch r.Status {
		case Passed:
			s.Passed++
			if len(r.Warnings) > 0 {
				s.Warned++
				s.Warnings += len(r.Warnings)
			}
		case Failed:
			s.Failed++
		case Inconclusive:
			s.Inconclusive++
		case ExpectedFailure:
			s.ExpectedFailures++
		default:
			s.NotRun++
		}
	}
	return s
}

// String counts in a line: "N scenarios: N passed, N failed, N not run",
// then ", N expected failures", ", N inconclusive" and ", N with warnings"
// when there are any.
func (s Summary) String() string {
	line := fmt.Sprintf("%d scenarios: %d passed, %d failed, %d not run", s.Scenarios, s.Passed, s.Failed, s.NotRun)
	if s.ExpectedFailures > 0 {
		line += ", " + expectedIn("en", s.ExpectedFailures)
	}
	if s.Inconclusive > 0 {
		line += fmt.Sprintf(", %d inconclusive", s.Inconclusive)
	}
	if s.Warned > 0 {
		line += fmt.Sprintf(", %d with warnings", s.Warned)
	}
	return line
}

// NotRunGroup is the scenarios of a run not run for one reason.
type NotRunGroup struct {
	Reason       string   `json:"reason"`
	Scenarios    int      `json:"scenarios"`
	Requirements []string `json:"requirements"` // their requirement tags, without @
	// Needs are the need tags every scenario of the group carries (without
	// @), Flags the firmakit certify flags that give what they need.
	Needs []string `json:"needs"`
	Flags []string `json:"flags"`
	// LeaveOut is the --tags expression that selects what the run
	// selected, less these scenarios.
	LeaveOut string `json:"leave_out"`
}

// String says the group in a line: how many, why, and how to leave them
// out, e.g. "2 scenarios not run: no disabled credential given
// (--disabled-key, --disabled-secret); to leave them out: --tags
// '~@needs-disabled-credential'".
func (g NotRunGroup) String() string {
	return fmt.Sprintf("%s not run: %s; to leave them out: --tags '%s'", scenarios(g.Scenarios), g.Reason, g.LeaveOut)
}

// NotRunGroups groups the results not run by reason, in the order of the
// reasons. tags is the run's tag expression, which each group's LeaveOut
// narrows.
func NotRunGroups(tags string, results []ScenarioResult) []NotRunGroup {
	byReason := map[string]*NotRunGroup{}
	needCount := map[string]map[string]int{}
	var reasons []string
	for _, r := range results {
		if s := Summarize([]ScenarioResult{r}); s.NotRun == 0 {
			continue
		}
		reason := r.Error
		if reason == "" {
			reason = "no reason given"
		}
		g := byReason[reason]
		if g == nil {
			g = &NotRunGroup{Reason: reason, Requirements: []string{}, Needs: []string{}, Flags: []string{}}
			byReason[reason], needCount[reason] = g, map[string]int{}
			reasons = append(reasons, reason)
		}
		g.Scenarios++
		if !slices.Contains(g.Requirements, r.Requirement) {
			g.Requirements = append(g.Requirements, r.Requirement)
		}
		for _, n := range r.Needs {
			needCount[reason][n]++
		}
	}
	sort.Strings(reasons)
	var out []NotRunGroup
	for _, reason := range reasons {
		g := byReason[reason]
		sort.Strings(g.Requirements)
		for n, c := range needCount[reason] {
			if c == g.Scenarios {
				g.Needs = append(g.Needs, n)
			}
		}
		sort.Strings(g.Needs)
		leave := g.Needs
		if len(leave) == 0 {
			leave = g.Requirements
		}
		for _, n := range g.Needs {
			if need, ok := features.NeedOf(n); ok {
				g.Flags = append(g.Flags, need.Flags...)
			}
		}
		g.LeaveOut = LeaveOut(tags, leave...)
		out = append(out, *g)
	}
	return out
}

// LeaveOut returns a godog tag expression that selects what tags selects
// less the scenarios carrying any of leave (tags without @). godog reads
// && before ",", so "@a,@b && ~@c" is (@a or @b) and not @c.
func LeaveOut(tags string, leave ...string) string {
	var terms []string
	if strings.TrimSpace(tags) != "" {
		terms = append(terms, strings.TrimSpace(tags))
	}
	for _, t := range leave {
		// Two groups may leave out one requirement (rows not run for two
		// reasons): it is written once.
		if term := "~@" + strings.TrimPrefix(t, "@"); !slices.Contains(terms, term) {
			terms = append(terms, term)
		}
	}
	return strings.Join(terms, " && ")
}

// Explain says a run's verdict in one line, with what to do about it.
// tags is the run's tag expression, for the hint that leaves out what was
// not run.
func Explain(tags string, results []ScenarioResult) string {
	return ExplainIn("en", tags, results)
}

// ExplainIn is Explain in a language of ReportLangs ("en" or "es"); any
// other language gets English.
func ExplainIn(lang, tags string, results []ScenarioResult) string {
	s := Summarize(results)
	v := Verdict(results)
	var also []string
	if s.Inconclusive > 0 && v != Inconclusive {
		also = append(also, tr(lang, "explain.n.inconclusive", s.Inconclusive))
	}
	if s.NotRun > 0 && v != Incomplete {
		also = append(also, tr(lang, "explain.n.notrun", s.NotRun))
	}
	if s.ExpectedFailures > 0 && v != PassedWithExpectedFailures {
		also = append(also, expectedIn(lang, s.ExpectedFailures))
	}
	if s.Warnings > 0 && v != PassedWithWarnings {
		also = append(also, tr(lang, "explain.n.warnings", warningsIn(lang, s.Warnings), s.Warned))
	}
	more := ""
	if len(also) > 0 {
		more = tr(lang, "explain.also", strings.Join(also, ", "))
	}
	switch v {
	case Passed:
		return tr(lang, "explain.passed", s.Passed, s.Scenarios)
	case PassedWithWarnings:
		return tr(lang, "explain.passed.warnings", warningsIn(lang, s.Warnings), s.Passed, s.Scenarios, s.Warned, tagList(results, "warned"))
	case PassedWithExpectedFailures:
		return tr(lang, "explain.passed.expected", expectedIn(lang, s.ExpectedFailures), tagList(results, ExpectedFailure), s.Passed, s.Scenarios)
	case Failed:
		return tr(lang, "explain.failed", s.Failed, scenariosIn(lang, s.Scenarios), tagList(results, Failed), more)
	case Inconclusive:
		if outOfTime(results) {
			return tr(lang, "explain.inconclusive.time", s.Inconclusive, scenariosIn(lang, s.Scenarios), tagList(results, Inconclusive), more)
		}
		if unanswered(results) {
			return tr(lang, "explain.inconclusive.unanswered", s.Inconclusive, scenariosIn(lang, s.Scenarios), tagList(results, Inconclusive), more)
		}
		return tr(lang, "explain.inconclusive", s.Inconclusive, scenariosIn(lang, s.Scenarios), tagList(results, Inconclusive), more)
	}
	if s.Scenarios == 0 {
		return tr(lang, "explain.nothing")
	}
	groups := NotRunGroups(tags, results)
	var flags, leave []string
	for _, g := range groups {
		if len(g.Flags) > 0 {
			flags = append(flags, joinAnd(lang, g.Flags))
		}
		if len(g.Needs) > 0 {
			leave = append(leave, g.Needs...)
		} else {
			leave = append(leave, g.Requirements...)
		}
	}
	todo := ""
	if len(flags) > 0 {
		todo = tr(lang, "explain.give", strings.Join(flags, ", "))
	}
	return tr(lang, "explain.incomplete", s.NotRun, scenariosIn(lang, s.Scenarios), todo, LeaveOut(tags, leave...))
}

// NotJudgedInTime is the error of a scenario a run ended before judging,
// having reached its time bound (--max-duration).
const NotJudgedInTime = "not judged: the run reached its time bound (max duration) before this scenario ended"

// outOfTime tells whether every inconclusive result is one the run's time
// bound cut short: the verdict then says so, not that this process was
// late.
func outOfTime(results []ScenarioResult) bool {
	return everyInconclusive(results, func(r ScenarioResult) bool { return r.Error == NotJudgedInTime })
}

// unanswered tells whether every inconclusive result is one whose
// requests got no answer on any attempt (FailureUnreachable): nothing
// about timing kept them from a verdict.
func unanswered(results []ScenarioResult) bool {
	return everyInconclusive(results, func(r ScenarioResult) bool { return r.FailureKind == FailureUnreachable })
}

// everyInconclusive tells whether there is an inconclusive result and
// each is one of.
func everyInconclusive(results []ScenarioResult, of func(ScenarioResult) bool) bool {
	n := 0
	for _, r := range results {
		if r.Status == Inconclusive {
			if !of(r) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// tagList names the requirement tags of the results with status, or,
// for "warned", of those that passed with warnings.
func tagList(results []ScenarioResult, status string) string {
	var tags []string
	for _, r := range results {
		match := r.Status == status || (status == "warned" && r.Status == Passed && len(r.Warnings) > 0)
		if match && !slices.Contains(tags, "@"+r.Requirement) {
			tags = append(tags, "@"+r.Requirement)
		}
	}
	sort.Strings(tags)
	return strings.Join(tags, ", ")
}

func scenarios(n int) string {
	if n == 1 {
		return "1 scenario"
	}
	return fmt.Sprintf("%d scenarios", n)
}
