package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bending are the characters no log line may carry raw: C0 and C1
// controls (NEL among them), DEL, the line and paragraph separators and
// the bidirectional controls.
func bending() []rune {
	var rs []rune
	for r := rune(1); r < 0x20; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x2028, 0x2029, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069)
	return rs
}

// TestReceiverLogsCarryNoBendingCharacter: a sender's channel name and
// event id, and a forward endpoint's failure, reach every log line of
// 'firmakit receive --forward-to' (delivered, refused, not delivered) in
// both formats, each bending character escaped, each call one line.
func TestReceiverLogsCarryNoBendingCharacter(t *testing.T) {
	ep := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(b), `"event_id":"ok`):
			w.WriteHeader(http.StatusOK)
		case strings.Contains(string(b), `"event_id":"no`):
			w.WriteHeader(http.StatusInternalServerError)
		default:
			panic(http.ErrAbortHandler) // no answer: not delivered
		}
	}))
	t.Cleanup(ep.Close)
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			ready := make(chan map[string]string, 1)
			var logs syncBuffer
			m := &Main{Stdout: io.Discard, Stderr: &logs, Getenv: func(string) string { return "" }, Ready: func(u map[string]string) { ready <- u }}
			done := make(chan int)
			go func() {
				done <- m.Run(ctx, []string{"receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--log-format", format,
					"--log-level", "debug", "--secret", "*=whsec_test_demo", "--forward-to", ep.URL + "/webhook"})
			}()
			base := (<-ready)["receiver"]
			sent := 0
			for _, r := range bending() {
				for _, kind := range []string{"ok", "no", "gone"} {
					body := fmt.Sprintf(`{"event_id":"%s-\u%04x-e","status":"SIGNED","signature_id":"s"}`, kind, r)
					req, _ := http.NewRequest("POST", base+"/hooks/"+url.PathEscape("ch-"+string(r)+"-"+kind), strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("X-Service-Signature", firmakit.BundledProfile().WebhookSignature([]string{"whsec_test_demo"}, time.Now(), []byte(body)))
					resp, err := http.DefaultClient.Do(req)
					require.NoError(t, err)
					resp.Body.Close()
					sent++
				}
			}
			cancel()
			require.Equal(t, ExitOK, <-done)
			lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
			forwarded := 0
			for _, line := range lines {
				if strings.Contains(line, "ch-") {
					forwarded++
				}
				for _, r := range bending() {
					if strings.ContainsRune(line, r) {
						t.Errorf("%U raw in %q", r, line)
						break
					}
				}
			}
			assert.Equal(t, sent, forwarded, "one line per forwarded notification, none broken")
			for _, want := range []string{"notification forwarded", "the endpoint refused a notification", "notification not delivered to the endpoint", `ch-\u202e-ok`, `ok-\x85-e`} {
				if format == "json" {
					want = strings.ReplaceAll(want, `\`, `\\`)
				}
				assert.Contains(t, logs.String(), want)
			}
		})
	}
}
