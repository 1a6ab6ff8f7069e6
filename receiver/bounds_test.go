package receiver_test

import (
	"bufio"
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
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

// closedByServer tells whether the server closed c within wait.
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// countClosed checks every connection at once and returns how many the
// server closed within wait.
func countClosed(conns []net.Conn, wait time.Duration) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if closedByServer(c, wait) {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return n
}

func dialRaw(t *testing.T, rv *receiver.Receiver) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(rv.URL(), "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestIdleConnectionsAreClosed(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.IdleTimeout = 300 * time.Millisecond })
	var conns []net.Conn
	for i := 0; i < 5; i++ {
		// Connected, never a byte sent.
		conns = append(conns, dialRaw(t, rv))
		// One request answered, then idle on keep-alive.
		c := dialRaw(t, rv)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", strings.TrimPrefix(rv.URL(), "http://"))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		conns = append(conns, c)
	}
	start := time.Now()
	assert.Equal(t, len(conns), countClosed(conns, 5*time.Second), "every idle connection is closed")
	assert.Less(t, time.Since(start), 4*time.Second)
}

func TestConnectionCapKeepsRoomForNotifications(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxConns = 10 })
	var idle []net.Conn
	for i := 0; i < 30; i++ {
		idle = append(idle, dialRaw(t, rv))
	}
	// The cap is full of connections that send nothing: a notification
	// still gets in, at once, in place of the oldest of them.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	body := notification(firmakit.StateSigned, "e", "s")
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/merchant_demo", bytes.NewReader(body))
	req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.GreaterOrEqual(t, countClosed(idle, 2*time.Second), 21, "at most 10 connections held, the notification's included")
	st, err := stats(rv)
	require.NoError(t, err)
	assert.LessOrEqual(t, st.Connections, 10)
}

func TestStreamsAndLongCallsOutliveTheServerTimeouts(t *testing.T) {
	t.Cleanup(receiver.SetServerTimeouts(200*time.Millisecond, 200*time.Millisecond))
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.PingInterval = 50 * time.Millisecond })
	c := dial(t, rv, "")
	pings := make(chan struct{}, 100)
	c.SetPingHandler(func(string) error {
		pings <- struct{}{}
		return c.WriteControl(websocket.PongMessage, nil, time.Now().Add(time.Second))
	})
	frames := make(chan receiver.Record, 10)
	go func() {
		for {
			var r receiver.Record
			if err := c.ReadJSON(&r); err != nil {
				close(frames)
				return
			}
			frames <- r
		}
	}()
	// Ten pings: twice the timeouts have passed on the stream.
	for i := 0; i < 10; i++ {
		select {
		case <-pings:
		case <-time.After(3 * time.Second):
			t.Fatalf("ping %d did not come", i+1)
		}
	}
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "late", "s"))
	select {
	case r, ok := <-frames:
		require.True(t, ok, "the stream was closed")
		assert.Equal(t, "late", r.EventID)
	case <-time.After(3 * time.Second):
		t.Fatal("no frame after the timeouts")
	}

	// A long poll answers after the timeouts, as does a delayed answer.
	var e map[string]string
	assert.Equal(t, 408, getJSON(t, rv.URL()+"/api/events/wait?signature_id=none&timeout=500ms", &e))
	assert.Contains(t, e["error"], "no matching notification")
	st, out := call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", `{"status":202,"delay":"400ms","count":1}`, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, 200, st, out)
	st, _ = signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "delayed", "s"))
	assert.Equal(t, 202, st)
}

func TestMemoryStoreStaysWithinItsBudget(t *testing.T) {
	var logs syncBuffer
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) {
		r.MaxBytes = 8 << 20
		r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	body := bytes.Repeat([]byte("x"), 200<<10)
	for i := 0; i < 60; i++ {
		st, _ := post(t, rv, "merchant_demo", body, "")
		require.Equal(t, 200, st)
	}
	st, err := stats(rv)
	require.NoError(t, err)
	// In memory, a page costs twice its bytes: half the budget holds records.
	assert.LessOrEqual(t, st.Count*int64(len(body)), int64(4<<20), "within the budget")
	assert.GreaterOrEqual(t, st.Count, int64(10), "what fits is kept")
	assert.Equal(t, 60-st.Count, st.Dropped, "every drop is counted")
	var e map[string]string
	assert.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/60", nil), "the newest stays")
	assert.Equal(t, 404, getJSON(t, rv.URL()+"/api/events/1", &e), "the oldest went first")
	assert.Contains(t, logs.String(), "oldest records dropped to stay within the receiver's limits")
	assert.Contains(t, logs.String(), "max_bytes=8388608")

	// An in-memory store has a budget by default.
	var info struct {
		MaxBytes int64 `json:"max_bytes"`
	}
	getJSON(t, MustOpenReceiver(t, nil).URL()+"/api/info", &info)
	assert.Equal(t, int64(receiver.DefaultMaxMemory), info.MaxBytes)
}

func TestIDsAreNeverReused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: db}
	require.NoError(t, rv.Open())
	for i := 0; i < 3; i++ {
		signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
	}
	st, _ := call(t, rv, "DELETE", "/api/events/3", "", "", nil)
	require.Equal(t, 204, st)
	_, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "4", "s"))
	assert.Equal(t, float64(4), out["received"], "the newest id deleted is not given again")
	st, _ = call(t, rv, "DELETE", "/api/events", "", "", nil)
	require.Equal(t, 200, st)
	require.NoError(t, rv.Close())

	rv2 := MustOpenReceiver(t, func(r *receiver.Receiver) { r.DB = db })
	_, out = signedPost(t, rv2, "merchant_demo", notification(firmakit.StateSigned, "5", "s"))
	assert.Equal(t, float64(5), out["received"], "after deleting everything and a restart, ids go on")
	var list struct{ Events []receiver.Record }
	getJSON(t, rv2.URL()+"/api/events?after=4", &list)
	require.Len(t, list.Events, 1, "a client resuming with after=4 gets the new record")
}

func TestIncompatibleDatabaseIsRefused(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	require.NoError(t, os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 100), 0o600))
	other := filepath.Join(dir, "other.db")
	// The receiver's table as an older build might have had it: all the
	// indexed columns, no status. It would open, then fail every insert.
	mustExec(t, other, `CREATE TABLE records (id INTEGER PRIMARY KEY, channel TEXT, method TEXT, path TEXT, query TEXT,
		headers TEXT, body BLOB, size INTEGER, body_dropped INTEGER, received_at INTEGER, remote_addr TEXT, verdict TEXT,
		reason TEXT, event_id TEXT, signature_id TEXT, state TEXT, created_at TEXT, duplicate INTEGER)`)
	newer := filepath.Join(dir, "newer.db")
	mustExec(t, newer, `CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL); INSERT INTO meta VALUES ('schema_version', 99)`)
	for file, want := range map[string]string{
		garbage: "is not a SQLite database",
		other:   "table records has the columns",
		newer:   "schema version 99, written by a newer firmakit",
	} {
		before, err := os.ReadFile(file)
		require.NoError(t, err)
		rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: file}
		err = rv.Open()
		if err == nil {
			rv.Close()
		}
		require.ErrorIs(t, err, receiver.ErrIncompatibleDatabase, file)
		assert.Contains(t, err.Error(), want)
		assert.Contains(t, err.Error(), file)
		after, _ := os.ReadFile(file)
		assert.Equal(t, before, after, "the file is left as it was")
	}
}

func mustExec(t *testing.T, file, q string) {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(q)
	require.NoError(t, err)
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
