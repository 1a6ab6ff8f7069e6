package receiver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

func text(ctx context.Context, t *testing.T, sel string) string {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(sel))), sel)
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return s
}

// waitRows waits until the ids of the rows in the page, in order, are the
// JSON array want.
func waitRows(ctx context.Context, t *testing.T, want string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`JSON.stringify([...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)) === `+strconv.Quote(want),
		chromedp.WithPollingTimeout(5*time.Second)))
	if err != nil {
		t.Fatalf("rows: want %s, got %v", want, eval[[]int](ctx, t, `[...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)`))
	}
}

func eval[T any](ctx context.Context, t *testing.T, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, js)
	return v
}

// TestDashboardInABrowser drives the dashboard in headless Chromium: rows
// appear live with the right badges and signature checks, hostile bodies are shown
// as text, pause holds rows back, the language switches, and the page
// reconnects by itself after the receiver restarts, with no gap.
func TestDashboardInABrowser(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dash.db")
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: db}
	require.NoError(t, rv.Open())
	addr := strings.TrimPrefix(rv.URL(), "http://")
	t.Cleanup(func() { rv.Close() })

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(rv.URL()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
	))

	// Live rows, with their badges and signature checks.
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-signed", "sig-1"))
	post(t, rv, "merchant_demo", notification(firmakit.StateRejected, "ev-forged", "sig-2"), "t=1,v1=00")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="2"]`))))
	assert.Equal(t, "SIGNED", text(ctx, t, `#rows tr[data-id="1"] .badge.state-SIGNED`))
	assert.Equal(t, "valid", text(ctx, t, `#rows tr[data-id="1"] .check.check-valid`))
	assert.Equal(t, "REJECTED", text(ctx, t, `#rows tr[data-id="2"] .badge.state-REJECTED`))
	assert.Equal(t, "invalid", text(ctx, t, `#rows tr[data-id="2"] .check.check-invalid`))
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
	// Had the body been parsed as HTML, its elements would be in the page
	// now (an image's onerror runs later, but the image is there at once).
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll("img, script:not([src]), [onerror]").length`), "no element from the body")
	assert.True(t, eval[bool](ctx, t, `window.__xss === undefined`), "nothing from the body ran")
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll("main img, main script, #detail *:not(h2):not(h3):not(p):not(pre):not(span):not(button):not(div):not(ol):not(li):not(form):not(input)").length`))

	// Esc closes the detail and gives the focus back to the row.
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape), chromedp.WaitNotVisible(chromedp.CSS(`#detail`))))
	assert.Equal(t, "3", eval[string](ctx, t, `document.activeElement.dataset.id`), "the focus is back on the row")

	// Pause holds new rows back; resume shows them.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#pause"))))
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCreated, "ev-paused", "sig-4"))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("counts").textContent.includes("1 waiting")`,
		chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the paused row is counted as waiting")
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll('#rows tr[data-id="4"]').length`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#pause")),
		chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="4"]`))))

	// Filters.
	// Filters (searched on the server).
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("f-state"); s.value = "SIGNED"; s.dispatchEvent(new Event("change")); })()`)
	waitRows(ctx, t, "[1]")
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("f-state"); s.value = ""; s.dispatchEvent(new Event("change")); })()`)
	waitRows(ctx, t, "[4,3,2,1]")

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

// attackPage is served from another origin (another port of 127.0.0.1, so
// the same site): it tries every call that would change the receiver, as a
// page a developer happens to open could. RV and SINK are replaced.
const attackPage = `<!doctype html><html><body><script>
window.results = {};
const RV = "{{RV}}", SINK = "{{SINK}}";
async function attempt(name, p) {
  try { const r = await p; window.results[name] = r.type + ":" + r.status; }
  catch (e) { window.results[name] = "error"; }
}
function submit(action, enctype, fields) {
  return new Promise(function (res) {
    const name = "f" + Math.random().toString(36).slice(2);
    const frame = document.createElement("iframe");
    frame.name = name;
    document.body.appendChild(frame);
    frame.onload = function () { res(); };
    const f = document.createElement("form");
    f.method = "POST"; f.action = RV + action; f.enctype = enctype; f.target = name;
    Object.keys(fields).forEach(function (k) {
      const i = document.createElement("input"); i.name = k; i.value = fields[k]; f.appendChild(i);
    });
    document.body.appendChild(f);
    f.submit();
  });
}
(async function () {
  const plain = { mode: "no-cors", method: "POST", headers: { "Content-Type": "text/plain" } };
  await attempt("replay", fetch(RV + "/api/events/1/replay", Object.assign({ body: JSON.stringify({ url: SINK + "/fetch" }) }, plain)));
  await attempt("rule", fetch(RV + "/api/channels/merchant_demo/responses", Object.assign({ body: '{"status":503,"count":0}' }, plain)));
  await attempt("demo", fetch(RV + "/api/demo", Object.assign({ body: '{"state":"SIGNED"}' }, plain)));
  await attempt("contract", fetch(RV + "/api/contracts", Object.assign({ body: '{"signature_id":"s","created_at":"2026-01-01T00:00:00Z"}' }, plain)));
  await attempt("rule-form", fetch(RV + "/api/channels/merchant_demo/responses", { mode: "no-cors", method: "POST", body: new URLSearchParams({ status: "503" }) }));
  await attempt("replay-json", fetch(RV + "/api/events/1/replay", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ url: SINK + "/cors" }) }));
  await attempt("delete", fetch(RV + "/api/events", { method: "DELETE" }));
  // A text/plain form whose single field spells JSON: {"url":"…","x":"="}
  await submit("/api/events/1/replay", "text/plain", { ['{"url":"' + SINK + '/form","x":"']: '"}' });
  await submit("/api/channels/merchant_demo/responses", "application/x-www-form-urlencoded", { status: "503" });
  await submit("/api/demo", "multipart/form-data", { state: "SIGNED" });
  window.results.forms = "submitted";
  window.results.ws = await new Promise(function (res) {
    const ws = new WebSocket(RV.replace("http:", "ws:") + "/api/stream");
    ws.onopen = function () { res("open"); };
    ws.onerror = function () { res("refused"); };
  });
  window.done = true;
})();
</script></body></html>`

// TestAnotherOriginCannotDriveTheReceiver opens, in headless Chromium, a
// page from another origin that tries to replay a record to its own
// server, set an answer rule, create a demo contract, note a contract,
// delete the records and read the stream; nothing changes in the receiver.
func TestAnotherOriginCannotDriveTheReceiver(t *testing.T) {
	var sunk atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sunk.Add(1) }))
	defer sink.Close()
	var demos atomic.Int64
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) {
		r.Demo = func(ctx context.Context, st firmakit.State) (*firmakit.Envelope, error) {
			demos.Add(1)
			return &firmakit.Envelope{}, nil
		}
	})
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-1", "s"))
	page := strings.NewReplacer("{{RV}}", rv.URL(), "{{SINK}}", sink.URL).Replace(attackPage)
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	defer attacker.Close()

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(attacker.URL+"/")))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.done === true`, chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the page did not finish its attempts")
	results := eval[map[string]string](ctx, t, `window.results`)
	t.Logf("what the page saw: %v", results)
	// The simple requests reached the receiver (an opaque answer, not a
	// network error); the others were stopped by the browser's preflight.
	for _, name := range []string{"replay", "rule", "demo", "contract", "rule-form"} {
		assert.Equal(t, "opaque:0", results[name], name)
	}
	assert.Equal(t, "error", results["replay-json"])
	assert.Equal(t, "error", results["delete"])
	assert.Equal(t, "submitted", results["forms"])
	assert.Equal(t, "refused", results["ws"], "the stream refuses another origin")

	assert.Equal(t, int64(0), sunk.Load(), "no replay was sent")
	assert.Equal(t, int64(0), demos.Load(), "no demo contract was created")
	rule, rules := getRules(t, rv, "merchant_demo")
	assert.Nil(t, rule)
	assert.Empty(t, rules, "no answer rule was set")
	var rec receiver.Record
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/1", &rec), "the records are still there")
	assert.Empty(t, rec.ContractCreatedAt, "no contract was noted")
	n, _ := rv.Count(context.Background())
	assert.Equal(t, int64(1), n)
}

