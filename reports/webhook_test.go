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
	run, res := webhookFixture()
	c, err := reports.Build(run, res)
	require.NoError(t, err)
	assert.Equal(t, "merchant webhook endpoint", c.Target.Label)
	assert.Equal(t, "http://127.0.0.1:3000/webhook", c.Target.URL)
	assert.Equal(t, "webhook", c.Suite.Set)
	assert.Equal(t, []string{"Everything was accepted, the forged notifications too (answered 200): the endpoint does not verify the X-Service-Signature header " +
		"at all, so anyone who knows its URL can make it act. Verify the signature, and the age of t, before acting on a notification."}, c.Hints)
	require.Len(t, c.NotProven, 5)
	assert.Contains(t, c.NotProven[3], "constant time is not measured")
	require.Len(t, c.Causes, 2)
	for _, cause := range c.Causes {
		assert.Empty(t, cause.Diagnosis, "the service's diagnoses (check --target) are not the endpoint's: %s", cause.Error)
	}
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
	assert.Equal(t, reports.PartNotSelected, items["§6.1 paragraph 1"].Status, "WH-STATE passed, WH-FORGERY-PATHS and WH-EVENTS-OVER-TIME were not run")
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
	assert.Contains(t, html, "merchant webhook endpoint <code>http://127.0.0.1:3000/webhook</code>, merchant <code>shop</code></dd>")
	assert.Contains(t, html, `<h2 id="hints">What the failures point at</h2>`)
	assert.Contains(t, html, "the endpoint does not verify the X-Service-Signature header at all")
	assert.Contains(t, html, "<summary>sent and answered</summary>")
	assert.Contains(t, html, "&lt;script&gt;x&lt;/script&gt;", "the answer is shown as text")
	assert.NotContains(t, html, "<script>x")
	assert.Contains(t, html, "constant time is not measured")
	assert.Contains(t, html, "does not prove who wrote it", "the digest's caveat holds for any certificate")
	assert.NotContains(t, html, "Notifications are checked in demo mode only", "the service's caveats are not the endpoint's")
	assert.NotContains(t, html, `id="timeline"`, "the endpoint's run has no notification timings")
	assert.NotContains(t, html, `id="ids"`, "nor contracts")
	assert.NotContains(t, html, "--target", "nor the service's diagnoses")
	cert, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(cert), `"label": "merchant webhook endpoint"`))
}

// webhookFixture is a run of the webhook set against an endpoint that
// accepts a forged notification: one requirement passed, one failed in
// both languages, the others not selected.
func webhookFixture() (reports.Run, []reports.ScenarioResult) {
	run := reports.Run{Tool: "firmakit", Version: "test", Target: "http://127.0.0.1:3000/webhook", TargetLabel: reports.WebhookTarget,
		MerchantID: "shop", Profile: firmakit.BundledProfile(), Lang: "all", Set: features.WebhookSet,
		Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Elapsed: 900 * time.Millisecond,
		Hints: []reports.Hint{{ID: "all-accepted", Args: []any{"200", "X-Service-Signature"}}}}
	res := []reports.ScenarioResult{
		{Feature: "en/notifications.feature", Line: 20, Name: "a valid notification of each state is accepted", Row: "state=SIGNED", Lang: "en",
			Requirement: "WH-STATE", Kind: "spec", Status: reports.Passed, Exchange: "sent: POST …\nanswered: 200 in 1 ms: ok"},
		{Feature: "es/rechazos.feature", Line: 19, Name: "se rechaza una notificación firmada con otro secreto", Lang: "es",
			Requirement: "WH-WRONG-SECRET", Kind: "profile", Status: reports.Failed, FailedStep: "el endpoint la rechaza con un estado distinto de 2xx",
			Error: "expected a status other than 2xx", Exchange: "sent: POST (es)\nanswered: 200 in 1 ms: <script>x</script>"},
		{Feature: "en/refusals.feature", Line: 17, Name: "a notification signed with another secret is refused", Lang: "en",
			Requirement: "WH-WRONG-SECRET", Kind: "profile", Status: reports.Failed, FailedStep: "the endpoint refuses it with a status other than 2xx",
			Error: "expected a status other than 2xx", Exchange: "sent: POST (en)\nanswered: 200 in 1 ms: ok"},
		{Feature: "en/refusals.feature", Line: 60, Name: "a notification whose t is too old is refused", Lang: "en",
			Requirement: "WH-TIMESTAMP-OLD", Kind: "profile", Status: reports.Failed, FailedStep: "the endpoint refuses it with a status other than 2xx",
			Error: "expected a status other than 2xx within the 5s delivery timeout; the endpoint could not be reached: dial tcp 127.0.0.1:3000: connect: connection refused"},
	}
	return run, res
}

// TestWebhookReportInSpanish: the webhook set's page asked for in Spanish
// says the endpoint, the hints, what was sent and answered and what
// passing does not prove in Spanish, with no fixed English text left.
func TestWebhookReportInSpanish(t *testing.T) {
	run, res := webhookFixture()
	run.ReportLang = "es"
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	html := string(page)
	assert.Contains(t, html, `<html lang="es">`)
	assert.Contains(t, html, "endpoint de webhook del comercio <code>http://127.0.0.1:3000/webhook</code>, comercio <code>shop</code>")
	assert.Contains(t, html, `<h2 id="hints">A qué apuntan los fallos</h2>`)
	assert.Contains(t, html, "Se aceptó todo, también las notificaciones falsificadas (respondió 200): el endpoint no verifica la cabecera X-Service-Signature")
	assert.Contains(t, html, "<summary>lo que se envió y lo que respondió</summary>")
	assert.Contains(t, html, "No se mide si el endpoint compara las firmas en tiempo constante.")
	for _, en := range []string{"merchant webhook endpoint", "What the failures point at", "sent and answered", "Everything was accepted",
		"constant time is not measured", "What passing does not prove"} {
		assert.NotContains(t, html, en)
	}
}

// TestWebhookCertificateVerifies: the digest covers what the webhook
// set's certificate adds (the endpoint's label, the set, the hints, what
// passing does not prove, what was sent and answered): it holds as
// written, and names the member changed after.
func TestWebhookCertificateVerifies(t *testing.T) {
	run, res := webhookFixture()
	dir := t.TempDir()
	require.NoError(t, reports.WriteAll(dir, run, res))
	data, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	check, err := reports.VerifyCertificate(data)
	require.NoError(t, err)
	assert.True(t, check.Holds)

	for _, tc := range []struct{ from, to, changed string }{
		{`"label": "merchant webhook endpoint"`, `"label": "payment service"`, "target"},
		{`"set": "webhook"`, `"set": "service"`, "suite"},
		{`"hints": [`, `"hints": [ "all good",`, "hints"},
		{`Whether the endpoint compares signatures in constant time is not measured.`, `Everything is measured.`, "not_proven"},
		{`answered: 200 in 1 ms: ok`, `answered: 401 in 1 ms: no`, "requirement WH-STATE"},
	} {
		changed := strings.Replace(string(data), tc.from, tc.to, 1)
		require.NotEqual(t, string(data), changed, tc.from)
		check, err := reports.VerifyCertificate([]byte(changed))
		require.NoError(t, err)
		assert.False(t, check.Holds, tc.from)
		assert.Contains(t, check.Changed, tc.changed, tc.from)
	}
}
