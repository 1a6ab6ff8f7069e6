package steps

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLateNotificationWhileThisProcessLagsIsInconclusive: a notification
// 100 ms outside the window while the suite's process measured 100 ms of
// lag is no verdict; the row runs again alone (and only that row of its
// outline), and when the lag is still there it stays inconclusive, never
// passed. The same delay with no lag fails.
func TestLateNotificationWhileThisProcessLagsIsInconclusive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lag     time.Duration
		verdict string
	}{
		{"lagging", 100 * time.Millisecond, reports.Inconclusive},
		{"on time", 0, reports.Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := runLagging(t, tc.lag, &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), DemoDelay: 1600 * time.Millisecond})
			assert.Equal(t, tc.verdict, s.Verdict())
			var rows int
			for _, r := range s.Results() {
				if r.Requirement != "DEMO-NOTIFICATION" {
					continue
				}
				rows++
				assert.Equal(t, tc.verdict, r.Status, r.Error)
				if tc.verdict == reports.Inconclusive {
					assert.True(t, strings.HasPrefix(r.Error, "again when run alone: "), r.Error)
					assert.Contains(t, r.Error, "outside 300–1500 ms, but this process ran up to 100 ms late")
				}
			}
			assert.Equal(t, 5, rows, "each row once, its rerun replacing it")
		})
	}
}

// TestHeldAnswerCountsThisProcessesLateness: a service that holds its 201
// until it has sent the demo notification (the named fault) fails the
// demo scenario when this process ran on time, on the first run and
// again alone (its 201 comes 200 ms after the notification). When it
// lagged 80 ms all along, the 201 may have waited in each goroutine on
// its way here about that long (LagHops), which explains a notification
// before it: inconclusive, never failed. (A
// correct reference's 201 was once read 343 ms after it was written
// while the lag measured was 88 ms; the bound counted the lag once, and
// failed it.)
func TestHeldAnswerCountsThisProcessesLateness(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lag     time.Duration
		verdict string
	}{
		{"lagging", 80 * time.Millisecond, reports.Inconclusive},
		{"on time", 0, reports.Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held, err := refaults.New([]string{"notification-201-held"})
			require.NoError(t, err)
			s := runLagging(t, tc.lag, &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: held})
			assert.Equal(t, tc.verdict, s.Verdict())
			rows := 0
			for _, r := range s.Results() {
				if r.Requirement != "DEMO-NOTIFICATION" {
					continue
				}
				rows++
				assert.Equal(t, tc.verdict, r.Status, r.Error)
				if tc.verdict == reports.Failed {
					assert.Contains(t, r.Error, "The service holds its 201 until it has sent the notification")
				} else {
					assert.NotContains(t, r.Error, "holds its 201")
				}
			}
			assert.Equal(t, 5, rows)
		})
	}
}

// runLagging runs the English @DEMO-NOTIFICATION rows against ref
// (opened here, notifying a receiver of its own) with a lag monitor that
// saw this process wake lag late all along (0: always on time).
func runLagging(t *testing.T, lag time.Duration, ref *reference.Server) *Suite {
	t.Helper()
	return runLaggingTags(t, lag, "@DEMO-NOTIFICATION", ref)
}

// runLaggingTags is runLagging for the English rows tags select.
func runLaggingTags(t *testing.T, lag time.Duration, tags string, ref *reference.Server) *Suite {
	t.Helper()
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	s := &Suite{Target: DemoTarget(ref.URL(), rv, true), lag: engine.LaggingMonitor(lag), RunOptions: RunOptions{Lang: "en", Tags: tags, Concurrency: 8}}
	_, err := s.Run()
	require.NoError(t, err)
	return s
}

