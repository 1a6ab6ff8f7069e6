package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

// TestReceiveRefusesAnotherDatabase: a --db file whose schema is not the
// receiver's stops 'firmakit receive' at once, with exit code 2 and what to
// do, instead of a receiver that answers 503 to every notification. The
// run is bounded, so that a receiver that does start fails the test
// rather than hanging it.
func TestReceiveRefusesAnotherDatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", file)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE records (id INTEGER PRIMARY KEY, channel TEXT, method TEXT, path TEXT, query TEXT,
		headers TEXT, body BLOB, size INTEGER, body_dropped INTEGER, received_at INTEGER, remote_addr TEXT, verdict TEXT,
		reason TEXT, event_id TEXT, signature_id TEXT, state TEXT, created_at TEXT, duplicate INTEGER)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code := m.Run(ctx, []string{"receive", "--listen", "127.0.0.1:0", "--db", file})
	assert.Equal(t, ExitUsage, code, errOut.String())
	assert.Contains(t, errOut.String(), file)
	assert.Contains(t, errOut.String(), "table records has the columns")
	assert.Contains(t, errOut.String(), "move it aside, or start with another --db")
	assert.Empty(t, out.String(), "no URL is printed")
}

// TestReceiveForwardTo: 'firmakit receive --forward-to' passes each
// notification on to the merchant's endpoint, answers with the endpoint's
// status and shows its answer on the record; --strict and a URL that is
// not http(s) are refused.
func TestReceiveForwardTo(t *testing.T) {
	var got atomic.Value
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b) + "|" + r.Header.Get("X-Service-Signature"))
		http.Error(w, "signature refused", http.StatusUnauthorized)
	}))
	t.Cleanup(ep.Close)
	urls := startInProcess(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--forward-to", ep.URL+"/webhook")
	body := `{"event_id":"e1","status":"SIGNED","signature_id":"s1"}`
	sig := firmakit.BundledProfile().WebhookSignature([]string{"whsec_test_demo"}, time.Now(), []byte(body))
	req, _ := http.NewRequest("POST", urls["receiver"]+"/hooks/merchant_demo", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", sig)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the endpoint's answer is the sender's")
	assert.Equal(t, body+"|"+sig, got.Load())

	var rec receiver.Record
	resp, err = http.Get(urls["receiver"] + "/api/events/1")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&rec))
	resp.Body.Close()
	require.NotNil(t, rec.Forward)
	assert.Equal(t, ep.URL+"/webhook", rec.Forward.URL)
	assert.Equal(t, 401, rec.Forward.Status)
	assert.Equal(t, "signature refused\n", rec.Forward.Body)
	assert.Equal(t, receiver.CheckValid, rec.Check, "the signature was good: the endpoint is at fault")

	// --forward-timeout is the forward's bound, shown in /api/info.
	urls = startInProcess(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--forward-to", ep.URL+"/webhook", "--forward-timeout", "1500ms")
	var info map[string]any
	resp, err = http.Get(urls["receiver"] + "/api/info")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&info))
	resp.Body.Close()
	assert.Equal(t, "1.5s", info["forward_timeout"])

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--forward-to", "localhost:3000"}, `--forward-to "localhost:3000" is not an http(s) URL`},
		{[]string{"--forward-to", "http://localhost:3000/webhook", "--strict"}, "--strict and --forward-to exclude each other"},
		{[]string{"--forward-to", "http://localhost:3000/webhook", "--forward-timeout", "-1s"}, "--forward-timeout must be from 0"},
		{[]string{"--forward-to", "http://localhost:3000/webhook", "--forward-timeout", "2m"}, "--forward-timeout must be from 0"},
	} {
		code, _, errOut := run(t, nil, append([]string{"receive", "--listen", "127.0.0.1:0", "--db", ":memory:"}, tc.args...)...)
		assert.Equal(t, ExitUsage, code, tc.args)
		assert.Contains(t, errOut, tc.want)
	}
}

// TestReceiveExposure: with --public-url the receiver makes a token,
// which the dashboard URL carries and the API needs; a replay reaches a
// loopback endpoint only with --allow-private-replay.
func TestReceiveExposure(t *testing.T) {
	var hits atomic.Int64
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(ep.Close)
	status := func(method, url, token, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, allow := range []bool{false, true} {
		args := []string{"receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--public-url", "https://abc.tunnel.example"}
		if allow {
			args = append(args, "--allow-private-replay")
		}
		urls := startInProcess(t, nil, args...)
		_, token, ok := strings.Cut(urls["dashboard"], "?token=")
		require.True(t, ok, "the dashboard URL carries the token: %s", urls["dashboard"])
		require.Len(t, token, 32)
		body := `{"event_id":"e","status":"SIGNED","signature_id":"s"}`
		assert.Equal(t, 200, status("POST", urls["receiver"]+"/hooks/merchant_demo", "", body), "hooks stay open")
		assert.Equal(t, 401, status("GET", urls["receiver"]+"/api/events", "", ""))
		assert.Equal(t, 200, status("GET", urls["receiver"]+"/api/events", token, ""))
		want := map[bool]int{false: 403, true: 200}[allow]
		assert.Equal(t, want, status("POST", urls["receiver"]+"/api/events/1/replay", token, `{"url":"`+ep.URL+`/webhook"}`), "allowed: %v", allow)
	}
	assert.Equal(t, int64(1), hits.Load(), "only the opted-in replay reached the endpoint")
}
