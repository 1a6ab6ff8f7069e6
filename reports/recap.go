package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/firmakit/firmakit"
)

// WriteRecap sums up, at the end of a run's output, what did not pass, in
// a few lines however many scenarios failed: per requirement that did not
// pass, its count and first error; per requirement whose failures were
// expected, its count and the reason given; then the warnings of the
// scenarios that passed. width is the terminal's, which bounds each line
// (0: off a terminal, 240 characters). Every line is one line of output,
// whatever a target sent: Clip escapes what would break it.
// WriteLikelyCauses follows it.
func WriteRecap(w io.Writer, results []ScenarioResult, width int) {
	clip := func(s string) string {
		if width > 0 {
			return Clip(s, width-1)
		}
		return Clip(s, 240)
	}
	for _, status := range []string{Failed, Inconclusive, ExpectedFailure} {
		type req struct {
			tag   string
			n     int
			first ScenarioResult
		}
		var order []*req
		byTag := map[string]*req{}
		runs := 0
		for _, r := range results {
			if r.Status != status {
				continue
			}
			runs++
			key := r.Requirement + "\x00" + r.ExpectedReason
			q := byTag[key]
			if q == nil {
				q = &req{tag: r.Requirement, first: r}
				byTag[key] = q
				order = append(order, q)
			}
			q.n++
		}
		if len(order) == 0 {
			continue
		}
		what := map[string]string{Failed: "failed", Inconclusive: "inconclusive",
			ExpectedFailure: "expected failures, declared with --expected-failures (they do not fail the run)"}[status]
		tags := map[string]bool{}
		for _, q := range order {
			tags[q.tag] = true
		}
		fmt.Fprintf(w, "%s: %s, %s\n", what, count(len(tags), "requirement"), count(runs, "scenario run"))
		pad := 0
		for _, q := range order {
			pad = max(pad, len(q.tag)+1)
		}
		for _, q := range order {
			why := Short(q.first)
			if status == ExpectedFailure {
				why = "expected: " + q.first.ExpectedReason
			}
			fmt.Fprintln(w, clip(fmt.Sprintf("  %-*s %4d  %s", pad, "@"+q.tag, q.n, why)))
		}
	}
	recapWarnings(w, results, clip)
}

// recapWarnings sums up the warnings of the scenarios that passed,
// grouped by what they rest on and the practice (WarningGroups): per
// group, its requirements, how many scenarios noted it and the first
// one's message, why it is only a warning, and the sentence of the
// documents or the practice behind it. Under --strict there are none: they
// are failures, recapped above.
func recapWarnings(w io.Writer, results []ScenarioResult, clip func(string) string) {
	var passed []ScenarioResult
	for _, r := range results {
		if r.Status == Passed && len(r.Warnings) > 0 {
			passed = append(passed, r)
		}
	}
	if len(passed) == 0 {
		return
	}
	s := Summarize(results)
	fmt.Fprintf(w, "warnings: %d in %s; they do not fail the run (--strict makes them fail)\n", s.Warnings, count(s.Warned, "scenario"))
	groups := WarningGroups(passed)
	tags := make([]string, len(groups))
	pad := 0
	for i, g := range groups {
		tags[i] = "@" + strings.Join(g.Requirements, ",@")
		pad = min(max(pad, len(tags[i])), 32)
	}
	for i, g := range groups {
		fmt.Fprintln(w, clip(fmt.Sprintf("  %-*s %4d  %s", pad, tags[i], g.Scenarios, g.First)))
		fmt.Fprintln(w, clip("      why only a warning: "+g.Practice))
		if g.Basis == BasisPractice {
			fmt.Fprintln(w, clip("      rests on: a practice; no sentence of the documents requires it"))
		} else {
			fmt.Fprintln(w, clip("      rests on: "+Cite(g.Basis)))
		}
	}
}

// WriteLikelyCauses says, after the recap of a run against the service,
// the likely cause of each group of failures that Causes recognises, a
// line each. The lines are whole, even on a terminal: the hint is the
// point.
func WriteLikelyCauses(w io.Writer, results []ScenarioResult) {
	for _, c := range Causes(results) {
		// A rule's kind names the part of the documents broken, not a
		// likely cause: the report explains it, the recap does not.
		if c.Diagnosis != "" && !FailureKind(c.Diagnosis).ByFacts() {
			what := "failure"
			if c.Status == Inconclusive {
				what = "inconclusive result"
			}
			fmt.Fprintf(w, "likely cause of %s: %s\n", count(c.Results, what), firmakit.EscapeText(c.Explanation))
		}
	}
}
