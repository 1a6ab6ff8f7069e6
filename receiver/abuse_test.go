package receiver_test

import (
	"context"
	"fmt"
	"github.com/firmakit/firmakit/internal/connlimit"
	"github.com/gorilla/websocket"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContractNotesDoNotPushRecordsOut(t *testing.T) {
	// A bound of 1,000 notes, the same rule as the default 10,000 (which
	// took a minute to pass under -race on a loaded machine), and a
	// records' budget of 256 KiB, which the notes' pages would pass if
	// they counted against it (checked: the test then fails).
	const maxContracts = 1000
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxBytes, r.MaxContracts = 256<<10, maxContracts })
	ctx := context.Background()
	// Some through the API, the rest in-process: more than the notes kept.
	for i := 0; i < 50; i++ {
		st, out := call(t, rv, "POST", "/api/contracts", "", fmt.Sprintf(`{"signature_id":"api-%d","created_at":"2026-11-22T10:00:00Z"}`, i),
			map[string]string{"Content-Type": "application/json"})
		require.Equal(t, 204, st, out)
	}
	for i := 0; i < maxContracts+500; i++ {
		require.NoError(t, rv.NoteContract(ctx, fmt.Sprintf("contract-%06d-%s", i, "0123456789abcdef0123456789abcdef"), "2026-11-22T10:00:00Z"))
	}
	st, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "kept", fmt.Sprintf("contract-%06d-0123456789abcdef0123456789abcdef", maxContracts+499)))
	require.Equal(t, 200, st, out)
	var got receiver.Record
	require.Equal(t, 200, getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &got), "an acknowledged record is kept")
	assert.NotEmpty(t, got.ContractCreatedAt, "the newest contract notes are kept")
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "old", "contract-000000-0123456789abcdef0123456789abcdef"))
	var list struct{ Events []receiver.Record }
	getJSON(t, rv.URL()+"/api/events?event_id=old", &list)
	require.Len(t, list.Events, 1)
	assert.Empty(t, list.Events[0].ContractCreatedAt, "the oldest notes went past the bound")
	n, err := rv.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
}

func TestRecordsJustAcknowledgedOutliveTheirRetention(t *testing.T) {
	// A budget smaller than one record: each insert triggers retention,
	// which deletes only the records before it.
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxBytes = 64 << 10 })
	big := append([]byte(`{"pad":"`), append(bytesOf('x', 200<<10), '"', '}')...)
	for i := 0; i < 3; i++ {
		st, out := post(t, rv, "merchant_demo", big, "")
		require.Equal(t, 200, st, out)
		// A pass of its own, as the ticker may run one on a busy
		// machine before the record is read back: it too keeps the
		// newest record.
		receiver.RetentionPass(rv)
		require.Equal(t, 200, getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), nil), "record %v answered and kept", out["received"])
	}
}

func bytesOf(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}

// heapPeak samples the heap in use until stop is called and returns the
// highest figure seen.
func heapPeak() (stop func() uint64) {
	done, out := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				out <- peak
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}

func TestPagesAndSlowStreamsOfEscapedBodiesStayWithinMemory(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	// 1 MiB of '<': JSON writes each as \u003c, six bytes.
	body := bytesOf('<', 1<<20)
	for i := 0; i < 40; i++ {
		st, out := post(t, rv, "merchant_demo", body, "")
		require.Equal(t, 200, st, out)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := heapPeak()

	// Twenty stream clients that never read, from the first record.
	for i := 0; i < 20; i++ {
		c, _, err := websocket.DefaultDialer.Dial(strings.Replace(rv.URL(), "http", "ws", 1)+"/api/stream?after=0", nil)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
	}
	// Four dashboards loading their first page at once.
	var wg sync.WaitGroup
	sizes := make([]int64, 4)
	tails := make([]string, 4)
	for i := range sizes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(rv.URL() + "/api/events?limit=100")
			if err != nil {
				return
			}
			defer resp.Body.Close()
			// Read, not kept: the test's heap is the receiver's too.
			tail := &tailWriter{}
			sizes[i], _ = io.Copy(tail, resp.Body)
			tails[i] = string(tail.b)
		}()
	}
	// Notifications are still taken meanwhile.
	for i := 0; i < 20; i++ {
		st, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint("during-", i), "s"))
		require.Equal(t, 200, st, out)
	}
	wg.Wait()
	peak := stop()
	for i, n := range sizes {
		// A page stops past 8 MiB written, with one more record at most.
		assert.LessOrEqual(t, n, int64(8<<20+7<<20), "page %d", i)
		assert.Regexp(t, `}\],"count":\d+,"total":\d+,"next":"before=\d+"}\n$`, tails[i], "page %d ends with next", i)
	}
	grew := int64(peak) - int64(before.HeapInuse)
	t.Logf("heap in use grew by %d MiB at most", grew>>20)
	assert.Less(t, grew, int64(128<<20))
}

