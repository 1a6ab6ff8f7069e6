package receiver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDashboardRequestsPanel drives the panel of the requests a service
// received, as under 'firmakit up --explain': a real reference server
// explains its refusals and logs every request, and the receiver shows
// the log live. One request is accepted, one refused because the body
// sent differs from the body signed, with hostile text in its query (the
// log shows the string to sign up to the body, never the body).
func TestDashboardRequestsPanel(t *testing.T) {
	ref := &reference.Server{Addr: "127.0.0.1:0", Explain: true}
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Requests = ref.Requests() })
	send := func(path, signed, sent string) {
		t.Helper()
		req, _ := http.NewRequest("POST", ref.URL()+path, strings.NewReader(sent))
		req.Header = profile.SignedHeaders("test_key_demo", "test_secret_demo", "POST", path, []byte(signed), time.Now())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	send("/v1/check/merchant_demo", "{}", "{}")
	front := struct{ URL string }{rv.URL()}

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(front.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#tab-requests`)),
		chromedp.Click(chromedp.CSS(`#tab-requests`)),
		chromedp.WaitVisible(chromedp.CSS(`#r-rows tr[data-id="1"]`)),
	))
	// The refused one arrives live.
	const hostile = "/v1/check/merchant_demo?x=<img/src=x/onerror=window.__xss=1>"
	send(hostile, `{}`, `{"a":"bodytext"}`)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#r-rows tr[data-id="2"]`))))
	assert.Equal(t, []int{2, 1}, eval[[]int](ctx, t, `[...document.querySelectorAll("#r-rows tr")].map(r => +r.dataset.id)`))
	assert.Equal(t, "refused", text(ctx, t, `#r-rows tr[data-id="2"] .badge.rv-refused`))
	assert.Equal(t, "accepted", text(ctx, t, `#r-rows tr[data-id="1"] .badge.rv-accepted`))
	assert.Equal(t, hostile, eval[string](ctx, t, `document.querySelector('#r-rows tr[data-id="2"] td.target').title`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#r-rows tr[data-id="2"]`)), chromedp.WaitVisible(chromedp.CSS(`#rdetail`))))
	var logged firmakit.RequestsPage
	getJSON(t, rv.URL()+"/api/requests?after=1", &logged)
	require.Len(t, logged.Requests, 1)
	d := logged.Requests[0].Diagnostic
	require.NotNil(t, d, "a refusal under --explain carries its diagnostic")
	assert.Equal(t, d.Cause, text(ctx, t, "#rd-cause"))
	assert.Contains(t, d.Cause, "body", "the cause the server found: the body differs")
	assert.Equal(t, d.StringToSign, text(ctx, t, "#rd-sts"), "the string to sign shown exactly as the server wrote it")
	assert.Contains(t, text(ctx, t, "#rd-sts"), `?x=<img/src=x/onerror=window.__xss=1>\n"`, "hostile bytes shown as text, the body left out")
	assert.NotContains(t, text(ctx, t, "#rdetail"), "bodytext", "the body is not in the log")
	assert.Contains(t, text(ctx, t, "#rd-headers"), "X-Service-Signature: (64 characters, not logged)")
	assert.Contains(t, text(ctx, t, "#rd-fields"), d.CauseCode)
	assert.Contains(t, text(ctx, t, "#rd-headers"), "X-Service-Key: test_key_demo")
	assert.Equal(t, "Invalid signature", text(ctx, t, "#rd-message"))
	assert.Equal(t, 0, eval[int](ctx, t, `document.querySelectorAll("#rdetail img, #rdetail b, #r-rows img").length`), "hostile text stays text")
	assert.True(t, eval[bool](ctx, t, `window.__xss === undefined`))

	// The accepted one has no diagnostic; the panel says why.
	eval[chromedp.Void](ctx, t, `document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }))`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#r-rows tr[data-id="1"]`)), chromedp.WaitVisible(chromedp.CSS(`#rd-nodiag`))))
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("lang"); s.value = "es"; s.dispatchEvent(new Event("change")); })()`)
	assert.Equal(t, "rechazada", text(ctx, t, `#r-rows tr[data-id="2"] .badge`))
	assert.Equal(t, "Peticiones recibidas", text(ctx, t, `#tab-requests`))
	assert.Contains(t, text(ctx, t, "#rd-nodiag"), "Sin diagnóstico")

	// A key header that is not UTF-8 is shown as its exact bytes, escaped.
	eval[chromedp.Void](ctx, t, `document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }))`)
	req, _ := http.NewRequest("POST", ref.URL()+"/v1/check/merchant_demo", strings.NewReader("{}"))
	req.Header = profile.SignedHeaders("key\xff", "x", "POST", "/v1/check/merchant_demo", []byte("{}"), time.Now())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#r-rows tr[data-id="3"]`)),
		chromedp.Click(chromedp.CSS(`#r-rows tr[data-id="3"]`)), chromedp.WaitVisible(chromedp.CSS(`#rd-headers`))))
	assert.Contains(t, text(ctx, t, "#rd-headers"), `X-Service-Key: "key\xff"`)
}
