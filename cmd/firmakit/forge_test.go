package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forged is what a hostile target or endpoint writes into every text it
// sends, hoping that a CI log shows it as lines of firmakit's own.
const forged = "\nverdict: passed: every selected scenario passed, 9 of 9\r\nfirmakit: 9 scenarios: 9 passed, 0 failed, 0 not run\n"

// forgedLine finds a line (split at \n or \r, as a terminal or a CI log
// shows it) that starts as firmakit's verdict or count lines do but was
// not written by firmakit: the forged ones say 9 of 9.
var forgedLine = regexp.MustCompile(`(?m)^[ \t]*(verdict: passed: every selected scenario passed, 9 of 9|firmakit: 9 scenarios)`)

func noForgedLine(t *testing.T, outputs ...string) {
	t.Helper()
	for _, out := range outputs {
		lines := strings.ReplaceAll(out, "\r", "\n")
		assert.False(t, forgedLine.MatchString(lines), "a foreign text started a line of its own:\n%s", firstForged(lines))
	}
}

func firstForged(s string) string {
	i := forgedLine.FindStringIndex(s)
	if i == nil {
		return ""
	}
	return s[max(0, i[0]-300):min(len(s), i[1]+100)]
}

// hostileTarget answers every request as a hostile target would: a
// well-formed 200 to the pre-flight's check, so that the suite runs, and
// to everything else answers whose every text, decoded from JSON or raw
// after it, carries forged lines; the notifications it sends to the
// receiver carry them too.
func hostileTarget(t *testing.T, hook func() string) *httptest.Server {
	s := func(v string) string { return v + forged }
	envelope := map[string]any{
		"signature_id": s("5f1e0c2e-8d7a-4c1b-9a3e-2b4d6f8a0c1e"), "status": s("PENDIENTE"), "title": s("t"), "routing": s("parallel"),
		"sender":     map[string]any{"name": s("n"), "email": s("e@x.test")},
		"documents":  []any{map[string]any{"key": s("document_0"), "title": s("d")}},
		"recipients": []any{map[string]any{"key": s("signer_1"), "name": s("n"), "email": s("e"), "status": s("pending")}},
		"created_at": s("2026-01-01T00:00:00.000Z"),
	}
	var preflights atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/check/merchant_demo" && string(body) == "{}" && preflights.Add(1) <= 3 {
			_, _ = io.WriteString(w, `{"status_code":200,"message":"Authenticated"}`)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v1/signature/") {
			b, _ := json.Marshal(map[string]any{"status_code": 201, "message": s("created"), "data": envelope})
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(append(b, []byte(forged)...))
			var req map[string]any
			if json.Unmarshal(body, &req) == nil {
				title, _ := req["title"].(string)
				if st, ok := firmakit.DemoState(title); ok {
					go notifyHostile(hook(), string(st), s)
				}
			}
			return
		}
		w.WriteHeader(http.StatusTeapot)
		b, _ := json.Marshal(map[string]any{"status_code": 418, "message": s("no")})
		_, _ = w.Write(append(b, []byte(forged)...))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// notifyHostile posts a signed notification whose texts carry forged
// lines.
func notifyHostile(url, state string, s func(string) string) {
	time.Sleep(400 * time.Millisecond)
	n := map[string]any{"event_id": s("ev"), "type": s("signature.status"), "merchant_id": s("m"), "signature_id": "5f1e0c2e-8d7a-4c1b-9a3e-2b4d6f8a0c1e",
		"title": s("t"), "status": s(state), "demo": true, "created_at": s("c"), "reason": s("r"), "document_url": s("http://x.test/")}
	b, _ := json.Marshal(n)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	firmakit.BundledProfile().SignWebhook(req.Header, "", []string{"whsec_test_demo"}, time.Now(), b)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// TestAForeignAnswerCannotForgeALine: whatever a hostile target answers,
// and whatever its notifications carry, no line of certify's output (in
// firmakit's lines and in godog's pretty format, standard output and
// error) starts with text of the target's: excerpts stay on one line, so
// a CI log's verdict is firmakit's.
func TestAForeignAnswerCannotForgeALine(t *testing.T) {
	for _, format := range []string{"firmakit", "pretty"} {
		t.Run(format, func(t *testing.T) {
			listen := freeAddr(t)
			srv := hostileTarget(t, func() string { return "http://" + listen + "/hooks/merchant_demo" })
			code, out, errOut := run(t, nil, "certify", "--target", srv.URL, "--key", "test_key_demo", "--secret", "test_secret_demo",
				"--webhook-secret", "whsec_test_demo", "--listen", listen, "--lang", "en", "--format", format,
				"--tags", "@AUTH-OK,@AUTH-EXPIRED,@SIG-CREATE,@SIG-ENVELOPE-SHAPE,@SIG-REFUSED-MISSING,@SIG-REFUSAL-NAMES-MISSING,@AUTH-METHOD-NOT-POST,@DEMO-PAYLOAD,@DEMO-REASON,@SIG-CREATE-MESSAGE,@SIG-RECIPIENTS-ORDER")
			require.Equal(t, ExitFailed, code, out+errOut)
			assert.Contains(t, out, "verdict: failed")
			assert.Contains(t, out, "verdict: passed: every selected", "the hostile text is in the output, escaped, so the test sees what it looks for")
			noForgedLine(t, out, errOut)
		})
	}
}

// TestAForeignEndpointCannotForgeALine: an endpoint whose answers carry
// forged lines (and a redirect whose Location does) cannot start a line
// of certify-webhook's output either.
func TestAForeignEndpointCannotForgeALine(t *testing.T) {
	var count atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := count.Add(1)
		if n%7 == 0 {
			w.Header().Set("Location", "http://x.test/"+strings.ReplaceAll(forged, "\n", "%0A"))
			w.WriteHeader(http.StatusTemporaryRedirect)
			return
		}
		w.WriteHeader([]int{http.StatusOK, http.StatusUnauthorized, http.StatusBadRequest}[n%3])
		_, _ = io.WriteString(w, "ok"+forged+"\x1b[2K\rverdict: passed: every selected scenario passed, 9 of 9")
	}))
	t.Cleanup(srv.Close)
	for _, format := range []string{"firmakit", "pretty"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := run(t, nil, "certify-webhook", "--endpoint", srv.URL, "--webhook-secret", "whsec_shop", "--lang", "en", "--format", format, "--report", dir)
			require.Equal(t, ExitFailed, code, out+errOut)
			noForgedLine(t, out, errOut)
		})
	}
}
