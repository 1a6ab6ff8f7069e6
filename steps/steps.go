package steps

import (
	"context"
	"errors"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Steps binds sentences to a target. The methods live by job: request.go
// builds and sends requests, tamper.go alters them, response.go judges
// answers, envelope.go the create-signature envelope, notification.go
// the notifications, ledger.go the whole run; the run engine they run
// on (a pass, pacing, the clock) is package steps/engine.
type Steps struct {
	T *Target
	// Done receives the outcome of every scenario.
	Done func(reports.ScenarioResult)
	// Lag measures how late this process runs, to tell a late
	// notification from a suite that could not look in time.
	Lag *engine.LagMonitor
	// Ledger keeps every contract the run created, for the check at the
	// end of the run.
	Ledger *Ledger
	// Alone tells that the scenario runs again alone, after a first run
	// that could not judge it.
	Alone bool
	// leaveDown lets the run's other scenarios start once a scenario that
	// took the receiver down has it up again (downFirst); nil: nothing to
	// let go.
	leaveDown func()
}

// InitializeScenario registers every sentence, English and Spanish side by
// side on the same method.
func (s *Steps) InitializeScenario(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		state := newScenario(s.T.Credential)
		return engine.WithWarnings(context.WithValue(ctx, scenarioKey{}, state), &state.warnings), nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		sc, ok := ctx.Value(scenarioKey{}).(*scenario)
		if ok {
			for i := range sc.warnings {
				if sc.warnings[i].Step == "" {
					sc.warnings[i].Step = st.Text
				}
			}
		}
		switch {
		case !ok || err == nil:
		case !errors.Is(err, godog.ErrSkip) && sc.failedStep == "":
			sc.failedStep = st.Text
		case sc.inconclusive != "" && sc.inconclusiveStep == "":
			sc.inconclusiveStep = st.Text
		}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
		if s.Done != nil {
			s.Done(outcome(ctx, p, err))
		}
		return ctx, nil
	})
	s.bindSentences(sc)
}

// bindSentences registers every sentence of the service set, file by
// file.
func (s *Steps) bindSentences(sc registrar) {
	s.bindRequestSentences(sc)
	s.bindTamperSentences(sc)
	s.bindResponseSentences(sc)
	s.bindEnvelopeSentences(sc)
	s.bindNotificationSentences(sc)
	s.bindNeighbourSentences(sc)
	s.bindMerchantSentences(sc)
	s.bindDownSentences(sc)
}

// Timing of the notification checks.
const (
	// quietAfter is how long after the 201 no second notification of a
	// contract may arrive: "exactly one" is judged until then.
	quietAfter = 3 * time.Second
	// missingAfter is how long the suite waits before it calls a
	// notification missing rather than late.
	missingAfter = 10 * time.Second
)

// Sentences lists every step sentence of the service set, English and
// Spanish side by side, in the order they are registered (package
// steps/webhook lists the webhook set's). It returns an error when a
// method is not bound to exactly one sentence per language.
func Sentences() ([]engine.Sentence, error) {
	return engine.ListSentences("service", (&Steps{}).bindSentences)
}

// excused tells whether a timing miss may be this process's own lateness.
func (s *Steps) excused(lag, miss time.Duration) bool {
	return engine.ExcusedBy(lag, miss, s.T.SenderInProcess)
}
