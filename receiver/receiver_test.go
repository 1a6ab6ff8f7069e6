package receiver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MustOpenReceiver opens a receiver on a free loopback port with an
// in-memory store unless change says otherwise, closed with the test.
func MustOpenReceiver(t testing.TB, change func(*receiver.Receiver)) *receiver.Receiver {
	t.Helper()
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	if change != nil {
		change(rv)
	}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	return rv
}

var profile = firmakit.BundledProfile()

func notification(state firmakit.State, eventID, signatureID string) []byte {
	n := firmakit.Notification{EventID: eventID, Type: firmakit.NotificationType, MerchantID: "merchant_demo",
		SignatureID: signatureID, Title: "DEMO_" + string(state), Status: state, Demo: true, CreatedAt: "2026-11-22T10:00:00.512Z"}
	if state.HasReason() {
		n.Reason = "r"
	}
	b, _ := profile.EncodeNotification(n)
	return b
}

// post sends body to channel with the signature header sig ("" for none).
func post(t testing.TB, rv *receiver.Receiver, channel string, body []byte, sig string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/"+channel, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("X-Service-Signature", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return resp.StatusCode, out
}

func signedPost(t testing.TB, rv *receiver.Receiver, channel string, body []byte) (int, map[string]any) {
	return post(t, rv, channel, body, profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
}

// trySignedPost posts a signed notification and reports what went wrong,
// for goroutines, which must not stop the test themselves.
func trySignedPost(rv *receiver.Receiver, channel string, body []byte) error {
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/"+channel, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("answered %d: %s", resp.StatusCode, b)
	}
	return nil
}

// receiverStats is the body of GET /api/stats.
type receiverStats struct {
	Count, LastID, Dropped int64
	Subscribers            int
	Connections            int
}

// stats reads GET /api/stats; it does not stop the test, so conditions
// polled in another goroutine may call it.
func stats(rv *receiver.Receiver) (receiverStats, error) {
	var st receiverStats
	resp, err := http.Get(rv.URL() + "/api/stats")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

func getJSON(t testing.TB, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	if out != nil {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}
	return resp.StatusCode
}

func TestIngestRecordsEverything(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	body := notification(firmakit.StateSigned, "ev-1", "sig-1")
	before := time.Now().UTC()
	status, out := signedPost(t, rv, "merchant_demo", body)
	require.Equal(t, 200, status)
	assert.Equal(t, float64(1), out["received"])

	var rec receiver.Record
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/1", &rec))
	assert.Equal(t, int64(1), rec.ID)
	assert.Equal(t, "merchant_demo", rec.Channel)
	assert.Equal(t, "POST", rec.Method)
	assert.Equal(t, "/hooks/merchant_demo", rec.Path)
	assert.Equal(t, body, rec.Body, "raw bytes kept exactly")
	assert.Equal(t, int64(len(body)), rec.Size)
	assert.Equal(t, "application/json", rec.Header.Get("Content-Type"))
	assert.Equal(t, receiver.CheckValid, rec.Check)
	assert.Equal(t, "ev-1", rec.EventID)
	assert.Equal(t, "sig-1", rec.SignatureID)
	assert.Equal(t, "SIGNED", rec.State)
	assert.False(t, rec.Duplicate)
	assert.Contains(t, rec.RemoteAddr, "127.0.0.1:")
	assert.WithinDuration(t, before, rec.ReceivedAt, 2*time.Second)
	assert.Equal(t, 200, rec.Status)

	// Microseconds in the JSON.
	resp, err := http.Get(rv.URL() + "/api/events/1")
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Regexp(t, `"received_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"`, string(raw))
}

func TestVerdicts(t *testing.T) {
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.Secrets = map[string][]string{"merchant_demo": {"whsec_new", "whsec_test_demo"}}
	})
	body := notification(firmakit.StateCreated, "e", "s")
	now := time.Now()
	sign := func(secret string, at time.Time) string { return profile.WebhookSignature([]string{secret}, at, body) }
	for _, tc := range []struct {
		name, channel, sig, check, reason string
	}{
		{"valid", "merchant_demo", sign("whsec_test_demo", now), "valid", ""},
		{"rotated secret", "merchant_demo", sign("whsec_new", now), "valid", ""},
		{"missing", "merchant_demo", "", "missing", "no X-Service-Signature header"},
		{"malformed", "merchant_demo", "garbage", "invalid", "malformed signature header"},
		{"stale", "merchant_demo", sign("whsec_test_demo", now.Add(-10*time.Minute)), "invalid", "stale timestamp"},
		{"future", "merchant_demo", sign("whsec_test_demo", now.Add(10*time.Minute)), "invalid", "future timestamp"},
		{"wrong secret", "merchant_demo", sign("whsec_other", now), "invalid", "no matching signature"},
		{"unknown channel", "somewhere", sign("whsec_test_demo", now), "unverified", "no webhook secret is known for channel somewhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, out := post(t, rv, tc.channel, body, tc.sig)
			require.Equal(t, 200, status, "not strict: every notification is taken")
			var rec receiver.Record
			getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
			assert.Equal(t, tc.check, rec.Check)
			assert.Contains(t, rec.Reason, tc.reason)
		})
	}
}

