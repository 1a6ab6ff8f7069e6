package reftest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/require"
)

// The bundled profile's request headers.
const (
	KeyHeader = "X-Service-Key"
	TSHeader  = "X-Service-Timestamp"
	SigHeader = "X-Service-Signature"
)

// UUIDPattern matches a version 4 UUID in lower case.
var UUIDPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// Hit is a request the webhook endpoint got.
type Hit struct {
	At     time.Time
	Header http.Header
	Body   []byte
	Path   string
}

// Sink is a webhook endpoint that records what it gets and answers the
// statuses it is told, in order, then 200. Three statuses are actions
// instead: HangUp closes the connection without an answer, Reset resets
// it (a TCP RST), LateOK answers 200 after LateWait.
type Sink struct {
	mu       sync.Mutex
	hits     []Hit
	statuses []int
	got      chan struct{}
}

// Actions of a Sink, in place of a status.
const (
	HangUp   = -1
	LateOK   = -2
	Reset    = -3
	LateWait = 300 * time.Millisecond
)

// NewSink starts a webhook endpoint, stopped when the test ends, and
// returns it with its URL.
func NewSink(t testing.TB, statuses ...int) (*Sink, string) {
	sk := &Sink{statuses: statuses, got: make(chan struct{}, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sk.mu.Lock()
		sk.hits = append(sk.hits, Hit{time.Now(), r.Header.Clone(), b, r.URL.Path})
		st := 200
		if len(sk.statuses) > 0 {
			st, sk.statuses = sk.statuses[0], sk.statuses[1:]
		}
		sk.mu.Unlock()
		defer func() { sk.got <- struct{}{} }()
		switch st {
		case HangUp, Reset:
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				if tcp, ok := conn.(*net.TCPConn); ok && st == Reset {
					_ = tcp.SetLinger(0)
				}
				conn.Close()
			}
			return
		case LateOK:
			select {
			case <-time.After(LateWait):
			case <-r.Context().Done():
			}
			st = 200
		}
		w.WriteHeader(st)
	}))
	t.Cleanup(srv.Close)
	return sk, srv.URL + "/hook"
}

// Wait waits for n more requests, failing the test when they do not come
// within the wait, and returns every request got so far.
func (sk *Sink) Wait(t testing.TB, n int, within time.Duration) []Hit {
	t.Helper()
	deadline := time.After(within)
	for i := 0; i < n; i++ {
		select {
		case <-sk.got:
		case <-deadline:
			t.Fatalf("expected %d notifications within %s, got %d", n, within, i)
		}
	}
	return sk.Hits()
}

// Hits returns every request got so far.
func (sk *Sink) Hits() []Hit {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	return append([]Hit(nil), sk.hits...)
}

// Count is how many requests came.
func (sk *Sink) Count() int {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	return len(sk.hits)
}

// StoppedClock is a reference.Clock whose time is what the function
// says, and whose timers run on the real clock.
type StoppedClock func() time.Time

func (c StoppedClock) Now() time.Time { return c() }

func (StoppedClock) AfterFunc(d time.Duration, f func()) reference.Timer { return time.AfterFunc(d, f) }

// Exchange is one server of a deviation's case, with its webhook endpoint
// and its stopped clock.
type Exchange struct {
	Server *reference.Server
	Sink   *Sink
	Now    time.Time // the clock's time
	seen   int       // requests taken from Sink
}

// Open opens a server with the demo configuration, its webhook at a new
// Sink that answers statuses, its clock stopped at the present, short
// waits (10 ms demo delay, two retries 20 ms apart) and the deviations
// dev; change, when set, changes the server before it opens.
func Open(t *testing.T, dev *reference.Deviations, statuses []int, change func(*reference.Server)) *Exchange {
	t.Helper()
	sk, url := NewSink(t, statuses...)
	x := &Exchange{Sink: sk, Now: time.Now()}
	s := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: dev,
		Clock: StoppedClock(func() time.Time { return x.Now }),
		// Short waits, unless the case is about them.
		DemoDelay: 10 * time.Millisecond, RetrySchedule: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond}}
	require.NoError(t, s.Config.SetWebhook("merchant_demo", url))
	require.NoError(t, s.Config.SetWebhook("merchant_other", strings.TrimSuffix(url, "/hook")+OtherHookPath))
	if change != nil {
		change(s)
	}
	require.NoError(t, s.Open())
	t.Cleanup(func() { s.Close() })
	x.Server = s
	return x
}

// OtherHookPath is the path of the other merchant's webhook on the Sink.
const OtherHookPath = "/hook-other"

// Request is a request to the service, signed by the demo credential at
// the exchange's time unless a field says otherwise.
type Request struct {
	Path        string // default the check endpoint of merchant_demo
	Method      string // default POST; sent and signed
	Body        *string
	Key, Secret string
	TS          string
	Sign        func(rp *firmakit.RequestParts, p *firmakit.Profile) // change what is signed
	Header      func(h http.Header)                                  // change the headers once signed
	Chunked     bool                                                 // send the body chunked, with no length
}

// Answer is what the service answered.
type Answer struct {
	Status int
	Header http.Header
	Raw    []byte
	Obj    map[string]json.RawMessage // nil when the body is not a JSON object
}

