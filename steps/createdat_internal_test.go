package steps

import (
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stoppedAt is a reference clock that always says t, its timers on the
// real clock.
type stoppedAt time.Time

func (c stoppedAt) Now() time.Time { return time.Time(c) }

func (stoppedAt) AfterFunc(d time.Duration, f func()) reference.Timer { return time.AfterFunc(d, f) }

// TestEveryCreatedAtHasItsForm: a service whose created_at loses the
// fraction's trailing zeros writes three digits nine times in ten, so the
// scenario about created_at sees it seldom; the form is checked on every
// 201 the suite reads. The reference's clock stops at .500 of a second,
// where the fault shows, and the rows about routing alone (no step about
// created_at) fail for it; the correct reference passes them.
func TestEveryCreatedAtHasItsForm(t *testing.T) {
	at := time.Now().Add(-time.Minute).Truncate(time.Second).Add(500 * time.Millisecond)
	for _, tc := range []struct {
		faults  []string
		verdict string
	}{
		{nil, reports.Passed},
		{[]string{"envelope-created-at-trims-zeros"}, reports.Failed},
	} {
		dev, err := refaults.New(tc.faults)
		require.NoError(t, err)
		rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
		require.NoError(t, rv.Open())
		t.Cleanup(func() { rv.Close() })
		ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: dev, Clock: stoppedAt(at)}
		require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
		require.NoError(t, ref.Open())
		t.Cleanup(func() { ref.Close() })
		s := &Suite{Target: DemoTarget(ref.URL(), rv, true), RunOptions: RunOptions{Lang: "en", Tags: "@SIG-ROUTING"}}
		_, err = s.Run()
		require.NoError(t, err)
		require.Equal(t, tc.verdict, s.Verdict(), "faults %v", tc.faults)
		for _, r := range s.Results() {
			if r.Status == reports.Failed {
				assert.True(t, strings.Contains(r.Error, "expected data.created_at of every 201 to be UTC with exactly three fraction digits and Z") &&
					strings.Contains(r.Error, at.UTC().Format(`"2006-01-02T15:04:05.9Z"`)), r.Error)
			}
		}
	}
}

// TestALaterRetryIsJudgedWhenAnEarlierCannotBe: a sender whose every
// retry waits 1 s, where the schedule says 1, 2, 4, 8 and 16 s, misses the
// second retry's wait by 1 s and the third's by 3 s. With this process
// 200 ms late all along (excusing up to 1.6 s with the sender here), the
// second gap cannot be judged but the third can: the scenario fails on
// it, where it stopped at the second, inconclusive.
func TestALaterRetryIsJudgedWhenAnEarlierCannotBe(t *testing.T) {
	flat, err := refaults.New([]string{"notification-retry-schedule-flat"})
	require.NoError(t, err)
	s := runLaggingTags(t, 200*time.Millisecond, "@DEMO-RETRY-EXHAUSTED", &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: flat})
	require.Equal(t, reports.Failed, s.Verdict())
	for _, r := range s.Results() {
		if r.Requirement == "DEMO-RETRY-EXHAUSTED" {
			assert.Equal(t, reports.Failed, r.Status, r.Error)
			assert.Contains(t, r.Error, "expected the delivery again after the profile's retry delay 4s")
		}
	}
}
