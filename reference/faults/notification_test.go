package faults_test

import (
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/require"
)

// notificationCases are the cases of the faults of the demo notification and its delivery.
func notificationCases() []faultCase {
	return []faultCase{
		{fault: "notification-immediate", server: realDelay, probe: arrival,
			correct: "within 300 to 1500 ms", faulty: "before 300 ms"},
		{fault: "notification-late", server: realDelay, probe: arrival,
			correct: "within 300 to 1500 ms", faulty: "after 1500 ms"},
		{fault: "notification-twice",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				ids := eventIDs(x.Notifications(2, time.Second))
				return []int{len(ids), distinct(ids)}
			},
			correct: []int{1, 1}, faulty: []int{2, 2}},
		{fault: "notification-never",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(1, time.Second))
			},
			correct: 1, faulty: 0},
		{fault: "notification-redelivered",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				ids := eventIDs(x.Notifications(2, 3*time.Second))
				return []int{len(ids), distinct(ids)}
			},
			correct: []int{1, 1}, faulty: []int{2, 1}},
		{fault: "notification-content-type-text",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				return h.Header.Get("Content-Type")
			},
			correct: "application/json", faulty: "text/plain; charset=utf-8"},
		{fault: "notification-wrong-merchant-id",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				return []any{reftest.Str(n["merchant_id"]), reftest.Verified(h, "whsec_test_demo")}
			},
			correct: []any{"merchant_demo", true}, faulty: []any{"other_merchant_demo", true}},
		{fault: "notification-wrong-type",
			probe:   notifiedField("DEMO_SIGNED contrato 42", "type"),
			correct: `"signature.status"`, faulty: `"signature.updated"`},
		{fault: "notification-title-collapsed",
			probe:   notifiedField("DEMO_SIGNED   con   espacios ", "title"),
			correct: `"DEMO_SIGNED   con   espacios "`, faulty: `"DEMO_SIGNED con espacios"`},
		// The notification's created_at is the time it is sent, DemoDelay
		// (10 ms) after the fixed clock.
		{fault: "notification-timestamp-stale",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				wh, err := bundled.ParseWebhookHeader(h.Header.Get(reftest.SigHeader))
				require.NoError(t, err)
				ts, err := strconv.ParseInt(wh.Timestamp, 10, 64)
				require.NoError(t, err)
				return []any{ts - x.Now.Unix(), reftest.Verified(h, "whsec_test_demo")}
			},
			correct: []any{int64(0), true}, faulty: []any{int64(-250), true}},
		{fault: "notification-timestamp-milliseconds",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				wh, err := bundled.ParseWebhookHeader(h.Header.Get(reftest.SigHeader))
				require.NoError(t, err)
				ts, err := strconv.ParseInt(wh.Timestamp, 10, 64)
				require.NoError(t, err)
				// v1 matches the t it carries, whatever its unit.
				ok := bundled.VerifyWebhook(h.Header.Get(reftest.SigHeader), h.Body, []string{"whsec_test_demo"}, time.Unix(ts, 0)) == nil
				return []any{ts == x.Now.Unix(), ts == x.Now.UnixMilli(), ok}
			},
			correct: []any{true, false, true}, faulty: []any{false, true, true}},
		{fault: "notification-no-retry", statuses: []int{503},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		{fault: "notification-signature-header-spaced",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				return strings.Contains(h.Header.Get(reftest.SigHeader), ", v1=")
			},
			correct: false, faulty: true},
		{fault: "notification-3xx-delivered", statuses: []int{302},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		{fault: "notification-retry-after-204", statuses: []int{204},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, time.Second))
			},
			correct: 1, faulty: 2},
		{fault: "notification-no-retry-after-4xx", statuses: []int{404},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		{fault: "notification-no-retry-after-close", statuses: []int{reftest.HangUp},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		// The webhook's port refuses connections: three attempts (the first
		// and two retries), or one.
		{fault: "notification-no-retry-after-refused",
			server: func(s *reference.Server) {
				if err := s.Config.SetWebhook("merchant_demo", refusingURL()); err != nil {
					panic(err)
				}
			},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				deadline := time.Now().Add(5 * time.Second)
				for time.Now().Before(deadline) {
					if d := x.Server.Deliveries(); len(d) == 1 && d[0].Outcome == reference.OutcomeFailed {
						return len(d[0].Attempts)
					}
					time.Sleep(10 * time.Millisecond)
				}
				return "the delivery did not end"
			},
			correct: 3, faulty: 1},
		// A reset, where notification-no-retry-after-close's hang-up is a
		// FIN (steps' @DEMO-RETRY-HANG-UP tells the two apart).
		{fault: "notification-no-retry-after-reset", statuses: []int{reftest.Reset},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		// The webhook answers 200 after reftest.LateWait, past the timeout.
		{fault: "notification-late-2xx-counts", statuses: []int{reftest.LateOK},
			server: func(s *reference.Server) { s.DeliveryTimeout = reftest.LateWait / 3 },
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.Notifications(2, 3*reftest.LateWait))
			},
			correct: 2, faulty: 1},
		{fault: "notification-retry-schedule-flat", statuses: []int{503, 503},
			server: func(s *reference.Server) {
				s.RetrySchedule = []time.Duration{100 * time.Millisecond, 400 * time.Millisecond}
			},
			probe:   lastRetryWaited(2, 300*time.Millisecond),
			correct: true, faulty: false},
		// Never answered 2xx: the correct server makes its first attempt
		// and one retry per wait of its schedule, then stops.
		{fault: "notification-retry-gives-up-early", statuses: []int{503, 503, 503, 503, 503, 503, 503}, server: fourRetries,
			probe:   attemptsWithin(time.Second),
			correct: 5, faulty: 3},
		{fault: "notification-retry-beyond-schedule", statuses: []int{503, 503, 503, 503, 503, 503, 503}, server: fourRetries,
			probe:   attemptsWithin(time.Second),
			correct: 5, faulty: 6},
		{fault: "notification-retry-backoff-capped", statuses: []int{503, 503, 503, 503, 503, 503, 503},
			server: func(s *reference.Server) {
				s.RetrySchedule = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 400 * time.Millisecond}
			},
			probe:   lastRetryWaited(4, 300*time.Millisecond),
			correct: true, faulty: false},
		{fault: "notification-retry-new-event-id", statuses: []int{503, 500},
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				ids := eventIDs(x.Notifications(3, 2*time.Second))
				return []int{len(ids), distinct(ids)}
			},
			correct: []int{3, 1}, faulty: []int{3, 3}},
		{fault: "notification-retry-immediate", statuses: []int{503}, server: slowRetry,
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				hs := x.Notifications(2, 2*time.Second)
				require.Len(t, hs, 2)
				return hs[1].At.Sub(hs[0].At) >= 400*time.Millisecond
			},
			correct: true, faulty: false},
		{fault: "notification-event-id-reused",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				x.CreateTitled(t, "DEMO_CREATED contrato 43")
				ids := eventIDs(x.Notifications(2, 2*time.Second))
				require.Len(t, ids, 2)
				return []any{reftest.UUIDPattern.MatchString(ids[0]), distinct(ids)}
			},
			correct: []any{true, 2}, faulty: []any{true, 1}},
		{fault: "notification-event-id-empty",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				id, isString := n["event_id"], json.Unmarshal(n["event_id"], new(string)) == nil
				return []bool{isString, reftest.UUIDPattern.MatchString(reftest.Str(id)), reftest.Str(id) == ""}
			},
			correct: []bool{true, true, false}, faulty: []bool{true, false, true}},
		{fault: "notification-non-demo-title", probe: statesFor("Contrato 42"),
			correct: []string{}, faulty: []string{"CREATED"}},
		{fault: "notification-prefix-case-insensitive", probe: statesFor("demo_signed contrato"),
			correct: []string{}, faulty: []string{"SIGNED"}},
		{fault: "notification-prefix-anywhere", probe: statesFor("contrato DEMO_SIGNED"),
			correct: []string{}, faulty: []string{"SIGNED"}},
		{fault: "notification-prefix-after-invisible", probe: statesFor("\ufeffDEMO_SIGNED contrato"),
			correct: []string{}, faulty: []string{"SIGNED"}},
		{fault: "notification-first-merchant-webhook",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				req := reftest.CreateRequest()
				req["title"] = "DEMO_SIGNED contrato de otro comercio"
				b, err := json.Marshal(req)
				require.NoError(t, err)
				body := string(b)
				a := x.Send(t, reftest.Request{Path: "/v1/signature/merchant_other", Body: &body, Key: "test_key_other", Secret: "test_secret_other"})
				require.Equal(t, 201, a.Status, string(a.Raw))
				hs := x.Notifications(1, 3*time.Second)
				require.Len(t, hs, 1)
				return hs[0].Path
			},
			correct: reftest.OtherHookPath, faulty: "/hook"},
		// The real demo delay: with the test's 10 ms, a correct server's
		// notification can beat a loaded test's reading of the 201.
		{fault: "notification-201-held", server: realDelay,
			probe: func(t *testing.T, x *reftest.Exchange) any {
				x.CreateTitled(t, "DEMO_SIGNED contrato 42")
				answered := time.Now()
				hs := x.Notifications(1, 3*time.Second)
				require.Len(t, hs, 1)
				return hs[0].At.Before(answered)
			},
			correct: false, faulty: true},
		{fault: "notification-crossed-contracts",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				ids := map[string]string{}
				for _, title := range []string{"DEMO_SIGNED contrato A", "DEMO_SIGNED contrato B"} {
					ids[reftest.Str(x.CreateTitled(t, title).Data()["signature_id"])] = title
				}
				var out []string
				for _, h := range x.Notifications(2, 3*time.Second) {
					var n map[string]json.RawMessage
					require.NoError(t, json.Unmarshal(h.Body, &n))
					out = append(out, ids[reftest.Str(n["signature_id"])]+" as "+reftest.Str(n["title"]))
				}
				slices.Sort(out)
				return out
			},
			correct: []string{"DEMO_SIGNED contrato A as DEMO_SIGNED contrato A", "DEMO_SIGNED contrato B as DEMO_SIGNED contrato B"},
			faulty:  []string{"DEMO_SIGNED contrato A as DEMO_SIGNED contrato A", "DEMO_SIGNED contrato A as DEMO_SIGNED contrato A"}},
		{fault: "notification-wrong-state",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []any{notifiedField("DEMO_BOUNCED contrato 42", "status")(t, x), notifiedField("DEMO_SIGNED contrato 42", "status")(t, x)}
			},
			correct: []any{`"BOUNCED"`, `"SIGNED"`}, faulty: []any{`"REJECTED"`, `"SIGNED"`}},
		{fault: "notification-document-url-always", probe: hasField("DEMO_CREATED contrato 42", "document_url"),
			correct: false, faulty: true},
		{fault: "notification-document-url-missing", probe: hasField("DEMO_SIGNED contrato 42", "document_url"),
			correct: true, faulty: false},
		{fault: "notification-document-url-404",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				resp, err := http.Get(reftest.Str(n["document_url"]))
				require.NoError(t, err)
				resp.Body.Close()
				return resp.StatusCode
			},
			correct: 200, faulty: 404},
		{fault: "notification-reason-missing", probe: hasField("DEMO_REJECTED contrato 42", "reason"),
			correct: true, faulty: false},
		{fault: "notification-reason-on-signed", probe: hasField("DEMO_SIGNED contrato 42", "reason"),
			correct: false, faulty: true},
		{fault: "notification-null-keys",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []any{notifiedField("DEMO_SIGNED contrato 42", "reason")(t, x), notifiedField("DEMO_CREATED contrato 42", "document_url")(t, x)}
			},
			correct: []any{"(absent)", "(absent)"}, faulty: []any{"null", "null"}},
		{fault: "notification-signature-id-mismatch",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				return []bool{reftest.Str(n["signature_id"]) == reftest.Str(a.Data()["signature_id"]), reftest.UUIDPattern.MatchString(reftest.Str(n["signature_id"]))}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "notification-demo-false", probe: notifiedField("DEMO_SIGNED contrato 42", "demo"),
			correct: "true", faulty: "false"},
		{fault: "notification-signed-body-differs",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				compact := h
				compact.Body = compactJSON(t, h.Body)
				return []bool{reftest.Verified(h, "whsec_test_demo"), reftest.Verified(compact, "whsec_test_demo")}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "notification-wrong-secret",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				return reftest.Verified(h, "whsec_test_demo")
			},
			correct: true, faulty: false},
		{fault: "notification-signature-uppercase",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				wh, err := bundled.ParseWebhookHeader(h.Header.Get(reftest.SigHeader))
				require.NoError(t, err)
				require.Len(t, wh.Signatures, 1)
				return []bool{regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(wh.Signatures[0]), reftest.Verified(h, "whsec_test_demo")}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "notification-signature-header-renamed",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				var names []string
				for k := range h.Header {
					if strings.Contains(k, "Signature") {
						names = append(names, k)
					}
				}
				return names
			},
			correct: []string{"X-Service-Signature"}, faulty: []string{"X-Webhook-Signature"}},
	}
}

