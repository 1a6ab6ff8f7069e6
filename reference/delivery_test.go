package reference_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openWithWebhook(t *testing.T, url string, change func(*reference.Server)) *reference.Server {
	return MustOpenServer(t, func(s *reference.Server) {
		s.Config = reference.DemoConfig()
		if url != "" {
			require.NoError(t, s.Config.SetWebhook("merchant_demo", url))
		}
		if change != nil {
			change(s)
		}
	})
}

func createDemo(t *testing.T, s *reference.Server, title string) (firmakit.Envelope, time.Time) {
	t.Helper()
	quoted, _ := json.Marshal(title)
	body := strings.Replace(createBody, `"Contrato 42"`, string(quoted), 1)
	status, out, raw := signed("/v1/signature/merchant_demo", body).do(t, s.URL())
	require.Equal(t, 201, status, raw)
	return *out.Data, time.Now()
}

// fakeClock is a reference.Clock whose time moves only when the test
// advances it; each AfterFunc's wait is reported on armed.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan time.Duration
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	done bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Now().UTC(), armed: make(chan time.Duration, 10000)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) reference.Timer {
	c.mu.Lock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.armed <- d
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	return true
}

// Advance moves the clock and starts, each in its own goroutine, the calls
// that have come due, in the order they were due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due, left []*fakeTimer
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			left = append(left, t)
		}
	}
	c.timers = left
	c.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		go t.f()
	}
}

// waiting counts the calls not yet made nor stopped.
func (c *fakeClock) waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.done {
			n++
		}
	}
	return n
}

// nextArmed returns the wait of the next AfterFunc call.
func (c *fakeClock) nextArmed(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.armed:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery was scheduled")
		return 0
	}
}

// observed collects the records a server hands to OnDelivery.
type observed chan reference.Delivery

// next returns the next record that satisfies ok.
func (o observed) next(t *testing.T, ok func(reference.Delivery) bool) reference.Delivery {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case d := <-o:
			if ok(d) {
				return d
			}
		case <-deadline:
			t.Fatal("the expected delivery record did not come")
			return reference.Delivery{}
		}
	}
}

func attempts(n int) func(reference.Delivery) bool {
	return func(d reference.Delivery) bool { return len(d.Attempts) == n }
}

func ended(d reference.Delivery) bool { return d.Outcome != reference.OutcomePending }

// openFake opens a server with a fake delivery clock whose records are
// observed, its demo merchant's webhook at url ("" for none).
func openFake(t *testing.T, url string, change func(*reference.Server)) (*reference.Server, *fakeClock, observed) {
	clock := newFakeClock()
	obs := make(observed, 10000)
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.Clock = clock
		s.OnDelivery = func(d reference.Delivery) { obs <- d }
		if change != nil {
			change(s)
		}
	})
	return s, clock, obs
}

