// The webhook suite's power: run against the model endpoint twenty times
// and against every endpoint fault, it takes a minute; under the race
// detector several, so `make test` runs it on its own without -race (the
// same steps run under -race in TestAnEndpointThatLooksContractsUp and
// TestWebhookSuiteAgainstTheStrictReceiver).

//go:build !race

package webhook_test

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suiteRuns bounds the suite runs of these tests, which go on side by
// side: a run mostly waits, so several per core overlap well, and the
// bound keeps the process from lagging so much that it cannot judge an
// answer's timing (the service suite's power tests bound theirs alike).
// Each run sends hundreds of deliveries, up to 128 at once: twice
// GOMAXPROCS of them side by side keep the machine's other tests (the
// service suite's, in make test's power stage) from lagging.
var suiteRuns = make(chan struct{}, runtime.GOMAXPROCS(0)*2)

// takeRun waits for a slot of suiteRuns and returns what gives it back.
func takeRun() (release func()) {
	suiteRuns <- struct{}{}
	return func() { <-suiteRuns }
}

// TestTheModelEndpointPasses: the endpoint written from the profile
// passes every run, in both languages, with no hint: what the suite
// sends as valid is valid, and it refuses nothing a correct endpoint
// accepts.
func TestTheModelEndpointPasses(t *testing.T) {
	t.Parallel()
	runs := 20
	if testing.Short() {
		runs = 2
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer takeRun()()
			s := runShop(t, &shop{secret: shopSecret}, "all", nil)
			assert.Equal(t, reports.Passed, s.Verdict(), "run %d:\n%s", i, unpassedWebhook(s))
			assert.Empty(t, s.Hints(), "run %d", i)
		}()
	}
	wg.Wait()
}

// TestEveryEndpointFaultIsCaught measures the webhook suite's power: each
// endpoint with one realistic mistake must fail the suite (in English, the
// Spanish scenarios being the same), with a failure, not an inconclusive
// run; where a fault names a hint, the hints must name that cause.
func TestEveryEndpointFaultIsCaught(t *testing.T) {
	t.Parallel()
	faults := endpointFaults()
	require.GreaterOrEqual(t, len(faults), 25)
	type outcome struct {
		suite   *webhook.Suite
		by      []string
		uncited []string // failures that cite no sentence of the documents
	}
	outcomes := make([]outcome, len(faults))
	var wg sync.WaitGroup
	for i, f := range faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer takeRun()()
			s := &shop{secret: shopSecret}
			f.make(s)
			suite := runShop(t, s, "en", nil)
			o := outcome{suite: suite}
			for _, r := range suite.Results() {
				if r.Status == reports.Failed {
					o.by = append(o.by, r.Requirement)
					if _, ok := features.ItemText(r.Breaks); !ok {
						o.uncited = append(o.uncited, r.Requirement+": "+r.Error)
					}
				}
			}
			outcomes[i] = o
		}()
	}
	wg.Wait()
	var lines []string
	for i, f := range faults {
		o := outcomes[i]
		t.Run(f.name, func(t *testing.T) {
			require.NotNil(t, o.suite)
			assert.Equal(t, reports.Failed, o.suite.Verdict(), "endpoint fault %s (%s) was not caught:\n%s", f.name, f.mistake, unpassedWebhook(o.suite))
			assert.Empty(t, o.uncited, "every failure cites the sentence of the documents it enforces")
			if f.hint != "" {
				assert.Contains(t, hintText(t, o.suite.Hints()), f.hint)
			}
		})
		var hints []string
		for _, h := range o.suite.Hints() {
			hints = append(hints, h.ID)
		}
		lines = append(lines, fmt.Sprintf("%-30s %d failed: %s; hint: %s", f.name, len(o.by), strings.Join(slices.Compact(slices.Sorted(slices.Values(o.by))), " "), strings.Join(hints, ", ")))
	}
	sort.Strings(lines)
	t.Logf("%d endpoint faults, each caught by:\n%s", len(faults), strings.Join(lines, "\n"))
	caught := 0
	for _, o := range outcomes {
		if o.suite != nil && o.suite.Verdict() == reports.Failed {
			caught++
		}
	}
	t.Logf("webhook suite: faults caught %d of %d", caught, len(faults))
}

// TestEveryEndpointLibertyIsPassed measures the webhook suite's precision,
// the twin of its power: each endpoint with one variation the profile
// allows must pass (in English, the Spanish scenarios being the same), or
// pass with warnings. A failure names a check that fails a correct
// endpoint: a bug in the check.
func TestEveryEndpointLibertyIsPassed(t *testing.T) {
	t.Parallel()
	libs := endpointLiberties()
	require.GreaterOrEqual(t, len(libs), 10)
	suites := make([]*webhook.Suite, len(libs))
	var wg sync.WaitGroup
	for i, l := range libs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer takeRun()()
			s := &shop{secret: shopSecret}
			l.make(s)
			suites[i] = runShop(t, s, "en", nil)
		}()
	}
	wg.Wait()
	var lines []string
	for i, l := range libs {
		s := suites[i]
		t.Run(l.name, func(t *testing.T) {
			require.NotNil(t, s)
			assert.Contains(t, []string{reports.Passed, reports.PassedWithWarnings}, s.Verdict(),
				"endpoint liberty %s (%s) was failed:\n%s", l.name, l.why, unpassedWebhook(s))
		})
		var warned []string
		for _, r := range s.Results() {
			if len(r.Warnings) > 0 {
				warned = append(warned, r.Requirement)
			}
		}
		lines = append(lines, fmt.Sprintf("%-30s %s; warned by: %s", l.name, s.Verdict(), strings.Join(slices.Compact(slices.Sorted(slices.Values(warned))), " ")))
	}
	sort.Strings(lines)
	t.Logf("%d endpoint liberties, each passed:\n%s", len(libs), strings.Join(lines, "\n"))
	passed := 0
	for _, s := range suites {
		if s != nil && (s.Verdict() == reports.Passed || s.Verdict() == reports.PassedWithWarnings) {
			passed++
		}
	}
	t.Logf("webhook suite: liberties passed %d of %d", passed, len(libs))
}
