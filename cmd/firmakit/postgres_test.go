package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/pgtest"
	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// postgresDB returns a new database on the tests' PostgreSQL server; the
// test fails, saying how to install PostgreSQL, when there is none.
func postgresDB(t *testing.T) string {
	t.Helper()
	url, err := pgtest.NewDatabase()
	require.NoError(t, err)
	return url
}

// TestReceiveOnPostgresFromTheEnvironment: FIRMAKIT_DB selects
// PostgreSQL as --db does, and the URL's password stays out of the log.
func TestReceiveOnPostgresFromTheEnvironment(t *testing.T) {
	db := postgresDB(t)
	withPassword := strings.Replace(db, "postgres@", "postgres:hunter2@", 1)
	urls := startInProcess(t, map[string]string{"FIRMAKIT_DB": withPassword}, "receive", "--listen", "127.0.0.1:0", "--log-level", "info")
	body := `{"event_id":"e1","status":"SIGNED","signature_id":"s1"}`
	req, _ := http.NewRequest("POST", urls["receiver"]+"/hooks/merchant_demo", strings.NewReader(body))
	req.Header.Set("X-Service-Signature", firmakit.BundledProfile().WebhookSignature([]string{"whsec_test_demo"}, time.Now(), []byte(body)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	c, err := pgx.Connect(context.Background(), db)
	require.NoError(t, err)
	defer c.Close(context.Background())
	var n int
	require.NoError(t, c.QueryRow(context.Background(), `SELECT COUNT(*) FROM records WHERE event_id = 'e1'`).Scan(&n))
	assert.Equal(t, 1, n, "stored in PostgreSQL")
}

// TestReceiveRefusesAnotherPostgresDatabase: a database holding other
// tables stops 'firmakit receive' with exit code 2 and what to do.
func TestReceiveRefusesAnotherPostgresDatabase(t *testing.T) {
	db := postgresDB(t)
	c, err := pgx.Connect(context.Background(), db)
	require.NoError(t, err)
	_, err = c.Exec(context.Background(), `CREATE TABLE records (id serial, name text)`)
	c.Close(context.Background())
	require.NoError(t, err)
	code, out, errOut := run(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", db)
	assert.Equal(t, ExitUsage, code, errOut)
	assert.Contains(t, errOut, "table records has the columns (id, name)")
	assert.Contains(t, errOut, "CREATE DATABASE")
	assert.Contains(t, errOut, "leaves that database alone")
	assert.Empty(t, out)

	code, _, errOut = run(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
	assert.Equal(t, ExitUsage, code, errOut)
	assert.Contains(t, errOut, "cannot be reached")
}

// TestReplicaKill9LosesNothing: two receiver processes share one
// database; senders post to both in turn; one is killed with SIGKILL
// under load; every notification either acknowledged is on the other's
// list, and a client of the dead one's stream resumes on the other from
// its last id with no gap and no duplicate.
func TestReplicaKill9LosesNothing(t *testing.T) {
	db := postgresDB(t)
	a, addrA := startReceiverProcess(t, db)
	b, addrB := startReceiverProcess(t, db)
	addrs := []string{addrA, addrB}
	defer func() { b.Process.Signal(os.Interrupt); b.Wait() }()
	p := firmakit.BundledProfile()
	// A client of A's stream, which moves to B when A dies.
	onA := streamIDs(t, addrs[0], 0)

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ev := fmt.Sprintf("w%d-%d", w, i)
				body, _ := p.EncodeNotification(firmakit.Notification{EventID: ev, SignatureID: "kill", Status: firmakit.StateSigned})
				req, _ := http.NewRequest("POST", "http://"+addrs[i%2]+"/hooks/merchant_demo", bytes.NewReader(body))
				req.Header.Set("X-Service-Signature", p.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, ev)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	require.NoError(t, a.Process.Signal(syscall.SIGKILL))
	_ = a.Wait()
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	require.NotEmpty(t, acked, "the load got no 2xx")

	resp, err := client.Get("http://" + addrs[1] + "/api/events/export?format=jsonl")
	require.NoError(t, err)
	defer resp.Body.Close()
	stored := map[string]bool{}
	dec := json.NewDecoder(resp.Body)
	for dec.More() {
		var r struct {
			EventID string `json:"event_id"`
		}
		require.NoError(t, dec.Decode(&r))
		stored[r.EventID] = true
	}
	// The client resumes on B from the last id A gave it: with what it
	// had, it then holds every record, once each, in id order.
	before := onA.stop()
	var last int64
	if len(before) > 0 {
		last = before[len(before)-1]
	}
	onB := streamIDs(t, addrs[1], last)
	require.Eventually(t, func() bool { return len(before)+onB.len() >= len(stored) }, 30*time.Second, 20*time.Millisecond,
		"the stream resumed on B from id %d did not catch up with %d records", last, len(stored))
	all := append(before, onB.stop()...)
	assert.Len(t, all, len(stored), "every record streamed once")
	for i := 1; i < len(all); i++ {
		require.Greater(t, all[i], all[i-1], "in id order, no duplicate")
	}

	var lost []string
	for _, ev := range acked {
		if !stored[ev] {
			lost = append(lost, ev)
		}
	}
	assert.Empty(t, lost, "acknowledged but lost: %s", strings.Join(lost, ", "))
	t.Logf("%d acknowledged by two replicas, one killed with SIGKILL; %d on the survivor's list", len(acked), len(stored))
}

// idStream is a client of a receiver's websocket stream that keeps the
// ids of the records it got.
type idStream struct {
	conn *websocket.Conn
	mu   sync.Mutex
	ids  []int64
	done chan struct{}
}

// streamIDs opens the stream of the receiver at addr after an id.
func streamIDs(t *testing.T, addr string, after int64) *idStream {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial(fmt.Sprintf("ws://%s/api/stream?after=%d", addr, after), nil)
	require.NoError(t, err)
	s := &idStream{conn: c, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			var r struct {
				ID int64 `json:"id"`
			}
			if err := c.ReadJSON(&r); err != nil {
				return
			}
			if r.ID == 0 {
				continue // not a record
			}
			s.mu.Lock()
			s.ids = append(s.ids, r.ID)
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *idStream) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}

// stop closes the stream and returns the ids it got.
func (s *idStream) stop() []int64 {
	s.conn.Close()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids
}