// logBuffer is a logger whose text a test reads.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func TestDemoNotifications(t *testing.T) {
	p := firmakit.BundledProfile()
	for _, st := range firmakit.States {
		t.Run(string(st), func(t *testing.T) {
			sk, url := reftest.NewSink(t)
			s, clock, obs := openFake(t, url, nil)
			env, _ := createDemo(t, s, st.DemoPrefix()+" contrato ñ 😀")
			require.Equal(t, reference.DefaultDemoDelay, clock.nextArmed(t), "sent DemoDelay after the 201")
			scheduled := obs.next(t, attempts(0))
			assert.Equal(t, reference.OutcomePending, scheduled.Outcome)
			assert.Equal(t, clock.Now().Add(reference.DefaultDemoDelay), scheduled.ScheduledAt)

			clock.Advance(reference.DefaultDemoDelay - time.Millisecond)
			assert.Zero(t, sk.Count(), "nothing is sent before its time")
			clock.Advance(time.Millisecond)
			h := sk.Wait(t, 1, 5*time.Second)[0]
			d := obs.next(t, ended)

			assert.Equal(t, "application/json", h.Header.Get("Content-Type"))
			require.NoError(t, p.VerifyWebhook(h.Header.Get("X-Service-Signature"), h.Body, []string{"whsec_test_demo"}, time.Now()))
			n, raw, err := p.DecodeNotification(h.Body)
			require.NoError(t, err)
			assert.Equal(t, st, n.Status)
			assert.Equal(t, env.SignatureID, n.SignatureID)
			assert.Equal(t, env.Title, n.Title)
			assert.Equal(t, "merchant_demo", n.MerchantID)
			assert.Equal(t, firmakit.NotificationType, n.Type)
			assert.True(t, n.Demo)
			assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, n.CreatedAt)
			_, hasURL := raw["document_url"]
			_, hasReason := raw["reason"]
			assert.Equal(t, st.HasDocumentURL(), hasURL)
			assert.Equal(t, st.HasReason(), hasReason)
			if st.HasReason() {
				assert.NotEmpty(t, n.Reason)
			}
			assert.NotContains(t, string(h.Body), "null")
			if st == firmakit.StateSigned {
				assert.Equal(t, s.URL()+"/demo/documents/"+env.SignatureID+".pdf", n.DocumentURL)
				resp, err := http.Get(n.DocumentURL)
				require.NoError(t, err)
				pdf, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, 200, resp.StatusCode)
				assert.Equal(t, "application/pdf", resp.Header.Get("Content-Type"))
				assert.True(t, strings.HasPrefix(string(pdf), "%PDF-1.4"))
			}
			// Exactly one notification: it ended delivered, nothing else
			// waits, and nothing comes however far the clock goes.
			assert.Equal(t, reference.OutcomeDelivered, d.Outcome)
			assert.Equal(t, n.EventID, d.EventID)
			assert.Zero(t, clock.waiting())
			clock.Advance(time.Hour)
			assert.Equal(t, 1, sk.Count())
			assert.Equal(t, 0, s.DeliveryStats().Pending)
			ds := s.Deliveries()
			require.Len(t, ds, 1)
			assert.Equal(t, reference.OutcomeDelivered, ds[0].Outcome)
			assert.Equal(t, n.EventID, ds[0].EventID)
		})
	}
}

// TestDemoDelayRunsFromThe201 is the one test on the real clock: the wait
// starts once the 201 is on the wire.
func TestDemoDelayRunsFromThe201(t *testing.T) {
	sk, url := reftest.NewSink(t)
	s := openWithWebhook(t, url, nil)
	before := time.Now()
	_, created := createDemo(t, s, "DEMO_SIGNED on the real clock")
	h := sk.Wait(t, 1, 3*time.Second)[0]
	assert.GreaterOrEqual(t, h.At.Sub(before), reference.DefaultDemoDelay)
	assert.Less(t, h.At.Sub(created), 1500*time.Millisecond)
}

func TestNonDemoTitlesGetNoNotification(t *testing.T) {
	sk, url := reftest.NewSink(t)
	s, clock, _ := openFake(t, url, nil)
	for _, title := range []string{"demo_signed x", "x DEMO_SIGNED", "DEMO_SIGN", " DEMO_SIGNED", "Contrato"} {
		createDemo(t, s, title)
	}
	// Close waits for the handlers, so anything they scheduled is recorded.
	require.NoError(t, s.Close())
	assert.Empty(t, s.Deliveries())
	assert.Empty(t, clock.armed)
	assert.Zero(t, sk.Count())
}

