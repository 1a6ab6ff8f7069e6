package receiver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDashboardTokenStaysWithTheReceiver opens a receiver's dashboard
// behind a token, at the URL the receiver prints, in Chromium; the page
// works (its list, its stream, its export links), and then another
// server on 127.0.0.1, on another port, that the browser visits, gets no
// trace of the token: no cookie, no header, no referrer.
// A browser sends a host's cookies to every port of it, so a token kept
// in a cookie would reach any local server.
func TestDashboardTokenStaysWithTheReceiver(t *testing.T) {
	const token = "tok-stays-home-0123456789abcdef"
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Token = token })
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-1", "sig-1"))

	var mu sync.Mutex
	var seen []string // what the other server got, each request's whole header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		r.Header.Write(&b)
		mu.Lock()
		seen = append(seen, r.URL.String()+"\n"+b.String())
		mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write([]byte("<html><body>another local server</body></html>"))
	}))
	defer other.Close()
	require.True(t, strings.HasPrefix(other.URL, "http://127.0.0.1:"))

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/?token="+token),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`))))
	waitIDs(ctx, t, 1)
	// Its own calls pass: a record arriving now shows through the stream,
	// and the export link answers.
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-2", "sig-2"))
	waitIDs(ctx, t, 2, 1)
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch(document.getElementById("export-jsonl").href).then(r => r.status)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, 200, status)
	assert.Empty(t, eval[string](ctx, t, `document.cookie`))

	// The other server, visited and called from its own page (the
	// dashboard's page may call nothing but its own origin).
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(other.URL+"/visited"), chromedp.WaitVisible(chromedp.CSS(`body`))))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/again", {credentials: "include"}).then(() => 1)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(seen), 2, "the other server was reached")
	for _, req := range seen {
		assert.NotContains(t, req, token, "the token reached another port")
		assert.NotContains(t, strings.ToLower(req), "firmakit_token")
	}
}
