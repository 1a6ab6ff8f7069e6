package receiver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getRaw sends a GET and returns the answer's status, body and headers.
func getRaw(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestRequestsWithoutAFeed(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	for _, path := range []string{"/api/requests", "/api/requests/stream"} {
		status, body, _ := getRaw(t, rv.URL()+path)
		assert.Equal(t, 404, status, path)
		assert.Equal(t, `{"error":"the requests a service received are shown when the receiver runs with a reference server ('firmakit up')"}`+"\n", body)
	}
	var info map[string]any
	getJSON(t, rv.URL()+"/api/info", &info)
	assert.Equal(t, false, info["requests"])
}

// TestRequestsSameContractAsTheReference reads the same log from the
// reference's /_sandbox/requests and the receiver's /api/requests.
func TestRequestsSameContractAsTheReference(t *testing.T) {
	ref := &reference.Server{Addr: "127.0.0.1:0", MaxRequests: 4}
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Requests = ref.Requests() })
	var info map[string]any
	getJSON(t, rv.URL()+"/api/info", &info)
	assert.Equal(t, true, info["requests"])

	status, body, _ := getRaw(t, rv.URL()+"/api/requests")
	require.Equal(t, 200, status)
	assert.Equal(t, `{"requests":[],"count":0,"total":0,"last_id":0}`+"\n", body)
	for i := 0; i < 6; i++ {
		path := fmt.Sprintf("/v1/check/merchant_demo?i=%d", i)
		req, _ := http.NewRequest("POST", ref.URL()+path, strings.NewReader("{}"))
		req.Header = profile.SignedHeaders("test_key_demo", "test_secret_demo", "POST", path, []byte("{}"), time.Now())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	for _, q := range []string{"", "?limit=2", "?after=0", "?after=4&limit=1", "?after=6", "?after=99"} {
		status, fromRef, _ := getRaw(t, ref.URL()+"/_sandbox/requests"+q)
		require.Equal(t, 200, status, q)
		status, fromRV, _ := getRaw(t, rv.URL()+"/api/requests"+q)
		require.Equal(t, 200, status, q)
		assert.Equal(t, fromRef, fromRV, q)
	}
	var pg firmakit.RequestsPage
	getJSON(t, rv.URL()+"/api/requests?after=4", &pg)
	assert.Equal(t, firmakit.RequestsPage{Requests: pg.Requests, Count: 2, Total: 4, LastID: 6}, pg)
	require.Len(t, pg.Requests, 2)
	assert.Equal(t, "/v1/check/merchant_demo?i=4", pg.Requests[0].RequestTarget)
	assert.Equal(t, firmakit.AuthAccepted, pg.Requests[0].Auth)

	for _, q := range []string{"?after=x", "?after=-2", "?limit=0", "?limit=1001"} {
		status, fromRef, _ := getRaw(t, ref.URL()+"/_sandbox/requests"+q)
		assert.Equal(t, 400, status)
		var refErr firmakit.APIResponse
		require.NoError(t, json.Unmarshal([]byte(fromRef), &refErr))
		status, fromRV, _ := getRaw(t, rv.URL()+"/api/requests"+q)
		assert.Equal(t, 400, status)
		assert.Equal(t, fmt.Sprintf(`{"error":%q}`, refErr.Message)+"\n", fromRV, "the same message in each server's shape")
		status, _, _ = getRaw(t, rv.URL()+"/api/requests/stream"+q)
		if strings.HasPrefix(q, "?after") {
			assert.Equal(t, 400, status, "a stream with a bad after is refused before the upgrade")
		}
	}
}

func TestRequestsAreGuarded(t *testing.T) {
	log := reference.NewRequestLog(10)
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Requests = log; r.Token = "tok" })
	status, _, _ := getRaw(t, rv.URL()+"/api/requests")
	assert.Equal(t, 401, status, "a token is required")
	status, _, _ = getRaw(t, rv.URL()+"/api/requests?token=tok")
	assert.Equal(t, 200, status)
	req, _ := http.NewRequest("GET", rv.URL()+"/api/requests/stream?token=tok", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 403, resp.StatusCode, "another site's page cannot read the stream")
	_, _, err = websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(rv.URL(), "http")+"/api/requests/stream", nil)
	assert.Error(t, err, "nor a client without the token")
}

