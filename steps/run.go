package steps

import (
	"context"
	"sync"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Suite runs the conformance suite against a target. Its Concurrency
// defaults to 64: the demo scenarios mostly wait, so they overlap. Those
// that wait longest on the delivery schedule start first, so that the
// others run while they wait (schedule.go). Its Deadline bounds the
// run's ledger check too.
type Suite struct {
	Target *Target
	engine.RunOptions

	// lag, when set (tests), stands in for the run's own lag monitor.
	lag *engine.LagMonitor
	// extend, when set, adds to every scenario's context after the steps
	// are bound: tests use it to stand in for steps that note things.
	extend func(*godog.ScenarioContext)
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

// Run runs the suite and returns godog's status: 0 when no selected
// scenario failed, 1 otherwise. A scenario not run or inconclusive does
// not make it 1: Verdict says what the run came to, and is what to act on.
//
// Before anything runs, it returns a *SelectionError (see Select) when the
// language and tags select nothing to run, and a plain error when the
// target lacks what every scenario needs.
func (s *Suite) Run() (int, error) {
	sel, err := s.prepare()
	if err != nil {
		return 2, err
	}
	lag := s.lag
	if lag == nil {
		lag = engine.StartLagMonitor()
		defer lag.Stop()
	}
	ledger := NewLedger(time.Now())
	p, err := s.Start(sel)
	if err != nil {
		return 2, err
	}
	defer p.End()
	// godog starts scenarios in its own order; handed every one at once,
	// it leaves the order to a gate of Concurrency slots that starts the
	// longest waits first (schedule.go).
	concurrency, g := s.Concurrency, (*engine.Gate)(nil)
	if concurrency > 1 && sel.Len() > concurrency {
		concurrency, g = sel.Len(), engine.NewGate(s.Concurrency)
	}
	status := p.Run("firmakit", concurrency, s.initializer(p, lag, ledger, g))
	// Once a few at a time, then twice alone at most: a passing spike of
	// load should not decide a verdict.
	for _, at := range rerunRounds(s.Concurrency) {
		if err := p.RerunInconclusive("firmakit-rerun", at); err != nil {
			return 2, err
		}
	}
	if ledger.Len() > 0 {
		p.File(ledger.Check(p.Context(), s.Target, lag, s.Target.SharedClock))
	}
	return p.Status(status), nil
}

// prepare checks the target and selects the scenarios before anything
// runs, and sets the defaults of what was left unset.
func (s *Suite) prepare() (*engine.Selection, error) {
	if err := s.Target.Validate(); err != nil {
		return nil, err
	}
	sel, err := s.Select(features.ServiceSet)
	if err != nil {
		return nil, err
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
	return sel, nil
}

// initializer gives each scenario its own steps, clock and observations,
// on the run's lag monitor and ledger.
// A gate, when not nil, starts the scenarios of the first run; a rerun
// several at once has a gate of its own, one alone none.
func (s *Suite) initializer(p *Pass, lag *engine.LagMonitor, ledger *Ledger, g *engine.Gate) Initializer {
	var waits []stepWait
	if s.Concurrency > 1 {
		waits = scheduleWaits(s.Target.Profile)
	}
	// Scenarios that take the receiver down go first, one at a time,
	// when several run at once (down.go).
	var down *downFirst
	if s.Concurrency > 1 {
		down = newDownFirst(p.Pickles())
	}
	return func(sink func(reports.ScenarioResult), only map[string]bool) func(*godog.ScenarioContext) {
		g, down, alone := g, down, false
		if only != nil { // a rerun of the rows only holds
			g, down, alone = nil, nil, p.AtOnce() <= 1
			if !alone {
				g, down = engine.NewGate(p.AtOnce()), newDownFirst(rowsIn(p.Pickles(), only))
			}
		}
		return func(sc *godog.ScenarioContext) {
			// godog calls this once per scenario, so each gets its own
			// clock and its own pickle.
			var start time.Time
			var key string
			leave, leaveDown := func() {}, func() {}
			obs := &observations{}
			st := &Steps{T: s.Target, Lag: lag, Ledger: ledger, Alone: alone}
			sc.Before(func(ctx context.Context, sp *godog.Scenario) (context.Context, error) {
				start, key = time.Now(), engine.PickleKey(sp)
				if only != nil && !only[key] {
					return ctx, godog.ErrSkip
				}
				// The receiver's down windows first, holding no slot of
				// the gate: a scenario waiting for them must leave the
				// slots to those that take it down.
				if down != nil {
					var err error
					if leaveDown, err = down.enter(ctx, sp); err != nil {
						return ctx, godog.ErrSkip // the run's deadline passed
					}
					st.leaveDown = leaveDown
					start = time.Now()
				}
				if g != nil {
					var err error
					if leave, err = g.Enter(ctx, scheduleWait(waits, sp)); err != nil {
						leaveDown()
						return ctx, godog.ErrSkip // the run's deadline passed
					}
					start = time.Now()
				}
				if err := p.Started(); err != nil {
					leaveDown()
					return ctx, err
				}
				return context.WithValue(ctx, observationsKey{}, obs), nil
			})
			st.Done = func(r reports.ScenarioResult) {
				leaveDown()
				leave()
				r.Duration = time.Since(start)
				obs.fill(&r)
				p.Place(&r, key)
				sink(r)
			}
			st.InitializeScenario(sc)
			if s.extend != nil {
				s.extend(sc)
			}
		}
	}
}

// rerunRounds are the rounds of a run's inconclusive rows, each a number
// of rows at once: first rerunAtOnce (no more than the run's concurrency),
// for the rows a run of many at once left unjudged because its own load
// made this process late, then twice alone, for those a loaded machine
// left unjudged again and for the checks only a row alone may judge
// (Steps.Alone).
func rerunRounds(concurrency int) []int {
	if first := min(concurrency, rerunAtOnce); first > 1 {
		return []int{first, 1, 1}
	}
	return []int{1, 1}
}

// rerunAtOnce is how many inconclusive rows the first rerun runs at once.
const rerunAtOnce = 4

// rowsIn are the pickles whose keys (engine.PickleKey) only holds.
func rowsIn(pickles []*messages.Pickle, only map[string]bool) []*messages.Pickle {
	var in []*messages.Pickle
	for _, p := range pickles {
		if only[engine.PickleKey(p)] {
			in = append(in, p)
		}
	}
	return in
}

// String describes the suite's selection.
func (s *Suite) String() string { return s.Describe("features") }

// Select returns how many scenarios of the service's features the
// language ("es", "en" or "all") and the godog tag expression select,
// each row of an outline on its own: the number godog will run. See
// engine.Count for the expressions it takes and its errors.
func Select(lang, tags string) (int, error) { return engine.Count(features.ServiceSet, lang, tags) }

// Selected returns the scenarios that Select counts as results with no
// status yet (see engine.Planned), so that what names scenarios (an
// expected-failures file) can be checked before a run.
func Selected(lang, tags string) ([]reports.ScenarioResult, error) {
	return engine.Planned(features.ServiceSet, lang, tags)
}
