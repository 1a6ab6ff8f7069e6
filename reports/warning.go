package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/firmakit/firmakit/features"
)

// Warning is one thing a scenario saw that a careful certifier wants to
// know but that no sentence of the documents requires: a form the other
// side never sends read leniently, a redirect where a 4xx would be
// cleaner, a message worded otherwise, a format the documents show only
// by example. A scenario that passes with warnings passes; the run's
// verdict is PassedWithWarnings, and --strict makes each warning fail its
// scenario (Strict). Decided per assertion, not per scenario.
type Warning struct {
	// Step is the step that noted it, as written in the feature.
	Step string `json:"step,omitempty"`
	// Message says what was seen, e.g. `accepted the timestamp "+1763805600"`.
	Message string `json:"message"`
	// Basis is what the warning rests on: a ref of features.Items whose
	// sentence the target departs from without consequence ("defaults §A
	// check 2"), or "practice" when no sentence speaks of it.
	Basis string `json:"basis"`
	// Practice names the practice and why it is only a warning, e.g. "no
	// forgery or replay follows from it, but a strict parser (digits
	// only) is safer".
	Practice string `json:"practice"`
}

// BasisPractice is a Warning's Basis when no sentence of the documents
// speaks of what was seen: a common practice, not a rule.
const BasisPractice = "practice"

// String says the warning in a line: what was seen, then why it is a
// warning and what it rests on.
func (w Warning) String() string {
	basis := w.Basis
	if basis != BasisPractice {
		basis = Cite(basis)
	}
	return fmt.Sprintf("%s: %s (%s)", w.Message, w.Practice, basis)
}

// Cite says where a ref of features.Items stands in the documents, with
// its sentence cut short: `defaults §A check 2: "timestamp not a base-10
// integer, or more than 300 s away…"`. An unknown ref is returned as is.
func Cite(ref string) string {
	text, ok := features.ItemText(ref)
	if !ok {
		return ref
	}
	return fmt.Sprintf("%s: %q", ref, Clip(text, 110))
}

// WarningGroup is the warnings of a run that share a basis and a
// practice, for the recap and the reports.
type WarningGroup struct {
	Basis    string `json:"basis"`
	Practice string `json:"practice"`
	// Requirements are the requirement tags (without @) of the scenarios
	// that noted it, Scenarios how many, First the first one's message.
	Requirements []string `json:"requirements"`
	Scenarios    int      `json:"scenarios"`
	First        string   `json:"first"`
}

// WarningGroups groups the warnings of results by basis and practice, in
// the order of their bases.
func WarningGroups(results []ScenarioResult) []WarningGroup {
	by := map[string]*WarningGroup{}
	var keys []string
	for _, r := range results {
		seen := map[string]bool{}
		for _, w := range r.Warnings {
			k := w.Basis + "\x00" + w.Practice
			g := by[k]
			if g == nil {
				g = &WarningGroup{Basis: w.Basis, Practice: w.Practice, First: w.Message, Requirements: []string{}}
				by[k] = g
				keys = append(keys, k)
			}
			if !seen[k] {
				seen[k] = true
				g.Scenarios++
			}
			if !contains(g.Requirements, r.Requirement) {
				g.Requirements = append(g.Requirements, r.Requirement)
			}
		}
	}
	sort.Strings(keys)
	out := make([]WarningGroup, 0, len(keys))
	for _, k := range keys {
		sort.Strings(by[k].Requirements)
		out = append(out, *by[k])
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Strict is the results of a --strict run: each scenario that passed with
// warnings failed instead, its warnings its error, for teams that want the
// profile's letter. Other results are unchanged.
func Strict(results []ScenarioResult) []ScenarioResult {
	out := append([]ScenarioResult(nil), results...)
	for i, r := range out {
		if r.Status != Passed || len(r.Warnings) == 0 {
			continue
		}
		var lines []string
		for _, w := range r.Warnings {
			lines = append(lines, w.String())
		}
		out[i].Status, out[i].FailedStep = Failed, r.Warnings[0].Step
		out[i].Error = "--strict: " + strings.Join(lines, "; ")
		if r.Warnings[0].Basis != BasisPractice {
			out[i].Breaks = r.Warnings[0].Basis
		}
	}
	return out
}
