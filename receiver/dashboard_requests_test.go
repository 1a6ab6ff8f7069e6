package receiver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRequests are two entries of GET /api/requests as the receiver will
// serve them for 'firmakit up': one accepted, one refused with its
// diagnostic (which carries hostile text).
var fakeRequests = []map[string]any{
	{"id": 1, "received_at": "2026-11-22T10:00:00.123456Z", "method": "GET", "target": "/v1/templates", "remote_addr": "127.0.0.1:5555",
		"merchant_id": "merchant_demo", "key_id": "key_demo", "status": 200, "verdict": "accepted", "message": "", "body_bytes": 0},
	{"id": 2, "received_at": "2026-11-22T10:00:01.123456Z", "method": "POST", "target": "/v1/check/merchant_demo?x=1", "remote_addr": "127.0.0.1:5556",
		"merchant_id": "merchant_demo", "status": 401, "verdict": "refused", "message": `Invalid signature <img src=x onerror="window.__xss=1">`, "body_bytes": 2,
		"diagnostic": map[string]any{"string_to_sign": "POST\n/v1/check/merchant_demo?x=1\n1790000000\n<b>{}</b>", "string_to_sign_bytes": 80,
			"method": "POST", "target": "/v1/check/merchant_demo?x=1", "body_bytes": 2, "body_sha256": "44136fa3",
			"headers": map[string]any{"X-Api-Key": "key_demo"}, "server_time": 1790000000, "timestamp": "1790000000",
			"clock_difference_seconds": 0, "cause": "the body you signed differs from the body you sent", "cause_code": "body_differs"}},
}

// TestDashboardRequestsPanel drives the panel of the reference's requests
// against a stand-in for the receiver's /api/requests (the real endpoint
// comes with 'firmakit up --explain'): a server in front of the receiver
// answers /api/info with "requests": true and serves the list and the
// stream per the contract, and passes everything else through.
func TestDashboardRequestsPanel(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	target, _ := url.Parse(rv.URL())
	pass := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		if r.In.Header.Get("Origin") != "" {
			r.Out.Header.Set("Origin", rv.URL())
		}
	}}
	mux := http.NewServeMux()
	mux.Handle("/", pass)
	mux.HandleFunc("GET /api/info", func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(rv.URL() + "/api/info")
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		var info map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &info)
		info["requests"] = true
		_ = json.NewEncoder(w).Encode(info)
	})
	mux.HandleFunc("GET /api/requests", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"requests": fakeRequests[:1], "count": 1, "total": 2, "last_id": 2})
	})
	mux.HandleFunc("GET /api/requests/stream", func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for _, q := range fakeRequests {
			b, _ := json.Marshal(q)
			if c.WriteMessage(websocket.TextMessage, b) != nil {
				return
			}
		}
		_, _, _ = c.ReadMessage() // until the page leaves
	})
	front := httptest.NewServer(mux)
	defer front.Close()

	ctx := browser.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(front.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#tab-requests`)),
		chromedp.Click(chromedp.CSS(`#tab-requests`)),
		chromedp.WaitVisible(chromedp.CSS(`#r-rows tr[data-id="2"]`)),
	))
	assert.Equal(t, []int{2, 1}, eval[[]int](ctx, t, `[...document.querySelectorAll("#r-rows tr")].map(r => +r.dataset.id)`))
	assert.Equal(t, "refused", text(ctx, t, `#r-rows tr[data-id="2"] .badge.rv-refused`))
	assert.Equal(t, "accepted", text(ctx, t, `#r-rows tr[data-id="1"] .badge.rv-accepted`))
	assert.Equal(t, "/v1/check/merchant_demo?x=1", eval[string](ctx, t, `document.querySelector('#r-rows tr[data-id="2"] td.target').title`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#r-rows tr[data-id="2"]`)), chromedp.WaitVisible(chromedp.CSS(`#rdetail`))))
	assert.Equal(t, "the body you signed differs from the body you sent", text(ctx, t, "#rd-cause"))
	assert.Equal(t, "POST\n/v1/check/merchant_demo?x=1\n1790000000\n<b>{}</b>", text(ctx, t, "#rd-sts"))
	assert.Contains(t, text(ctx, t, "#rd-fields"), "body_differs")
	assert.Contains(t, text(ctx, t, "#rd-message"), `<img src=x onerror=`)
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll("#rdetail img, #rdetail b, #r-rows img").length`), "hostile text stays text")
	assert.True(t, eval[bool](ctx, t, `window.__xss === undefined`))

	// The accepted one has no diagnostic; the panel says why.
	eval[chromedp.Void](ctx, t, `document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }))`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#r-rows tr[data-id="1"]`)), chromedp.WaitVisible(chromedp.CSS(`#rd-nodiag`))))
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("lang"); s.value = "es"; s.dispatchEvent(new Event("change")); })()`)
	assert.Equal(t, "rechazada", text(ctx, t, `#r-rows tr[data-id="2"] .badge`))
	assert.Equal(t, "Peticiones recibidas", text(ctx, t, `#tab-requests`))
	assert.Contains(t, text(ctx, t, "#rd-nodiag"), "Sin diagnóstico")
}
