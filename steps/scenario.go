package steps

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// scenarioKey holds a scenario's state in its context, so that scenarios
// run concurrently without sharing anything.
type scenarioKey struct{}

// scenario is the state of one running scenario.
type scenario struct {
	// The request to send, and how it is altered.
	endpoint  string // "check" or "signature"
	body      any    // the JSON value sent (encoded before sending)
	rawBody   []byte // when set, sent as is
	query     string // raw query, without "?"
	cred      firmakit.Credential
	offset    time.Duration
	stamp     func(now time.Time) string // the timestamp sent as is, made anew for each attempt
	stampSent int64                      // the timestamp sent, when made from offset
	stampText string                     // the timestamp header sent, as written
	missing   map[string]bool
	empty     map[string]bool
	noAuth    bool
	signBody  []byte
	signPath  string
	signVerb  string
	signStamp func(now time.Time) string // the timestamp the signature covers, when not the one sent
	signQuery *string                    // the query the signature covers, when not the one sent
	// removedFields are the body's fields a step left out, removedKeys
	// the template keys they held: a refusal may name either.
	removedFields []string
	removedKeys   []string
	badSig        string
	upperSig      bool
	alterSig      string
	// answer is what the receiver gives the contract's first answerCount
	// notifications; programmedAt is when it was told.
	answer       receiver.Answer
	answerCount  int
	programmedAt time.Time
	// downFor is how long after the 201 the receiver is down (refusing
	// connections); downAt is when it went down.
	downFor  time.Duration
	downAt   time.Time
	verb     string  // the HTTP method sent and signed, when not POST
	version  *string // the path's version segment, when not the accepted one
	merchant *string // the path's merchant segment, when not the merchant's
	// contentType is the Content-Type sent, when not application/json;
	// nameCase spells the authentication headers' names ("lower",
	// "upper", "mixed"), when not canonically.
	contentType string
	nameCase    string
	// chunked sends the body without a length; sigForm rewrites the
	// right signature (a neighbour of its header form).
	chunked bool
	sigForm func(sig string) string
	// operator names the operator whose neighbours the scenario sent,
	// sentNeighbours are they (neighbours.go).
	operator       string
	sentNeighbours []sentNeighbour

	// What was sent and what came back.
	sent       string
	sentAt     time.Time // just before the request left
	status     int
	header     http.Header
	raw        []byte
	resp       map[string]any
	answered   time.Time
	attempts   int    // how many times the request was sent (see Target.do)
	persistent string // why a transient-looking 5xx was judged: it came back every time
	previous   map[string]any
	created    string // signature_id of the created contract
	titleSent  string

	// Notifications: the one judged, when it arrived, the earlier one.
	note        *receiver.Record
	noteAt      time.Time
	again       *receiver.Record // the latest delivery again
	retries     []*receiver.Record
	retryAt     []time.Time
	earlierNote *receiver.Record

	// Outcome.
	warnings     []reports.Warning
	notRun       string // why the scenario could not run
	inconclusive string // why a timing check could not be judged
	// inconclusiveFacts are its facts (engine.Describe).
	inconclusiveFacts *reports.Facts
	inconclusiveStep  string
	// inconclusiveKind is what kept it from being judged, when known (see
	// reports.FailureKind): an unreachable target.
	inconclusiveKind reports.FailureKind
	failedStep       string
}

func newScenario(c firmakit.Credential) *scenario {
	return &scenario{cred: c, missing: map[string]bool{}, empty: map[string]bool{}}
}

func get(ctx context.Context) *scenario { return ctx.Value(scenarioKey{}).(*scenario) }

// inconclusive ends a scenario whose timing could not be judged because
// the suite's own process did not run on time: not a verdict on the
// target, and never a pass. godog sees a skipped step; the result says
// inconclusive, and the suite runs the scenario again alone.
func (s *Steps) inconclusive(ctx context.Context, format string, a ...any) error {
	if sc, ok := ctx.Value(scenarioKey{}).(*scenario); ok {
		msg, facts := engine.Describe(format, a...)
		sc.inconclusive, sc.inconclusiveFacts = msg, &facts
	}
	return godog.ErrSkip
}

// outcome is what a scenario came to (engine.Result), a row by operator
// saying which.
func outcome(ctx context.Context, p *godog.Scenario, err error) reports.ScenarioResult {
	sc, _ := ctx.Value(scenarioKey{}).(*scenario)
	if sc == nil {
		return engine.Result(p, err, engine.Outcome{})
	}
	r := engine.Result(p, err, engine.Outcome{NotRun: sc.notRun, Inconclusive: sc.inconclusive,
		InconclusiveStep: sc.inconclusiveStep, InconclusiveKind: sc.inconclusiveKind, InconclusiveFacts: sc.inconclusiveFacts,
		FailedStep: sc.failedStep, Warnings: sc.warnings})
	if sc.operator != "" {
		// A row by operator: say which, as OperatorOf reads it back.
		r.Example = strings.TrimPrefix(r.Example+"; "+operatorNote+strconv.Quote(sc.operator), "; ")
	}
	return r
}

// notRun marks a scenario the target's configuration cannot run.
func (s *Steps) notRun(ctx context.Context, reason string) error {
	if sc, ok := ctx.Value(scenarioKey{}).(*scenario); ok {
		sc.notRun = reason
	}
	return godog.ErrSkip
}