// TestDashboardShowsTheEndpointsAnswer: with forwarding, each row shows
// the status answered and the endpoint's, and the details show what the
// endpoint answered (its body as text) or why it gave no answer.
func TestDashboardShowsTheEndpointsAnswer(t *testing.T) {
	fast := firmakit.BundledProfile()
	fast.Webhook.Timeout = 300 * time.Millisecond
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "ev-slow") {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `<b id="injected">bad signature</b>`)
	}))
	t.Cleanup(ep.Close)
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.ForwardTo, r.Profile = ep.URL+"/webhook", fast })

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(rv.URL()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
	))
	assert.Contains(t, text(ctx, t, "#hint"), "forwarded to "+ep.URL+"/webhook")
	for _, ev := range []string{"ev-refused", "ev-slow"} {
		body := notification(firmakit.StateSigned, ev, "sig-"+ev)
		req, _ := http.NewRequest("POST", rv.URL()+"/hooks/merchant_demo", strings.NewReader(string(body)))
		req.Header.Set("X-Service-Signature", fast.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="2"]`))))
	assert.Equal(t, "401", text(ctx, t, `#rows tr[data-id="1"] td.answer .status.status-4xx`))
	assert.Regexp(t, `^endpoint 401 · \d+ ms$`, text(ctx, t, `#rows tr[data-id="1"] td.answer .fwd`))
	assert.Equal(t, "504", text(ctx, t, `#rows tr[data-id="2"] td.answer .status.status-5xx`))
	assert.Regexp(t, `^endpoint no answer · \d+ ms$`, text(ctx, t, `#rows tr[data-id="2"] td.answer .fwd.fwd-failed`))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#d-forward`)),
	))
	assert.Equal(t, "Forwarded to your endpoint", text(ctx, t, `#d-forward h3`))
	summary := text(ctx, t, "#d-forward-summary")
	assert.Contains(t, summary, "POST "+ep.URL+"/webhook")
	assert.Regexp(t, `answered 401 in [\d.]+ ms · the service was answered 401`, summary)
	assert.Equal(t, `<b id="injected">bad signature</b>`, text(ctx, t, "#d-forward-body"), "the endpoint's answer, as text")
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll("#injected").length`), "nothing of it became an element")
	assert.False(t, eval[bool](ctx, t, `!document.getElementById("d-forward-error").hidden`))

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#close-detail`)), chromedp.WaitNotVisible(chromedp.CSS(`#detail`)),
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="2"]`))))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("d-id").textContent === "#2"`, chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err)
	assert.Contains(t, text(ctx, t, "#d-forward-error"), "the endpoint did not answer within 300ms")
	assert.Contains(t, text(ctx, t, "#d-forward-summary"), "the service was answered 504")

	// Spanish.
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("lang"); s.value = "es"; s.dispatchEvent(new Event("change")); })()`)
	assert.Equal(t, "Reenviada a tu endpoint", text(ctx, t, `#d-forward h3`))
	assert.Contains(t, text(ctx, t, "#d-forward-summary"), "se respondió 504 al servicio")
	assert.Equal(t, "Respuesta", text(ctx, t, `th[data-i18n="answer"]`))
}
