package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/firmakit/firmakit/steps/engine"
)

// The defaults of a request's retries and timeout (engine.Network's).
const (
	DefaultRetries        = engine.DefaultRetries
	DefaultRequestTimeout = engine.DefaultRequestTimeout
)

// transient is why an answer is not the target's own answer to the
// request under test, so that it says nothing about the rule the scenario
// checks.
type transient struct {
	reason string
	// status is the HTTP status of a transient answer (0: no answer).
	status int
	// unsure tells that the request may have reached the service before
	// the answer was lost (a gateway's 502 or 504, a connection broken
	// after sending, a timeout): a create request may have created a
	// contract.
	unsure bool
	// limited tells a rate-limit answer: a 429, or a 503 with
	// Retry-After.
	limited bool
	// wait is what Retry-After asked for.
	wait time.Duration
}

// transientAnswer tells whether an exchange with the target ended in
// something other than the service's answer: a rate limit (429, a 503
// with Retry-After), a gateway's 502, 503 or 504 whose body is not the
// API's JSON shape, or no answer at all (connection refused or reset, a
// timeout). It returns nil for an answer to judge, and for ctx's own end.
func transientAnswer(ctx context.Context, status int, h http.Header, body []byte, err error) *transient {
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return networkTransient(err)
	}
	switch {
	case status == http.StatusTooManyRequests:
		t := &transient{reason: "rate-limited (429)", status: status, limited: true}
		t.wait, _ = engine.RetryAfter(h, time.Now())
		return t
	case status == http.StatusServiceUnavailable && h.Get("Retry-After") != "":
		t := &transient{reason: "unavailable (503 with Retry-After)", status: status, limited: true}
		t.wait, _ = engine.RetryAfter(h, time.Now())
		return t
	case (status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout) && !apiErrorBody(status, body):
		return &transient{reason: fmt.Sprintf("gateway %d", status), status: status, unsure: status != http.StatusServiceUnavailable}
	}
	return nil
}

// networkTransient names a failed exchange: no answer came.
func networkTransient(err error) *transient {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &transient{reason: "connection refused"}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &transient{reason: "connection reset", unsure: true}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &transient{reason: "connection closed without an answer", unsure: true}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &transient{reason: "timeout", unsure: true}
	}
	return &transient{reason: "network error", unsure: true}
}

