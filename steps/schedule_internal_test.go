package steps

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each scenario's wait on the delivery schedule, from its sentences in
// either language and the profile's timeout and retries.
func TestScheduleWaits(t *testing.T) {
	p := firmakit.BundledProfile()
	require.Equal(t, 10*time.Second, p.Webhook.Timeout)
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second}, p.Webhook.Retries[:2])
	waits := scheduleWaits(p)
	for _, tc := range []struct {
		tags string
		want time.Duration
	}{
		{"@DEMO-RETRY-LATE-ANSWER", 11 * time.Second}, // the delivery timeout, then the first retry delay
		{"@DEMO-RETRY-SCHEDULE", 3 * time.Second},     // two retry delays
		{"@DEMO-RETRY-EXHAUSTED", 47 * time.Second},   // every retry delay, then the longest again
		{"@DEMO-RETRY", time.Second},
		{"@DEMO-RETRY-HANG-UP", time.Second},
		{"@DEMO-NO-RETRY-2XX", time.Second},
		{"@DEMO-NOTIFICATION", 0},
		{"@AUTH-OK", 0},
	} {
		for _, lang := range []string{"en", "es"} {
			sel, err := engine.Pickles(features.ServiceSet, lang, tc.tags)
			require.NoError(t, err)
			require.NotEmpty(t, sel, tc.tags)
			for _, s := range sel {
				assert.Equal(t, tc.want, scheduleWait(waits, s), "%s %s %s", lang, tc.tags, s.Name)
			}
		}
	}
}

// A run of more scenarios than its Concurrency hands godog every one at
// once, and the gate still runs no more than Concurrency at a time.
func TestTheGateBoundsARun(t *testing.T) {
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	defer rv.Close()
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
	require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
	require.NoError(t, ref.Open())
	defer ref.Close()

	var mu sync.Mutex
	running, most := 0, 0
	s := &Suite{Target: DemoTarget(ref.URL(), rv, true), RunOptions: RunOptions{Lang: "all", Tags: "@AUTH-OK,@AUTH-MISSING-HEADER,@AUTH-EXPIRED", Concurrency: 3},
		extend: func(sc *godog.ScenarioContext) {
			// From the gate's letting it in to its last step: the
			// scenario's own hooks give the slot back after that.
			var last string
			sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
				last = p.Steps[len(p.Steps)-1].Id
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond) // so that scenarios overlap
				return ctx, nil
			})
			sc.StepContext().After(func(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, _ error) (context.Context, error) {
				if st.Id == last {
					mu.Lock()
					running--
					mu.Unlock()
				}
				return ctx, nil
			})
		}}
	selected, err := Select(s.Lang, s.Tags)
	require.NoError(t, err)
	require.Greater(t, selected, 3*s.Concurrency)
	_, err = s.Run()
	require.NoError(t, err)
	assert.Equal(t, reports.Passed, s.Verdict())
	assert.Equal(t, 3, most, "at most Concurrency at once, and that many")
}

// The floor of the whole suite under the bundled profile is the down
// windows of @DEMO-RETRY-REFUSED (1.5 s in each language, one after the
// other, before the rest), then the exhausted schedule's: the demo
// delay, the five retry delays (31 s), the watch after the last retry
// (16 s, the longest delay) and the quiet window.
func TestFloor(t *testing.T) {
	p := firmakit.BundledProfile()
	d, err := Floor(p, "all", "", 500*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 53500*time.Millisecond, d)
	d, err = Floor(p, "all", "~@DEMO-RETRY-EXHAUSTED", 500*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 17500*time.Millisecond, d, "the late answer's: the delivery timeout and the first retry delay")
	d, err = Floor(p, "all", "@DEMO-RETRY-REFUSED", 500*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, d, "two down windows")
	d, err = Floor(p, "en", "@DEMO-RETRY-SCHEDULE", 500*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 6500*time.Millisecond, d, "1 s and 2 s of retries")
	d, err = Floor(p, "en", "@AUTH-OK,@DEMO-NOTIFICATION", 500*time.Millisecond)
	require.NoError(t, err)
	assert.Zero(t, d, "no scenario waits on the delivery schedule")
	_, err = Floor(p, "en", "@NO-SUCH-TAG", 0)
	assert.Error(t, err)
}

// The scenarios that take the receiver down go one at a time, and no
// other starts before each of them is up again; a run without one waits
// for nothing.
func TestDownFirst(t *testing.T) {
	sel, err := engine.Pickles(features.ServiceSet, "all", "@DEMO-RETRY-REFUSED,@AUTH-OK")
	require.NoError(t, err)
	var down, others []*godog.Scenario
	windows := downWindows()
	for _, s := range sel {
		if scheduleWait(windows, s) > 0 {
			down = append(down, s)
		} else {
			others = append(others, s)
		}
	}
	require.Len(t, down, 2, "en and es")
	require.NotEmpty(t, others)
	d := newDownFirst(sel)
	require.NotNil(t, d)
	ctx := context.Background()

	started := make(chan string, 10)
	go func() {
		leave, err := d.enter(ctx, others[0])
		assert.NoError(t, err)
		leave()
		started <- "other"
	}()
	first, err := d.enter(ctx, down[0])
	require.NoError(t, err)
	go func() {
		leave, err := d.enter(ctx, down[1])
		assert.NoError(t, err)
		started <- "second down"
		leave()
	}()
	select {
	case s := <-started:
		t.Fatalf("%s started while the first down scenario held the receiver down", s)
	case <-time.After(100 * time.Millisecond):
	}
	first()
	first() // once
	assert.Equal(t, "second down", <-started, "the second down scenario next")
	assert.Equal(t, "other", <-started, "then the others")

	sel, err = engine.Pickles(features.ServiceSet, "en", "@AUTH-OK")
	require.NoError(t, err)
	assert.Nil(t, newDownFirst(sel), "nothing to order")
	leave, err := (*downFirst)(nil).enter(ctx, sel[0])
	require.NoError(t, err)
	leave()

	// A run that ends while a scenario waits for the down windows.
	d = newDownFirst(append(sel, down[0]))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = d.enter(cctx, sel[0])
	assert.ErrorIs(t, err, context.Canceled)
}
