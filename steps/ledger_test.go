package steps_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notify delivers a signed CREATED notification of a contract to the
// receiver's demo merchant channel, as the target would.
func notify(t *testing.T, rv *receiver.Receiver, signatureID, eventID, title string) {
	t.Helper()
	require.Equal(t, http.StatusOK, deliver(t, rv, signatureID, eventID, title))
}

// deliver is notify for any answer: it returns the status answered.
func deliver(t *testing.T, rv *receiver.Receiver, signatureID, eventID, title string) int {
	t.Helper()
	p := firmakit.BundledProfile()
	d := firmakit.Demo()
	body, err := p.EncodeNotification(firmakit.Notification{EventID: eventID, Type: firmakit.NotificationType,
		MerchantID: d.MerchantID, SignatureID: signatureID, Title: title, Status: firmakit.StateCreated,
		Demo: true, CreatedAt: firmakit.FormatTime(time.Now())})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, rv.HookURL(d.MerchantID), bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(p.Webhook.SignatureHeader, p.WebhookSignature(d.WebhookSecrets, time.Now(), body))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// TestLedgerDuplicates: only a delivery again after a 2xx is a
// duplicate, and not when it comes the profile's delivery timeout or more
// later (the 2xx may have come after the sender gave up: a late answer is
// no delivery). Deliveries after a 4xx are retries, not duplicates.
func TestLedgerDuplicates(t *testing.T) {
	const title = "DEMO_CREATED contrato del libro"
	cases := []struct {
		name      string
		first     int           // the receiver's answer to the first delivery
		gap       time.Duration // between the two deliveries
		duplicate bool
		// remote reads the receiver as a remote one (no shared clock);
		// late tells the ledger the 2xx was held past the timeout.
		remote, late bool
		// downUntil, when set, is when a window of the suite's receiver
		// refusing connections, 1.5 s long, ended, from the first
		// delivery.
		downUntil time.Duration
	}{
		{"a 4xx, then the retry answered 2xx", 404, time.Second, false, false, false, 0},
		{"a 503, then the retry answered 2xx", 503, time.Second, false, false, false, 0},
		{"a 2xx, then the same event 1 s later", 200, time.Second, true, false, false, 0},
		{"a 204, then the same event 1 s later", 204, time.Second, true, false, false, 0},
		{"a 2xx the sender may have had after its timeout, then the retry", 200, 11 * time.Second, false, false, false, 0},
		{"a remote receiver: a 2xx, then the same event", 200, 11 * time.Second, true, true, false, 0},
		{"a remote receiver: a 2xx held past the timeout, then the retry", 200, 11 * time.Second, false, true, true, 0},
		// The refusal closes the connections the receiver holds: a 2xx it
		// wrote meanwhile may never have reached the sender.
		{"a 2xx written as the receiver refused connections, then the same event", 200, time.Second, false, false, false, 1300 * time.Millisecond},
		{"a 2xx 3 s after the receiver took connections again, then the same event", 200, time.Second, true, false, false, -3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Now().Add(-time.Minute)
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Now: func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				return now
			}}
			require.NoError(t, rv.Open())
			t.Cleanup(func() { rv.Close() })
			l := steps.NewLedger(now.Add(-time.Second))
			if tc.downUntil != 0 {
				l.Down(now.Add(tc.downUntil-1500*time.Millisecond), now.Add(tc.downUntil))
			}
			// Two contracts, each the same way: a duplicate is a verdict
			// when the run saw it twice (TestLedgerOneDuplicateIsInconclusive).
			contracts := []string{"sig_1", "sig_2"}
			for _, sig := range contracts {
				l.Created(sig, title, now.Add(-time.Second), now.Add(-time.Second))
				l.Timed(sig)
				if tc.late {
					l.AnsweredLate(sig)
				}
				if tc.first != 200 {
					require.NoError(t, rv.FailNext(context.Background(), firmakit.Demo().MerchantID, sig, tc.first, 1))
				}
				require.Equal(t, tc.first, deliver(t, rv, sig, "evt_"+sig, title))
			}
			mu.Lock()
			now = now.Add(tc.gap)
			mu.Unlock()
			for _, sig := range contracts {
				notify(t, rv, sig, "evt_"+sig, title)
			}
			res := l.Check(context.Background(), steps.DemoTarget("http://127.0.0.1:1", rv, !tc.remote), nil, true)
			if tc.duplicate {
				require.Equal(t, reports.Failed, res.Status)
				assert.Contains(t, res.Error, fmt.Sprintf("delivered again (#3) after a %d answer (#1)", tc.first))
				assert.Contains(t, res.Error, fmt.Sprintf("delivered again (#4) after a %d answer (#2)", tc.first))
				assert.Equal(t, reports.FailureDelivery, res.FailureKind, "a duplicate breaks the delivery's rule, no likely cause of its own")
				require.NotNil(t, res.Facts)
				assert.True(t, strings.HasPrefix(res.Facts.Shape, "# contract(s), # notification(s) received: "), res.Facts.Shape)
				return
			}
			assert.Equal(t, reports.Passed, res.Status, res.Error)
		})
	}
}

