package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeFaultList(t *testing.T) {
	code, out, errOut := run(t, nil, "serve", "--fault", "list")
	require.Equal(t, ExitOK, code, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	fs := reference.Faults()
	require.Len(t, lines, len(fs)+1, out)
	assert.Regexp(t, `^NAME +AREA +RULE +DESCRIPTION$`, lines[0])
	for i, f := range fs {
		assert.True(t, strings.HasPrefix(lines[i+1], f.Name+" "), lines[i+1])
		assert.Contains(t, lines[i+1], " "+f.Area+" ")
		assert.Contains(t, lines[i+1], f.Rule)
		assert.True(t, strings.HasSuffix(lines[i+1], f.Description), lines[i+1])
	}
	assert.Empty(t, errOut, "listing starts no server")
}

func TestServeWithFaults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	var out syncBuffer
	m := &Main{Stdout: &out, Stderr: &out, Getenv: func(k string) string {
		return map[string]string{"FIRMAKIT_FAULT": "envelope-http-200"}[k]
	}, Ready: func(u map[string]string) { ready <- u["reference"] }}
	done := make(chan int)
	go func() {
		done <- m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0",
			"--fault", "auth-tolerance-600s,auth-error-extra-key", "--fault", "auth-error-extra-key"})
	}()
	var url string
	select {
	case url = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, out.String())
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not start")
	}
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, ExitOK, <-done)
	})
	logged := out.String()
	assert.Contains(t, logged, "WARNING: this reference server is DELIBERATELY FAULTY")
	assert.Contains(t, logged, "auth-tolerance-600s (defaults.md A check 2)")
	assert.Contains(t, logged, "auth-error-extra-key")
	assert.NotContains(t, logged, "envelope-http-200", "the command line wins over the environment")

	post := func(key string, age time.Duration) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url+"/v1/check/merchant_demo", strings.NewReader("{}"))
		require.NoError(t, err)
		req.Header = firmakit.BundledProfile().SignedHeaders(key, "test_secret_demo", "POST", "/v1/check/merchant_demo", []byte("{}"), time.Now().Add(-age))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var body map[string]any
		require.NoError(t, json.Unmarshal(raw, &body), string(raw))
		return resp.StatusCode, body
	}
	// 400 s old: refused by a correct server, inside the faulty 600 s.
	status, body := post("test_key_demo", 400*time.Second)
	assert.Equal(t, 200, status, body)
	status, body = post("test_key_nope", 0)
	assert.Equal(t, 401, status)
	assert.Equal(t, map[string]any{"status_code": 401.0, "message": "Invalid credentials", "error": "Unauthorized"}, body)
}

func TestServeRefusesAnUnknownFault(t *testing.T) {
	// A server that starts anyway is stopped after a while, so that the
	// test fails instead of hanging.
	serve := func(env map[string]string, args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out syncBuffer
		m := &Main{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] }}
		return m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)), out.String()
	}
	code, out := serve(nil, "--fault", "auth-tolerance-600")
	assert.Equal(t, ExitUsage, code, out)
	assert.Contains(t, out, `unknown fault "auth-tolerance-600"; did you mean auth-tolerance-600s`)
	assert.Contains(t, out, "firmakit serve --fault list")

	code, out = serve(map[string]string{"FIRMAKIT_FAULT": "notification-late,notification-twise"})
	assert.Equal(t, ExitUsage, code, out)
	assert.Contains(t, out, `unknown fault "notification-twise"; did you mean notification-twice`)
}

func TestServeMaxDeliveries(t *testing.T) {
	urls := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--max-deliveries", "3", "--log-level", "warn")
	resp, err := http.Get(urls["reference"] + "/_sandbox/queue")
	require.NoError(t, err)
	defer resp.Body.Close()
	var q reference.DeliveryStats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&q))
	assert.Equal(t, 3, q.MaxDeliveries)

	code, _, errOut := run(t, nil, "serve", "--addr", "127.0.0.1:0", "--max-deliveries", "0")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--max-deliveries must be at least 1")
}
