package peer_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/firmakit/firmakit/internal/peer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTransportBoundsAnswerHeaders: an answer with headers past the bound
// is an error, one within it is read, over HTTP/1.1 and HTTP/2.
func TestTransportBoundsAnswerHeaders(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		for _, tc := range []struct {
			bytes int
			ok    bool
		}{{32 << 10, true}, {peer.MaxHeaderBytes + 8<<10, false}, {1 << 20, false}} {
			srv := httptest.NewUnstartedServer(peer.HeaderBomb(tc.bytes))
			if h2 {
				srv.EnableHTTP2 = true
				srv.StartTLS()
			} else {
				srv.Start()
			}
			tr := peer.Transport()
			if h2 {
				tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
			}
			resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
			if tc.ok {
				require.NoError(t, err, "h2 %v, %d bytes", h2, tc.bytes)
				assert.Equal(t, h2, resp.ProtoMajor == 2)
				resp.Body.Close()
			} else {
				require.Error(t, err, "h2 %v, %d bytes", h2, tc.bytes)
			}
			srv.Close()
		}
	}
}
