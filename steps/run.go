package steps

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// Suite runs the conformance suite against a target.
type Suite struct {
	Target *Target
	// Lang is "es", "en" or "all" (default).
	Lang string
	// Tags is a godog tag expression, e.g. "~@reference".
	Tags string
	// Concurrency is how many scenarios run at once (default 64): the
	// demo scenarios mostly wait, so they overlap. Those that wait longest
	// on the delivery schedule start first, so that the others run while
	// they wait (schedule.go).
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
	// run's counts so far. A scenario run again (see Run) replaces its
	// earlier result, so Done counts each row once.
	OnResult func(r reports.ScenarioResult, p Progress)
	// Deadline, when set, bounds the run, reruns and the ledger's check
	// included. When it passes, what is running ends and nothing more
	// starts; every scenario not judged by then is inconclusive, never
	// failed nor passed, and OutOfTime tells so.
	Deadline time.Time

	mu        sync.Mutex
	results   []reports.ScenarioResult
	selected  int
	outOfTime bool
	// lag, when set (tests), stands in for the run's own lag monitor.
	lag *LagMonitor
	// extend, when set, adds to every scenario's context after the steps
	// are bound: tests use it to stand in for steps that note things.
	extend func(*godog.ScenarioContext)
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

// observationsKey holds, in a running scenario's context, what its steps
// noted for the reports (see NoteTiming).
type observationsKey struct{}

type observations struct {
	mu           sync.Mutex
	timings      []reports.Timing
	signatureIDs []string
	eventIDs     []string
}

func observed(ctx context.Context) *observations {
	o, _ := ctx.Value(observationsKey{}).(*observations)
	return o
}

// NoteTiming notes, for the result of the scenario running in ctx, that a
// notification labelled label (its state, e.g. "SIGNED"; "SIGNED,
// delivered again" for a retry) reached the suite's receiver after201
// after the 201 that created its contract was seen. The result carries it
// as reports.ScenarioResult.Timings, and report.html draws it on its
// timeline. Outside a scenario run by Suite.Run it does nothing.
func NoteTiming(ctx context.Context, label string, after201 time.Duration) {
	if o := observed(ctx); o != nil {
		o.mu.Lock()
		o.timings = append(o.timings, reports.Timing{Label: label, After201: after201})
		o.mu.Unlock()
	}
}

// NoteSignatureID notes a signature_id the scenario running in ctx
// created (reports.ScenarioResult.SignatureIDs); the certificate lists
// every one of the run. Outside a scenario run by Suite.Run it does
// nothing.
func NoteSignatureID(ctx context.Context, id string) {
	if o := observed(ctx); o != nil && id != "" {
		o.mu.Lock()
		o.signatureIDs = append(o.signatureIDs, id)
		o.mu.Unlock()
	}
}

// NoteEventID notes the event_id of a notification the scenario running
// in ctx received (reports.ScenarioResult.EventIDs); the certificate
// lists every one of the run. Outside a scenario run by Suite.Run it does
// nothing.
func NoteEventID(ctx context.Context, id string) {
	if o := observed(ctx); o != nil && id != "" {
		o.mu.Lock()
		o.eventIDs = append(o.eventIDs, id)
		o.mu.Unlock()
	}
}

// fill copies what the steps noted into a scenario's result.
func (o *observations) fill(r *reports.ScenarioResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r.Timings = append(r.Timings, o.timings...)
	r.SignatureIDs = append(r.SignatureIDs, o.signatureIDs...)
	r.EventIDs = append(r.EventIDs, o.eventIDs...)
}

// Paths returns the feature folders of a language selection.
func Paths(lang string) ([]string, error) {
	switch lang {
	case "", "all":
		return []string{"es", "en"}, nil
	case "es", "en":
		return []string{lang}, nil
	}
	return nil, fmt.Errorf("language %q: want es, en or all", lang)
}

// Run runs the suite and returns godog's status: 0 when no selected
// scenario failed, 1 otherwise. A scenario not run or inconclusive does
// not make it 1: Verdict says what the run came to, and is what to act on.
//
// Before anything runs, it returns a *SelectionError (see Select) when the
// language and tags select nothing to run, and a plain error when the
// target lacks what every scenario needs.
func (s *Suite) Run() (int, error) {
	paths, selected, err := s.prepare()
	if err != nil {
		return 2, err
	}
	s.mu.Lock()
	s.results, s.selected = nil, len(selected)
	s.mu.Unlock()
	lag := s.lag
	if lag == nil {
		lag = StartLagMonitor()
		defer lag.Stop()
	}
	ledger := NewLedger(time.Now())
	p, err := newPass(s, features.ServiceSet, s.Tags, selected)
	if err != nil {
		return 2, err
	}
	p.bound(s.Deadline)
	defer p.end()
	// godog starts scenarios in its own order; handed every one at once,
	// it leaves the order to a gate of Concurrency slots that starts the
	// longest waits first (schedule.go).
	concurrency, g := s.Concurrency, (*gate)(nil)
	if concurrency > 1 && len(selected) > concurrency {
		concurrency, g = len(selected), newGate(s.Concurrency)
	}
	p.init = s.initializer(p, lag, ledger, g)
	o := p.options(paths, s.Format, s.Output, concurrency, s.Randomize)
	if s.Options != nil {
		s.Options(o)
	}
	status := p.run("firmakit", o)
	// Twice at most: a passing spike of load should not decide a verdict.
	for round := 0; round < rerunRounds; round++ {
		if err := p.rerunInconclusive("firmakit-rerun"); err != nil {
			return 2, err
		}
	}
	if ledger.Len() > 0 {
		ctx := context.Background()
		if p.ctx != nil {
			ctx = p.ctx
		}
		s.noteResult(p.judged(ledger.Check(ctx, s.Target, lag, s.Target.SharedClock)))
	}
	return p.status(status), nil
}

// OutOfTime tells whether the last run's Deadline passed before it ended:
// its inconclusive results then include what was not judged for want of
// time.
func (s *Suite) OutOfTime() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outOfTime
}