func TestDuplicatesAreFlagged(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	body := notification(firmakit.StateSigned, "same-event", "s")
	signedPost(t, rv, "merchant_demo", body)
	signedPost(t, rv, "merchant_demo", body)
	var list struct{ Events []receiver.Record }
	getJSON(t, rv.URL()+"/api/events?order=asc", &list)
	require.Len(t, list.Events, 2)
	assert.False(t, list.Events[0].Duplicate)
	assert.True(t, list.Events[1].Duplicate)
}

func TestStrictRefusesButRecords(t *testing.T) {
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) { rv.Strict = true })
	body := notification(firmakit.StateSigned, "e", "s")
	status, out := post(t, rv, "merchant_demo", body, "t=1,v1=00")
	assert.Equal(t, 401, status)
	assert.Contains(t, out["error"], "signature invalid")
	status, _ = post(t, rv, "merchant_demo", body, "")
	assert.Equal(t, 401, status)
	status, _ = signedPost(t, rv, "merchant_demo", body)
	assert.Equal(t, 200, status)
	n, err := rv.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(3), n)
}

func TestProgrammedAnswers(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	set := func(body string) int {
		resp, err := http.Post(rv.URL()+"/api/channels/merchant_demo/responses", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 400, set(`{"status": 99}`))
	assert.Equal(t, 400, set(`{"status": 500, "delay": "soon"}`))
	assert.Equal(t, 400, set(`{"stat": 500}`))
	require.Equal(t, 200, set(`{"status": 503, "count": 2}`))
	body := notification(firmakit.StateSigned, "e", "s")
	var got []int
	for i := 0; i < 3; i++ {
		st, _ := signedPost(t, rv, "merchant_demo", body)
		got = append(got, st)
	}
	assert.Equal(t, []int{503, 503, 200}, got)
	// Other channels are not affected; delays hold the answer back.
	require.Equal(t, 200, set(`{"status": 202, "delay": "150ms"}`))
	start := time.Now()
	st, _ := signedPost(t, rv, "merchant_demo", body)
	assert.Equal(t, 202, st)
	assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	st, _ = signedPost(t, rv, "other", body)
	assert.Equal(t, 200, st)
	req, _ := http.NewRequest("DELETE", rv.URL()+"/api/channels/merchant_demo/responses", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	st, _ = signedPost(t, rv, "merchant_demo", body)
	assert.Equal(t, 200, st)
	// The records hold the answers given.
	var list struct{ Events []receiver.Record }
	getJSON(t, rv.URL()+"/api/events?order=asc&channel=merchant_demo", &list)
	require.Len(t, list.Events, 5)
	assert.Equal(t, 503, list.Events[0].Status)
}

func TestBodyOverLimit(t *testing.T) {
	rv := MustOpenReceiver(t, func(rv *receiver.Receiver) { rv.MaxBody = 1000 })
	status, out := signedPost(t, rv, "merchant_demo", bytes.Repeat([]byte("x"), 1001))
	assert.Equal(t, 413, status)
	assert.Contains(t, out["error"], "body too large")
	var rec receiver.Record
	getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
	assert.True(t, rec.BodyDropped)
	assert.Equal(t, int64(1001), rec.Size)
	assert.Empty(t, rec.Body)
	assert.Equal(t, 413, rec.Status)
}

func TestWait(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	ctx := context.Background()
	// One that arrived before the call.
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCreated, "e1", "sig-a"))
	r, err := rv.Wait(ctx, receiver.Filter{SignatureID: "sig-a"})
	require.NoError(t, err)
	assert.Equal(t, "e1", r.EventID)
	// One that arrives during the call: posted once the call listens.
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	type result struct {
		r   *receiver.Record
		err error
	}
	waited := make(chan result, 1)
	go func() {
		r, err := rv.Wait(wctx, receiver.Filter{SignatureID: "sig-b", State: "SIGNED"})
		waited <- result{r, err}
	}()
	require.Eventually(t, func() bool {
		st, err := stats(rv)
		return err == nil && st.Subscribers == 1
	}, 3*time.Second, 5*time.Millisecond)
	select {
	case res := <-waited:
		t.Fatalf("Wait returned before the notification: %v, %v", res.r, res.err)
	default:
	}
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e2", "sig-b"))
	res := <-waited
	require.NoError(t, res.err)
	assert.Equal(t, "e2", res.r.EventID)
	// None.
	tctx, cancel2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel2()
	_, err = rv.Wait(tctx, receiver.Filter{SignatureID: "sig-none"})
	assert.ErrorIs(t, err, receiver.ErrTimeout)

	// Over HTTP.
	var rec receiver.Record
	assert.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/wait?signature_id=sig-b&status=SIGNED&timeout=1s", &rec))
	assert.Equal(t, "e2", rec.EventID)
	var e map[string]string
	assert.Equal(t, 408, getJSON(t, rv.URL()+"/api/events/wait?signature_id=sig-none&timeout=50ms", &e))
	assert.Equal(t, "no matching notification within 50ms", e["error"])
	assert.Equal(t, 400, getJSON(t, rv.URL()+"/api/events/wait?timeout=forever", &e))
}

