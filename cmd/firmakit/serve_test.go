package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServeFaultList(t *testing.T) {
	code, out, errOut := run(t, nil, "serve", "--fault", "list")
	require.Equal(t, ExitOK, code, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	fs := faults.List()
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
			"--fault", "auth-tolerance-600s,auth-error-text-plain", "--fault", "auth-error-text-plain"})
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
	assert.Contains(t, logged, "auth-error-text-plain")
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
		body["content_type"] = resp.Header.Get("Content-Type")
		return resp.StatusCode, body
	}
	// 400 s old: refused by a correct server, inside the faulty 600 s.
	status, body := post("test_key_demo", 400*time.Second)
	assert.Equal(t, 200, status, body)
	status, body = post("test_key_nope", 0)
	assert.Equal(t, 401, status)
	assert.Equal(t, map[string]any{"status_code": 401.0, "message": "Invalid credentials", "content_type": "text/plain; charset=UTF-8"}, body,
		"the second fault: an error body sent as text/plain")
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

// shopsConfig is a merchants file of two merchants, neither the demo one.
const shopsConfig = `merchants:
  - id: shop_a
    sender: {name: A, email: a@shop.test}
    credentials: [{key: key_a, secret: secret_a}]
    templates: [{name: t, signers: [signer_1]}]
  - id: shop_b
    sender: {name: B, email: b@shop.test}
    credentials: [{key: key_b, secret: secret_b}]
    templates: [{name: t, signers: [signer_1]}]
`

// TestServeWebhookURLWithoutTheDemoMerchant: a merchants file without
// merchant_demo used to make any --webhook-url fail.
func TestServeWebhookURLWithoutTheDemoMerchant(t *testing.T) {
	file := filepath.Join(t.TempDir(), "merchants.yaml")
	require.NoError(t, os.WriteFile(file, []byte(shopsConfig), 0o600))
	const hook = "http://127.0.0.1:9/hooks/shop_b"
	url, out := serveInProcess(t, nil, "--addr", "127.0.0.1:0", "--merchants", file, "--webhook-url", "shop_b="+hook, "--log-level", "error")
	assert.Contains(t, out.String(), "merchant shop_a, key key_a\ntry: firmakit sign --url "+url+"/v1/check/shop_a --key key_a --secret <its secret> --curl | sh")
	assert.NotContains(t, out.String(), "secret_a", "no secret is printed")

	body, _ := json.Marshal(firmakit.NewCreateRequest(firmakit.Template{Name: "t", Signers: []string{"signer_1"}}, nil, "DEMO_SIGNED x"))
	req, err := http.NewRequest(http.MethodPost, url+"/v1/signature/shop_b", strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header = firmakit.BundledProfile().SignedHeaders("key_b", "secret_b", "POST", "/v1/signature/shop_b", body, time.Now())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 201, resp.StatusCode)
	// The 201 is flushed before the notification is scheduled (its delay
	// runs from the 201 on the wire), so the record may come a moment
	// after the answer on a busy machine.
	var listed struct{ Deliveries []reference.Delivery }
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err = http.Get(url + "/_sandbox/deliveries")
		require.NoError(t, err)
		listed.Deliveries = nil
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&listed))
		resp.Body.Close()
		if len(listed.Deliveries) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.Len(t, listed.Deliveries, 1)
	assert.Equal(t, hook, listed.Deliveries[0].URL, "shop_b's notification goes to the URL given for it")

	code, _, errOut := run(t, nil, "serve", "--addr", "127.0.0.1:0", "--merchants", file, "--webhook-url", hook)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "names no merchant")
}

// TestServeBeyondLoopbackPrintsTheSandboxToken: 'serve --addr 0.0.0.0:0'
// (reached here through loopback only) makes a token for /_sandbox/*,
// prints it, and the API needs none.
func TestServeBeyondLoopbackPrintsTheSandboxToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan map[string]string, 1)
	var out syncBuffer
	m := &Main{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" },
		Ready: func(u map[string]string) { ready <- u }}
	done := make(chan int)
	go func() { done <- m.Run(ctx, []string{"serve", "--addr", "0.0.0.0:0"}) }()
	defer func() { cancel(); <-done }()
	var urls map[string]string
	select {
	case urls = <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	base := "http://127.0.0.1:" + urls["reference"][strings.LastIndex(urls["reference"], ":")+1:]
	_, rest, ok := strings.Cut(out.String(), "sandbox token: ")
	require.True(t, ok, out.String())
	token := rest[:32]
	resp, err := http.Get(base + "/_sandbox/requests")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode)
	resp, err = http.Get(base + "/_sandbox/requests?token=" + token)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	resp, err = http.Post(base+"/v1/signature/merchant_demo", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode, "the API answers without the token (here: unsigned)")
}