func (s *Suite) setOutOfTime(v bool) {
	s.mu.Lock()
	s.outOfTime = v
	s.mu.Unlock()
}

// prepare checks the target and selects the scenarios before anything
// runs, and sets the defaults of what was left unset.
func (s *Suite) prepare() ([]string, []pickled, error) {
	if err := s.Target.Validate(); err != nil {
		return nil, nil, err
	}
	paths, err := Paths(s.Lang)
	if err != nil {
		return nil, nil, err
	}
	selected, err := selectPickles(s.Lang, s.Tags)
	if err != nil {
		return nil, nil, err
	}
	if s.Concurrency <= 0 {
		s.Concurrency = 64
	}
	if s.Format == "" {
		s.Format = "progress"
	}
	if s.Target.APIVersion == "" {
		s.Target.APIVersion = "v1"
	}
	return paths, selected, nil
}

// initializer gives each scenario its own steps, clock and observations,
// on the run's lag monitor and ledger.
// A gate, when not nil, starts the scenarios of the first run (not of the
// reruns, which go one at a time).
func (s *Suite) initializer(p *pass, lag *LagMonitor, ledger *Ledger, g *gate) func(func(reports.ScenarioResult), map[string]bool) func(*godog.ScenarioContext) {
	var waits []stepWait
	if g != nil {
		waits = scheduleWaits(s.Target.Profile)
	}
	return func(sink func(reports.ScenarioResult), only map[string]bool) func(*godog.ScenarioContext) {
		return func(sc *godog.ScenarioContext) {
			// godog calls this once per scenario, so each gets its own
			// clock and its own pickle.
			var start time.Time
			var key string
			leave := func() {}
			obs := &observations{}
			sc.Before(func(ctx context.Context, sp *godog.Scenario) (context.Context, error) {
				start, key = time.Now(), pickleKey(sp)
				if only != nil && !only[key] {
					return ctx, godog.ErrSkip
				}
				if g != nil && only == nil {
					var err error
					if leave, err = g.enter(ctx, scheduleWait(waits, sp)); err != nil {
						return ctx, godog.ErrSkip // the run's deadline passed
					}
					start = time.Now()
				}
				if err := p.started(); err != nil {
					return ctx, err
				}
				return context.WithValue(ctx, observationsKey{}, obs), nil
			})
			st := &Steps{T: s.Target, Lag: lag, Ledger: ledger, Done: func(r reports.ScenarioResult) {
				leave()
				r.Duration = time.Since(start)
				obs.fill(&r)
				p.place(&r, key)
				sink(r)
			}}
			st.InitializeScenario(sc)
			if s.extend != nil {
				s.extend(sc)
			}
		}
	}
}

