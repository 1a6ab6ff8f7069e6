package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/docxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run runs firmakit in-process and returns its exit code and output.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}
	code := m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestHelpAndUsage(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "serve")
	code, _, errOut := run(t, nil, "nope")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `unknown command "nope"`)
	code, _, errOut = run(t, nil, "sign", "--bogus")
	assert.Equal(t, ExitUsage, code)
	assert.Equal(t, "firmakit sign: unknown flag --bogus; 'firmakit help sign' lists the flags\n", errOut)
	code, out, errOut = run(t, nil, "help", "serve")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "-webhook-url", "help asked for goes to standard output")
	assert.Empty(t, errOut)
	code, out, _ = run(t, nil, "version")
	assert.Equal(t, ExitOK, code)
	assert.True(t, strings.HasPrefix(out, "firmakit "))
}

func TestSignPrintsTheTestVector(t *testing.T) {
	code, out, errOut := run(t, nil, "sign", "--url", "http://127.0.0.1:8080/v1/check/merchant_demo", "--timestamp", "1763805600")
	require.Equal(t, ExitOK, code, errOut)
	assert.Equal(t, "X-Service-Key: test_key_demo\nX-Service-Signature: 93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b\nX-Service-Timestamp: 1763805600\n", out)
	assert.Contains(t, errOut, `"1763805600\nPOST\n/v1/check/merchant_demo\n{}"`)
	assert.NotContains(t, out+errOut, "test_secret_demo", "the secret is never printed")
}

func TestSignErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sign"}, "--url is required"},
		{[]string{"sign", "--url", "ftp://x/y"}, "is not an http(s) URL"},
		{[]string{"sign", "--url", "http://x/y", "--body-file", "/nonexistent"}, "no such file"},
		{[]string{"sign", "--url", "http://x/y", "--profile", "/nonexistent"}, "no such file"},
		{[]string{"sign", "--url", "http://x/y", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, errOut := run(t, nil, tc.args...)
		assert.Equal(t, ExitUsage, code, tc.args)
		assert.Contains(t, errOut, tc.want)
	}
}

func TestTemplateInspect(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "contrato_arriendo.docx")
	require.NoError(t, os.WriteFile(good, docxtest.Lease(), 0o600))
	code, out, errOut := run(t, nil, "template", "inspect", good)
	require.Equal(t, ExitOK, code, errOut)
	assert.Equal(t, "name:    contrato_arriendo\ntitle:   Contrato de arriendo\nsigners: signer_1, signer_2\ndata:    nombre_arrendatario, monto_mensual\n", out)
	code, out, _ = run(t, nil, "template", "inspect", "--json", good)
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, `"signers": [`)

	bad := filepath.Join(dir, "bad.docx")
	require.NoError(t, os.WriteFile(bad, []byte("not a zip"), 0o600))
	code, _, errOut = run(t, nil, "template", "inspect", bad)
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, errOut, "not a Word .docx file")
	code, _, _ = run(t, nil, "template", "inspect")
	assert.Equal(t, ExitUsage, code)
}

func TestProfileCommand(t *testing.T) {
	code, out, _ := run(t, nil, "profile")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "key_header: X-Service-Key")
	f := filepath.Join(t.TempDir(), "p.yaml")
	require.NoError(t, os.WriteFile(f, []byte("request: {hash: md5}"), 0o600))
	code, _, errOut := run(t, nil, "profile", "--check", f)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `unknown hash "md5"`)
}