// bundled is the profile the notifications are read with.
var bundled = firmakit.BundledProfile()

func notifiedField(title, name string) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any {
		_, _, n := x.Notified(t, title)
		v, ok := n[name]
		if !ok {
			return "(absent)"
		}
		return string(v)
	}
}

func hasField(title, name string) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any {
		_, _, n := x.Notified(t, title)
		_, ok := n[name]
		return ok
	}
}

func statesFor(title string) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any {
		x.CreateTitled(t, title)
		out := []string{}
		for _, h := range x.Notifications(1, time.Second) {
			var n map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(h.Body, &n))
			out = append(out, reftest.Str(n["status"]))
		}
		return out
	}
}

// arrival names when the notification came, against the window of
// defaults.md D, measured from both ends of the create request.
//
// A loaded machine only ever delays what the sink sees, so each bound is
// judged on the least delay of three contracts: a server that notifies at
// once does so every time, and one stall does not move it past 300 ms.
func arrival(t *testing.T, x *reftest.Exchange) any {
	sinceSent, since201 := time.Hour, time.Hour
	for i := 1; i <= 3; i++ {
		before := time.Now()
		x.CreateTitled(t, "DEMO_SIGNED contrato 42")
		after := time.Now()
		hs := x.Notifications(i, 4*time.Second) // every one so far
		require.Len(t, hs, i)
		at := hs[i-1].At
		sinceSent, since201 = min(sinceSent, at.Sub(before)), min(since201, at.Sub(after))
	}
	switch {
	case sinceSent < 300*time.Millisecond:
		return "before 300 ms"
	case since201 > 1500*time.Millisecond:
		return "after 1500 ms"
	}
	return "within 300 to 1500 ms"
}

