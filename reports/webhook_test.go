package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebhookCertificate: a run of the webhook set is reported against
// the webhook set's items and requirements, names the endpoint, carries
// the hints and what was sent and answered per requirement, and says what
// passing does not prove for an endpoint.
func TestWebhookCertificate(t *testing.T) {
	run := reports.Run{Tool: "firmakit", Version: "test", Target: "http://127.0.0.1:3000/webhook", TargetLabel: "merchant webhook endpoint",
		Profile: firmakit.BundledProfile(), Lang: "en", Set: features.WebhookSet,
		Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Elapsed: 900 * time.Millisecond,
		Hints: []string{"every notification was accepted, the forged ones too: the endpoint does not verify signatures"}}
	res := []reports.ScenarioResult{
		{Feature: "en/notifications.feature", Line: 20, Name: "a valid notification of each state is accepted", Row: "state=SIGNED", Lang: "en",
			Requirement: "WH-STATE", Kind: "spec", Status: reports.Passed, Exchange: "sent: POST …\nanswered: 200 in 1 ms: ok"},
		{Feature: "es/rechazos.feature", Line: 19, Name: "se rechaza una notificación firmada con otro secreto", Lang: "es",
			Requirement: "WH-WRONG-SECRET", Kind: "profile", Status: reports.Failed, FailedStep: "el endpoint la rechaza con un estado distinto de 2xx",
			Error: "expected a status other than 2xx", Exchange: "sent: POST (es)\nanswered: 200 in 1 ms: <script>x</script>"},
		{Feature: "en/refusals.feature", Line: 17, Name: "a notification signed with another secret is refused", Lang: "en",
			Requirement: "WH-WRONG-SECRET", Kind: "profile", Status: reports.Failed, FailedStep: "the endpoint refuses it with a status other than 2xx",
			Error: "expected a status other than 2xx", Exchange: "sent: POST (en)\nanswered: 200 in 1 ms: ok"},
	}
	c, err := reports.Build(run, res)
	require.NoError(t, err)
	assert.Equal(t, "merchant webhook endpoint", c.Target.Label)
	assert.Equal(t, "http://127.0.0.1:3000/webhook", c.Target.URL)
	assert.Equal(t, "webhook", c.Suite.Set)
	assert.Equal(t, run.Hints, c.Hints)
	assert.NotEmpty(t, c.NotProven)
	service, err := features.ServiceSet.Digest(features.FS)
	require.NoError(t, err)
	webhook, err := features.WebhookSet.Digest(features.FS)
	require.NoError(t, err)
	assert.Equal(t, webhook, c.Suite.FeaturesSHA256)
	assert.NotEqual(t, service, c.Suite.FeaturesSHA256)

	items := map[string]reports.ItemResult{}
	for _, it := range c.Interface {
		items[it.Ref] = it
	}
	assert.NotContains(t, items, "§4.1 rule 1", "the service's items are not the endpoint's")
	assert.Equal(t, reports.Failed, items["§5 bullet 5"].Status, "WH-WRONG-SECRET failed")
	assert.Equal(t, reports.Passed, items["§6.1 paragraph 1"].Status, "WH-STATE passed")
	assert.Equal(t, reports.PartNotSelected, items["defaults §B bullet 6"].Status, "WH-STATE passed, WH-DUPLICATE was not run")
	assert.Equal(t, reports.NotSelected, items["defaults §B bullet 1"].Status, "WH-ROTATION was not run")
	assert.Equal(t, reports.NotTested, items["§6.3 bullet 2"].Status)

	reqs := map[string]reports.RequirementResult{}
	for _, r := range c.Requirements {
		reqs[r.Tag] = r
	}
	assert.Equal(t, "sent: POST (es)\nanswered: 200 in 1 ms: <script>x</script>", reqs["WH-WRONG-SECRET"].Exchange, "the first failure's exchange")
	assert.Equal(t, "sent: POST …\nanswered: 200 in 1 ms: ok", reqs["WH-STATE"].Exchange)

	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	html := string(page)
	assert.Contains(t, html, "merchant webhook endpoint <code>http://127.0.0.1:3000/webhook</code></dd>")
	assert.Contains(t, html, "the endpoint does not verify signatures")
	assert.Contains(t, html, "&lt;script&gt;x&lt;/script&gt;", "the answer is shown as text")
	assert.NotContains(t, html, "<script>x")
	assert.Contains(t, html, "constant time is not measured")
	assert.NotContains(t, html, "Notifications are checked in demo mode only", "the service's caveats are not the endpoint's")
	cert, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(cert), `"label": "merchant webhook endpoint"`))
}