// TestLedgerOneDuplicateIsInconclusive: one event delivered again after
// a 2xx, once in the run, may be a 2xx its sender read late or lost; the
// ledger says so, inconclusive, and never passes it.
func TestLedgerOneDuplicateIsInconclusive(t *testing.T) {
	const title = "DEMO_CREATED contrato del libro"
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	now := time.Now()
	l := steps.NewLedger(now.Add(-time.Second))
	l.Created("sig_1", title, now.Add(-time.Second), now.Add(-time.Second))
	l.Timed("sig_1")
	notify(t, rv, "sig_1", "evt_1", title)
	notify(t, rv, "sig_1", "evt_1", title)
	res := l.Check(context.Background(), steps.DemoTarget("http://127.0.0.1:1", rv, true), nil, true)
	assert.Equal(t, reports.Inconclusive, res.Status, res.Error)
	assert.Contains(t, res.Error, "delivered again (#2) after a 200 answer (#1), once in the run")
}

// TestLedgerUnsure: a create request whose answer was lost may have made
// a contract the run never heard of; its notification, with that title,
// is not a stray. Every other unknown contract's still is, and one such
// request excuses one contract.
func TestLedgerUnsure(t *testing.T) {
	const title, other = "Contrato de prueba de autenticación", "Contrato de otra corrida"
	type delivery struct{ signatureID, eventID, title string }
	cases := []struct {
		name       string
		unsure     []string
		deliveries []delivery
		strays     []string // signature ids called strays
		excused    []string // signature ids named as not judged
	}{
		{"no unsure request: both are strays", nil,
			[]delivery{{"sig_lost", "evt_1", title}, {"sig_other", "evt_2", other}},
			[]string{"sig_lost", "sig_other"}, nil},
		{"an unsure title is excused, another title is not", []string{title},
			[]delivery{{"sig_lost", "evt_1", title}, {"sig_other", "evt_2", other}},
			[]string{"sig_other"}, []string{"sig_lost"}},
		{"every delivery of the excused contract", []string{title},
			[]delivery{{"sig_lost", "evt_1", title}, {"sig_lost", "evt_1", title}, {"sig_other", "evt_2", other}},
			[]string{"sig_other"}, []string{"sig_lost"}},
		{"one unsure request excuses one contract", []string{title},
			[]delivery{{"sig_lost_1", "evt_1", title}, {"sig_lost_2", "evt_2", title}},
			[]string{"sig_lost_2"}, []string{"sig_lost_1"}},
		{"two unsure requests, two contracts", []string{title, title},
			[]delivery{{"sig_lost_1", "evt_1", title}, {"sig_lost_2", "evt_2", title}},
			nil, nil},
		{"an unsure request of another title excuses nothing", []string{other},
			[]delivery{{"sig_lost", "evt_1", title}},
			[]string{"sig_lost"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
			require.NoError(t, rv.Open())
			t.Cleanup(func() { rv.Close() })
			start := time.Now().Add(-time.Minute)
			l := steps.NewLedger(start)
			// Long enough ago that the check need not wait for late
			// notifications.
			for _, title := range tc.unsure {
				l.Unsure(title, start)
			}
			for _, d := range tc.deliveries {
				notify(t, rv, d.signatureID, d.eventID, d.title)
			}
			tg := steps.DemoTarget("http://127.0.0.1:1", rv, false)
			res := l.Check(context.Background(), tg, nil, true)
			if len(tc.strays) == 0 {
				assert.Equal(t, reports.Passed, res.Status, res.Error)
				assert.Equal(t, 0, l.Len())
				return
			}
			require.Equal(t, reports.Failed, res.Status)
			assert.Equal(t, len(tc.strays), strings.Count(res.Error, "stray notification"), res.Error)
			for _, id := range tc.strays {
				assert.Contains(t, res.Error, `signature_id "`+id+`"`)
			}
			_, _, found := strings.Cut(res.Error, "answer was lost on the way: ")
			if len(tc.excused) == 0 {
				assert.False(t, found, res.Error)
			}
			for _, id := range tc.excused {
				assert.NotContains(t, res.Error, `signature_id "`+id+`"`, "not a stray")
				assert.True(t, found, res.Error)
				assert.Contains(t, res.Error, id+` "`+title+`"`, "named as not judged")
			}
		})
	}
	t.Run("strays not counted: nothing to excuse", func(t *testing.T) {
		rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
		require.NoError(t, rv.Open())
		t.Cleanup(func() { rv.Close() })
		l := steps.NewLedger(time.Now().Add(-time.Minute))
		notify(t, rv, "sig_other", "evt_1", other)
		res := l.Check(context.Background(), steps.DemoTarget("http://127.0.0.1:1", rv, false), nil, false)
		assert.Equal(t, reports.Passed, res.Status, res.Error)
	})
}

