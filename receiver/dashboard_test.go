package receiver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func text(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(sel))), sel)
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return s
}

func eval[T any](ctx context.Context, t *testing.T, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, js)
	return v
}

// TestDashboardInABrowser drives the dashboard in headless Chromium: rows
// appear live with the right badges and verdicts, hostile bodies are shown
// as text, pause holds rows back, the language switches, and the page
// reconnects by itself after the receiver restarts, with no gap.
func TestDashboardInABrowser(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dash.db")
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: db}
	require.NoError(t, rv.Open())
	addr := strings.TrimPrefix(rv.URL(), "http://")
	t.Cleanup(func() { rv.Close() })

	ctx := browser.New(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(rv.URL()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
	))

	// Live rows, with their badges and verdicts.
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-signed", "sig-1"))
	post(t, rv, "merchant_demo", notification(firmakit.StateRejected, "ev-forged", "sig-2"), "t=1,v1=00")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="2"]`))))
	assert.Equal(t, "SIGNED", text(ctx, t, `#rows tr[data-id="1"] .badge.state-SIGNED`))
	assert.Equal(t, "valid", text(ctx, t, `#rows tr[data-id="1"] .verdict.verdict-valid`))
	assert.Equal(t, "REJECTED", text(ctx, t, `#rows tr[data-id="2"] .badge.state-REJECTED`))
	assert.Equal(t, "invalid", text(ctx, t, `#rows tr[data-id="2"] .verdict.verdict-invalid`))
	assert.Equal(t, "sig-1", text(ctx, t, `#rows tr[data-id="1"] td.signature`))
	assert.Equal(t, []int{2, 1}, eval[[]int](ctx, t, `[...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)`), "newest first")
	assert.Regexp(t, `^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$`, text(ctx, t, `#rows tr[data-id="1"] td.time`))

	// A hostile body is shown as text, and nothing in it runs.
	hostile := map[string]any{"event_id": "ev-xss", "signature_id": "sig-3", "status": "CANCELED",
		"title": `<script>window.__xss = 1</script>`, "reason": `<img src=x onerror="window.__xss = 2">`}
	body, _ := json.Marshal(hostile)
	body = []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(string(body)))
	signedPost(t, rv, "merchant_demo", body)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="3"]`)),
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail`)),
	))
	shown := text(ctx, t, "#d-body")
	assert.Contains(t, shown, `"title": "<script>window.__xss = 1</script>"`)
	assert.Contains(t, shown, `<img src=x onerror=\"window.__xss = 2\">`)
	assert.Contains(t, text(ctx, t, "#d-headers"), "X-Service-Signature: t=")
	assert.Contains(t, text(ctx, t, "#d-curl"), "curl -X POST '"+rv.URL()+"/hooks/merchant_demo'")
	time.Sleep(200 * time.Millisecond) // give an injected image the time to fail
	assert.True(t, eval[bool](ctx, t, `window.__xss === undefined`), "nothing from the body ran")
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll("main img, main script, #detail *:not(h2):not(h3):not(p):not(pre):not(span):not(button):not(div)").length`))

	// Pause holds new rows back; resume shows them.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))))
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCreated, "ev-paused", "sig-4"))
	require.Eventually(t, func() bool { return strings.Contains(text(ctx, t, "#counts"), "1 waiting") }, 5*time.Second, 50*time.Millisecond)
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll('#rows tr[data-id="4"]').length`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#pause")),
		chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="4"]`))))

	// Filters.
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("f-state"); s.value = "SIGNED"; s.dispatchEvent(new Event("input")); })()`)
	assert.Equal(t, []int{1}, eval[[]int](ctx, t, `[...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)`))
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("f-state"); s.value = ""; s.dispatchEvent(new Event("input")); })()`)

	// Spanish.
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("lang"); s.value = "es"; s.dispatchEvent(new Event("change")); })()`)
	assert.Equal(t, "Recibida", text(ctx, t, `th[data-i18n="received"]`))
	assert.Equal(t, "en vivo", text(ctx, t, "#conn-text"))

	// The receiver restarts: the page notices, reconnects by itself and
	// gets what arrived meanwhile, with no gap and no duplicate.
	require.NoError(t, rv.Close())
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="closed"]`))))
	rv2 := &receiver.Receiver{Addr: addr, DB: db}
	require.NoError(t, rv2.Open())
	t.Cleanup(func() { rv2.Close() })
	signedPost(t, rv2, "merchant_demo", notification(firmakit.StateBounced, "ev-after-restart", "sig-5"))
	require.NoError(t, chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="5"]`)),
	))
	signedPost(t, rv2, "merchant_demo", notification(firmakit.StateSigned, "ev-live-again", "sig-6"))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="6"]`))))
	assert.Equal(t, "BOUNCED", text(ctx, t, `#rows tr[data-id="5"] .badge.state-BOUNCED`))
	assert.Equal(t, []int{6, 5, 4, 3, 2, 1}, eval[[]int](ctx, t, `[...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)`))
}