func eventIDs(hs []reftest.Hit) []string {
	var out []string
	for _, h := range hs {
		var n map[string]json.RawMessage
		_ = json.Unmarshal(h.Body, &n)
		out = append(out, reftest.Str(n["event_id"]))
	}
	return out
}

func distinct(ids []string) int {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return len(m)
}

func slowRetry(s *reference.Server) { s.RetrySchedule = []time.Duration{400 * time.Millisecond} }

// fourRetries is a short schedule of four retries.
func fourRetries(s *reference.Server) {
	s.RetrySchedule = []time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}
}

// lastRetryWaited tells whether a demo contract's retry number n came at
// least atLeast after the delivery before it.
func lastRetryWaited(n int, atLeast time.Duration) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any {
		x.CreateTitled(t, "DEMO_SIGNED contrato 42")
		hs := x.Notifications(n+1, 2*time.Second)
		require.Len(t, hs, n+1)
		return hs[n].At.Sub(hs[n-1].At) >= atLeast
	}
}

// attemptsWithin counts the deliveries of a demo contract's notification
// that come within d.
func attemptsWithin(d time.Duration) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any {
		x.CreateTitled(t, "DEMO_SIGNED contrato 42")
		return len(x.Notifications(10, d))
	}
}

func realDelay(s *reference.Server) { s.DemoDelay = reference.DefaultDemoDelay }

// refusingURL is a webhook URL on a loopback port nothing listens on:
// one taken and closed again.
func refusingURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/hook"
}
