package receiver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func poll(ctx context.Context, t *testing.T, js, what string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, what)
}

type box struct{ Left, Right, Top, Width, Height float64 }

func rect(ctx context.Context, t *testing.T, sel string) box {
	t.Helper()
	return eval[box](ctx, t, `(() => { const r = document.querySelector(`+strconv.Quote(sel)+`).getBoundingClientRect();
		return { Left: r.left, Right: r.right, Top: r.top, Width: r.width, Height: r.height }; })()`)
}

// TestDashboardLayout: a 147-character channel name is cut with an
// ellipsis (whole in its tooltip) and pushes nothing off-screen, at
// 1400 px and at 400 px, where rows become cards and the detail takes the
// whole screen. The favicon is served.
func TestDashboardLayout(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	long := strings.Repeat("merchant_with_a_very_long_name_", 5)[:147]
	post(t, rv, long, notification(firmakit.StateSigned, "ev-long", "sig-long-"+strings.Repeat("x", 60)), "")
	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/"), chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="1"]`))))
	for _, width := range []int64{1400, 400} {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, 800)))
		poll(ctx, t, `document.documentElement.clientWidth === `+strconv.FormatInt(width, 10), "the viewport")
		w := float64(width)
		assert.LessOrEqual(t, eval[float64](ctx, t, `document.documentElement.scrollWidth`), w, "no horizontal scroll at %d px", width)
		row := rect(ctx, t, `#rows tr[data-id="1"]`)
		assert.LessOrEqual(t, row.Right, w, "the row fits at %d px", width)
		assert.LessOrEqual(t, rect(ctx, t, `#rows tr[data-id="1"] td.signature`).Right, w+1, "the id column is on screen")
		assert.Equal(t, long, eval[string](ctx, t, `document.querySelector('#rows tr[data-id="1"] td.channel').title`), "the whole name in the tooltip")
		assert.Equal(t, "ellipsis", eval[string](ctx, t, `getComputedStyle(document.querySelector('#rows tr[data-id="1"] td.channel')).textOverflow`))
		if width == 400 {
			assert.Greater(t, row.Height, 60.0, "a card of several lines")
		}
		// Keyboard: the row takes the focus, Enter opens, Esc closes.
		eval[chromedp.Void](ctx, t, `document.querySelector('#rows tr[data-id="1"]').focus()`)
		require.Equal(t, "1", eval[string](ctx, t, `document.activeElement.dataset.id`), "the row takes the focus")
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
		poll(ctx, t, `!document.getElementById("detail").hidden`, "Enter opens the detail")
		d := rect(ctx, t, "#detail")
		assert.LessOrEqual(t, d.Right, w+0.5, "the detail is on screen at %d px", width)
		assert.GreaterOrEqual(t, d.Left, 0.0)
		if width == 400 {
			assert.InDelta(t, w, d.Width, 1, "the whole screen on a phone")
		}
		assert.Contains(t, text(ctx, t, "#d-summary"), long, "the whole name in the detail")
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape), chromedp.WaitNotVisible(chromedp.CSS(`#detail`))))
		assert.Equal(t, "1", eval[string](ctx, t, `document.activeElement.dataset.id`))
	}
	resp, err := http.Get(rv.URL() + eval[string](ctx, t, `new URL(document.querySelector('link[rel="icon"]').href).pathname`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "image/svg+xml", resp.Header.Get("Content-Type"))
}

