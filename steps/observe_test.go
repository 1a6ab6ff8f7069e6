package steps

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a scenario's steps note with NoteTiming, NoteSignatureID and
// NoteEventID ends up in that scenario's result, and only in it; and the
// run reports its progress once per result.
func TestStepsNoteTimingsAndIDsInTheirResult(t *testing.T) {
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
	require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })

	var mu sync.Mutex
	var progress []Progress
	s := &Suite{Target: DemoTarget(ref.URL(), rv, true), RunOptions: RunOptions{Lang: "en", Tags: "@AUTH-OK", Concurrency: 2,
		OnResult: func(r reports.ScenarioResult, p Progress) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, p)
		}}}
	// Stands in for the notification steps: each scenario notes its own
	// name, once as a timing and once as each kind of id.
	s.extend = func(sc *godog.ScenarioContext) {
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			NoteTiming(ctx, p.Name, 512*time.Millisecond)
			NoteSignatureID(ctx, "sig "+p.Name)
			NoteEventID(ctx, "evt "+p.Name)
			NoteEventID(ctx, "")
			return ctx, nil
		})
	}
	_, err := s.Run()
	require.NoError(t, err)
	results := s.Results()
	require.Len(t, results, 3)
	for _, r := range results {
		assert.Equal(t, []reports.Timing{{Label: r.Name, After201: 512 * time.Millisecond}}, r.Timings, r.Name)
		assert.Equal(t, []string{"sig " + r.Name}, r.SignatureIDs)
		assert.Equal(t, []string{"evt " + r.Name}, r.EventIDs, "an empty id is not noted")
	}

	require.Len(t, progress, 3, "once per result")
	for i, p := range progress {
		assert.Equal(t, Progress{Done: i + 1, Total: 3}, p)
	}

	// Outside a scenario the hooks do nothing.
	NoteTiming(context.Background(), "x", time.Second)
	NoteSignatureID(context.Background(), "x")
	NoteEventID(context.Background(), "x")
}
