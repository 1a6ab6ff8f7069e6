// The whole-suite runs behind a gateway judge the suite's verdict there
// (the pacing, the retries, the verdict that holds): make test runs them
// in its power stage, without -race, beside the other verdict tests.
// Under -race, TestDoThroughTheGateway and TestPacerConcurrentUse race
// the same pacing and retries, and TestConformanceSuite the steps.

//go:build !race

package steps_test

import (
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/gateway"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerdictHoldsBehindAGateway runs the English suite against the
// correct reference behind gateways that rate-limit (saying when to come
// back or not, announcing their policy or not) and fail some requests: the
// suite must not fail it. What the gateway did is checked too, so that the
// test cannot pass by meeting none of it.
func TestVerdictHoldsBehindAGateway(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		gateway func() *gateway.Server
		// unreliable: 502s and resets may leave a scenario inconclusive
		// after every retry; never failed.
		unreliable bool
		check      func(t *testing.T, g gateway.Stats, p steps.NetworkStats)
	}{
		// Other clients of the key empty the bucket before 1% of the
		// requests (Shared; seed 1 picks the 100th, 119th, 227th and
		// 231st): on a busy runner the suite alone sent too few requests
		// a second to meet the limit.
		{"429 with Retry-After", func() *gateway.Server { return &gateway.Server{Rate: 20, Burst: 10, Shared: 0.01, RetryAfter: true} }, false,
			func(t *testing.T, g gateway.Stats, p steps.NetworkStats) {
				assert.Positive(t, g.RateLimited, "the gateway rate-limited")
				assert.Positive(t, p.RateLimited, "the pacer saw the 429s")
				assert.Positive(t, p.Held, "and waited as Retry-After asked")
			}},
		{"429 without Retry-After", func() *gateway.Server { return &gateway.Server{Rate: 20, Burst: 10, Shared: 0.01} }, false,
			func(t *testing.T, g gateway.Stats, p steps.NetworkStats) {
				assert.Positive(t, g.RateLimited, "the gateway rate-limited")
				assert.Positive(t, p.RateLimited, "the pacer saw the 429s")
				assert.Zero(t, p.Held, "nothing said how long to wait")
			}},
		{"RateLimit headers, 3% 502s and 3% resets", func() *gateway.Server {
			return &gateway.Server{Rate: 20, Burst: 20, RetryAfter: true, RateLimitHeaders: true, BadGateway: 0.03, Reset: 0.03}
		}, true,
			func(t *testing.T, g gateway.Stats, p steps.NetworkStats) {
				assert.Positive(t, g.BadGateway, "the gateway made up 502s")
				assert.Positive(t, g.BadGatewayForwarded, "some after the upstream had the request")
				assert.Positive(t, g.Resets, "the gateway reset connections")
				assert.Positive(t, p.Transient["gateway 502"], "the suite saw the 502s: %v", p.Transient)
				assert.Positive(t, p.Transient["connection reset"], "and the resets: %v", p.Transient)
				assert.Equal(t, 20.0, p.Policy, "the pacer read the policy the gateway announced")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := tc.gateway()
			g.Latency, g.Seed = gatewayLatency, 1
			target := behindGateway(t, g)
			var again rerunCounter
			s := &steps.Suite{Target: target, RunOptions: steps.RunOptions{Lang: "en", Tags: withoutOperatorRows(t, ""), Randomize: -1, Progress: &again}}
			start := time.Now()
			_, err := s.Run()
			require.NoError(t, err)
			gs, ps := g.Stats(), target.Pacer.Stats()
			t.Logf("%s in %.1fs, %s; gateway: %+v; %s", s.VerdictLine(), time.Since(start).Seconds(), &again, gs, ps)
			// Never failed. A timed row may be left inconclusive when the
			// answers came back too slowly to tell, or this process ran
			// late (a loaded machine: a 201 of 588 ms through the gateway
			// was seen, and three rows of 305 on a quiet run of make
			// test), one in twenty at most where the gateway only limits
			// the rate; behind one that also makes up 502s and resets, any
			// may be after every retry.
			assert.Contains(t, []string{reports.Passed, reports.Inconclusive}, s.Verdict(), unpassed(s))
			if !tc.unreliable {
				assert.LessOrEqual(t, 20*s.Count(reports.Inconclusive), len(s.Results()), unpassed(s))
			}
			assert.Zero(t, s.Count(reports.Failed), unpassed(s))
			assert.Empty(t, s.NotRun())
			assert.Positive(t, ps.Retried, "requests were sent again")
			if ps.RateLimited > 0 {
				assert.Positive(t, ps.Suggest, "a --rate is suggested")
				assert.LessOrEqual(t, ps.Suggest, g.Rate, "the --rate suggested is one the gateway lets through")
			}
			tc.check(t, gs, ps)
		})
	}
}

// TestFaultsAreCaughtBehindAGateway: faults of timing and of 5xx answers,
// which a gateway's own delays and 502s could hide or excuse, are still
// caught behind an unreliable gateway: failed, not inconclusive. Each
// runs the first selection of its area TestEveryFaultIsCaught runs
// (faultAreas), and must be caught by it.
func TestFaultsAreCaughtBehindAGateway(t *testing.T) {
	t.Parallel()
	tags := areaTags(t)
	faults := map[string]refaults.Fault{}
	for _, f := range refaults.List() {
		faults[f.Name] = f
	}
	for _, name := range []string{"notification-immediate", "notification-late", "notification-twice", "notification-never",
		"auth-invalid-json-500", "validation-wrong-type-500"} {
		f, ok := faults[name]
		require.True(t, ok, "fault %s", name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := unreliableGateway()
			target := behindGateway(t, g, f.Name)
			s := &steps.Suite{Target: target, RunOptions: steps.RunOptions{Lang: "en", Tags: withoutOperatorRows(t, tags[faultAreas(f)[0]]), Randomize: -1, Concurrency: 32}}
			_, err := s.Run()
			require.NoError(t, err)
			t.Logf("%s; gateway: %+v; %s", s.VerdictLine(), g.Stats(), target.Pacer.Stats())
			assert.Equal(t, reports.Failed, s.Verdict(), "fault %s (%s: %s) was not caught:\n%s", f.Name, f.Rule, f.Description, unpassed(s))
			assert.Positive(t, g.Stats().Requests, "the requests went through the gateway")
		})
	}
}
