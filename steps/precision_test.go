package steps_test

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/stdservice"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/require"
)

// TestAnIndependentServicePasses runs the suite, as certify runs it
// against a --target (leaving @reference out), against a service written
// from the two documents alone on Go's standard library
// (internal/stdservice): ServeMux's own 404, 405 and redirects, strconv,
// encoding/json, refusals in its own words. It is correct on every rule
// the documents state, so the suite must pass it, with warnings at most:
// a failure here is a check that fails a correct service. Under -race,
// the English scenarios only (see wholeSuiteLang).
func TestAnIndependentServicePasses(t *testing.T) {
	t.Parallel()
	cfg := stdservice.DemoConfig()
	// Each merchant's webhook is its channel of the receiver; this
	// service signs every merchant's notifications with its one secret.
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:",
		Secrets: map[string][]string{"merchant_demo": cfg.WebhookSecrets, "merchant_other": cfg.WebhookSecrets}}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	cfg.WebhookURL = rv.HookURL
	svc := stdservice.New(cfg)
	srv := httptest.NewServer(svc)
	t.Cleanup(func() { srv.Close(); svc.Close() })

	target := steps.DemoTarget(srv.URL, rv, true)
	target.SenderInProcess = true
	d := firmakit.Demo()
	target.Sender, target.Template.Title = d.Sender, d.Template.Title
	target.OtherWebhookSecrets = cfg.WebhookSecrets
	var again rerunCounter
	s := &steps.Suite{Target: target, RunOptions: steps.RunOptions{Lang: wholeSuiteLang("en"), Tags: underRaceWithoutOperatorRows(t, "~@reference"), Randomize: -1, Progress: &again}}
	start := time.Now()
	_, err := s.Run()
	require.NoError(t, err)
	t.Logf("%s in %.1fs, %s", s.VerdictLine(), time.Since(start).Seconds(), &again)
	v := s.Verdict()
	if lateRows(t, s) > 0 {
		require.Equal(t, reports.Inconclusive, v, "against an independent, correct service:\n%s", unpassed(s))
	} else {
		require.Contains(t, []string{reports.Passed, reports.PassedWithWarnings}, v, "against an independent, correct service:\n%s", unpassed(s))
	}
	// Each warning once, with the rows that gave it.
	rows := map[string]int{}
	var warnings []string
	for _, r := range s.Results() {
		for _, w := range r.Warnings {
			key := fmt.Sprintf("%s @%s: %s", r.Lang, r.Requirement, w)
			if rows[key]++; rows[key] == 1 {
				warnings = append(warnings, key)
			}
		}
	}
	for _, w := range warnings {
		t.Logf("warning (%d row(s)) %s", rows[w], w)
	}
}
