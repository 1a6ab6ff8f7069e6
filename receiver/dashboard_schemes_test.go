package receiver_test

import (
	"bytes"
	"net/http"
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

// The dashboard shows which scheme judged a channel's notification and,
// for a failed check, why in that scheme's words.
func TestDashboardShowsTheScheme(t *testing.T) {
	gh, _ := firmakit.Preset("github")
	st, _ := firmakit.Preset("stripe")
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:",
		ChannelProfiles: map[string]*firmakit.Profile{"gh": gh, "st": st},
		Secrets:         map[string][]string{"gh": {"gh secret"}, "st": {"whsec_st"}}}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	body := notification(firmakit.StateSigned, "ev-1", "sig-1")
	send := func(channel string, p *firmakit.Profile, secret string) {
		h := http.Header{}
		p.SignWebhook(h, "ev-1", []string{secret}, time.Now(), body)
		req, _ := http.NewRequest("POST", rv.URL()+"/hooks/"+channel, bytes.NewReader(body))
		req.Header = h
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	send("gh", gh, "gh secret")
	send("gh", gh, "forged")
	send("st", st, "whsec_st")

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(rv.URL()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="3"]`)),
	))
	title := func(id string) string {
		return eval[string](ctx, t, `document.querySelector('#rows tr[data-id="`+id+`"] td.check-cell').title`)
	}
	assert.Equal(t, "valid", text(ctx, t, `#rows tr[data-id="1"] .check.check-valid`))
	assert.Contains(t, title("1"), "github: replay cannot be judged: github signs no timestamp")
	assert.Equal(t, "invalid", text(ctx, t, `#rows tr[data-id="2"] .check.check-invalid`))
	assert.Contains(t, title("2"), "github: no matching signature: none of 1 sha256= signature(s) in X-Hub-Signature-256 matches")
	assert.Equal(t, "valid", text(ctx, t, `#rows tr[data-id="3"] .check.check-valid`))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="2"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail`)),
	))
	assert.Contains(t, text(ctx, t, "#d-summary"), "github: no matching signature")
	assert.NotContains(t, text(ctx, t, "#d-summary"), "verified with", "an invalid record names no key")
	assert.Contains(t, text(ctx, t, "#d-headers"), "X-Hub-Signature-256: sha256=")

	// A valid record's detail names the key that verified it.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.KeyEvent(kb.Escape), chromedp.WaitNotVisible(chromedp.CSS(`#detail`)),
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail`)),
	))
	poll(ctx, t, `document.getElementById("d-id").textContent === "#3"`, "the third record's detail")
	assert.Contains(t, text(ctx, t, "#d-summary"), "verified with "+st.KeyName("whsec_st"))
}
