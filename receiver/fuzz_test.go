package receiver_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/receiver"
)

// FuzzHook writes raw HTTP requests with arbitrary bodies and signature
// header bytes (CR, LF and NUL included, which a Go client would refuse to
// send but a network can deliver): the receiver never answers 5xx.
func FuzzHook(f *testing.F) {
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", MaxBody: 64 << 10}
	if err := rv.Open(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { rv.Close() })
	addr := strings.TrimPrefix(rv.URL(), "http://")
	f.Add([]byte(`{"event_id":"e","status":"SIGNED","signature_id":"s"}`), "t=1,v1=00")
	f.Add([]byte(`{"event_id":5}`), "t=,v1=,v1=zz")
	f.Add([]byte("\x00\xff"), "a\r\nX-Injected: 1")
	f.Fuzz(func(t *testing.T, body []byte, sig string) {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "POST /hooks/merchant_demo HTTP/1.1\r\nHost: %s\r\nX-Service-Signature: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", addr, sig, len(body))
		conn.Write(body)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no HTTP answer to body %q, signature %q: %v", body, sig, err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("answered %d to body %q, signature %q", resp.StatusCode, body, sig)
		}
	})
}
