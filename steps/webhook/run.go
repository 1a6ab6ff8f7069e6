package webhook

import (
	"context"
	"fmt"
	"sync"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Suite runs the webhook feature set (features/webhook) against a
// merchant's endpoint: firmakit plays the service, signs notifications
// under the profile and posts them, and judges the endpoint's answers.
// Its options, results, verdict and lines are the service suite's
// (engine.RunOptions); its Concurrency defaults to DefaultConcurrency, and
// Endpoint.MaxInFlight bounds the deliveries in flight at once, as the
// endpoint is usually a merchant's development server, not a load test's
// target.
type Suite struct {
	Endpoint *Endpoint
	engine.RunOptions

	mu       sync.Mutex
	observed map[string]observation
	clock    clockFinding
}

// DefaultConcurrency is how many webhook scenarios run at once when
// RunOptions.Concurrency is not set: most wait on the endpoint's answers,
// and Endpoint.MaxInFlight bounds what reaches it at once.
const DefaultConcurrency = 64

// Select is steps.Select for the webhook set: how many scenarios (outline
// rows one by one) the language and tag expression select, or a
// *engine.SelectionError before anything runs.
func Select(lang, tags string) (int, error) {
	sel, err := Selected(lang, tags)
	return len(sel), err
}

// Selected is steps.Selected for the webhook set: the scenarios Select
// counts, as results with no status yet.
func Selected(lang, tags string) ([]reports.ScenarioResult, error) {
	return engine.Planned(features.WebhookSet, lang, tags)
}

// Run runs the webhook set and returns godog's status: 0 when no selected
// scenario failed, 1 otherwise; Verdict says what the run came to. Before
// anything runs, it returns a *engine.SelectionError when the language and
// tags select nothing, ErrUnknownContract when the endpoint refuses a
// contract it does not know, and a plain error when the endpoint lacks
// what every scenario needs.
func (s *Suite) Run() (int, error) {
	// The probes before and after the scenarios end at the deadline too.
	ctx, cancel := s.RunContext()
	defer cancel()
	sel, err := s.prepare(ctx)
	if err != nil {
		return 2, err
	}
	s.mu.Lock()
	s.observed = map[string]observation{}
	s.mu.Unlock()
	lag := engine.StartLagMonitor()
	defer lag.Stop()
	p, err := s.Start(sel)
	if err != nil {
		return 2, err
	}
	defer p.End()
	status := p.Run("firmakit-webhook", s.Concurrency, s.initializer(p, lag))
	// Scenarios whose timing could not be judged run again, alone, one
	// delivery at a time.
	s.Endpoint.alone()
	if err := p.RerunInconclusive("firmakit-webhook-rerun", 1); err != nil {
		return 2, err
	}
	s.clock = clockFinding{}
	if r, o := s.facts(); !p.OutOfTime() && refusedEverything(r, o) {
		s.clock = probeClock(ctx, s.Endpoint)
	}
	return p.Status(status), nil
}

// prepare checks the endpoint and selects the scenarios before anything
// runs, sets the defaults of what was left unset, and creates the
// contract the notifications are about when none was given.
func (s *Suite) prepare(ctx context.Context) (*engine.Selection, error) {
	if s.Endpoint == nil {
		return nil, fmt.Errorf("no endpoint")
	}
	if err := s.Endpoint.Validate(); err != nil {
		return nil, err
	}
	if s.Endpoint.Profile == nil {
		s.Endpoint.Profile = firmakit.BundledProfile()
	}
	s.Endpoint.makeSlots()
	sel, err := s.Select(features.WebhookSet)
	if err != nil {
		return nil, err
	}
	if s.Concurrency <= 0 {
		s.Concurrency = DefaultConcurrency
	}
	if s.Format == "" {
		s.Format = "progress"
	}
	if len(s.Endpoint.SignatureIDs) == 0 {
		if err := probeContract(ctx, s.Endpoint); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// initializer gives each scenario its own steps on the run's lag
// monitor, and keeps what each observed of the endpoint.
func (s *Suite) initializer(p *engine.Pass, lag *engine.LagMonitor) engine.Initializer {
	return func(sink func(reports.ScenarioResult), only map[string]bool) func(*godog.ScenarioContext) {
		return func(sc *godog.ScenarioContext) {
			var key string
			sc.Before(func(ctx context.Context, sp *godog.Scenario) (context.Context, error) {
				key = engine.PickleKey(sp)
				if only != nil && !only[key] {
					return ctx, godog.ErrSkip
				}
				return ctx, p.Started()
			})
			w := &webhookSteps{E: s.Endpoint, Lag: lag, Done: func(r reports.ScenarioResult, o observation) {
				if only != nil && !only[key] {
					return // cut short: neither a result nor an observation
				}
				p.Place(&r, key)
				s.mu.Lock()
				s.observed[engine.RowKey(r)] = o
				s.mu.Unlock()
				sink(r)
			}}
			w.InitializeScenario(sc)
		}
	}
}

// Hints name the likely mistakes the last run's failures point at (see
// webhookHints).
func (s *Suite) Hints() []reports.Hint {
	results, observed := s.facts()
	return webhookHints(s.Endpoint, results, observed, s.clock)
}

// facts are the last run's results and, for each, what the endpoint did.
func (s *Suite) facts() ([]reports.ScenarioResult, []observation) {
	s.mu.Lock()
	obs := make(map[string]observation, len(s.observed))
	for k, v := range s.observed {
		obs[k] = v
	}
	s.mu.Unlock()
	results := s.Results()
	observed := make([]observation, len(results))
	for i, r := range results {
		observed[i] = obs[engine.RowKey(r)]
	}
	return results, observed
}

// String describes the suite's selection.
func (s *Suite) String() string { return s.Describe("webhook features") }
