package reference_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/connlimit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTrickledBodiesDoNotKeepRequestsOut(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.MaxConns = 32 })
	addr := strings.TrimPrefix(s.URL(), "http://")
	// More connections than the cap, each with its header and one byte of
	// a 1,000-byte body, then nothing.
	for i := 0; i < 40; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /v1/check/merchant_demo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr)
	}
	// Once they have trickled for longer than connlimit.SlowAfter, room
	// is made in place of one of them.
	time.Sleep(connlimit.SlowAfter + 500*time.Millisecond)
	resp, err := (&http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Get(s.URL() + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
}
