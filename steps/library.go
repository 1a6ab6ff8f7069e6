package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Harness runs firmakit's sentences inside a team's own godog suite, beside
// the team's steps, wired as 'firmakit certify' wires them: one target,
// its receiver, a lag monitor that tells a slow machine from a late
// service, and a ledger of every contract the suite created, checked when
// the suite ends. Its methods are the initializers godog.TestSuite takes:
//
//	h, err := steps.NewHarness(target)
//	…
//	godog.TestSuite{
//		TestSuiteInitializer: h.InitializeTestSuite,
//		ScenarioInitializer: func(sc *godog.ScenarioContext) {
//			h.InitializeScenario(sc)
//			sc.Step(`^my own step$`, myOwnStep)
//		},
//	}.Run()
//
// steps/bundled starts the bundled reference server and a receiver for a
// Target; any other service is a Target the team fills in.
type Harness struct {
	target *Target
	lag    *engine.LagMonitor
	ledger *Ledger

	mu      sync.Mutex
	results []reports.ScenarioResult
	ledgerR *reports.ScenarioResult
}

// NewHarness validates t and starts what the sentences need around it.
// It returns the error Target.Validate gives for a target the suite
// cannot run against. Close stops it.
func NewHarness(t *Target) (*Harness, error) {
	if t == nil {
		return nil, fmt.Errorf("steps: no target")
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if t.APIVersion == "" {
		t.APIVersion = "v1"
	}
	return &Harness{target: t, lag: engine.StartLagMonitor(), ledger: NewLedger(time.Now())}, nil
}

// InitializeScenario registers every firmakit sentence, in English and
// Spanish, and the hooks that keep each scenario's state in its context.
func (h *Harness) InitializeScenario(sc *godog.ScenarioContext) {
	st := &Steps{T: h.target, Lag: h.lag, Ledger: h.ledger, Done: func(r reports.ScenarioResult) {
		h.mu.Lock()
		h.results = append(h.results, r)
		h.mu.Unlock()
	}}
	st.InitializeScenario(sc)
}

// InitializeTestSuite checks, when the suite ends, the notifications of
// every contract the suite created (none missing, none twice, none
// stray): the ledger 'firmakit certify' reports as RUN-LEDGER. Its result
// is LedgerResult.
func (h *Harness) InitializeTestSuite(ts *godog.TestSuiteContext) {
	ts.AfterSuite(func() {
		if h.ledger.Len() == 0 {
			return
		}
		r := h.ledger.Check(context.Background(), h.target, h.lag, h.target.SharedClock)
		h.mu.Lock()
		h.ledgerR = &r
		h.mu.Unlock()
	})
}

// Results are firmakit's judgement of each scenario that ran firmakit's
// sentences so far: passed, failed, inconclusive (the suite's own
// process could not look in time) or not run, with the reason. godog
// counts an inconclusive scenario as skipped.
func (h *Harness) Results() []reports.ScenarioResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]reports.ScenarioResult(nil), h.results...)
}

// LedgerResult is the ledger's check once the suite has ended; false
// before, or when no scenario created a contract.
func (h *Harness) LedgerResult() (reports.ScenarioResult, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ledgerR == nil {
		return reports.ScenarioResult{}, false
	}
	return *h.ledgerR, true
}

// Close stops the lag monitor.
func (h *Harness) Close() { h.lag.Stop() }

// LastExchange returns the last request firmakit's steps sent in the
// scenario running in ctx, with its answer; false when none was sent, or
// ctx is not a scenario of a suite firmakit's sentences are registered in.
func LastExchange(ctx context.Context) (Exchange, bool) {
	sc, ok := ctx.Value(scenarioKey{}).(*scenario)
	if !ok || sc.sent == "" {
		return Exchange{}, false
	}
	return Exchange{Sent: sc.sent, Status: sc.status, Header: sc.header.Clone(), Body: append([]byte(nil), sc.raw...),
		RoundTrip: sc.answered.Sub(sc.sentAt), Attempts: sc.attempts}, true
}

// CreatedSignatureID returns the signature_id of the contract the
// scenario running in ctx created ("the contract is created"); "" when it
// created none.
func CreatedSignatureID(ctx context.Context) string {
	if sc, ok := ctx.Value(scenarioKey{}).(*scenario); ok {
		return sc.created
	}
	return ""
}

// Envelope returns the signature envelope of the last answer in the
// scenario running in ctx (its "data" object) as raw JSON; false when
// the last answer carried none.
func Envelope(ctx context.Context) (json.RawMessage, bool) {
	sc, ok := ctx.Value(scenarioKey{}).(*scenario)
	if !ok || sc.resp == nil {
		return nil, false
	}
	d, ok := sc.resp["data"].(map[string]any)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(d)
	return b, err == nil
}

// ReceivedNotifications returns the notifications firmakit's steps received in
// the scenario running in ctx, in the order they arrived: an earlier
// contract's, the one judged, each delivery again. Each is the
// receiver's record: raw body, headers, receive time, signature check.
func ReceivedNotifications(ctx context.Context) []receiver.Record {
	sc, ok := ctx.Value(scenarioKey{}).(*scenario)
	if !ok {
		return nil
	}
	var out []receiver.Record
	add := func(r *receiver.Record) {
		if r != nil {
			out = append(out, *r)
		}
	}
	add(sc.earlierNote)
	add(sc.note)
	for _, r := range sc.retries {
		add(r)
	}
	if len(sc.retries) == 0 {
		add(sc.again)
	}
	return out
}