func dialRequests(t *testing.T, rv *receiver.Receiver, query string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(rv.URL(), "http")+"/api/requests/stream"+query, nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func readRequest(t *testing.T, c *websocket.Conn) firmakit.ReceivedRequest {
	t.Helper()
	typ, b, err := c.ReadMessage()
	require.NoError(t, err)
	require.Equal(t, websocket.TextMessage, typ)
	var e firmakit.ReceivedRequest
	require.NoError(t, json.Unmarshal(b, &e))
	return e
}

// streamedLog is a log of size entries shown by a receiver, holding
// requests 1 to 3.
func streamedLog(t *testing.T, size int) (*reference.RequestLog, *receiver.Receiver) {
	log := reference.NewRequestLog(size)
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Requests = log })
	for i := 1; i <= 3; i++ {
		log.Add(firmakit.ReceivedRequest{RequestTarget: fmt.Sprint("/", i)})
	}
	return log, rv
}

func TestRequestStreamCatchesUpThenGoesLive(t *testing.T) {
	log, rv := streamedLog(t, 1000)
	c := dialRequests(t, rv, "?after=1")
	// More are logged while the stream catches up, from another goroutine.
	const total = 400
	go func() {
		for i := 4; i <= total; i++ {
			log.Add(firmakit.ReceivedRequest{RequestTarget: fmt.Sprint("/", i)})
		}
	}()
	for want := uint64(2); want <= total; want++ {
		e := readRequest(t, c)
		require.Equal(t, want, e.ID, "no gap, no duplicate")
		require.Equal(t, fmt.Sprint("/", want), e.RequestTarget)
	}
	// And the next one arrives live.
	log.Add(firmakit.ReceivedRequest{RequestTarget: "/live"})
	assert.Equal(t, "/live", readRequest(t, c).RequestTarget)

	// Without after, the stream starts at the oldest held.
	c2 := dialRequests(t, rv, "")
	assert.Equal(t, uint64(1), readRequest(t, c2).ID)
}

func TestRequestStreamClosesASlowClient(t *testing.T) {
	log := reference.NewRequestLog(8)
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Requests = log })
	log.Add(firmakit.ReceivedRequest{RequestTarget: "/first"})
	c := dialRequests(t, rv, "")
	assert.Equal(t, uint64(1), readRequest(t, c).ID)
	// 60 MiB while the client reads nothing: far more than a socket
	// buffers, so the log (8 entries) drops entries the client was not sent.
	big := strings.Repeat("x", 1<<20)
	for i := 0; i < 60; i++ {
		log.Add(firmakit.ReceivedRequest{RequestTarget: big})
	}
	var got []uint64
	var err error
	for {
		var b []byte
		if _, b, err = c.ReadMessage(); err != nil {
			break
		}
		var e firmakit.ReceivedRequest
		require.NoError(t, json.NewDecoder(bytes.NewReader(b)).Decode(&e))
		got = append(got, e.ID)
	}
	var ce *websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, websocket.CloseTryAgainLater, ce.Code)
	last := uint64(1)
	for _, id := range got {
		require.Equal(t, last+1, id, "in order, no gap, before the close")
		last = id
	}
	assert.Equal(t, fmt.Sprintf("too slow; reconnect with after=%d", last), ce.Text)
	assert.Less(t, last, uint64(61), "closed before the end")
	// Reconnecting after that id gets what the log still holds.
	c2 := dialRequests(t, rv, fmt.Sprintf("?after=%d", last))
	assert.Equal(t, uint64(61-7), readRequest(t, c2).ID)
}

// TestRequestStreamAfterARestart: a dashboard reconnects with the last id
// it saw, but the service restarted and its ids start at 1 again: the
// stream starts at the oldest held instead of waiting for id 501.
func TestRequestStreamAfterARestart(t *testing.T) {
	log, rv := streamedLog(t, 10)
	c := dialRequests(t, rv, "?after=500")
	// Only to end the test if nothing comes; not a measure.
	c.SetReadDeadline(time.Now().Add(time.Minute))
	for want := uint64(1); want <= 3; want++ {
		assert.Equal(t, want, readRequest(t, c).ID)
	}
	log.Add(firmakit.ReceivedRequest{RequestTarget: "/live"})
	assert.Equal(t, "/live", readRequest(t, c).RequestTarget)
	// An after within the log still means what it says.
	c2 := dialRequests(t, rv, "?after=3")
	assert.Equal(t, "/live", readRequest(t, c2).RequestTarget)
}
