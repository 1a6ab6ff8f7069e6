package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// TestMaxDurationEndsTheRunInconclusive: a target that answers 429 with
// Retry-After: 30 to everything would keep certify waiting, scenario
// after scenario, for hours; an endpoint that never answers would keep
// certify-webhook waiting each delivery out. With --max-duration the run
// ends when it runs out, inconclusive (exit 5), saying how many scenarios
// were not judged, none failed nor passed.
func TestMaxDurationEndsTheRunInconclusive(t *testing.T) {
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer limited.Close()
	// The pre-flight too waits within the bound, and the suite then
	// starts nothing.
	for _, extra := range [][]string{{"--skip-preflight"}, nil} {
		args := append([]string{"certify", "--target", limited.URL, "--key", "k", "--secret", "s", "--webhook-secret", "w",
			"--listen", freeAddr(t), "--lang", "en", "--tags", "@AUTH-OK,@AUTH-MISSING-ALL", "--max-duration", "2s"}, extra...)
		code, out, errOut := run(t, nil, args...)
		assert.Equal(t, ExitInconclusive, code, out+errOut)
		assert.Contains(t, out, "max duration: the run reached --max-duration 2s before it ended: ")
		assert.Contains(t, out, "verdict: inconclusive")
		assert.Contains(t, out, " 0 passed, 0 failed, 0 not run")
	}

	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			return // the reachability check
		}
		io.Copy(io.Discard, r.Body) // so that the server sees the client leave
		<-r.Context().Done()
	}))
	defer silent.Close()
	code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", silent.URL, "--webhook-secret", "w", "--signature-id", "sig-1",
		"--lang", "en", "--tags", "@WH-STATE", "--max-duration", "2s")
	assert.Equal(t, ExitInconclusive, code, out+errOut)
	assert.Contains(t, out, "max duration: the run reached --max-duration 2s before it ended: 5 scenario(s) not judged")
	assert.Contains(t, out, "5 scenarios: 0 passed, 0 failed, 0 not run, 5 inconclusive")

	for _, cmd := range []string{"certify", "certify-webhook"} {
		code, _, errOut := run(t, nil, cmd, "--endpoint", silent.URL, "--webhook-secret", "w", "--max-duration", "-1s")
		assert.Equal(t, ExitUsage, code)
		if cmd == "certify-webhook" {
			assert.Contains(t, errOut, "--max-duration must be 0 (no bound) or more")
		}
	}
}

// TestMaxDurationBoundsTheWholeWebhookRun: --max-duration is a deadline
// for all that certify-webhook sends and waits for, the reachability
// check and the probe before the scenarios included. Against an endpoint
// that never answers a notification (the probe of a made-up contract
// waits on it), or nothing at all, the run ends inconclusive well before
// the 10 s delivery timeout runs out; the precise figure is in
// docs/figures.md.
func TestMaxDurationBoundsTheWholeWebhookRun(t *testing.T) {
	for _, answersGET := range []bool{true, false} {
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && answersGET {
				return
			}
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}))
		start := time.Now()
		code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", silent.URL, "--webhook-secret", "w",
			"--lang", "en", "--tags", "@WH-STATE", "--max-duration", "2s")
		took := time.Since(start)
		silent.Close()
		assert.Equal(t, ExitInconclusive, code, out+errOut)
		assert.Contains(t, out, "max duration: the run reached --max-duration 2s before it ended: 5 scenario(s) not judged")
		assert.Less(t, took, 8*time.Second, "answers GET: %v", answersGET)
	}
}

// TestMaxDurationKeepsAFailure: a scenario that failed before the
// deadline still fails the run, however many others the deadline cut
// short. The endpoint accepts a forged notification at once (a failure)
// and never answers a valid one.
func TestMaxDurationKeepsAFailure(t *testing.T) {
	p := firmakit.BundledProfile()
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			return
		}
		body, _ := io.ReadAll(r.Body)
		if p.VerifyWebhookHeaders(r.Header, bytes.Clone(body), []string{"w"}, time.Now()) != nil {
			return // 200 to a forgery
		}
		<-r.Context().Done()
	}))
	defer endpoint.Close()
	start := time.Now()
	code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", endpoint.URL, "--webhook-secret", "w", "--signature-id", "sig-1",
		"--lang", "en", "--tags", "@WH-STATE,@WH-WRONG-SECRET", "--concurrency", "16", "--max-duration", "3s")
	assert.Equal(t, ExitFailed, code, out+errOut)
	assert.Contains(t, out, "verdict: failed")
	assert.Regexp(t, `scenarios: 0 passed, [1-9]\d* failed, 0 not run, [1-9]\d* inconclusive`, out)
	assert.Less(t, time.Since(start), 8*time.Second)
}