// apiErrorBody tells whether body is the API's error shape for status,
// {"status_code": status, "message": "…"}: then the service itself
// answered, and its answer is judged.
func apiErrorBody(status int, body []byte) bool {
	var v struct {
		StatusCode *json.Number `json:"status_code"`
		Message    *string      `json:"message"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.StatusCode == nil || v.Message == nil {
		return false
	}
	n, err := v.StatusCode.Int64()
	return err == nil && n == int64(status)
}

// backoff is the wait before sending again after attempt (0-based):
// what Retry-After asked for, capped, or an exponential delay with full
// jitter from 200 ms, capped at 5 s.
func backoff(attempt int, t *transient, maxWait time.Duration) time.Duration {
	if t.wait > 0 {
		return min(t.wait, maxWait)
	}
	d := 200 * time.Millisecond << min(attempt, 5)
	d = min(d, 5*time.Second)
	return d/2 + rand.N(d/2+1)
}

// exchange is one answer of the target, read whole (up to a bound).
type exchange struct {
	status   int
	header   http.Header
	body     []byte
	sentAt   time.Time
	answered time.Time
	attempts int
	// persistent says, when the same transient-looking 5xx came back to
	// every attempt, that it is judged as the target's answer.
	persistent string
}

// retryable is the outcome of a request that never got an answer to
// judge: the scenario is inconclusive with this reason.
type retryable struct {
	reason   string
	attempts int
	tries    []string
	// unreached tells that no attempt got any answer at all (a refused
	// connection, a timeout): the target could not be reached, as
	// opposed to a rate limit or a gateway's 5xx.
	unreached bool
}

func (r *retryable) Error() string {
	return fmt.Sprintf("%s: no answer of the target's own to judge in %d attempt(s) (%s)", r.reason, r.attempts, strings.Join(r.tries, ", "))
}

// do sends a request built afresh for every attempt by build (so that a
// signed request is signed again with a new timestamp), paced by the
// target's pacer, and sends it again while the answer is transient, up to
// the target's retries. unsure is called for each attempt that may have
// reached the service without its answer coming back. It returns the
// first answer to judge, or a *retryable when none came.
//
// The same 5xx every time (a 502 to each of five attempts) is the
// target's answer, and is judged: the profile says no client input may
// produce a 5xx, and a gateway that fails one request every time is
// reproducible. A rate limit or a broken connection every time is not,
// nor a 5xx to a request sent only once.
func (t *Target) do(ctx context.Context, build func(attempt int) (*http.Request, error), unsure func()) (*exchange, error) {
	retries := t.retries()
	var tries []string
	var last *transient
	same, unreached := true, true
	for attempt := 0; ; attempt++ {
		if err := t.Pacer.Acquire(ctx); err != nil {
			return nil, err
		}
		req, err := build(attempt)
		if err != nil {
			return nil, err
		}
		ex := &exchange{sentAt: time.Now(), attempts: attempt + 1}
		resp, err := t.client().Do(req)
		if err == nil {
			ex.status, ex.header = resp.StatusCode, resp.Header
			ex.body, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			t.Pacer.Observe(resp.StatusCode, resp.Header)
		}
		ex.answered = time.Now()
		tr := transientAnswer(ctx, ex.status, ex.header, ex.body, err)
		if tr == nil {
			if err != nil {
				return nil, err
			}
			return ex, nil
		}
		if tr.unsure && unsure != nil {
			unsure()
		}
		if last != nil && (last.status != tr.status || tr.status == 0) {
			same = false
		}
		unreached = unreached && tr.status == 0
		last = tr
		tries = append(tries, tr.reason)
		if attempt >= retries {
			t.Pacer.NoteTransient(tr.reason, false)
			// One attempt (Retries < 0) shows no "every time": a gateway's
			// 5xx seen once is no answer to judge.
			if same && attempt > 0 && tr.status >= 500 && !tr.limited && err == nil {
				ex.persistent = fmt.Sprintf("the same %d came back to each of %d attempts", tr.status, attempt+1)
				return ex, nil
			}
			return nil, &retryable{reason: tr.reason, attempts: attempt + 1, tries: tries, unreached: unreached}
		}
		t.Pacer.NoteTransient(tr.reason, true)
		if err := engine.SleepUntil(ctx, time.Now().Add(backoff(attempt, tr, t.Pacer.WaitBound()))); err != nil {
			return nil, err
		}
	}
}

func (t *Target) retries() int {
	if t.Retries < 0 {
		return 0
	}
	if t.Retries == 0 {
		return DefaultRetries
	}
	return t.Retries
}

// Exchange is an answer of the target to a request sent by Target.Do,
// or (LastExchange) to the last request of a scenario.
type Exchange struct {
	// Sent describes the request as sent (LastExchange only): method,
	// path, headers and body, never the secret.
	Sent   string
	Status int
	Header http.Header
	Body   []byte
	// RoundTrip is the time from sending to the answer's last byte, of
	// the attempt answered; Attempts how many were sent.
	RoundTrip time.Duration
	Attempts  int
}

// ErrTransient is returned, wrapped, by Target.Do when every attempt
// ended in a transient answer: nothing of the target's own came back.
var ErrTransient = errors.New("no answer of the target's own")

// Do sends a request to the target as the suite's steps do: built afresh
// by build for each attempt (sign it there), paced by the target's
// Pacer, and sent again while the answer is transient (a rate limit, a
// gateway's 502, a broken connection), up to the target's Retries. It
// returns an error wrapping ErrTransient when no answer to judge came.
func (t *Target) Do(ctx context.Context, build func(attempt int) (*http.Request, error)) (*Exchange, error) {
	ex, err := t.do(ctx, build, nil)
	var rt *retryable
	if errors.As(err, &rt) {
		return nil, fmt.Errorf("%w in %d attempt(s) (%s)", ErrTransient, rt.attempts, strings.Join(rt.tries, ", "))
	}
	if err != nil {
		return nil, err
	}
	return &Exchange{Status: ex.status, Header: ex.header, Body: ex.body, RoundTrip: ex.answered.Sub(ex.sentAt), Attempts: ex.attempts}, nil
}
