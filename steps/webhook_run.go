package steps

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// WebhookSuite runs the webhook feature set (features/webhook) against a
// merchant's endpoint: firmakit plays the service, signs notifications
// under the profile and posts them, and judges the endpoint's answers.
// Its results, verdict and lines read like Suite's.
type WebhookSuite struct {
	Endpoint *Endpoint
	// Lang is "es", "en" or "all" (default).
	Lang string
	// Tags is a godog tag expression, e.g. "@WH-STATE".
	Tags string
	// Concurrency is how many scenarios run at once (default 4: the
	// endpoint is usually a merchant's development server, not a load
	// test's target).
	Concurrency int
	// Format is a godog format list, as for Suite.
	Format string
	Output io.Writer
	// Randomize orders scenarios at random with this seed; 0 keeps the
	// file order, -1 picks a seed.
	Randomize int64
	// Options, when set, changes godog's options of the run (not of the
	// reruns of inconclusive scenarios): a test sets TestingT there to
	// run each scenario as a subtest.
	Options func(*godog.Options)
	// Progress, when set, gets one line per scenario as it finishes.
	Progress io.Writer
	// OnResult, when set, is called after each result is filed, with the
	// run's counts so far, as Suite.OnResult.
	OnResult func(r reports.ScenarioResult, p Progress)
	// Deadline, when set, bounds the run as Suite.Deadline does.
	Deadline time.Time

	// log keeps and prints the results as the service suite does.
	log      Suite
	mu       sync.Mutex
	observed map[string]observation
	clock    clockFinding
}

// SelectWebhook is Select for the webhook set: how many scenarios (outline
// rows one by one) the language and tag expression select, or a
// *SelectionError before anything runs.
func SelectWebhook(lang, tags string) (int, error) {
	sel, err := selectFrom(loadWebhookSuite, lang, tags)
	return len(sel), err
}

// Run runs the webhook set and returns godog's status: 0 when no selected
// scenario failed, 1 otherwise; Verdict says what the run came to. Before
// anything runs, it returns a *SelectionError when the language and tags
// select nothing, and a plain error when the endpoint lacks what every
// scenario needs.
func (s *WebhookSuite) Run() (int, error) {
	paths, selected, err := s.prepare()
	if err != nil {
		return 2, err
	}
	s.log = Suite{Progress: s.Progress, Tags: s.Tags, OnResult: s.OnResult, selected: len(selected)}
	s.mu.Lock()
	s.observed = map[string]observation{}
	s.mu.Unlock()
	lag := StartLagMonitor()
	defer lag.Stop()
	p, err := newPass(&s.log, features.WebhookSet, s.Tags, selected)
	if err != nil {
		return 2, err
	}
	p.bound(s.Deadline)
	defer p.end()
	p.init = s.initializer(p, lag)
	o := p.options(paths, s.Format, s.Output, s.Concurrency, s.Randomize)
	if s.Options != nil {
		s.Options(o)
	}
	status := p.run("firmakit-webhook", o)
	// Scenarios whose timing could not be judged run again, alone.
	if err := p.rerunInconclusive("firmakit-webhook-rerun"); err != nil {
		return 2, err
	}
	s.clock = clockFinding{}
	if r, o := s.facts(); !p.outOfTime() && refusedEverything(r, o) {
		s.clock = probeClock(s.Endpoint)
	}
	return p.status(status), nil
}

// prepare checks the endpoint and selects the scenarios before anything
// runs, sets the defaults of what was left unset, and creates the
// contract the notifications are about when none was given.
func (s *WebhookSuite) prepare() ([]string, []pickled, error) {
	if s.Endpoint == nil {
		return nil, nil, fmt.Errorf("no endpoint")
	}
	if err := s.Endpoint.Validate(); err != nil {
		return nil, nil, err
	}
	if s.Endpoint.Profile == nil {
		s.Endpoint.Profile = firmakit.BundledProfile()
	}
	paths, err := Paths(s.Lang)
	if err != nil {
		return nil, nil, err
	}
	selected, err := selectFrom(loadWebhookSuite, s.Lang, s.Tags)
	if err != nil {
		return nil, nil, err
	}
	if s.Concurrency <= 0 {
		s.Concurrency = 4
	}
	if s.Format == "" {
		s.Format = "progress"
	}
	if len(s.Endpoint.SignatureIDs) == 0 {
		if err := probeContract(s.Endpoint); err != nil {
			return nil, nil, err
		}
	}
	return paths, selected, nil
}

// initializer gives each scenario its own steps on the run's lag
// monitor, and keeps what each observed of the endpoint.
func (s *WebhookSuite) initializer(p *pass, lag *LagMonitor) func(func(reports.ScenarioResult), map[string]bool) func(*godog.ScenarioContext) {
	return func(sink func(reports.ScenarioResult), only map[string]bool) func(*godog.ScenarioContext) {
		return func(sc *godog.ScenarioContext) {
			var key string
			sc.Before(func(ctx context.Context, sp *godog.Scenario) (context.Context, error) {
				key = pickleKey(sp)
				if only != nil && !only[key] {
					return ctx, godog.ErrSkip
				}
				return ctx, p.started()
			})
			w := &webhookSteps{E: s.Endpoint, Lag: lag, Done: func(r reports.ScenarioResult, o observation) {
				if only != nil && !only[key] {
					return // cut short: neither a result nor an observation
				}
				p.place(&r, key)
				s.mu.Lock()
				s.observed[rowKey(r)] = o
				s.mu.Unlock()
				sink(r)
			}}
			w.InitializeScenario(sc)
		}
	}
}

// Results returns the outcome of every scenario of the last run, in the
// order of the feature files, each with what was sent and answered.
func (s *WebhookSuite) Results() []reports.ScenarioResult { return s.log.Results() }

// Count returns how many scenarios of the last run ended with status.
func (s *WebhookSuite) Count(status string) int { return s.log.Count(status) }

// OutOfTime tells whether the last run's Deadline passed before it ended,
// as Suite.OutOfTime.
func (s *WebhookSuite) OutOfTime() bool { return s.log.OutOfTime() }

// Verdict is the last run's verdict (reports.Verdict).
func (s *WebhookSuite) Verdict() string { return s.log.Verdict() }

// VerdictLine says the last run's verdict and what to do about it.
func (s *WebhookSuite) VerdictLine() string { return s.log.VerdictLine() }

// Summary is the run's outcome in one line, as Suite.Summary.
func (s *WebhookSuite) Summary() string { return s.log.Summary() }

// Hints name the likely mistakes the last run's failures point at (see
// webhookHints).
func (s *WebhookSuite) Hints() []reports.Hint {
	results, observed := s.facts()
	return webhookHints(s.Endpoint, results, observed, s.clock)
}

// facts are the last run's results and, for each, what the endpoint did.
func (s *WebhookSuite) facts() ([]reports.ScenarioResult, []observation) {
	s.mu.Lock()
	obs := make(map[string]observation, len(s.observed))
	for k, v := range s.observed {
		obs[k] = v
	}
	s.mu.Unlock()
	results := s.Results()
	observed := make([]observation, len(results))
	for i, r := range results {
		observed[i] = obs[rowKey(r)]
	}
	return results, observed
}

// String describes the suite's selection.
func (s *WebhookSuite) String() string {
	paths, _ := Paths(s.Lang)
	return fmt.Sprintf("webhook features %s, tags %q, concurrency %d", strings.Join(paths, "+"), s.Tags, s.Concurrency)
}