func TestListFiltersPagingDeleteExport(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	for i := 0; i < 5; i++ {
		st := firmakit.States[i]
		signedPost(t, rv, "merchant_demo", notification(st, fmt.Sprintf("e%d", i), fmt.Sprintf("s%d", i)))
	}
	post(t, rv, "other", []byte("not json <script>"), "")
	var list struct {
		Events    []receiver.Record
		Count     int
		NextAfter int64 `json:"next_after"`
	}
	getJSON(t, rv.URL()+"/api/events?state=SIGNED", &list)
	require.Len(t, list.Events, 1)
	assert.Equal(t, "s4", list.Events[0].SignatureID)
	getJSON(t, rv.URL()+"/api/events?check=missing", &list)
	require.Len(t, list.Events, 1)
	assert.Equal(t, "other", list.Events[0].Channel)
	getJSON(t, rv.URL()+"/api/events?order=asc&limit=2&after=1", &list)
	require.Len(t, list.Events, 2)
	assert.Equal(t, int64(2), list.Events[0].ID)
	assert.Equal(t, int64(3), list.NextAfter)
	getJSON(t, rv.URL()+"/api/events?channel=merchant_demo", &list)
	assert.Equal(t, 5, list.Count)
	assert.Equal(t, int64(5), list.Events[0].ID, "newest first by default")
	var e map[string]string
	assert.Equal(t, 400, getJSON(t, rv.URL()+"/api/events?limit=0", &e))
	assert.Equal(t, 400, getJSON(t, rv.URL()+"/api/events?since=yesterday", &e))
	assert.Equal(t, 400, getJSON(t, rv.URL()+"/api/events/abc", &e))
	assert.Equal(t, 404, getJSON(t, rv.URL()+"/api/events/999", &e))

	resp, err := http.Get(rv.URL() + "/api/events/export?format=jsonl&channel=merchant_demo")
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 5)
	var first receiver.Record
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, int64(1), first.ID)

	resp, err = http.Get(rv.URL() + "/api/events/export?format=har")
	require.NoError(t, err)
	var har struct {
		Log struct {
			Version string
			Entries []struct {
				Request struct {
					Method, URL string
					PostData    struct{ Text string }
				}
				Response struct{ Status int }
			}
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&har))
	resp.Body.Close()
	assert.Equal(t, "1.2", har.Log.Version)
	require.Len(t, har.Log.Entries, 6)
	assert.Equal(t, rv.URL()+"/hooks/other", har.Log.Entries[5].Request.URL)
	assert.Equal(t, "not json <script>", har.Log.Entries[5].Request.PostData.Text)

	req, _ := http.NewRequest("DELETE", rv.URL()+"/api/events/1", nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 204, resp.StatusCode)
	assert.Equal(t, 404, getJSON(t, rv.URL()+"/api/events/1", &e))
	req, _ = http.NewRequest("DELETE", rv.URL()+"/api/events", nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	n, _ := rv.Count(context.Background())
	assert.Equal(t, int64(0), n)
}