func TestDeliveryRetriesKeepEventID(t *testing.T) {
	p := firmakit.BundledProfile()
	sk, url := reftest.NewSink(t, 500, 503)
	s, clock, obs := openFake(t, url, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		s.RetrySchedule = []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond}
	})
	createDemo(t, s, "DEMO_CANCELED retry")
	for i, wait := range []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond} {
		require.Equal(t, wait, clock.nextArmed(t), "wait before attempt %d", i+1)
		clock.Advance(wait)
		obs.next(t, attempts(i+1))
	}
	hits := sk.Wait(t, 3, 5*time.Second)
	var ids []string
	for _, h := range hits {
		require.NoError(t, p.VerifyWebhook(h.Header.Get("X-Service-Signature"), h.Body, []string{"whsec_test_demo"}, time.Now()))
		var n struct {
			EventID string `json:"event_id"`
		}
		require.NoError(t, json.Unmarshal(h.Body, &n))
		ids = append(ids, n.EventID)
	}
	assert.Equal(t, ids[0], ids[1])
	assert.Equal(t, ids[0], ids[2])
	d := s.Deliveries()[0]
	assert.Equal(t, reference.OutcomeDelivered, d.Outcome)
	require.Len(t, d.Attempts, 3)
	assert.Equal(t, 500, d.Attempts[0].StatusCode)
	assert.Equal(t, "answered 500", d.Attempts[0].Error)
	assert.Equal(t, 503, d.Attempts[1].StatusCode)
	assert.Equal(t, 200, d.Attempts[2].StatusCode)
	assert.Equal(t, 20*time.Millisecond, d.Attempts[1].At.Sub(d.Attempts[0].At), "the schedule's first wait")
	assert.Equal(t, 40*time.Millisecond, d.Attempts[2].At.Sub(d.Attempts[1].At), "the schedule's second wait")
	assert.Zero(t, clock.waiting(), "no retry after a 2xx")

	// And the sandbox endpoint shows the same.
	var listed struct {
		Count      int                  `json:"count"`
		Deliveries []reference.Delivery `json:"deliveries"`
	}
	getJSON(t, s.URL()+"/_sandbox/deliveries?event_id="+d.EventID, &listed)
	assert.Equal(t, 1, listed.Count)
	require.Len(t, listed.Deliveries, 1)
	assert.Len(t, listed.Deliveries[0].Attempts, 3)
}

func TestDeliveryGivesUpAfterSchedule(t *testing.T) {
	sk, url := reftest.NewSink(t, 500, 500, 500)
	s, clock, obs := openFake(t, url, func(s *reference.Server) {
		s.DemoDelay = 5 * time.Millisecond
		s.RetrySchedule = []time.Duration{5 * time.Millisecond, 7 * time.Millisecond}
	})
	createDemo(t, s, "DEMO_BOUNCED")
	for i := 0; i < 3; i++ {
		clock.Advance(clock.nextArmed(t))
		obs.next(t, attempts(i+1))
	}
	d := s.Deliveries()[0]
	assert.Equal(t, reference.OutcomeFailed, d.Outcome)
	assert.Len(t, d.Attempts, 3)
	assert.Zero(t, clock.waiting(), "no attempt after the schedule's last")
	assert.Equal(t, 3, sk.Count())
}

func TestNoWebhookIsRecordedAsFailed(t *testing.T) {
	s := MustOpenServer(t, nil)
	createDemo(t, s, "DEMO_SIGNED")
	d := s.Deliveries()
	require.Len(t, d, 1)
	assert.Equal(t, reference.OutcomeFailed, d[0].Outcome)
	assert.Contains(t, d[0].Attempts[0].Error, "no signature_webhook configured for merchant merchant_demo")
}

func TestCloseFinishesPendingDeliveries(t *testing.T) {
	sk, url := reftest.NewSink(t)
	s, clock, _ := openFake(t, url, func(s *reference.Server) { s.DemoDelay = time.Hour })
	createDemo(t, s, "DEMO_CREATED at shutdown")
	clock.nextArmed(t)
	require.NoError(t, s.Close())
	assert.Len(t, sk.Wait(t, 1, time.Second), 1)
	assert.Equal(t, reference.OutcomeDelivered, s.Deliveries()[0].Outcome)
	assert.Zero(t, clock.waiting(), "the timer is stopped")
}

// blackHole is a webhook that accepts connections and never answers.
func blackHole(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/hook"
}