// TestDashboardSearchesTheServer: the filter comes from the URL, is
// searched by the receiver, shows the total matching and pages back
// through every match on scrolling; live records follow the filter; the
// back button restores the previous filter; an empty result says so.
func TestDashboardSearchesTheServer(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.DB = t.TempDir() + "/f.db" })
	for i := 1; i <= 260; i++ {
		ch, body := "shop_"+strconv.Itoa(i%2), fmt.Sprintf(`{"n":%d,"note":"hay`, i)
		if i%2 == 0 {
			body += " aguja"
		}
		post(t, rv, ch, []byte(body+`"}`), "")
	}
	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/#channel_prefix=shop_0&q=aguja"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`))))
	assert.Equal(t, "shop_0", eval[string](ctx, t, `document.getElementById("f-channel").value`), "the filter from the URL")
	assert.Equal(t, "aguja", eval[string](ctx, t, `document.getElementById("f-q").value`))
	poll(ctx, t, `document.getElementById("counts").textContent.startsWith("130 match · 100 loaded")`, "the total matching, first page")
	// Scrolling to the end loads the older pages, with no gap or duplicate.
	for range 5 {
		eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("scroller"); s.scrollTop = s.scrollHeight; })()`)
		time.Sleep(100 * time.Millisecond)
	}
	poll(ctx, t, `document.getElementById("counts").textContent.startsWith("130 match · 130 loaded")`, "every match loaded")
	assert.True(t, eval[bool](ctx, t, `document.getElementById("more").hidden`), "nothing older to load")
	last := eval[[]int](ctx, t, `[...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)`)
	require.NotEmpty(t, last)
	assert.Equal(t, 2, last[len(last)-1], "down to the oldest match")
	assert.LessOrEqual(t, len(last), 100)

	// Live: a match is added and counted, the rest is not.
	post(t, rv, "shop_1", []byte(`{"note":"aguja"}`), "")
	post(t, rv, "shop_0", []byte(`{"note":"nada"}`), "")
	post(t, rv, "shop_0", []byte(`{"note":"aguja viva"}`), "")
	poll(ctx, t, `document.getElementById("counts").textContent.startsWith("131 match · 131 loaded")`, "the live match counted")
	eval[chromedp.Void](ctx, t, `document.getElementById("scroller").scrollTop = 0`)
	poll(ctx, t, `document.querySelector("#rows tr").dataset.id === "263"`, "the live match on top")

	// A filter that matches nothing says so; back restores the previous one.
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("f-check"); s.value = "valid"; s.dispatchEvent(new Event("change")); })()`)
	poll(ctx, t, `document.getElementById("empty").textContent === "No record matches the filter." && !document.getElementById("empty").hidden`, "the empty result")
	assert.Contains(t, eval[string](ctx, t, `location.hash`), "check=valid")
	assert.Contains(t, eval[string](ctx, t, `document.getElementById("export-jsonl").getAttribute("href")`), "check=valid", "the export follows the filter")
	eval[chromedp.Void](ctx, t, `history.back()`)
	poll(ctx, t, `document.getElementById("counts").textContent.startsWith("131 match")`, "back to the previous filter")
	assert.Equal(t, "", eval[string](ctx, t, `document.getElementById("f-check").value`))
	// Reloading keeps the filter.
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	poll(ctx, t, `document.getElementById("counts").textContent.startsWith("131 match · 100 loaded")`, "the filter survives a reload")
	// A state no select offers (a typo in a shared link) is left out, not
	// searched for behind a blank choice.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/#q=aguja&state=SIGND")))
	poll(ctx, t, `document.getElementById("counts").textContent.startsWith("132 match")`, "the typo left out: every match of the text")
	assert.Equal(t, "", eval[string](ctx, t, `document.getElementById("f-state").value`))
	// A link made before the check took its name keeps its filter.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/#verdict=valid")))
	poll(ctx, t, `document.getElementById("f-check").value === "valid" && !document.getElementById("empty").hidden`, "#verdict= read as the check")
}