// TestRerunsGoAFewAtATimeThenAlone: rows a run of many at once could not
// judge run again rerunAtOnce at a time, then alone twice at most; the
// rows of each round run no more at once than it says, a row that takes
// the receiver down goes first in a round of several at once (its
// refusal would stop the others' deliveries), and only a row alone is
// judged by what a run alone tells ("again when run alone"). The
// reference holds its 201 until it has sent the notification, and this
// process lags 100 ms all along, so every row stays inconclusive: the
// 201's lateness may be this process's, and the first delivery comes
// before the receiver can be taken down.
func TestRerunsGoAFewAtATimeThenAlone(t *testing.T) {
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	held, err := refaults.New([]string{"notification-201-held"})
	require.NoError(t, err)
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: held}
	require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })

	const refusedName = "a notification whose connection is refused, the webhook being down, is delivered again once it is back"
	// Each row's span in each round: from the suite's letting it in
	// (its own Before hook comes first) to its last step's end (the suite
	// gives its slot back after that, in its After hook).
	var mu sync.Mutex
	round := 0
	spans := map[int][]span{}
	progress := writerFunc(func(b []byte) {
		if strings.Contains(string(b), "inconclusive scenario(s) again") {
			mu.Lock()
			round++
			mu.Unlock()
		}
	})
	var lines strings.Builder
	s := &Suite{Target: DemoTarget(ref.URL(), rv, true), lag: engine.LaggingMonitor(100 * time.Millisecond),
		RunOptions: RunOptions{Lang: "en", Tags: "@DEMO-NOTIFICATION,@DEMO-FREE-TEXT,@DEMO-RETRY-REFUSED", Concurrency: 8, Progress: io.MultiWriter(progress, &lines)},
		extend: func(sc *godog.ScenarioContext) {
			var sp span
			var r int
			sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
				mu.Lock()
				r = round
				mu.Unlock()
				sp = span{name: p.Name, begin: time.Now()}
				if p.Name == refusedName {
					// A while in which no other row may begin.
					time.Sleep(300 * time.Millisecond)
				}
				return ctx, nil
			})
			sc.StepContext().After(func(ctx context.Context, _ *godog.Step, _ godog.StepResultStatus, _ error) (context.Context, error) {
				sp.end = time.Now()
				return ctx, nil
			})
			sc.After(func(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
				mu.Lock()
				defer mu.Unlock()
				spans[r] = append(spans[r], sp)
				return ctx, nil
			})
		}}
	_, err = s.Run()
	require.NoError(t, err)
	assert.Equal(t, reports.Inconclusive, s.Verdict())
	assert.Equal(t, "running 12 inconclusive scenario(s) again, 4 at a time\n"+
		"running 12 inconclusive scenario(s) again, alone\n"+
		"running 12 inconclusive scenario(s) again, alone\n", onlyReruns(lines.String()))
	assert.Equal(t, 4, mostAtOnce(spans[1]), "the first rerun: 4 rows at once")
	assert.Equal(t, []int{1, 1}, []int{mostAtOnce(spans[2]), mostAtOnce(spans[3])}, "then alone")
	rows := 0
	for _, r := range s.Results() {
		if r.Requirement != LedgerRequirement {
			rows++
			assert.True(t, strings.HasPrefix(r.Error, "again when run alone: "), r.Error)
		}
	}
	assert.Equal(t, 12, rows, "each row once, its reruns replacing it")
	// The first run and the first rerun, several at once: the row that
	// takes the receiver down begins alone, and no other begins while it
	// runs (here, until it ends: its first delivery comes before the
	// receiver is down).
	for _, r := range []int{0, 1} {
		var refused *span
		for i, sp := range spans[r] {
			if sp.name == refusedName {
				refused = &spans[r][i]
			}
		}
		require.NotNil(t, refused, "round %d", r)
		for _, sp := range spans[r] {
			if sp.name == refusedName {
				continue
			}
			assert.False(t, sp.begin.Before(refused.begin) && sp.end.After(refused.begin), "round %d: a row ran when the receiver's row began", r)
			assert.False(t, sp.begin.After(refused.begin) && sp.begin.Before(refused.begin.Add(300*time.Millisecond)),
				"round %d: a row began %s after the receiver's row", r, sp.begin.Sub(refused.begin))
		}
	}
}

// A span is a row's time in a round.
type span struct {
	name       string
	begin, end time.Time
}

// mostAtOnce is the most spans that overlap at any instant.
func mostAtOnce(spans []span) int {
	most := 0
	for _, a := range spans {
		n := 0
		for _, b := range spans {
			if !b.begin.After(a.begin) && b.end.After(a.begin) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// onlyReruns are the lines of a run's progress that announce a rerun.
func onlyReruns(progress string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(progress, "\n") {
		if strings.Contains(l, "inconclusive scenario(s) again") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// writerFunc is an io.Writer that hands each write to a function.
type writerFunc func([]byte)

func (f writerFunc) Write(b []byte) (int, error) { f(b); return len(b), nil }