// TestCloseGivesUpOnABlackHole: at shutdown, notifications to a webhook
// that never answers are abandoned after ShutdownGrace, each logged, and
// the sends in flight are stopped rather than left to their timeout.
func TestCloseGivesUpOnABlackHole(t *testing.T) {
	var log logBuffer
	s, clock, obs := openFake(t, blackHole(t), func(s *reference.Server) {
		s.Logger = log.logger()
		s.ShutdownGrace = 300 * time.Millisecond
		s.DeliveryTimeout = time.Minute
		s.MaxDeliveries = 1
	})
	createDemo(t, s, "DEMO_SIGNED one")
	createDemo(t, s, "DEMO_SIGNED two")
	clock.Advance(reference.DefaultDemoDelay)
	start := time.Now()
	require.NoError(t, s.Close())
	assert.Less(t, time.Since(start), 10*time.Second, "Close does not wait for the minute-long delivery timeout")
	assert.Equal(t, 2, strings.Count(log.String(), "notification abandoned at shutdown"), log.String())
	// The send in flight was stopped: its attempt is recorded as failed.
	d := obs.next(t, attempts(1))
	assert.Contains(t, d.Attempts[0].Error, "context canceled")
}

// TestDeliveriesAreSentAtMostMaxAtOnce: with MaxDeliveries 2 and a webhook
// that holds every request, two are sent, the others queue; the queue is
// visible, and the ones that waited in it say how long.
func TestDeliveriesAreSentAtMostMaxAtOnce(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	var mu sync.Mutex
	inFlight, most := 0, 0
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		entered <- struct{}{}
		<-release
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	t.Cleanup(hook.Close)
	s, clock, obs := openFake(t, hook.URL, func(s *reference.Server) { s.MaxDeliveries = 2 })
	for i := 0; i < 5; i++ {
		createDemo(t, s, fmt.Sprintf("DEMO_SIGNED %d", i))
	}
	clock.Advance(reference.DefaultDemoDelay)
	for i := 0; i < 2; i++ {
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the first two notifications were not sent")
		}
	}
	clock.Advance(3 * time.Second) // the queued ones wait 3 s
	var q reference.DeliveryStats
	getJSON(t, s.URL()+"/_sandbox/queue", &q)
	assert.Equal(t, reference.DeliveryStats{Queued: 3, OldestQueuedMS: 3000, Sending: 2, MaxDeliveries: 2, Pending: 5,
		MaxPending: reference.DefaultMaxPending, Kept: 5, MaxKeptDeliveries: reference.DefaultMaxKeptDeliveries}, q)
	var listed struct {
		Queue reference.DeliveryStats `json:"queue"`
	}
	getJSON(t, s.URL()+"/_sandbox/deliveries", &listed)
	assert.Equal(t, q, listed.Queue, "the listing shows the queue too")
	assert.Zero(t, len(entered), "no third send while two are in flight")

	close(release)
	var queued []float64
	for i := 0; i < 5; i++ {
		d := obs.next(t, ended)
		assert.Equal(t, reference.OutcomeDelivered, d.Outcome)
		queued = append(queued, d.Attempts[0].QueuedMS)
	}
	sort.Float64s(queued)
	assert.Equal(t, []float64{0, 0, 3000, 3000, 3000}, queued, "attempts say how long they waited for a sender")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, most)
}

// TestDeliveryRecordsAreCapped: past MaxKeptDeliveries the record that
// ended first goes, counted and logged.
func TestDeliveryRecordsAreCapped(t *testing.T) {
	var log logBuffer
	s := openWithWebhook(t, "", func(s *reference.Server) { s.MaxKeptDeliveries = 5; s.Logger = log.logger() })
	for i := 0; i < 8; i++ {
		createDemo(t, s, fmt.Sprintf("DEMO_SIGNED %d", i))
	}
	var seqs []int64
	for _, d := range s.Deliveries() {
		seqs = append(seqs, d.Seq)
	}
	assert.Equal(t, []int64{4, 5, 6, 7, 8}, seqs)
	st := s.DeliveryStats()
	assert.Equal(t, 5, st.Kept)
	assert.Equal(t, int64(3), st.Dropped)
	assert.Equal(t, int64(0), st.DroppedPending)
	assert.Contains(t, log.String(), "delivery records dropped to stay within the limit")
}