// serveInProcess runs 'firmakit serve' until the test ends and returns its URL.
func serveInProcess(t *testing.T, env map[string]string, args ...string) (string, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	var out syncBuffer
	m := &Main{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] },
		Ready: func(u map[string]string) { ready <- u["reference"] }}
	done := make(chan int)
	go func() { done <- m.Run(ctx, append([]string{"serve"}, args...)) }()
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
	return url, &out.buf
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeAndSignedCurl(t *testing.T) {
	url, _ := serveInProcess(t, nil, "--addr", "127.0.0.1:0")
	curl, err := exec.LookPath("curl")
	require.NoError(t, err, "curl is needed to run the printed line")
	bodyFile := filepath.Join(t.TempDir(), "body.json")
	// Bytes a shell argument or a re-encoder would change: a newline, a
	// non-ASCII character, spaces.
	require.NoError(t, os.WriteFile(bodyFile, []byte("{\n  \"ñandú\" : 1 }\n"), 0o600))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"a body with a quote", []string{"--url", url + "/v1/check/merchant_demo", "--body", `{"ping":"pong's"}`}},
		// Without --globoff curl would read [a] and {x,y} as patterns.
		{"a query curl would glob", []string{"--url", url + "/v1/check/merchant_demo?filter[a]={x,y}&q=%C3%B1"}},
		{"a body file sent as its bytes", []string{"--url", url + "/v1/check/merchant_demo", "--body-file", bodyFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, line, errOut := run(t, nil, append([]string{"sign", "--curl"}, tc.args...)...)
			require.Equal(t, ExitOK, code, errOut)
			assert.Contains(t, line, "--globoff --path-as-is")
			out, err := exec.Command("sh", "-c", line).CombinedOutput()
			require.NoError(t, err, string(out))
			assert.Equal(t, `{"status_code":200,"message":"Authenticated"}`+"\n", string(out), curl+": "+line)
		})
	}
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "firmakit.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("addr: 127.0.0.1:1\nlog-level: debug\n"), 0o600))
	// The environment wins over the file: the server listens on a free port.
	url, _ := serveInProcess(t, map[string]string{"FIRMAKIT_ADDR": "127.0.0.1:0", "FIRMAKIT_CONFIG": cfg})
	resp, err := http.Get(url + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	require.NoError(t, os.WriteFile(cfg, []byte("adr: x\n"), 0o600))
	code, _, errOut := run(t, nil, "serve", "--config", cfg)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `unknown key "adr"`)
	code, _, errOut = run(t, map[string]string{"FIRMAKIT_DEMO_DELAY": "soon"}, "serve")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "FIRMAKIT_DEMO_DELAY")
	code, _, errOut = run(t, nil, "serve", "--webhook-url", "nope")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "not an http(s) URL")
}

// startInProcess runs a long-running command until the test ends and
// returns the URLs it reported.
func startInProcess(t *testing.T, env map[string]string, args ...string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan map[string]string, 1)
	var out syncBuffer
	m := &Main{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] },
		Ready: func(u map[string]string) { ready <- u }}
	done := make(chan int)
	go func() { done <- m.Run(ctx, args) }()
	var urls map[string]string
	select {
	case urls = <-ready:
	case code := <-done:
		t.Fatalf("%v exited %d: %s", args, code, out.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("%v did not start", args)
	}
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, ExitOK, <-done, out.String())
	})
	return urls
}

func TestReceiveCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	urls := startInProcess(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", db, "--secret", "shop=whsec_a", "--strict")
	body := `{"event_id":"e","status":"SIGNED","signature_id":"s"}`
	resp, err := http.Post(urls["receiver"]+"/hooks/shop", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode, "--strict refuses the unsigned notification")
	resp, err = http.Get(urls["receiver"] + "/api/events/1")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "and records it")

	code, _, errOut := run(t, nil, "receive", "--secret", "nochannel")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `--secret "no…": want channel=secret`)
	assert.NotContains(t, errOut, "nochannel", "a value that may be a secret is not echoed")
}

// TestLogsNeverPrintSecrets runs the reference and the receiver at debug
// level through signed requests and a delivered demo notification, and
// looks for every secret in what they logged and printed.
func TestLogsNeverPrintSecrets(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan map[string]string, 1)
	var out syncBuffer
	m := &Main{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Ready: func(u map[string]string) { ready <- u }}
	done := make(chan int)
	go func() {
		done <- m.Run(ctx, []string{"up", "--addr", "127.0.0.1:0", "--listen", "127.0.0.1:0", "--log-level", "debug", "--demo-delay", "10ms"})
	}()
	urls := <-ready
	code, _, errOut := run(t, nil, "demo", "SIGNED", "--target", urls["reference"])
	require.Equal(t, ExitOK, code, errOut)
	code, _, errOut = run(t, nil, "demo", "SIGNED", "--target", urls["reference"], "--secret", "not_the_secret")
	require.Equal(t, ExitFailed, code, "the service answered, with a refusal")
	assert.Contains(t, errOut, `the service answered 401: {"status_code":401,"message":"Invalid signature"}`)
	code, _, _ = run(t, nil, "demo", "SIGNED", "--target", "http://127.0.0.1:9")
	assert.Equal(t, ExitUnreachable, code)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "notification delivered") }, 5*time.Second, 20*time.Millisecond)
	cancel()
	<-done
	logged := out.String()
	for _, secret := range []string{"test_secret_demo", "test_secret_disabled", "test_secret_other", "whsec_test_demo", "whsec_test_other", "not_the_secret"} {
		assert.NotContains(t, logged, secret)
	}
}
