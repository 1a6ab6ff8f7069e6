package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

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