// TestPendingBeyondTheCapAreSentWithoutARecord: when every kept record is
// pending, a new one is not kept, but its notification is sent; once some
// have ended, they are the ones that make room.
func TestPendingBeyondTheCapAreSentWithoutARecord(t *testing.T) {
	sk, url := reftest.NewSink(t)
	s, clock, obs := openFake(t, url, func(s *reference.Server) { s.MaxKeptDeliveries = 3 })
	for i := 0; i < 5; i++ {
		createDemo(t, s, fmt.Sprintf("DEMO_SIGNED %d", i))
	}
	assert.Len(t, s.Deliveries(), 3)
	st := s.DeliveryStats()
	assert.Equal(t, int64(2), st.Dropped)
	assert.Equal(t, int64(2), st.DroppedPending)
	assert.Equal(t, 5, st.Pending)

	clock.Advance(reference.DefaultDemoDelay)
	sk.Wait(t, 5, 5*time.Second)
	for i := 0; i < 5; i++ {
		obs.next(t, ended)
	}
	createDemo(t, s, "DEMO_SIGNED 5")
	var seqs []int64
	for _, d := range s.Deliveries() {
		seqs = append(seqs, d.Seq)
	}
	assert.Len(t, seqs, 3)
	assert.Equal(t, int64(6), seqs[2], "the new record is kept")
	assert.NotSubset(t, seqs, []int64{4, 5}, "records dropped stay dropped")
	assert.Equal(t, int64(3), s.DeliveryStats().Dropped)
}

// TestPendingLimitRefusesNewNotifications: past MaxPending a demo
// notification is not scheduled; its record says why.
func TestPendingLimitRefusesNewNotifications(t *testing.T) {
	var log logBuffer
	_, url := reftest.NewSink(t)
	s, clock, _ := openFake(t, url, func(s *reference.Server) { s.MaxPending = 2; s.Logger = log.logger() })
	for i := 0; i < 3; i++ {
		createDemo(t, s, fmt.Sprintf("DEMO_SIGNED %d", i))
	}
	ds := s.Deliveries()
	require.Len(t, ds, 3)
	assert.Equal(t, reference.OutcomePending, ds[1].Outcome)
	assert.Equal(t, reference.OutcomeFailed, ds[2].Outcome)
	assert.Equal(t, "not sent: 2 notifications were already waiting, the server's limit", ds[2].Attempts[0].Error)
	assert.Equal(t, int64(1), s.DeliveryStats().Refused)
	assert.Equal(t, 2, clock.waiting())
	assert.Contains(t, log.String(), "too many notifications waiting")
}

type deliveriesPage struct {
	Deliveries []reference.Delivery    `json:"deliveries"`
	Count      int                     `json:"count"`
	Next       string                  `json:"next"`
	Queue      reference.DeliveryStats `json:"queue"`
}

