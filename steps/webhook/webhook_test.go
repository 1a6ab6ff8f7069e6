package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/firmakit/firmakit/steps/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const shopSecret = "whsec_shop_42"

// The webhook set's requirements, by what they want of the endpoint.
var (
	acceptReqs = []string{"WH-BODY-TEXT", "WH-BOUNDARY-BYTES", "WH-DUPLICATE", "WH-DUPLICATE-EXACT", "WH-EVENTS-OVER-TIME", "WH-HEADER-NEIGHBOURS",
		"WH-HTTP-FORM", "WH-OUT-OF-ORDER", "WH-RAW-BYTES", "WH-REAL-CONTRACT", "WH-RETRY-AFTER-FAILURE", "WH-ROTATION", "WH-SAME-CONTRACT", "WH-STATE", "WH-TIME-WINDOW"}
	refuseReqs = []string{"WH-BODY-CHANGED", "WH-FORGERY-PATHS", "WH-HEADER-FORGED", "WH-HEADER-MALFORMED", "WH-HEADER-MISSING", "WH-SIGNATURE-FORM",
		"WH-TIMESTAMP-AHEAD", "WH-TIMESTAMP-CHANGED", "WH-TIMESTAMP-FORM-OLD", "WH-TIMESTAMP-OLD", "WH-WRONG-SECRET"}
)

// runWebhook runs the webhook set against url and returns the suite.
func runWebhook(t *testing.T, url, lang, tags string, change func(*webhook.Endpoint)) *webhook.Suite {
	t.Helper()
	e := &webhook.Endpoint{URL: url, Secret: shopSecret, MerchantID: "shop"}
	if change != nil {
		change(e)
	}
	var progress bytes.Buffer
	s := &webhook.Suite{Endpoint: e, RunOptions: engine.RunOptions{Lang: lang, Tags: tags, Randomize: -1, Output: io.Discard, Progress: &progress}}
	_, err := s.Run()
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("progress:\n%s", progress.String())
		}
	})
	return s
}

// failedRequirements lists the requirement tags with a failed scenario.
func failedRequirements(s *webhook.Suite) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range s.Results() {
		if r.Status == reports.Failed && !seen[r.Requirement] {
			seen[r.Requirement] = true
			out = append(out, r.Requirement)
		}
	}
	sort.Strings(out)
	return out
}

// TestWebhookSuiteAgainstTheStrictReceiver: the receiver in strict mode
// verifies as the profile says, so it is a model endpoint: every scenario
// of both languages passes, with no hint, and each result says what was
// sent and answered.
func TestWebhookSuiteAgainstTheStrictReceiver(t *testing.T) {
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Strict: true, Secrets: map[string][]string{"shop": {shopSecret}}}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	s := runWebhook(t, rv.HookURL("shop"), "all", "", nil)
	require.Equal(t, reports.Passed, s.Verdict(), "%v", s.Results())
	selected, err := webhook.Select("all", "")
	require.NoError(t, err)
	assert.Equal(t, 154, selected, "21 scenarios, 61 rows, two languages")
	require.Len(t, s.Results(), selected)
	assert.Equal(t, selected, s.Count(reports.Passed))
	assert.Empty(t, s.Hints())
	for _, r := range s.Results() {
		assert.Contains(t, r.Exchange, "sent: POST "+rv.HookURL("shop"), r.Name)
		assert.Contains(t, r.Exchange, "answered: ", r.Name)
		assert.NotContains(t, r.Exchange, shopSecret)
	}

	// What reached the receiver: each delivery, as the profile signs it.
	recs, err := rv.List(context.Background(), receiver.Filter{Channel: "shop", Limit: 1000})
	require.NoError(t, err)
	// Per language, the listed rows (16 fewer than the selection: the
	// generated scenarios' rows) and their extra deliveries (the CREATED
	// after each of the 2 out-of-order rows among them), then what the
	// generated rows send: 9 valid header neighbours, 13 boundary bodies,
	// 4 failed first deliveries (one cut short, so never received) and
	// their 4 retries, 6 states in turn, 84 forged header neighbours, 50
	// forgeries for each of 5 states.
	listed := selected - 2*16
	assert.Len(t, recs, 1+listed+2+2+4+2*2+2*(9+13+3+4+6+84+5*50),
		"the contract probe, one delivery per listed row, two for each duplicate, three for each contract of several events, two for each out-of-order row, and the generated deliveries")
	valid, dup := 0, 0
	for _, r := range recs {
		if r.Check == receiver.CheckValid {
			valid++
			n, raw, err := firmakit.BundledProfile().DecodeNotification(r.Body)
			require.NoError(t, err)
			assert.Equal(t, "shop", n.MerchantID)
			assert.Equal(t, n.Status == firmakit.StateSigned, raw["document_url"] != nil, "document_url only with SIGNED")
			assert.Equal(t, n.Status.HasReason(), raw["reason"] != nil, "reason only with BOUNCED, REJECTED, CANCELED")
		}
		if r.Duplicate && r.Check == receiver.CheckValid {
			dup++
		}
	}
	assert.Equal(t, 1+2*(5+2+2+5+4+4+2+2+3+2*2+2+9+13+4+6), valid,
		"the probe; states, rotation, both deliveries of the duplicate, raw-bytes layouts, free texts, time window, HTTP forms, real contracts, one contract's events, both events of each out-of-order row, both exact deliveries, "+
			"the valid header neighbours, the boundary bodies, the retries, the states in turn")
	assert.Equal(t, 4, dup, "the retry of each language's duplicate, and the exact repeat")
}

