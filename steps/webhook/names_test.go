// The webhook suite run whole against seven endpoints, each with one
// known mistake: under the race detector it takes most of a minute, so
// `make test` runs it in its power stage without -race (the same steps
// run under -race in TestWebhookSuiteAgainstTheStrictReceiver).

//go:build !race

package webhook_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
)

// TestWebhookSuiteNamesEachFault: endpoints with one known mistake each
// fail exactly the requirements that mistake breaks, and the hint names
// the mistake.
func TestWebhookSuiteNamesEachFault(t *testing.T) {
	t.Parallel()
	p := firmakit.BundledProfile()
	noAge := firmakit.BundledProfile()
	noAge.Webhook.Tolerance = 1000 * 24 * time.Hour
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		failed  []string
		hint    string
	}{
		{"answers 200 to everything", naive, refuseReqs, "Everything was accepted, the forged notifications too (answered 200)"},
		{"verifies a re-serialised body", verifying(p, reserialised, nil), acceptReqs, "Everything was refused, the valid notifications too (answered 401)"},
		{"verifies with another secret", func(w http.ResponseWriter, r *http.Request) {
			raw, _ := io.ReadAll(r.Body)
			if p.VerifyWebhook(r.Header.Get("X-Service-Signature"), raw, []string{"whsec_not_the_shops"}, time.Now()) != nil {
				w.WriteHeader(http.StatusForbidden)
			}
		}, acceptReqs, "another secret than the one given (--webhook-secret)"},
		{"verifies a compacted body", verifying(p, compacted, nil), []string{"WH-RAW-BYTES"},
			"refused (layout=crlf; layout=indented; layout=keys-reversed): the endpoint verifies a re-serialised or re-formatted body"},
		{"checks only the first v1 entry", verifying(p, same, firstEntryOnly), []string{"WH-HEADER-NEIGHBOURS", "WH-ROTATION"},
			"the endpoint checks only the first v1= entry"},
		{"does not check the age of t", verifying(noAge, same, nil), []string{"WH-FORGERY-PATHS", "WH-HEADER-FORGED", "WH-TIMESTAMP-AHEAD", "WH-TIMESTAMP-OLD"},
			"checks the signature but not the age of t"},
		{"refuses a retry", func() http.HandlerFunc {
			var mu sync.Mutex
			seen := map[string]bool{}
			check := verifying(p, same, nil)
			return func(w http.ResponseWriter, r *http.Request) {
				raw, _ := io.ReadAll(r.Body)
				n, _, _ := p.DecodeNotification(raw)
				mu.Lock()
				again := seen[n.EventID]
				mu.Unlock()
				if again {
					http.Error(w, "already seen", http.StatusConflict)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(raw))
				rec := httptest.NewRecorder()
				check(rec, r)
				if rec.Code < 300 {
					mu.Lock()
					seen[n.EventID] = true
					mu.Unlock()
				}
				w.WriteHeader(rec.Code)
			}
		}(), []string{"WH-DUPLICATE", "WH-DUPLICATE-EXACT"}, "The retry of an event the endpoint had accepted was refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			s := runWebhook(t, srv.URL+"/webhook", "en", "", nil)
			assert.Equal(t, reports.Failed, s.Verdict())
			assert.Equal(t, tc.failed, failedRequirements(s))
			assert.Contains(t, hintText(t, s.Hints()), tc.hint)
			for _, r := range s.Results() {
				if r.Status == reports.Failed {
					assert.Contains(t, r.Error, "sent: POST "+srv.URL+"/webhook", "the failure says what was sent")
					assert.Contains(t, r.Error, "answered: ", "and what came back")
				}
			}
		})
	}
}

// TestWebhookSuiteFailureSaysWhatWasSentAndAnswered: a failure of a
// refusal scenario names why the notification was forged, the status and