func TestDeliveriesArePaged(t *testing.T) {
	s := openWithWebhook(t, "", nil) // no webhook: every delivery is recorded failed at once
	for i := 0; i < 250; i++ {
		createDemo(t, s, fmt.Sprintf("DEMO_SIGNED %d", i))
	}
	var seen []int64
	path := "/_sandbox/deliveries"
	var pages []int
	for path != "" {
		var p deliveriesPage
		require.Equal(t, 200, getJSON(t, s.URL()+path, &p))
		assert.Equal(t, len(p.Deliveries), p.Count)
		pages = append(pages, p.Count)
		for _, d := range p.Deliveries {
			seen = append(seen, d.Seq)
		}
		path = p.Next
	}
	assert.Equal(t, []int{100, 100, 50}, pages, "pages of the default 100")
	require.Len(t, seen, 250)
	for i, seq := range seen {
		assert.Equal(t, int64(i+1), seq, "every record once, oldest first")
	}

	// The filters go on in the next link.
	var p deliveriesPage
	getJSON(t, s.URL()+"/_sandbox/deliveries?outcome=FAILED&limit=20", &p)
	assert.Equal(t, 20, p.Count)
	assert.Equal(t, "/_sandbox/deliveries?after=20&limit=20&outcome=FAILED", p.Next)
	one := s.Deliveries()[7]
	p = deliveriesPage{}
	getJSON(t, s.URL()+"/_sandbox/deliveries?signature_id="+one.SignatureID, &p)
	require.Equal(t, 1, p.Count)
	assert.Equal(t, one.EventID, p.Deliveries[0].EventID)
	assert.Empty(t, p.Next)
	p = deliveriesPage{}
	getJSON(t, s.URL()+"/_sandbox/deliveries?limit=1000&after=240", &p)
	assert.Equal(t, 10, p.Count)
	assert.Equal(t, int64(241), p.Deliveries[0].Seq)
	p = deliveriesPage{}
	getJSON(t, s.URL()+"/_sandbox/deliveries?outcome=delivered", &p)
	assert.Equal(t, 0, p.Count)
	assert.NotNil(t, p.Deliveries, "an empty page is an empty list")

	for _, tc := range []struct{ query, message string }{
		{"limit=0", "limit must be a whole number from 1 to 1000"},
		{"limit=1001", "limit must be a whole number from 1 to 1000"},
		{"limit=x", "limit must be a whole number from 1 to 1000"},
		{"after=-1", "after must be the seq of a delivery (a whole number), as the next link gives it"},
		{"after=abc", "after must be the seq of a delivery (a whole number), as the next link gives it"},
		{"outcome=lost", "outcome must be pending, delivered or failed"},
	} {
		status, out, raw := call{method: "GET", path: "/_sandbox/deliveries?" + tc.query}.do(t, s.URL())
		assert.Equal(t, 400, status, raw)
		assert.Equal(t, tc.message, out.Message, tc.query)
	}
}

// getJSON decodes the JSON answer of a GET and returns its status.
func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, out), string(raw))
	return resp.StatusCode
}

func TestDemoDocumentIsAValidPDF(t *testing.T) {
	s := MustOpenServer(t, nil)
	env, _ := createDemo(t, s, "DEMO_SIGNED (paréntesis) \\ ñandú 😀")
	resp, err := http.Get(s.URL() + "/demo/documents/" + env.SignatureID + ".pdf")
	require.NoError(t, err)
	pdf, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	checkPDFStructure(t, pdf)

	// A real PDF reader opens it and finds the title and the signers.
	pdftotext, err := exec.LookPath("pdftotext")
	require.NoError(t, err, "pdftotext (Debian poppler-utils) is needed to open the PDF; `make deps` installs it")
	cmd := exec.Command(pdftotext, "-", "-")
	cmd.Stdin = strings.NewReader(string(pdf))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "DEMO_SIGNED (paréntesis) \\ ñandú ?")
	assert.Contains(t, string(out), "signer_1: Ana Pérez <ana@example.com>")
	assert.Contains(t, string(out), env.SignatureID)

	for _, path := range []string{"/demo/documents/nope.pdf", "/demo/documents/" + env.SignatureID} {
		status, _, raw := call{method: "GET", path: path}.do(t, s.URL())
		assert.Equal(t, 404, status, raw)
	}
}

// checkPDFStructure checks that every xref offset points at its object.
func checkPDFStructure(t *testing.T, pdf []byte) {
	t.Helper()
	s := string(pdf)
	require.True(t, strings.HasPrefix(s, "%PDF-1.4\n"))
	require.True(t, strings.HasSuffix(s, "%%EOF\n"))
	m := regexp.MustCompile(`startxref\n(\d+)\n`).FindStringSubmatch(s)
	require.NotNil(t, m)
	xref, _ := strconv.Atoi(m[1])
	require.True(t, strings.HasPrefix(s[xref:], "xref\n0 7\n"))
	entries := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllStringSubmatch(s[xref:], -1)
	require.Len(t, entries, 6)
	for i, e := range entries {
		off, _ := strconv.Atoi(e[1])
		assert.True(t, strings.HasPrefix(s[off:], strconv.Itoa(i+1)+" 0 obj\n"), "object %d at %d", i+1, off)
	}
}