func TestReplay(t *testing.T) {
	// The test's server is on loopback.
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.AllowPrivateReplay = true })
	var mu sync.Mutex
	var got []http.Header
	var bodies [][]byte
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r.Header.Clone()), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(204)
	}))
	defer sink.Close()
	body := notification(firmakit.StateSigned, "e", "s")
	oldSig := profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now().Add(-time.Minute), body)
	post(t, rv, "merchant_demo", body, oldSig)
	replay := func(in string) map[string]any {
		resp, err := http.Post(rv.URL()+"/api/events/1/replay", "application/json", strings.NewReader(in))
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return out
	}
	assert.Equal(t, float64(204), replay(`{"url":"` + sink.URL + `/x"}`)["status"])
	assert.Equal(t, float64(204), replay(`{"url":"` + sink.URL + `/x","secrets":["whsec_other"]}`)["status"])
	assert.Contains(t, replay(`{"url":"file:///etc/passwd"}`)["error"], "http(s) URL")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 2)
	assert.Equal(t, oldSig, got[0].Get("X-Service-Signature"), "as it was")
	assert.Equal(t, body, bodies[0])
	require.NoError(t, profile.VerifyWebhook(got[1].Get("X-Service-Signature"), bodies[1], []string{"whsec_other"}, time.Now()), "re-signed")
}

func TestPersistenceAcrossRestart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: db}
	require.NoError(t, rv.Open())
	for i := 0; i < 20; i++ {
		st, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
		require.Equal(t, 200, st)
	}
	require.NoError(t, rv.Close())
	rv2 := MustOpenReceiver(t, func(r *receiver.Receiver) { r.DB = db })
	n, err := rv2.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(20), n)
	_, out := signedPost(t, rv2, "merchant_demo", notification(firmakit.StateSigned, "0", "s"))
	assert.Equal(t, float64(21), out["received"], "ids go on after a restart")
	var rec receiver.Record
	getJSON(t, rv2.URL()+"/api/events/21", &rec)
	assert.True(t, rec.Duplicate, "duplicates are found across restarts")
}

func TestRetention(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxEvents = 3 })
	for i := 0; i < 6; i++ {
		signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
	}
	// Applied with each commit: nothing over the limit once answered.
	n, err := rv.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(3), n)
	var list struct{ Events []receiver.Record }
	getJSON(t, rv.URL()+"/api/events?order=asc", &list)
	require.Len(t, list.Events, 3)
	assert.Equal(t, int64(4), list.Events[0].ID, "the oldest go first")
	var st struct{ Dropped int64 }
	getJSON(t, rv.URL()+"/api/stats", &st)
	assert.Equal(t, int64(3), st.Dropped, "and the drops are counted")
}

func TestToken(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Token = "s3cret" })
	var e map[string]string
	assert.Equal(t, 401, getJSON(t, rv.URL()+"/api/events", &e))
	assert.Contains(t, e["error"], "a token is required")
	assert.Equal(t, 200, getJSON(t, rv.URL()+"/api/events?token=s3cret", nil))
	req, _ := http.NewRequest("GET", rv.URL()+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	resp, err = http.Get(rv.URL() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode, "the dashboard too")
	st, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	assert.Equal(t, 200, st, "hooks stay open")
}

func TestNonLoopbackGetsAToken(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Addr = "0.0.0.0:0" })
	assert.Len(t, rv.Token, 32)
}