// Line is "<status> <message>", the way the interface names an answer.
func (a Answer) Line() string {
	return strconv.Itoa(a.Status) + " " + Str(a.Obj["message"])
}

// Data is the answer's data object.
func (a Answer) Data() map[string]json.RawMessage {
	var d map[string]json.RawMessage
	_ = json.Unmarshal(a.Obj["data"], &d)
	return d
}

// Send sends o and returns the answer.
func (x *Exchange) Send(t *testing.T, o Request) Answer {
	t.Helper()
	if o.Path == "" {
		o.Path = "/v1/check/merchant_demo"
	}
	body := "{}"
	if o.Body != nil {
		body = *o.Body
	}
	if o.Key == "" {
		o.Key, o.Secret = "test_key_demo", "test_secret_demo"
	}
	if o.TS == "" {
		o.TS = strconv.FormatInt(x.Now.Unix(), 10)
	}
	if o.Method == "" {
		o.Method = http.MethodPost
	}
	p := firmakit.BundledProfile()
	rp := firmakit.RequestParts{Timestamp: o.TS, Method: o.Method, RequestTarget: o.Path, KeyID: o.Key, Body: []byte(body)}
	if o.Sign != nil {
		o.Sign(&rp, p)
	}
	req, err := http.NewRequest(o.Method, x.Server.URL()+o.Path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(KeyHeader, o.Key)
	req.Header.Set(TSHeader, o.TS)
	req.Header.Set(SigHeader, p.RequestSignature(o.Secret, rp))
	if o.Header != nil {
		o.Header(req.Header)
	}
	if o.Chunked {
		req.ContentLength = -1
		req.Body = io.NopCloser(strings.NewReader(body))
		req.GetBody = nil
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	a := Answer{Status: resp.StatusCode, Header: resp.Header}
	a.Raw, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = json.Unmarshal(a.Raw, &a.Obj)
	return a
}

// CreateRequest is the create-signature body of defaults.md C, its
// signers out of order.
func CreateRequest() map[string]any {
	return map[string]any{
		"title":     "Contrato 42",
		"documents": []any{"contrato_arriendo"},
		"signers": []any{
			map[string]any{"key": "signer_2", "name": "Luis Soto", "email": "luis@example.com"},
			map[string]any{"key": "signer_1", "name": "Ana Pérez", "email": "ana@example.com"},
		},
		"data": map[string]any{"nombre_arrendatario": "Ana Pérez", "monto_mensual": "450000"},
	}
}

// Create sends CreateRequest, changed by change when it is set.
func (x *Exchange) Create(t *testing.T, change func(req map[string]any)) Answer {
	t.Helper()
	req := CreateRequest()
	if change != nil {
		change(req)
	}
	b, err := json.Marshal(req)
	require.NoError(t, err)
	body := string(b)
	return x.Send(t, Request{Path: "/v1/signature/merchant_demo", Body: &body})
}

// CreateTitled creates a contract titled title; it must be created.
func (x *Exchange) CreateTitled(t *testing.T, title string) Answer {
	t.Helper()
	a := x.Create(t, func(r map[string]any) { r["title"] = title })
	require.Equal(t, http.StatusCreated, a.Status, string(a.Raw))
	return a
}

// Notifications waits until total notifications have arrived since the
// exchange opened, or within has passed, and returns those that did.
func (x *Exchange) Notifications(total int, within time.Duration) []Hit {
	deadline := time.After(within)
wait:
	for x.seen < total {
		select {
		case <-x.Sink.got:
			x.seen++
		case <-deadline:
			break wait
		}
	}
	return x.Sink.Hits()[:x.seen]
}

// Notified creates a contract titled title and returns its first
// notification, decoded too.
func (x *Exchange) Notified(t *testing.T, title string) (Answer, Hit, map[string]json.RawMessage) {
	t.Helper()
	a := x.CreateTitled(t, title)
	hs := x.Notifications(x.seen+1, 3*time.Second)
	require.NotEmpty(t, hs, "no notification for %q", title)
	h := hs[len(hs)-1]
	var n map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(h.Body, &n), string(h.Body))
	return a, h, n
}

// At is the exchange's time moved by d, as a timestamp header says it.
func (x *Exchange) At(d time.Duration) string { return strconv.FormatInt(x.Now.Add(d).Unix(), 10) }

// Str is a JSON string's value, "" for anything else.
func Str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// Keys are the keys of m, sorted.
func Keys[V any](m map[string]V) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Sorted sorts s and returns it.
func Sorted(s []string) []string { sort.Strings(s); return s }

// Verified tells whether a notification's signature verifies with secret.
func Verified(h Hit, secret string) bool {
	return firmakit.BundledProfile().VerifyWebhook(h.Header.Get(SigHeader), h.Body, []string{secret}, time.Now()) == nil
}

// DropHeader returns a change of the headers that removes name.
func DropHeader(name string) func(http.Header) { return func(h http.Header) { h.Del(name) } }

// NotificationKeys are the keys of a SIGNED notification of the bundled
// profile.
func NotificationKeys() []string {
	return []string{"created_at", "demo", "document_url", "event_id", "merchant_id", "signature_id", "status", "title", "type"}
}
