package receiver_test

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// got is one request an endpoint received.
type got struct {
	method, path, contentType, signature, userAgent string
	other                                           http.Header
	body                                            []byte
}

// endpoint is a merchant's endpoint on a real port that records what it
// gets and answers as answer says.
type endpoint struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []got
}

func newEndpoint(t *testing.T, answer http.HandlerFunc) *endpoint {
	t.Helper()
	e := &endpoint{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.reqs = append(e.reqs, got{r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("X-Service-Signature"),
			r.Header.Get("User-Agent"), r.Header.Clone(), b})
		e.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *endpoint) got() []got {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]got(nil), e.reqs...)
}

// postRaw sends body with the given headers to a channel and returns the
// status and the answer.
func postRaw(t *testing.T, rv *receiver.Receiver, channel string, body []byte, h map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/"+channel, bytes.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func lastRecord(t *testing.T, rv *receiver.Receiver) *receiver.Record {
	t.Helper()
	recs, err := rv.List(context.Background(), receiver.Filter{Newest: true, Limit: 1})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	return recs[0]
}

// TestForwardPassesTheNotificationOnUnchanged: the endpoint gets the raw
// body, the signature header and the Content-Type exactly as sent, at the
// configured URL; its status and answer go back to the sender and onto
// the record, which the JSON API shows.
func TestForwardPassesTheNotificationOnUnchanged(t *testing.T) {
	ep := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"stored":true}`))
	})
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.ForwardTo = ep.URL + "/webhooks/firma?v=2" })
	// Written as no encoder would, and signed over exactly these bytes.
	body := []byte("{\"status\": \"SIGNED\",\n  \"event_id\": \"ev-1\", \"signature_id\": \"sig-1\", \"title\": \"Ñuñoa \\u00f1 \\/x\"}")
	sig := profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body)
	status, answer := postRaw(t, rv, "merchant_demo", body, map[string]string{"Content-Type": "application/json; charset=utf-8",
		"X-Service-Signature": sig, "X-Other": "not forwarded"})
	assert.Equal(t, http.StatusCreated, status, answer)
	assert.Contains(t, answer, `"forward":{"url":"`+ep.URL+`/webhooks/firma?v=2","status":201`)

	reqs := ep.got()
	require.Len(t, reqs, 1)
	g := reqs[0]
	assert.Equal(t, "POST", g.method)
	assert.Equal(t, "/webhooks/firma?v=2", g.path, "the configured URL, exactly")
	assert.Equal(t, body, g.body, "the raw bytes")
	assert.Equal(t, sig, g.signature)
	assert.Equal(t, "application/json; charset=utf-8", g.contentType)
	assert.Empty(t, g.other.Get("X-Other"), "only the notification's own headers")
	assert.Contains(t, g.userAgent, "firmakit-receive")

	rec := lastRecord(t, rv)
	assert.Equal(t, receiver.CheckValid, rec.Check, "verified as ever")
	assert.Equal(t, http.StatusCreated, rec.Status, "the answer to the sender is the endpoint's")
	require.NotNil(t, rec.Forward)
	assert.Equal(t, ep.URL+"/webhooks/firma?v=2", rec.Forward.URL)
	assert.Equal(t, http.StatusCreated, rec.Forward.Status)
	assert.Equal(t, `{"stored":true}`, rec.Forward.Body)
	assert.Greater(t, rec.Forward.LatencyMS, 0.0)
	assert.Empty(t, rec.Forward.Error)

	var fromAPI receiver.Record
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/"+strconv.FormatInt(rec.ID, 10), &fromAPI))
	assert.Equal(t, rec.Forward, fromAPI.Forward, "the JSON API shows the endpoint's answer beside the notification")
	var info map[string]any
	getJSON(t, rv.URL()+"/api/info", &info)
	assert.Equal(t, ep.URL+"/webhooks/firma?v=2", info["forward_to"])
}

// TestForwardAnswersWhatTheEndpointDid: whatever the endpoint does, the
// sender gets a status that makes the service retry as in production,
// the record says why, and the receiver goes on.
func TestForwardAnswersWhatTheEndpointDid(t *testing.T) {
	fast := firmakit.BundledProfile()
	fast.Webhook.Timeout = 300 * time.Millisecond
	var elsewhere atomic.Int32
	other := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) })
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/hook"
	down.Close()
	for _, tc := range []struct {
		name    string
		url     func(*testing.T) string
		status  int
		epCode  int
		errText string
	}{
		{"refuses", func(t *testing.T) string {
			return newEndpoint(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "bad signature", 401) }).URL
		}, 401, 401, ""},
		{"fails", func(t *testing.T) string {
			return newEndpoint(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "db down", 500) }).URL
		}, 500, 500, ""},
		{"answers 204", func(t *testing.T) string {
			return newEndpoint(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }).URL
		}, 204, 204, ""},
		{"is not running", func(t *testing.T) string { return downURL }, 502, 0, "the endpoint could not be reached"},
		{"is too slow", func(t *testing.T) string {
			return newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-time.After(3 * time.Second):
				case <-r.Context().Done():
				}
			}).URL
		}, 504, 0, "the endpoint did not answer within 300ms, the forward timeout"},
		{"answers 1 MiB of headers", func(t *testing.T) string {
			return newEndpoint(t, peer.HeaderBomb(1<<20).ServeHTTP).URL
		}, 502, 0, "response headers exceeded 65536 bytes"},
		{"redirects to another host", func(t *testing.T) string {
			return newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/elsewhere", http.StatusTemporaryRedirect)
			}).URL
		}, 502, 307, "a redirect to " + other.URL + "/elsewhere; not followed"},
		{"redirects on its own host", func(t *testing.T) string {
			return newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/other-path", http.StatusPermanentRedirect)
			}).URL
		}, 502, 308, "a redirect to /other-path; not followed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.ForwardTo, r.Profile = tc.url(t), fast })
			body := notification(firmakit.StateSigned, "ev-"+tc.name, "sig-1")
			start := time.Now()
			status, answer := postRaw(t, rv, "merchant_demo", body, map[string]string{"Content-Type": "application/json",
				"X-Service-Signature": fast.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body)})
			assert.Less(t, time.Since(start), 2*time.Second, "bounded by the delivery timeout")
			assert.Equal(t, tc.status, status, answer)
			rec := lastRecord(t, rv)
			assert.Equal(t, tc.status, rec.Status)
			require.NotNil(t, rec.Forward)
			assert.Equal(t, tc.epCode, rec.Forward.Status)
			if tc.errText == "" {
				assert.Empty(t, rec.Forward.Error)
			} else {
				assert.Contains(t, rec.Forward.Error, tc.errText)
				assert.Contains(t, answer, tc.errText, "the sender is told why")
			}
			// The receiver goes on: the next notification is taken.
			next := notification(firmakit.StateCreated, "ev-next-"+tc.name, "sig-2")
			n, _ := postRaw(t, rv, "merchant_demo", next, map[string]string{"Content-Type": "application/json",
				"X-Service-Signature": fast.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), next)})
			assert.Equal(t, tc.status, n)
		})
	}
	assert.Zero(t, elsewhere.Load(), "no redirect is followed to another host")
}

// TestForwardKeepsAProgrammedAnswer: a programmed answer still decides the
// status, and the notification is still forwarded and recorded.
func TestForwardKeepsAProgrammedAnswer(t *testing.T) {
	ep := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {})
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.ForwardTo = ep.URL })
	require.NoError(t, rv.FailNext(context.Background(), "merchant_demo", "", 503, 1))
	status, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-1", "sig-1"))
	assert.Equal(t, 503, status)
	status, _ = signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-1", "sig-1"))
	assert.Equal(t, 200, status)
	assert.Len(t, ep.got(), 2)
	rec := lastRecord(t, rv)
	require.NotNil(t, rec.Forward)
	assert.Equal(t, 200, rec.Forward.Status)
}

// TestForwardRetriesAsInProduction: the reference server's demo
// notification goes through the receiver to an endpoint that answers 503
// once; the 503 reaches the service, which delivers the same event again,
// and the endpoint's 200 ends it.
func TestForwardRetriesAsInProduction(t *testing.T) {
	var calls atomic.Int32
	ep := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
		}
	})
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.ForwardTo = ep.URL })
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), DemoDelay: 10 * time.Millisecond,
		RetrySchedule: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}}
	require.NoError(t, ref.Config.SetWebhook("merchant_demo", rv.HookURL("merchant_demo")))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	tm := reference.DemoConfig().Merchants[0].Templates[0].Template
	env, err := reference.CreateDemo(context.Background(), reference.DemoRequest{URL: ref.URL(), MerchantID: "merchant_demo",
		Key: "test_key_demo", Secret: "test_secret_demo", Template: tm,
		Data: map[string]string{"nombre_arrendatario": "Ana", "monto_mensual": "1"}, State: firmakit.StateSigned})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var recs []*receiver.Record
	for len(recs) < 2 && ctx.Err() == nil {
		recs, err = rv.List(ctx, receiver.Filter{SignatureID: env.SignatureID})
		require.NoError(t, err)
		time.Sleep(20 * time.Millisecond)
	}
	require.Len(t, recs, 2)
	assert.Equal(t, []int{503, 200}, []int{recs[0].Status, recs[1].Status})
	assert.Equal(t, recs[0].EventID, recs[1].EventID, "the same event, again")
	assert.True(t, recs[1].Duplicate)
	assert.Equal(t, 503, recs[0].Forward.Status)
	assert.Equal(t, "warming up\n", recs[0].Forward.Body)
	assert.Equal(t, int32(2), calls.Load())
	time.Sleep(200 * time.Millisecond)
	after, err := rv.List(context.Background(), receiver.Filter{SignatureID: env.SignatureID})
	require.NoError(t, err)
	assert.Len(t, after, 2, "nothing after the 200")
}

func TestForwardToIsChecked(t *testing.T) {
	for _, tc := range []struct {
		url    string
		strict bool
		want   string
	}{
		{"ftp://x/y", false, `forward URL "ftp://x/y" is not an http(s) URL`},
		{"localhost:3000/hook", false, "is not an http(s) URL"},
		{"http://127.0.0.1:3000/hook", true, "Strict and ForwardTo exclude each other"},
	} {
		rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", ForwardTo: tc.url, Strict: tc.strict}
		err := rv.Open()
		if err == nil {
			rv.Close()
		}
		assert.ErrorContains(t, err, tc.want)
	}
}

// TestSchemaVersion1IsMigrated: a database written before the forward
// column keeps its records and gains the column; what is forwarded next
// is kept across a restart.
func TestSchemaVersion1IsMigrated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v1.db")
	mustExec(t, file, `CREATE TABLE records (id INTEGER PRIMARY KEY, channel TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
		query TEXT NOT NULL, headers TEXT NOT NULL, body BLOB, size INTEGER NOT NULL, body_dropped INTEGER NOT NULL DEFAULT 0,
		received_at INTEGER NOT NULL, remote_addr TEXT NOT NULL, verdict TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
		event_id TEXT NOT NULL DEFAULT '', signature_id TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT '',
		created_at TEXT NOT NULL DEFAULT '', duplicate INTEGER NOT NULL DEFAULT 0, status INTEGER NOT NULL DEFAULT 0);
		CREATE TABLE contracts (signature_id TEXT PRIMARY KEY, created_at TEXT NOT NULL);
		CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
		INSERT INTO meta VALUES ('schema_version', 1), ('last_id', 1);
		INSERT INTO records (id, channel, method, path, query, headers, body, size, received_at, remote_addr, verdict, event_id, status)
		VALUES (1, 'merchant_demo', 'POST', '/hooks/merchant_demo', '', '{}', '{}', 2, 1763805600000000, '127.0.0.1:1', 'valid', 'ev-old', 200)`)

	ep := newEndpoint(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) })
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.DB, r.ForwardTo = file, ep.URL })
	old := lastRecord(t, rv)
	assert.Equal(t, "ev-old", old.EventID)
	assert.Equal(t, receiver.CheckValid, old.Check, "verdict renamed check, its values kept")
	assert.Nil(t, old.Forward)
	status, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-new", "sig-1"))
	assert.Equal(t, 202, status)
	require.NoError(t, rv.Close())

	db, err := sql.Open("sqlite", file)
	require.NoError(t, err)
	var version int
	require.NoError(t, db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&version))
	require.NoError(t, db.Close())
	assert.Equal(t, 4, version)

	rv2 := MustOpenReceiver(t, func(r *receiver.Receiver) { r.DB = file })
	rec := lastRecord(t, rv2)
	assert.Equal(t, "ev-new", rec.EventID)
	require.NotNil(t, rec.Forward, "kept across a restart")
	assert.Equal(t, 202, rec.Forward.Status)
	assert.Equal(t, int64(2), rec.ID)
}