// tailWriter keeps the last bytes written to it.
type tailWriter struct{ b []byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p[max(0, len(p)-200):]...)
	w.b = w.b[max(0, len(w.b)-200):]
	return len(p), nil
}

func TestTrickledBodiesDoNotKeepANotificationOut(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxConns = 32 })
	addr := strings.TrimPrefix(rv.URL(), "http://")
	// More connections than the cap, each with its header and one byte of
	// a 1,000-byte body, then nothing.
	for i := 0; i < 40; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /hooks/merchant_demo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
	}
	// Once they have trickled for longer than connlimit.SlowAfter, room
	// is made for a real notification in place of one of them.
	time.Sleep(connlimit.SlowAfter + 500*time.Millisecond)
	body := notification(firmakit.StateSigned, "through", "s")
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/merchant_demo", strings.NewReader(string(body)))
	req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
	resp, err := (&http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	var st struct {
		Count             int64 `json:"count"`
		SlowBodiesEvicted int64 `json:"slow_bodies_evicted"`
		Connections       int   `json:"connections"`
	}
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/stats", &st))
	assert.Equal(t, int64(1), st.Count)
	assert.GreaterOrEqual(t, st.SlowBodiesEvicted, int64(1))
	assert.LessOrEqual(t, st.Connections, 32)
}

// TestDelayedAnswersDoNotHoldEveryConnection: a channel whose answers are
// held back a minute, flooded with more notifications than the receiver
// has connections, holds a quarter of them at most; the rest are answered
// 503 at once, and a notification on another channel and /healthz get
// through before any held answer ends.
func TestDelayedAnswersDoNotHoldEveryConnection(t *testing.T) {
	const maxConns, flood = 16, 20
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxConns = maxConns })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // the held answers end with the test
	require.NoError(t, rv.AnswerNext(ctx, "slow", "", receiver.Answer{Status: 202, Delay: time.Minute}, 0))

	type answer struct {
		status int
		body   string
		err    error
	}
	send := func(path string, body []byte, to chan<- answer) {
		method := "GET"
		if body != nil {
			method = "POST"
		}
		req, _ := http.NewRequestWithContext(ctx, method, rv.URL()+path, strings.NewReader(string(body)))
		req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			to <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		to <- answer{status: resp.StatusCode, body: string(b)}
	}
	held := make(chan answer, flood)
	for i := range flood {
		go send("/hooks/slow", notification(firmakit.StateSigned, fmt.Sprint("slow-", i), "s"), held)
	}
	// The flood has come in once the receiver holds a record per connection.
	require.Eventually(t, func() bool { n, err := rv.Count(ctx); return err == nil && n >= maxConns }, time.Minute, 10*time.Millisecond)

	through := make(chan answer, 2)
	go send("/hooks/merchant_demo", notification(firmakit.StateSigned, "real", "r"), through)
	go send("/healthz", nil, through)
	refused := 0
	for got := 0; got < 2; {
		select {
		case a := <-through:
			require.NoError(t, a.err)
			assert.Equal(t, 200, a.status, a.body)
			got++
		case a := <-held:
			require.NoError(t, a.err)
			require.Equal(t, 503, a.status, "a held answer ended before the notification on another channel got through: %s", a.body)
			assert.Contains(t, a.body, "4 delayed programmed answers are already being held back")
			refused++
		}
	}
	for ; refused < flood-maxConns/4; refused++ {
		a := <-held
		require.Equal(t, 503, a.status, a.body)
	}
	// Every notification is kept, each with the status it was answered.
	recs, err := rv.List(ctx, receiver.Filter{Channel: "slow", Limit: 1000})
	require.NoError(t, err)
	statuses := map[int]int{}
	for _, r := range recs {
		statuses[r.Status]++
	}
	assert.Equal(t, map[int]int{202: maxConns / 4, 503: flood - maxConns/4}, statuses)
	var st struct {
		Delayed int `json:"delayed_answers"`
	}
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/stats", &st))
	assert.Equal(t, maxConns/4, st.Delayed)
}

