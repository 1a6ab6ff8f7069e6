package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUpDashboardDemoButton: a person opens the dashboard of 'firmakit up',
// clicks a demo button and sees the signed notification arrive, with the
// delay since the contract was created; 'firmakit demo' shows up too.
func TestUpDashboardDemoButton(t *testing.T) {
	urls := startInProcess(t, nil, "up", "--addr", "127.0.0.1:0", "--listen", "127.0.0.1:0", "--log-level", "warn")
	ctx := browser.New(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(urls["dashboard"]),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#demo button[data-demo="SIGNED"]`)),
		chromedp.Click(chromedp.CSS(`#demo button[data-demo="SIGNED"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="1"] .badge.state-SIGNED`)),
	))
	shown, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#demo-result`)))
	require.NoError(t, err)
	assert.Regexp(t, `^SIGNED contract created: [0-9a-f-]{36}$`, shown, "the button says what it did")
	verdict, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#rows tr[data-id="1"] .check`)))
	require.NoError(t, err)
	assert.Equal(t, "valid", verdict)
	delay, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#rows tr[data-id="1"] td.delay`)))
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^\d+ ms$`), delay, "the delay since the contract's created_at")

	code, out, errOut := run(t, nil, "demo", "canceled", "--target", urls["reference"])
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, `created "DEMO_CANCELED contrato de prueba"`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="2"] .badge.state-CANCELED`))))
	delay, err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#rows tr[data-id="2"] td.delay`)))
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^\d+ ms$`), delay, "a contract of 'firmakit demo' gets its delay too")

	// The requests the reference received, live, beside the notifications:
	// the two creations, then a refused one.
	code, _, _ = run(t, nil, "demo", "signed", "--target", urls["reference"], "--secret", "wrong")
	assert.Equal(t, ExitFailed, code)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#tab-requests`)),
		chromedp.WaitVisible(chromedp.CSS(`#r-rows tr[data-id="3"] .badge.rv-refused`)),
	))
	accepted, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#r-rows .badge.rv-accepted").length`))
	require.NoError(t, err)
	assert.Equal(t, 2, accepted, "the button's creation and 'firmakit demo''s")

	code, _, errOut = run(t, nil, "demo", "PAID", "--target", urls["reference"])
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `state "PAID"`)
}

// noterFunc is a receiver that notes contracts as f says.
type noterFunc func(ctx context.Context, signatureID, createdAt string) error

func (f noterFunc) NoteContract(ctx context.Context, signatureID, createdAt string) error {
	return f(ctx, signatureID, createdAt)
}

// TestUpNotesContractsWithinAWait: 'firmakit up' tells the receiver of
// each contract on the request's goroutine, before a 201; a receiver that
// does not answer holds it for the wait only.
func TestUpNotesContractsWithinAWait(t *testing.T) {
	var hadDeadline bool
	var got []string
	stuck := noterFunc(func(ctx context.Context, id, at string) error {
		_, hadDeadline = ctx.Deadline()
		got = append(got, id, at)
		<-ctx.Done() // a store that never answers
		return ctx.Err()
	})
	noteContracts(stuck, time.Millisecond)("merchant_demo", "sig-1", "2026-11-22T10:00:00Z")
	assert.True(t, hadDeadline, "the note has a deadline")
	assert.Equal(t, []string{"sig-1", "2026-11-22T10:00:00Z"}, got)
	assert.Equal(t, 2*time.Second, noteContractWait)
}