func dial(t *testing.T, rv *receiver.Receiver, query string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(rv.URL(), "http") + "/api/stream" + query
	c, _, err := websocket.DefaultDialer.Dial(u, nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func readRecord(t *testing.T, c *websocket.Conn) receiver.Record {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	var r receiver.Record
	_, b, err := c.ReadMessage()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

func TestStreamResumesWithNoGapNoDuplicate(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	for i := 1; i <= 3; i++ {
		signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
	}
	c := dial(t, rv, "")
	for i := int64(1); i <= 3; i++ {
		assert.Equal(t, i, readRecord(t, c).ID, "backlog")
	}
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "4", "s"))
	assert.Equal(t, int64(4), readRecord(t, c).ID, "live")
	c.Close()
	// Missed while away.
	for i := 5; i <= 7; i++ {
		signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
	}
	c2 := dial(t, rv, "?after=4")
	// Ingest during the catch-up as well; failures are reported back.
	sent := make(chan error, 1)
	go func() {
		for i := 8; i <= 30; i++ {
			if err := trySignedPost(rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s")); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	for want := int64(5); want <= 30; want++ {
		assert.Equal(t, want, readRecord(t, c2).ID)
	}
	require.NoError(t, <-sent)
	// Filters apply to the stream.
	c3 := dial(t, rv, "?after=30&state=CANCELED")
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "x", "s"))
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCanceled, "y", "s"))
	assert.Equal(t, "CANCELED", readRecord(t, c3).State)
}

func TestSlowStreamClientIsCutOff(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.StreamBuffer = 16; r.MaxBody = 4 << 20 })
	slow := dial(t, rv, "")
	fast := dial(t, rv, "")
	// 40 MiB in all: more than the kernel buffers a stalled socket, so the
	// slow client's queue must fill.
	big := bytes.Repeat([]byte("x"), 1<<20)
	ids := make(chan int64, 64)
	go func() {
		defer close(ids)
		for {
			// Read the id off the front of the frame; the body is not needed.
			fast.SetReadDeadline(time.Now().Add(20 * time.Second))
			_, b, err := fast.ReadMessage()
			if err != nil {
				return
			}
			var id int64
			fmt.Sscanf(string(b[:min(len(b), 40)]), `{"id":%d`, &id)
			ids <- id
		}
	}()
	// The fast client gets each record before the next is sent, so it is
	// never behind, however loaded the machine; the slow one never reads.
	var got []int64
	for i := 0; i < 40; i++ {
		st, _ := post(t, rv, "c", big, "")
		require.Equal(t, 200, st, "ingestion goes on while a client stalls")
		select {
		case id, ok := <-ids:
			require.True(t, ok, "the fast client was cut off after %v", got)
			got = append(got, id)
		case <-time.After(20 * time.Second):
			t.Fatalf("the fast client got nothing for record %d", i+1)
		}
	}
	for i, id := range got {
		assert.Equal(t, int64(i+1), id, "in order, no gap")
	}
	// The slow one now drains what was buffered for it: records in order
	// with no gap, then the close with code 1013 and where to resume.
	var slowGot []int64
	var err error
	for {
		slow.SetReadDeadline(time.Now().Add(20 * time.Second))
		var b []byte
		if _, b, err = slow.ReadMessage(); err != nil {
			break
		}
		var id int64
		fmt.Sscanf(string(b[:min(len(b), 40)]), `{"id":%d`, &id)
		slowGot = append(slowGot, id)
	}
	var ce *websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, websocket.CloseTryAgainLater, ce.Code)
	assert.Equal(t, fmt.Sprintf("too slow; reconnect with after=%d", len(slowGot)), ce.Text)
	assert.Less(t, len(slowGot), 40, "cut off before the end")
	for i, id := range slowGot {
		assert.Equal(t, int64(i+1), id)
	}
}

func TestHostileHookInput(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	for _, body := range []string{"", "null", "[]", `{"event_id": 5}`, `{"status": {"x": 1}}`, "\xff\xfe", strings.Repeat("{", 10000)} {
		st, out := post(t, rv, "merchant_demo", []byte(body), "t=abc,v1=zz")
		assert.Equal(t, 200, st, body)
		assert.NotNil(t, out["received"])
	}
	st, _ := post(t, rv, strings.Repeat("c", 300), []byte("{}"), "")
	assert.Equal(t, 400, st)
	resp, err := http.Get(rv.URL() + "/hooks/merchant_demo")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 405, resp.StatusCode)
	var rec receiver.Record
	getJSON(t, rv.URL()+"/api/events/6", &rec)
	assert.Equal(t, []byte("\xff\xfe"), rec.Body, "non-UTF-8 bodies round-trip through base64")
}

