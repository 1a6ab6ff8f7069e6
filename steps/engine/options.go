package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
)

// RunOptions are what a run of either suite is asked, the same for the
// service suite (Suite) and the webhook endpoint suite (package
// steps/webhook), which embed them: which scenarios, how godog runs and
// shows them, who is told of each result, and the run's bound. Their
// methods read the last run's results, which both suites keep alike.
type RunOptions struct {
	// Lang is "es", "en" or "all" (default).
	Lang string
	// Tags is a godog tag expression, e.g. "~@reference" or "@WH-STATE".
	Tags string
	// Concurrency is how many scenarios run at once; each suite has its
	// default (Suite: 64, the webhook suite: 4).
	Concurrency int
	// Format is a godog format list, e.g. "progress" or
	// "pretty,junit:out/junit.xml,cucumber:out/cucumber.json".
	Format string
	Output io.Writer
	// Randomize orders scenarios at random with this seed; 0 keeps the
	// file order, -1 picks a seed.
	Randomize int64
	// Options, when set, changes godog's options of the run (not of the
	// reruns of inconclusive scenarios): a test sets TestingT there to
	// run each scenario as a subtest.
	Options func(*godog.Options)
	// Progress, when set, gets one line per scenario as it finishes (each
	// result in a single Write, so a writer shared with other output keeps
	// the lines whole).
	Progress io.Writer
	// OnResult, when set, is called after each result is filed, with the
	// run's counts so far. A scenario run again replaces its earlier
	// result, so Done counts each row once.
	OnResult func(r reports.ScenarioResult, p Progress)
	// Deadline, when set, bounds the run, reruns and checks after them
	// included. When it passes, what is running ends and nothing more
	// starts; every scenario not judged by then is inconclusive, never
	// failed nor passed, and OutOfTime tells so.
	Deadline time.Time

	// The last run's result log.
	mu        sync.Mutex
	results   []reports.ScenarioResult
	selected  int
	outOfTime bool
}

// Progress is how far a run has got, for a progress display.
type Progress struct {
	// Done is how many results are filed, Total how many the run will
	// file: the scenarios selected, and the run's ledger once it is being
	// checked.
	Done, Total int
	// The results filed so far, by status.
	Failed, Inconclusive, NotRun int
}

// OutOfTime tells whether the last run's Deadline passed before it ended:
// its inconclusive results then include what was not judged for want of
// time.
func (o *RunOptions) OutOfTime() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.outOfTime
}

// RunContext is the context of what a run sends or waits for outside its
// scenarios (a probe before them, a check after), to be cancelled when
// the run ends: it ends at Deadline, as the scenarios' own contexts do,
// so that nothing of a run outlives its bound.
func (o *RunOptions) RunContext() (context.Context, context.CancelFunc) {
	if o.Deadline.IsZero() {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), o.Deadline)
}

func (o *RunOptions) setOutOfTime(v bool) {
	o.mu.Lock()
	o.outOfTime = v
	o.mu.Unlock()
}

// reset empties the log for a run of selected scenarios.
func (o *RunOptions) reset(selected int) {
	o.mu.Lock()
	o.results, o.selected = nil, selected
	o.mu.Unlock()
}

// NoteResult files a result, tells OnResult and writes its Progress line.
func (o *RunOptions) NoteResult(r reports.ScenarioResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.results = append(o.results, r)
	if o.OnResult != nil {
		sum := reports.Summarize(o.results)
		o.OnResult(r, Progress{Done: len(o.results), Total: max(o.selected, len(o.results)),
			Failed: sum.Failed, Inconclusive: sum.Inconclusive, NotRun: sum.NotRun})
	}
	if o.Progress == nil {
		return
	}
	mark := map[string]string{reports.Passed: "ok", reports.Failed: "FAIL", reports.NotRun: "not run", reports.Inconclusive: "INCONCLUSIVE"}[r.Status]
	if mark == "" {
		mark = r.Status
	}
	if r.Status == reports.Passed && len(r.Warnings) > 0 {
		mark = "WARN"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %s  @%-38s %s\n", mark, r.Lang, r.Requirement, r.Name)
	if r.Example != "" {
		fmt.Fprintf(&b, "        (%s)\n", r.Example)
	}
	switch r.Status {
	case reports.Failed, reports.Inconclusive:
		fmt.Fprintf(&b, "        step: %s\n        %s\n", r.FailedStep, strings.ReplaceAll(r.Error, "\n", "\n        "))
	case reports.NotRun:
		if r.Error != "" {
			fmt.Fprintf(&b, "        %s\n", r.Error)
		}
	case reports.Passed:
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "        warning: %s\n", firmakit.EscapeText(w.String()))
		}
	}
	// The excerpts in the error are escaped already; this escapes what
	// else may have come from outside, keeping the lines laid out here.
	io.WriteString(o.Progress, firmakit.EscapeTextLines(b.String()))
}

// inconclusive splits the log's results into the inconclusive ones and
// the rest.
func (o *RunOptions) inconclusive() (again, keep []reports.ScenarioResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	keep = o.results[:0:0]
	for _, r := range o.results {
		if r.Status == reports.Inconclusive {
			again = append(again, r)
		} else {
			keep = append(keep, r)
		}
	}
	return again, keep
}

// Results returns the outcome of every scenario of the last run, in the
// order of the feature files (by file, then by line).
func (o *RunOptions) Results() []reports.ScenarioResult {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := append([]reports.ScenarioResult(nil), o.results...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Feature != out[j].Feature {
			return out[i].Feature < out[j].Feature
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Count returns how many scenarios of the last run ended with status.
func (o *RunOptions) Count(status string) int {
	n := 0
	for _, r := range o.Results() {
		if r.Status == status {
			n++
		}
	}
	return n
}

// Verdict is the last run's verdict (reports.Verdict): passed, failed,
// inconclusive or incomplete.
func (o *RunOptions) Verdict() string { return reports.Verdict(o.Results()) }

// VerdictLine says the last run's verdict and what to do about it, e.g.
// "verdict: incomplete: 2 of 9 scenarios not run; give --disabled-key
// and --disabled-secret, or leave them out with --tags
// '~@needs-disabled-credential'". Print it just before Summary.
func (o *RunOptions) VerdictLine() string { return "verdict: " + reports.Explain(o.Tags, o.Results()) }

// Summary is the run's outcome in one line: "firmakit: N scenarios: N
// passed, N failed, N not run", then ", N inconclusive" when there are
// any. Unlike godog's own summary, it never counts a scenario that was not
// run as passed.
func (o *RunOptions) Summary() string {
	return "firmakit: " + reports.Summarize(o.Results()).String()
}

// NotRun says which scenarios were not run, why, and how to leave them
// out, one line per reason (reports.NotRunGroup.String).
func (o *RunOptions) NotRun() []string {
	var out []string
	for _, g := range reports.NotRunGroups(o.Tags, o.Results()) {
		out = append(out, g.String())
	}
	return out
}

// Describe says a selection: "features es+en, tags "…", concurrency N",
// after set, what names the feature set (a suite's String).
func (o *RunOptions) Describe(set string) string {
	paths, _ := Paths(o.Lang)
	return fmt.Sprintf("%s %s, tags %q, concurrency %d", set, strings.Join(paths, "+"), o.Tags, o.Concurrency)
}