// TestDashboardShowsWhatTheReceiverDid: attempts of one event grouped with
// their answers (a programmed 503, then 200), the delay against the
// 300-1500 ms window, and everything in Spanish with no English label
// left in the filters or signature checks.
func TestDashboardShowsWhatTheReceiverDid(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/"), chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`))))
	now := time.Now().UTC()
	require.NoError(t, rv.NoteContract(context.Background(), "sig-in", now.Add(-800*time.Millisecond).Format(time.RFC3339Nano)))
	require.NoError(t, rv.NoteContract(context.Background(), "sig-late", now.Add(-5*time.Second).Format(time.RFC3339Nano)))
	require.NoError(t, rv.FailNext(context.Background(), "merchant_demo", "", 503, 1))
	body := notification(firmakit.StateSigned, "ev-retried", "sig-in")
	signedPost(t, rv, "merchant_demo", body) // 503
	signedPost(t, rv, "merchant_demo", body) // 200
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-late", "sig-late"))
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCreated, "ev-unknown", "sig-unknown"))
	post(t, rv, "merchant_demo", notification(firmakit.StateCreated, "ev-forged", "sig-unknown"), "t=1,v1=00")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="5"]`))))

	assert.Equal(t, "attempt 1 of 2", text(ctx, t, `#rows tr[data-id="1"] .attempt`))
	assert.Equal(t, "attempt 2 of 2", text(ctx, t, `#rows tr[data-id="2"] .attempt`))
	assert.Equal(t, "503", text(ctx, t, `#rows tr[data-id="1"] .status.status-5xx`))
	assert.Equal(t, "200", text(ctx, t, `#rows tr[data-id="2"] .status.status-2xx`))
	assert.Regexp(t, `^\d+ ms$`, text(ctx, t, `#rows tr[data-id="2"] td.delay.delay-in`), "in the window: green")
	assert.Regexp(t, `^\d+ ms$`, text(ctx, t, `#rows tr[data-id="3"] td.delay.delay-out`), "outside: red")
	assert.Equal(t, "—", text(ctx, t, `#rows tr[data-id="4"] td.delay.delay-unknown`))
	assert.Contains(t, eval[string](ctx, t, `document.querySelector('#rows tr[data-id="4"] td.delay').title`), "does not know when this contract was created")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows tr[data-id="2"]`)), chromedp.WaitVisible(chromedp.CSS(`#detail`))))
	poll(ctx, t, `document.querySelectorAll("#d-attempts li").length === 2`, "both attempts listed")
	attempts := eval[[]string](ctx, t, `[...document.querySelectorAll("#d-attempts li")].map(l => l.textContent)`)
	assert.Contains(t, attempts[0], "attempt 1 of 2 · #1")
	assert.Contains(t, attempts[0], "answered 503")
	assert.Contains(t, attempts[1], "answered 200")
	assert.Contains(t, text(ctx, t, "#d-answer"), "200: accepted.")

	// Spanish: every label of the filters and signature checks.
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("lang"); s.value = "es"; s.dispatchEvent(new Event("change")); })()`)
	assert.Equal(t, "intento 2 de 2", text(ctx, t, `#rows tr[data-id="2"] .attempt`))
	assert.Contains(t, text(ctx, t, "#d-answer"), "200: aceptada.")
	// The attempts are asked for again in the new language; "Cargando…"
	// shows until they come.
	poll(ctx, t, `document.querySelector("#d-attempts").textContent.includes("respuesta 503")`, "the attempts listed again, in Spanish")
	assert.Contains(t, text(ctx, t, "#d-attempts"), "respuesta 503")
	options := eval[[]string](ctx, t, `[...document.querySelectorAll("#filters option, #filters label > span")].map(o => o.textContent)`)
	checks := eval[[]string](ctx, t, `[...document.querySelectorAll("#rows .check")].map(o => o.textContent)`)
	assert.ElementsMatch(t, []string{"válida", "válida", "válida", "válida", "inválida"}, checks)
	for _, s := range append(options, checks...) {
		for _, english := range []string{"valid", "invalid", "missing", "unverified", "all", "Channel", "State", "Signature", "Text"} {
			assert.NotEqual(t, english, s, "an English label left in Spanish mode")
		}
	}
	assert.Contains(t, options, "Firma del aviso")
	assert.Contains(t, options, "sin verificar")
	assert.Equal(t, "Firma del aviso", text(ctx, t, `th[data-i18n="check"]`))
	english := map[string]string{"#clear-all": "Clear all", "#answers-toggle": "Programmed answers", "#export-jsonl": "Export JSONL",
		"#f-clear": "Clear filter", "#pause": "Pause", "#copy-curl": "Copy as curl", "#d-answer": "200: accepted."}
	for sel, en := range english {
		assert.NotContains(t, text(ctx, t, sel), en, sel)
	}
}

// TestCopyAsCurlSendsTheExactBytes: a body that is not UTF-8 (with a NUL,
// a quote, a percent sign and a backslash) is sent again byte for byte by
// the page's curl line, run through sh.
func TestCopyAsCurlSendsTheExactBytes(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is not installed (make deps)")
	}
	got := make(chan []byte, 1)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	defer sink.Close()
	rv := MustOpenReceiver(t, nil)
	raw := []byte("\xff\xfe\x00\x01 it's 100% \\n \n\t\"x\"\x80\xc3")
	post(t, rv, "merchant_demo", raw, "")
	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/"),
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="1"]`)), chromedp.WaitVisible(chromedp.CSS(`#detail`))))
	line := text(ctx, t, "#d-curl")
	assert.Contains(t, line, "--data-binary @-")
	line = strings.Replace(line, rv.URL(), sink.URL, 1)
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.True(t, bytes.Equal(raw, <-got), "the exact bytes")
}