// naive answers 200 to everything.
func naive(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"ok":true}`))
}

// verifying returns an endpoint that checks the signature header over the
// body as bodyOf makes it from the bytes received, under profile p, and
// answers 401 when it does not match.
func verifying(p *firmakit.Profile, bodyOf func([]byte) []byte, headerOf func(string) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		h := r.Header.Get("X-Service-Signature")
		if headerOf != nil {
			h = headerOf(h)
		}
		if err := p.VerifyWebhook(h, bodyOf(raw), []string{shopSecret}, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// reserialised is what a framework gives a handler that verifies the
// parsed body written back out: Go's encoder sorts keys.
func reserialised(raw []byte) []byte {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// compacted is the body with insignificant spaces taken out, keys and
// escapes kept: close to the raw bytes, but not them.
func compacted(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// firstEntryOnly keeps the timestamp and the first v1 entry of a header.
func firstEntryOnly(h string) string {
	var keep []string
	v1 := 0
	for _, it := range strings.Split(h, ",") {
		if strings.HasPrefix(it, "v1=") {
			if v1++; v1 > 1 {
				continue
			}
		}
		keep = append(keep, it)
	}
	return strings.Join(keep, ",")
}

func same(b []byte) []byte { return b }

// the body that came back, and the header with its signature redacted.
func TestWebhookSuiteFailureSaysWhatWasSentAndAnswered(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(naive))
	t.Cleanup(srv.Close)
	s := runWebhook(t, srv.URL, "en", "@WH-WRONG-SECRET", nil)
	require.Len(t, s.Results(), 1)
	r := s.Results()[0]
	require.Equal(t, reports.Failed, r.Status)
	assert.Equal(t, "the endpoint refuses it with a status other than 2xx", r.FailedStep)
	assert.Contains(t, r.Error, "expected a status other than 2xx, since it was signed with another secret than the endpoint's; got 200 in ")
	assert.Regexp(t, `X-Service-Signature: t=\d+,v1=<redacted>\n`, r.Error)
	assert.NotRegexp(t, `v1=[0-9a-f]{64}`, r.Error, "no signature is handed out")
	assert.Contains(t, r.Error, `"title":"DEMO_SIGNED Contrato de arriendo 42 — Ñuñoa"`)
	assert.Contains(t, r.Error, `answered: 200 in `)
	assert.Contains(t, r.Error, `{"ok":true}`)
	exchange, rule, _ := strings.Cut(r.Error[strings.Index(r.Error, "sent: "):], "\n  rule: ")
	assert.Equal(t, r.Exchange, exchange)
	assert.Contains(t, rule, "defaults §B paragraph 1", "the failure cites the sentence it enforces")
}

// TestWebhookSuiteLateAndUnreachable: an answer after the delivery
// timeout fails the acceptance scenarios with the time it took, and an
// endpoint nobody listens on fails every scenario, with a hint that says
// so. The answer comes 1.3 s past the timeout: a miss of 400 ms was
// excused (inconclusive) on a loaded machine where this process ran
// 129 ms late, as it should be; this one no lateness short of 160 ms
// explains (engine.LagHops).
func TestWebhookSuiteLateAndUnreachable(t *testing.T) {
	fast := firmakit.BundledProfile()
	fast.Webhook.Timeout = 200 * time.Millisecond
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(slow.Close)
	s := runWebhook(t, slow.URL, "en", "@WH-STATE", func(e *webhook.Endpoint) { e.Profile = fast })
	assert.Equal(t, reports.Failed, s.Verdict())
	for _, r := range s.Results() {
		assert.Equal(t, reports.Failed, r.Status)
		assert.Contains(t, r.Error, "expected a 2xx answer within the 200ms delivery timeout; it came after ")
	}
	assert.Contains(t, hintText(t, s.Hints()), "answered after the 200ms delivery timeout")

	gone := httptest.NewServer(http.HandlerFunc(naive))
	url := gone.URL
	gone.Close()
	s = runWebhook(t, url, "es", "", nil)
	assert.Equal(t, reports.Failed, s.Verdict())
	assert.Equal(t, len(s.Results()), s.Count(reports.Failed))
	hints := s.Hints()
	require.Len(t, hints, 1, "only the unreachable endpoint is named: %v", hints)
	assert.Contains(t, hints[0].String(), "got no answer at all")
	assert.Contains(t, hints[0].String(), "check that the endpoint runs at "+url)
	assert.Contains(t, hints[0].In("es"), "no obtuvieron ninguna respuesta")
}

// hintText says hints in English, one a line, after checking that each is
// in both of the report's languages.
func hintText(t *testing.T, hints []reports.Hint) string {
	t.Helper()
	var lines []string
	for _, h := range hints {
		en, es := h.String(), h.In("es")
		assert.NotEqual(t, "hint."+h.ID, en, "hint %q is in the English table", h.ID)
		assert.NotEqual(t, en, es, "hint %q is in the Spanish table", h.ID)
		lines = append(lines, en)
	}
	return strings.Join(lines, "\n")
}

func TestSelectWebhook(t *testing.T) {
	n, err := webhook.Select("en", "@WH-STATE,@WH-ROTATION")
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	n, err = webhook.Select("all", "~@spec")
	require.NoError(t, err)
	assert.Equal(t, 2*70, n)
	_, err = webhook.Select("en", "@AUTH-OK")
	var se *engine.SelectionError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, engine.ErrUnknownTag, "a service tag is not the webhook set's")
	_, err = webhook.Select("en", "@WH-STAT")
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "@WH-STATE", se.Closest[0])
	_, err = webhook.Select("en", "@WH-STATE && @WH-ROTATION")
	assert.ErrorIs(t, err, engine.ErrNothingSelected)
	_, err = webhook.Select("en", "@WH-STATE or @WH-ROTATION")
	assert.ErrorIs(t, err, engine.ErrMalformedTags)
}

func TestEndpointValidate(t *testing.T) {
	for _, tc := range []struct {
		e    webhook.Endpoint
		want string
	}{
		{webhook.Endpoint{Secret: "s"}, "no endpoint URL"},
		{webhook.Endpoint{URL: "ftp://x/y", Secret: "s"}, "is not an http(s) URL"},
		{webhook.Endpoint{URL: "http:///nohost", Secret: "s"}, "is not an http(s) URL"},
		{webhook.Endpoint{URL: "http://127.0.0.1:1/hook"}, "no webhook secret"},
	} {
		assert.ErrorContains(t, tc.e.Validate(), tc.want)
	}
	assert.NoError(t, (&webhook.Endpoint{URL: "http://127.0.0.1:1/hook", Secret: "s"}).Validate())
}

// TestWebhookSuiteFollowsNoRedirect: the service posts to the configured
// URL only; a redirect is an answer other than 2xx, named as such, and
// the URL it names gets nothing.
func TestWebhookSuiteFollowsNoRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(target.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/webhook", http.StatusPermanentRedirect)
	}))
	t.Cleanup(redirecting.Close)
	s := runWebhook(t, redirecting.URL, "en", "@WH-STATE", nil)
	assert.Equal(t, 5, s.Count(reports.Failed))
	for _, r := range s.Results() {
		assert.Contains(t, r.Error, "got 308 in ")
		assert.Contains(t, r.Error, "(a redirect to "+target.URL+"/webhook, not followed: the service posts to the configured URL only)")
	}
	assert.Zero(t, elsewhere.Load())
}