// rerunRounds is how many times inconclusive rows are run again alone.
const rerunRounds = 2

// rowKey names one scenario or outline row of a result.
func rowKey(r reports.ScenarioResult) string {
	return fmt.Sprintf("%s\x00%s\x00%d", r.Feature, r.Name, r.Line)
}

// unran is the result of a selected scenario that godog did not run.
func unran(p pickled) reports.ScenarioResult {
	r := planned(p)
	r.Status, r.Error = reports.NotRun, "selected, but godog did not run it"
	return r
}

// planned is a selected scenario as a result with no status yet: where it
// is, its name and row, its language and tags.
func planned(p pickled) reports.ScenarioResult {
	r := reports.ScenarioResult{Feature: p.pickle.Uri, Line: p.line, Name: p.pickle.Name, Row: p.row,
		Lang: strings.SplitN(p.pickle.Uri, "/", 2)[0]}
	classifyTags(&r, p.pickle.Tags)
	return r
}

// classifyTags sets a result's requirement, kind and need tags from its
// scenario's tags; a need tag is never taken for the requirement.
func classifyTags(r *reports.ScenarioResult, tags []*messages.PickleTag) {
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

func (s *Suite) noteResult(r reports.ScenarioResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = append(s.results, r)
	if s.OnResult != nil {
		sum := reports.Summarize(s.results)
		s.OnResult(r, Progress{Done: len(s.results), Total: max(s.selected, len(s.results)),
			Failed: sum.Failed, Inconclusive: sum.Inconclusive, NotRun: sum.NotRun})
	}
	if s.Progress == nil {
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
	io.WriteString(s.Progress, firmakit.EscapeTextLines(b.String()))
}

// Results returns the outcome of every scenario of the last run, in the
// order of the feature files (by file, then by line).
func (s *Suite) Results() []reports.ScenarioResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]reports.ScenarioResult(nil), s.results...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Feature != out[j].Feature {
			return out[i].Feature < out[j].Feature
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Count returns how many scenarios of the last run ended with status.
func (s *Suite) Count(status string) int {
	n := 0
	for _, r := range s.Results() {
		if r.Status == status {
			n++
		}
	}
	return n
}

// Verdict is the last run's verdict (reports.Verdict): passed, failed,
// inconclusive or incomplete.
func (s *Suite) Verdict() string { return reports.Verdict(s.Results()) }

// VerdictLine says the last run's verdict and what to do about it, e.g.
// "verdict: incomplete: 2 of 9 scenarios not run; give --disabled-key
// and --disabled-secret, or leave them out with --tags
// '~@needs-disabled-credential'". Print it just before Summary.
func (s *Suite) VerdictLine() string { return "verdict: " + reports.Explain(s.Tags, s.Results()) }

// Summary is the run's outcome in one line: "firmakit: N scenarios: N
// passed, N failed, N not run", then ", N inconclusive" when there are
// any. Unlike godog's own summary, it never counts a scenario that was not
// run as passed.
func (s *Suite) Summary() string {
	return "firmakit: " + reports.Summarize(s.Results()).String()
}

// NotRun says which scenarios were not run, why, and how to leave them
// out, one line per reason (reports.NotRunGroup.String).
func (s *Suite) NotRun() []string {
	var out []string
	for _, g := range reports.NotRunGroups(s.Tags, s.Results()) {
		out = append(out, g.String())
	}
	return out
}

// String describes the suite's selection.
func (s *Suite) String() string {
	paths, _ := Paths(s.Lang)
	return fmt.Sprintf("features %s, tags %q, concurrency %d", strings.Join(paths, "+"), s.Tags, s.Concurrency)
}