// TestLedgerCertainlyEarly: a contract no scenario waited for whose
// notification arrived less than 300 ms after its create request was
// sent fails the ledger, whatever this process's lag (it can only make
// an arrival look later); one that arrived 300 ms or more after does not.
func TestLedgerCertainlyEarly(t *testing.T) {
	const title = "DEMO_CREATED contrato sin espera"
	for _, tc := range []struct {
		name  string
		after time.Duration // from the request sent to the notification received
		early bool
	}{
		{"100 ms after the request was sent", 100 * time.Millisecond, true},
		{"600 ms after the request was sent", 600 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now().Add(-time.Minute)
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Now: func() time.Time { return now }}
			require.NoError(t, rv.Open())
			t.Cleanup(func() { rv.Close() })
			sent := now.Add(-tc.after)
			l := steps.NewLedger(sent.Add(-time.Second))
			l.Created("sig_1", title, sent, sent.Add(50*time.Millisecond))
			notify(t, rv, "sig_1", "evt_1", title)
			res := l.Check(context.Background(), steps.DemoTarget("http://127.0.0.1:1", rv, true), nil, true)
			if tc.early {
				require.Equal(t, reports.Failed, res.Status, res.Error)
				assert.Contains(t, res.Error, "before the 300–1500 ms after the 201 could begin")
				assert.Equal(t, "defaults §D bullet 1", res.Breaks)
				assert.Equal(t, reports.FailureNotificationLate, res.FailureKind, "explained as a notification outside the window")
				return
			}
			assert.Equal(t, reports.Passed, res.Status, res.Error)
		})
	}
}

// TestLedgerExcusesWhatTheSuitesDownWindowDelayed: a notification that
// came late because the suite had its receiver refuse connections while
// the notification was due (another scenario's down window) is not the
// target's lateness; the same lateness with no such window is.
func TestLedgerExcusesWhatTheSuitesDownWindowDelayed(t *testing.T) {
	const title = "DEMO_CREATED contrato 42"
	for _, tc := range []struct {
		name string
		down func(answered time.Time) (time.Time, time.Time, bool)
		fail bool
	}{
		{"down while it was due", func(a time.Time) (time.Time, time.Time, bool) {
			return a.Add(200 * time.Millisecond), a.Add(1700 * time.Millisecond), true
		}, false},
		{"down before the 201 and into its window", func(a time.Time) (time.Time, time.Time, bool) {
			return a.Add(-time.Second), a.Add(400 * time.Millisecond), true
		}, false},
		{"down after its window", func(a time.Time) (time.Time, time.Time, bool) {
			return a.Add(1600 * time.Millisecond), a.Add(3 * time.Second), true
		}, true},
		{"never down", func(time.Time) (time.Time, time.Time, bool) { return time.Time{}, time.Time{}, false }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now().Add(-time.Minute)
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Now: func() time.Time { return now }}
			require.NoError(t, rv.Open())
			t.Cleanup(func() { rv.Close() })
			answered := now.Add(-3500 * time.Millisecond) // the retry after 1 s and 2 s
			l := steps.NewLedger(answered.Add(-time.Second))
			l.Created("sig_1", title, answered.Add(-50*time.Millisecond), answered)
			if from, until, ok := tc.down(answered); ok {
				l.Down(from, until)
			}
			notify(t, rv, "sig_1", "evt_1", title)
			res := l.Check(context.Background(), steps.DemoTarget("http://127.0.0.1:1", rv, true), nil, true)
			if tc.fail {
				require.Equal(t, reports.Failed, res.Status, res.Error)
				assert.Contains(t, res.Error, `contract sig_1 "DEMO_CREATED contrato 42": its CREATED notification arrived 3`)
				assert.Contains(t, res.Error, "ms after the 201, outside 300–1500 ms")
				return
			}
			assert.Equal(t, reports.Passed, res.Status, res.Error)

			// Beside a contract that fails the ledger, the excused one
			// is said, not judged.
			l.Created("sig_2", "DEMO_CREATED contrato 43", answered, answered)
			res = l.Check(context.Background(), steps.DemoTarget("http://127.0.0.1:1", rv, true), nil, true)
			require.Equal(t, reports.Failed, res.Status, res.Error)
			assert.Contains(t, res.Error, `contract sig_2 "DEMO_CREATED contrato 43" expected exactly one CREATED event, got 0`)
			assert.NotContains(t, res.Error, `contract sig_1 "DEMO_CREATED contrato 42": its`)
			assert.Contains(t, res.Error, "not judged: contract sig_1 arrived 3")
			assert.Contains(t, res.Error, "ms after the 201, after the suite had its receiver refuse connections for 1")
		})
	}
}