// TestDeliveryOutcomeByAnswer: only a 2xx within the delivery timeout is
// a delivery (defaults.md B); any other answer, a 2xx too late, a
// redirect and a connection closed without an answer are retried.
func TestDeliveryOutcomeByAnswer(t *testing.T) {
	const timeout = 200 * time.Millisecond
	answer := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "/elsewhere")
			w.WriteHeader(status)
		}
	}
	cases := []struct {
		name     string
		first    http.HandlerFunc
		attempts int
	}{
		{"204", answer(204), 1},
		{"202", answer(202), 1},
		{"400", answer(400), 2},
		{"404", answer(404), 2},
		{"410", answer(410), 2},
		{"302 is not followed", answer(302), 2},
		{"500", answer(500), 2},
		{"503", answer(503), 2},
		{"200 after the timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(2 * timeout):
			case <-r.Context().Done():
			}
			w.WriteHeader(200)
		}, 2},
		{"connection closed without an answer", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				mu.Lock()
				n++
				first := n == 1
				mu.Unlock()
				if first {
					tc.first(w, r)
					return
				}
				w.WriteHeader(200)
			}))
			t.Cleanup(srv.Close)
			s := openWithWebhook(t, srv.URL+"/hook", func(s *reference.Server) {
				s.DemoDelay = time.Millisecond
				s.RetrySchedule = []time.Duration{20 * time.Millisecond, 20 * time.Millisecond}
				s.DeliveryTimeout = timeout
			})
			createDemo(t, s, "DEMO_SIGNED outcome")
			var d reference.Delivery
			require.Eventually(t, func() bool {
				ds := s.Deliveries()
				if len(ds) == 1 && ds[0].Outcome != reference.OutcomePending {
					d = ds[0]
					return true
				}
				return false
			}, 5*time.Second, 10*time.Millisecond)
			assert.Equal(t, reference.OutcomeDelivered, d.Outcome)
			require.Len(t, d.Attempts, tc.attempts, "%+v", d.Attempts)
			if tc.attempts > 1 {
				assert.NotEmpty(t, d.Attempts[0].Error, "the first answer is not a delivery")
			}
		})
	}
}

// TestDeliveryBoundsTheAnswerHeaders: an endpoint answering each
// notification with 1 MiB of headers is a failed attempt that says so;
// the reference keeps none of them.
func TestDeliveryBoundsTheAnswerHeaders(t *testing.T) {
	bomb := httptest.NewServer(peer.HeaderBomb(1 << 20))
	defer bomb.Close()
	s, clock, obs := openFake(t, bomb.URL, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		s.RetrySchedule = []time.Duration{}
	})
	createDemo(t, s, "DEMO_SIGNED headers")
	clock.Advance(clock.nextArmed(t))
	d := obs.next(t, ended)
	assert.Equal(t, reference.OutcomeFailed, d.Outcome)
	require.Len(t, d.Attempts, 1)
	assert.Zero(t, d.Attempts[0].StatusCode)
	assert.Contains(t, d.Attempts[0].Error, "response headers exceeded")
}

// TestCreateDemoBoundsTheAnswerHeaders: CreateDemo's default client
// refuses an answer with 1 MiB of headers.
func TestCreateDemoBoundsTheAnswerHeaders(t *testing.T) {
	bomb := httptest.NewServer(peer.HeaderBomb(1 << 20))
	defer bomb.Close()
	d := firmakit.Demo()
	_, err := reference.CreateDemo(t.Context(), reference.DemoRequest{URL: bomb.URL, MerchantID: d.MerchantID, Key: d.Credential.KeyID,
		Secret: d.Credential.Secret, Template: d.Template, Data: d.Data, State: firmakit.StateSigned})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response headers exceeded")
}