func TestStreamPingsIdleClients(t *testing.T) {
	// 200 ms, not less: a stream waits three intervals for a pong, and on
	// a busy machine this test's own pong can take more than 90 ms.
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.PingInterval = 200 * time.Millisecond })
	c := dial(t, rv, "")
	pings := make(chan struct{}, 10)
	c.SetPingHandler(func(string) error {
		select {
		case pings <- struct{}{}:
		default:
		}
		return c.WriteControl(websocket.PongMessage, nil, time.Now().Add(time.Second))
	})
	frames := make(chan receiver.Record, 10)
	go func() {
		for {
			var r receiver.Record
			if err := c.ReadJSON(&r); err != nil {
				return
			}
			frames <- r
		}
	}()
	for i := 0; i < 3; i++ {
		select {
		case <-pings:
		case <-time.After(10 * time.Second):
			t.Fatalf("ping %d did not come", i+1)
		}
	}
	// Answered pings keep the stream open past three intervals, the read
	// deadline a stream without pongs would hit: a record still arrives.
	for i := 0; i < 6; i++ {
		select {
		case <-pings:
		case <-time.After(10 * time.Second):
			t.Fatalf("ping %d did not come", i+4)
		}
	}
	st, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "after-pings", "s"))
	require.Equal(t, 200, st)
	select {
	case r := <-frames:
		assert.Equal(t, "after-pings", r.EventID)
	case <-time.After(2 * time.Second):
		t.Fatal("the stream went quiet after the pings")
	}
}

// TestCloseWhileStreamsOpen: streams opened while the receiver closes
// are closed, and Close returns. (A stream counted just before Close
// began waiting, its handler not yet subscribed, was a data race, which
// -race reported once in a make test: a window of a few instructions,
// that this test opens often without hitting it every run.)
func TestCloseWhileStreamsOpen(t *testing.T) {
	for round := 0; round < 20; round++ {
		rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
		require.NoError(t, rv.Open())
		u := "ws" + strings.TrimPrefix(rv.URL(), "http") + "/api/stream"
		var wg sync.WaitGroup
		ended := make(chan error, 64)
		opened := make(chan struct{}, 1)
		// Streams that end at once keep the count going up from none,
		// beside others that stay.
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					c, _, err := websocket.DefaultDialer.Dial(u, nil)
					if err != nil {
						return // the receiver no longer listens
					}
					if i > 0 {
						c.Close()
						continue
					}
					select {
					case opened <- struct{}{}:
					default:
					}
					go func() {
						defer c.Close()
						c.SetReadDeadline(time.Now().Add(10 * time.Second))
						_, _, err := c.ReadMessage()
						select {
						case ended <- err:
						default:
						}
					}()
				}
			}()
		}
		select {
		case <-opened: // a stream that stays is open
		case <-time.After(30 * time.Second):
			t.Fatal("no stream opened in 30 s")
		}
		time.Sleep(10 * time.Millisecond) // and others come and go
		closed := make(chan struct{})
		go func() { rv.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(30 * time.Second):
			t.Fatal("Close did not return with streams opening")
		}
		wg.Wait()
		select {
		case err := <-ended:
			require.Error(t, err, "a stream ended with the receiver")
			var ne net.Error
			assert.False(t, errors.As(err, &ne) && ne.Timeout(), "the stream outlived Close: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("no stream opened before Close")
		}
	}
}

// fakeClock is a receiver clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// postAt posts a notification signed at the fake clock's time, so that the
// receiver's signature check is valid.
func postAt(t *testing.T, rv *receiver.Receiver, clock *fakeClock, body []byte) {
	t.Helper()
	st, _ := post(t, rv, "merchant_demo", body, profile.WebhookSignature([]string{"whsec_test_demo"}, clock.Now(), body))
	require.Equal(t, 200, st)
}

