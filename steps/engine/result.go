package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// Outcome is what a suite noted while a scenario's steps ran, beyond the
// error the last of them returned: what Result needs to build the
// scenario's result.
type Outcome struct {
	// NotRun says why the scenario could not run against this target (a
	// step returned godog.ErrSkip for it).
	NotRun string
	// Inconclusive says why a check could not be judged, at
	// InconclusiveStep, kept from a verdict by InconclusiveKind when
	// known (an unreachable target); InconclusiveFacts are its facts,
	// when written with Describe.
	Inconclusive      string
	InconclusiveStep  string
	InconclusiveKind  reports.FailureKind
	InconclusiveFacts *reports.Facts
	// FailedStep is the text of the step that failed, when one did.
	FailedStep string
	Warnings   []reports.Warning
}

// Result is what a scenario came to, from the error its steps ended with
// and what its suite noted: inconclusive when a check could not be
// judged and nothing failed; failed, citing its breach (Breaks), when a
// step failed; not run when a step cut it short (godog.ErrSkip), which
// godog counts as passed and a result never does; passed otherwise. An
// outline's row says which (Example: its setup steps).
func Result(p *godog.Scenario, err error, o Outcome) reports.ScenarioResult {
	uri, _, _ := strings.Cut(p.Uri, ":") // a rerun names the scenario's line
	r := reports.ScenarioResult{Feature: uri, Name: p.Name, Lang: strings.SplitN(uri, "/", 2)[0], Status: reports.Passed}
	if len(p.AstNodeIds) > 1 { // a row of an outline: say which
		var setup []string
		for _, st := range p.Steps {
			if st.Type == messages.PickleStepType_CONTEXT {
				setup = append(setup, st.Text)
			}
		}
		r.Example = strings.Join(setup, "; ")
	}
	ClassifyTags(&r, p.Tags)
	skipped := errors.Is(err, godog.ErrSkip)
	switch {
	case o.Inconclusive != "" && (err == nil || skipped):
		r.Status, r.Error, r.FailedStep, r.FailureKind = reports.Inconclusive, o.Inconclusive, o.InconclusiveStep, o.InconclusiveKind
		r.Facts = withStep(o.InconclusiveFacts, o.InconclusiveStep)
	case err != nil && !skipped:
		r.Status, r.Error, r.Breaks, r.FailureKind = reports.Failed, err.Error(), BreachOf(err), FailureKindOf(err)
		r.FailedStep = o.FailedStep
		r.Facts = withStep(FactsOf(err), o.FailedStep)
	case skipped || o.NotRun != "":
		r.Status, r.Error = reports.NotRun, o.NotRun
	}
	r.Warnings = o.Warnings
	return r
}

// ClassifyTags sets a result's requirement, kind and need tags from its
// scenario's tags; a need tag is never taken for the requirement.
func ClassifyTags(r *reports.ScenarioResult, tags []*messages.PickleTag) {
	for _, t := range tags {
		name := strings.TrimPrefix(t.Name, "@")
		switch features.ClassifyTag(name) {
		case features.KindTag:
			r.Kind = name
		case features.NeedTag:
			r.Needs = append(r.Needs, name)
		default:
			r.Requirement = name
		}
	}
}

// PickleKey names a scenario, or an outline's row, of a run: its file,
// its name and its steps with their arguments. Pass.Place and an
// Initializer's only go by it.
func PickleKey(p *messages.Pickle) string {
	var b strings.Builder
	uri, _, _ := strings.Cut(p.Uri, ":") // a rerun names the scenario's line
	b.WriteString(uri + "\x00" + p.Name)
	for _, st := range p.Steps {
		b.WriteString("\x00" + st.Text)
		if st.Argument != nil && st.Argument.DocString != nil {
			b.WriteString("\x01" + st.Argument.DocString.Content)
		}
		if st.Argument != nil && st.Argument.DataTable != nil {
			for _, r := range st.Argument.DataTable.Rows {
				for _, c := range r.Cells {
					b.WriteString("\x02" + c.Value)
				}
			}
		}
	}
	return b.String()
}

// RowKey names one scenario or outline row of a result.
func RowKey(r reports.ScenarioResult) string {
	return fmt.Sprintf("%s\x00%s\x00%d", r.Feature, r.Name, r.Line)
}

// withStep is f with the shape of the step that failed (StepShape); nil
// when f is.
func withStep(f *reports.Facts, step string) *reports.Facts {
	if f == nil {
		return nil
	}
	f.Step = StepShape(step)
	return f
}
