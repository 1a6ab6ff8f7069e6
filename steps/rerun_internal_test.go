package steps

import (
	"strings"
	"testing"
	"time"

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
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	s := &Suite{Target: DemoTarget(ref.URL(), rv, true), lag: engine.LaggingMonitor(lag), RunOptions: RunOptions{Lang: "en", Tags: "@DEMO-NOTIFICATION", Concurrency: 8}}
	_, err := s.Run()
	require.NoError(t, err)
	return s
}
