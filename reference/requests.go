package reference

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// DefaultMaxRequests is how many received requests a server keeps in its
// log (Server.MaxRequests).
const DefaultMaxRequests = 1000

// Bounds of the fields of a logged request, so that the log's memory
// stays bounded whatever clients send (the diagnostic bounds its own).
const (
	maxLoggedTarget  = 2048
	maxLoggedField   = 200
	maxLoggedMessage = 1024
	// capturedAnswer is how much of an answer is kept to read its message.
	capturedAnswer = 16 << 10
)

// RequestLog keeps the last requests a server received on its API routes,
// in a ring: past its size the oldest is dropped. Ids increase by one per
// request and are never reused. A refusal's diagnostic is kept as
// firmakit.Diagnostic.Logged writes it: no signature, no body. It is safe for concurrent use; the
// entries it returns are copies, their Diagnostic shared and never changed.
type RequestLog struct {
	mu      sync.Mutex
	ring    []firmakit.ReceivedRequest
	next    int    // where the next entry goes
	n       int    // entries held
	last    uint64 // id of the newest entry
	changed chan struct{}
}

// NewRequestLog returns a log that keeps the last size requests (at
// least one).
func NewRequestLog(size int) *RequestLog {
	return &RequestLog{ring: make([]firmakit.ReceivedRequest, max(size, 1)), changed: make(chan struct{})}
}

// Add gives e the next id, keeps it and wakes every Changed channel.
func (l *RequestLog) Add(e firmakit.ReceivedRequest) firmakit.ReceivedRequest {
	l.mu.Lock()
	l.last++
	e.ID = l.last
	l.ring[l.next] = e
	l.next = (l.next + 1) % len(l.ring)
	l.n = min(l.n+1, len(l.ring))
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
	return e
}

// Changed returns a channel closed at the next Add: read what is new with
// Since, then wait on a fresh Changed. Taking the channel before reading
// misses nothing. Nothing needs releasing.
func (l *RequestLog) Changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

// at returns the i-th entry held, oldest first; l.mu is held.
func (l *RequestLog) at(i int) firmakit.ReceivedRequest {
	return l.ring[(l.next-l.n+i+len(l.ring))%len(l.ring)]
}

// Since returns up to limit entries with an id above after, oldest first
// (none for a limit under 1).
// When the entries right after it were dropped already, it starts at the
// oldest held: the caller sees the gap in the ids.
func (l *RequestLog) Since(after uint64, limit int) []firmakit.ReceivedRequest {
	if limit <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	oldest := l.last - uint64(l.n) + 1
	skip := 0
	if after >= oldest {
		if after >= l.last {
			return nil
		}
		skip = int(after - oldest + 1)
	}
	out := make([]firmakit.ReceivedRequest, 0, min(limit, l.n-skip))
	for i := skip; i < l.n && len(out) < limit; i++ {
		out = append(out, l.at(i))
	}
	return out
}

// Newest returns up to limit of the newest entries, newest first (none
// for a limit under 1).
func (l *RequestLog) Newest(limit int) []firmakit.ReceivedRequest {
	if limit <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]firmakit.ReceivedRequest, 0, min(limit, l.n))
	for i := l.n - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, l.at(i))
	}
	return out
}

// Len returns how many entries the log holds.
func (l *RequestLog) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Last returns the id of the newest entry, 0 before the first.
func (l *RequestLog) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// Requests returns the server's log of received requests, to read or to
// follow (RequestLog.Changed). It may be called before Open, once
// MaxRequests is set.
func (s *Server) Requests() *RequestLog {
	s.requestsOnce.Do(func() {
		if s.MaxRequests <= 0 {
			s.MaxRequests = DefaultMaxRequests
		}
		s.requests = NewRequestLog(s.MaxRequests)
	})
	return s.requests
}

func (s *Server) handleRequests(c echo.Context) error {
	q, err := firmakit.ParseRequestsQuery(c.QueryParam("after"), c.QueryParam("limit"))
	if err != nil {
		return bad(err.Error())
	}
	return c.JSON(http.StatusOK, q.Page(s.Requests()))
}

// apiMerchant tells whether a decoded path is one of the API's routes
// (/{api_version}/check/{merchant_id}, /v1/signature/{merchant_id}, with
// anything after) and returns its merchant segment.
func apiMerchant(path string) (string, bool) {
	seg := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 4)
	if len(seg) < 3 || !(seg[1] == "check" || seg[0] == "v1" && seg[1] == "signature") {
		return "", false
	}
	return seg[2], true
}

// markAuth notes on the context that authentication ran, so that the
// log can tell a refusal from a request answered before it.
func markAuth(auth echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		h := auth(next)
		return func(c echo.Context) error {
			c.Set(string(authRanKey), true)
			return h(c)
		}
	}
}

// recordRequests logs every request to the API's routes once it is
// answered, whatever the answer.
func (s *Server) recordRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		merchant, ok := apiMerchant(r.URL.Path)
		if !ok {
			return next(c)
		}
		received := s.Clock.Now()
		w := &answerCapture{ResponseWriter: c.Response().Writer}
		c.Response().Writer = w
		if err := next(c); err != nil {
			c.Error(err)
		}
		e := firmakit.ReceivedRequest{
			ReceivedAt:    received.UTC().Format(firmakit.ReceivedAtFormat),
			Method:        firmakit.ClipBytes(r.Method, maxLoggedField),
			RequestTarget: firmakit.ClipBytes(firmakit.RequestTarget(r), maxLoggedTarget),
			RemoteAddr:    r.RemoteAddr,
			MerchantID:    firmakit.ClipBytes(merchant, maxLoggedField),
			KeyID:         firmakit.ClipBytes(r.Header.Get(s.Profile.Request.KeyHeader), maxLoggedField),
			Status:        c.Response().Status,
			Auth:          firmakit.AuthNotChecked,
			Message:       firmakit.ClipBytes(answerMessage(w.buf.Bytes()), maxLoggedMessage),
			BodyBytes:     r.ContentLength,
		}
		if b, ok := c.Get(string(bodyKey)).([]byte); ok {
			e.BodyBytes = int64(len(b))
		}
		if ran, _ := c.Get(string(authRanKey)).(bool); ran {
			e.Auth = firmakit.AuthRefused
			if _, ok := c.Get(string(credentialKey)).(firmakit.Credential); ok {
				e.Auth = firmakit.AuthAccepted
			}
		}
		if d, ok := c.Get(string(diagnosticKey)).(*firmakit.Diagnostic); ok {
			// Anyone may read the log: it keeps the copy that cannot be
			// replayed and holds no body.
			e.Diagnostic = d.Logged()
			if d.BodyBytes != nil {
				e.BodyBytes = int64(*d.BodyBytes)
			}
		}
		s.Requests().Add(e)
		return nil
	}
}

// answerCapture keeps the start of an answer, to read its message.
type answerCapture struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (w *answerCapture) Write(b []byte) (int, error) {
	if room := capturedAnswer - w.buf.Len(); room > 0 {
		w.buf.Write(b[:min(len(b), room)])
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (Flush).
func (w *answerCapture) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// answerMessage reads the top-level "message" of a JSON answer, even one
// cut short after it; "" when there is none.
func answerMessage(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		if k == "message" {
			var msg string
			if dec.Decode(&msg) != nil {
				return ""
			}
			return msg
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}
