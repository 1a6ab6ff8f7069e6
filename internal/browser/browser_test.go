package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browser.StopShared()
	os.Exit(code)
}

// Two tabs of the shared Chromium are as apart as two browsers: a cookie
// or a stored value set in one is not in the other, and each has the
// window size New gives.
func TestSharedTabsAreApart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>t</title><p>page</p>"))
	}))
	defer srv.Close()
	a, b := browser.Shared(t), browser.Shared(t)
	read := func(ctx context.Context) (cookie, stored string, width int) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL)))
		var err error
		cookie, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`))
		require.NoError(t, err)
		stored, err = chromedp.Run(ctx, chromedp.Evaluate[string](`localStorage.getItem("k") || ""`))
		require.NoError(t, err)
		width, err = chromedp.Run(ctx, chromedp.Evaluate[int](`window.innerWidth`))
		require.NoError(t, err)
		return
	}
	require.NoError(t, chromedp.Do(a, chromedp.Navigate(srv.URL)))
	_, err := chromedp.Run(a, chromedp.Evaluate[string](`document.cookie = "c=1"; localStorage.setItem("k", "v"); "done"`))
	require.NoError(t, err)
	cookie, stored, width := read(a)
	assert.Equal(t, "c=1", cookie)
	assert.Equal(t, "v", stored)
	assert.Equal(t, 1400, width)
	cookie, stored, width = read(b)
	assert.Empty(t, cookie, "the other tab's cookie")
	assert.Empty(t, stored, "the other tab's storage")
	assert.Equal(t, 1400, width)
}