func TestRetentionByAgeAndSince(t *testing.T) {
	clock := newFakeClock()
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxAge = time.Hour; r.Now = clock.Now })
	postAt(t, rv, clock, notification(firmakit.StateSigned, "old", "s"))
	clock.Add(30 * time.Minute)
	mid := clock.Now()
	postAt(t, rv, clock, notification(firmakit.StateSigned, "new", "s"))

	var list struct{ Events []receiver.Record }
	getJSON(t, rv.URL()+"/api/events?since="+mid.Format(time.RFC3339Nano), &list)
	require.Len(t, list.Events, 1)
	assert.Equal(t, "new", list.Events[0].EventID)
	assert.Equal(t, mid, list.Events[0].ReceivedAt, "receive times come from the receiver's clock")

	// 59 minutes on, both are within the hour.
	clock.Add(29 * time.Minute)
	receiver.RetentionPass(rv)
	n, _ := rv.Count(context.Background())
	assert.Equal(t, int64(2), n)
	// 70 minutes on, the first is over an hour old and goes; the second stays.
	clock.Add(11 * time.Minute)
	receiver.RetentionPass(rv)
	getJSON(t, rv.URL()+"/api/events", &list)
	require.Len(t, list.Events, 1)
	assert.Equal(t, "new", list.Events[0].EventID)
}

// TestIndexedFieldsAreClipped: ids taken from an untrusted body for the
// index are cut at 200 bytes, never inside a character, and marked cut.
func TestIndexedFieldsAreClipped(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	long := "a" + strings.Repeat("ñ", 150) // 301 bytes; byte 200 is inside an ñ
	st, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, long, "sig-clip"))
	require.Equal(t, 200, st, out)
	var rec receiver.Record
	getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
	assert.Equal(t, "a"+strings.Repeat("ñ", 99)+"…", rec.EventID)
	assert.Equal(t, "sig-clip", rec.SignatureID, "short ids are kept whole")
}

// TestHookChannelIsDecoded: a percent-encoded channel is the channel it
// decodes to (its secret verifies it), and the record keeps the path as
// sent.
func TestHookChannelIsDecoded(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	for _, tc := range []struct{ channel, path string }{
		{"merchant_demo", "/hooks/merchant_demo"},
		{"merchant%5Fdemo", "/hooks/merchant%5Fdemo"},
		{"%6Derchant_demo", "/hooks/%6Derchant_demo"},
	} {
		st, out := signedPost(t, rv, tc.channel, notification(firmakit.StateSigned, "ev-"+tc.channel, "sig-decoded"))
		require.Equal(t, 200, st, out)
		var rec receiver.Record
		getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
		assert.Equal(t, "merchant_demo", rec.Channel, tc.channel)
		assert.Equal(t, receiver.CheckValid, rec.Check, "the channel's secret applies: %s", rec.Reason)
		assert.Equal(t, tc.path, rec.Path, "kept as sent")
	}
}

// TestRefusedBeforeRoutingAnswersInShape: what net/http refuses before any
// handler still gets the receiver's {"error": …} body.
func TestRefusedBeforeRoutingAnswersInShape(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	addr := strings.TrimPrefix(rv.URL(), "http://")
	valid := "POST /hooks/merchant_demo HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	for _, tc := range []struct {
		name, request string
		status        int
		message       string
	}{
		{"invalid escape in the channel", strings.Replace(valid, "merchant_demo", "%zz", 1), 400,
			`Malformed request target "/hooks/%zz": invalid percent-encoding "%zz"; write a literal % as %25`},
		{"header over the limit", strings.Replace(valid, "\r\n\r\n", "\r\nX-Pad: "+strings.Repeat("a", 80<<10)+"\r\n\r\n", 1), 431,
			"Request header fields too large: the request line and headers may take at most 65536 bytes"},
		{"method not a token", strings.Replace(valid, "POST", "PO(ST", 1), 400, `Invalid method "PO(ST": a method is letters such as POST`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
			_, err = io.WriteString(c, tc.request)
			require.NoError(t, err)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			require.NoError(t, err)
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			assert.Equal(t, tc.status, resp.StatusCode, string(raw))
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var out map[string]string
			require.NoError(t, json.Unmarshal(raw, &out), string(raw))
			assert.Equal(t, map[string]string{"error": tc.message}, out)
		})
	}
}