// TestForwardsToAHangingEndpointDoNotHoldEveryConnection: forwarding to
// an endpoint that never answers, a flood of notifications holds an
// eighth of the connections at most; the rest, and a notification on
// another channel, are stored and answered 503 at once, saying why,
// before any held forward ends, and /api/stats counts them.
func TestForwardsToAHangingEndpointDoNotHoldEveryConnection(t *testing.T) {
	const maxConns, flood = 16, 20
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // the hanging forwards end with the test
	hanging := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-ctx.Done():
		case <-r.Context().Done():
		}
	})
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) {
		r.MaxConns, r.ForwardTo, r.ForwardTimeout = maxConns, hanging.URL, time.Minute
	})
	type answer struct {
		status int
		body   string
		err    error
	}
	send := func(channel string, body []byte, to chan<- answer) {
		req, _ := http.NewRequestWithContext(ctx, "POST", rv.URL()+"/hooks/"+channel, strings.NewReader(string(body)))
		req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		if err != nil {
			to <- answer{err: err}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		to <- answer{status: resp.StatusCode, body: string(b)}
	}
	held := make(chan answer, flood)
	for i := range flood {
		go send("flood", notification(firmakit.StateSigned, fmt.Sprint("flood-", i), "s"), held)
	}
	// Every forward slot is taken and the others answered at once; none
	// of the held forwards can end before the test does.
	for range flood - maxConns/8 {
		a := <-held
		require.NoError(t, a.err)
		require.Equal(t, 503, a.status, "a forward ended before the rest of the flood was answered: %s", a.body)
		assert.Contains(t, a.body, "not forwarded, answered at once: 2 forwards are already waiting for the endpoint")
	}
	through := make(chan answer, 1)
	go send("merchant_demo", notification(firmakit.StateSigned, "real", "r"), through)
	a := <-through
	require.NoError(t, a.err)
	assert.Equal(t, 503, a.status, "a notification on another channel is answered at once: %s", a.body)

	// Every notification is kept, each with the status it was answered.
	recs, err := rv.List(ctx, receiver.Filter{Limit: 1000})
	require.NoError(t, err)
	answered := 0
	for _, r := range recs {
		if r.Status == 503 {
			answered++
			require.NotNil(t, r.Forward)
			assert.Contains(t, r.Forward.Error, "not forwarded")
		}
	}
	assert.Equal(t, flood-maxConns/8+1, answered)
	var st struct {
		Forwards int   `json:"forwards"`
		AtOnce   int64 `json:"forwards_answered_at_once"`
	}
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/stats", &st))
	assert.Equal(t, maxConns/8, st.Forwards)
	assert.Equal(t, int64(flood-maxConns/8+1), st.AtOnce)
	// The forwards in flight reach the endpoint (they may still be on
	// their way); no other does.
	require.Eventually(t, func() bool { return len(hanging.got()) >= maxConns/8 }, time.Minute, 10*time.Millisecond)
	assert.Len(t, hanging.got(), maxConns/8, "only the forwards in flight reached the endpoint")
}

// TestForwardTimeoutBoundsTheSendersWait: a forward's own timeout, not the
// profile's 10 s delivery timeout, bounds how long a sender waits for an
// endpoint that never answers; it gets 504 saying so.
func TestForwardTimeoutBoundsTheSendersWait(t *testing.T) {
	hanging := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.ForwardTo, r.ForwardTimeout = hanging.URL, 200*time.Millisecond })
	start := time.Now()
	st, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	took := time.Since(start)
	assert.Equal(t, 504, st, out)
	assert.Contains(t, out["error"], "did not answer within 200ms, the forward timeout")
	// The bound is the product: generous here, well under the 10 s
	// delivery timeout it replaces.
	assert.Less(t, took, 5*time.Second)
	var info map[string]any
	getJSON(t, rv.URL()+"/api/info", &info)
	assert.Equal(t, "200ms", info["forward_timeout"])
}
