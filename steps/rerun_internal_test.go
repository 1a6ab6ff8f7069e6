package steps

import (
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
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
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
			require.NoError(t, rv.Open())
			defer rv.Close()
			ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), DemoDelay: 1600 * time.Millisecond}
			require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
			require.NoError(t, ref.Open())
			defer ref.Close()
			// A monitor that saw this process wake tc.lag late all along.
			lag := engine.LaggingMonitor(tc.lag)
			s := &Suite{Target: DemoTarget(ref.URL(), rv, true), lag: lag, RunOptions: RunOptions{Lang: "en", Tags: "@DEMO-NOTIFICATION", Concurrency: 8}}
			_, err := s.Run()
			require.NoError(t, err)
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
