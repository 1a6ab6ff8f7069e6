package reference_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// get sends a GET with the given Host (empty: the real one) and headers.
func get(t *testing.T, base, path, host string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

var inspection = []string{"/_sandbox/requests", "/_sandbox/deliveries", "/_sandbox/queue"}

// TestReferenceRefusesRebindingAndProxiedInspection: on loopback with no
// token, another Host is refused everywhere (DNS rebinding), a request
// through a proxy does not reach /_sandbox/*, and the API stays open.
func TestReferenceRefusesRebindingAndProxiedInspection(t *testing.T) {
	s := MustOpenServer(t, nil)
	require.Empty(t, s.Token)
	for _, path := range append(inspection, "/v1/signature/merchant_demo") {
		st, out := get(t, s.URL(), path, "evil.example:8080", nil)
		assert.Equal(t, 403, st, path)
		assert.Contains(t, out["message"], `Host "evil.example:8080" is not this reference server's`, path)
	}
	for _, host := range []string{"127.0.0.1:8080.evil.test", "localhost:8080.evil.test"} {
		st, out := get(t, s.URL(), "/_sandbox/requests", host, nil)
		assert.Equal(t, 403, st, host)
		assert.Contains(t, out["message"], "is not this reference server's", host)
	}
	for _, path := range inspection {
		st, _ := get(t, s.URL(), path, "localhost", nil)
		assert.Equal(t, 200, st, path)
		st, out := get(t, s.URL(), path, "", map[string]string{"Origin": "http://evil.example"})
		assert.Equal(t, 403, st, path)
		assert.Contains(t, out["message"], "came from a page at http://evil.example")
		st, _ = get(t, s.URL(), path, "", map[string]string{"Sec-Fetch-Site": "cross-site"})
		assert.Equal(t, 403, st, path)
	}

	target, _ := url.Parse(s.URL())
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target); r.SetXForwarded() }})
	defer proxy.Close()
	for _, path := range inspection {
		st, out := get(t, proxy.URL, path, "", nil)
		assert.Equal(t, 403, st, path)
		assert.Contains(t, out["message"], "came through a proxy or tunnel", path)
		assert.Contains(t, out["message"], "--sandbox-token", path)
	}
	// The API a merchant's client calls answers through the proxy: here,
	// unsigned, its own 400.
	resp, err := http.Post(proxy.URL+"/v1/signature/merchant_demo", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)
}

// TestReferenceBeyondLoopbackNeedsTheToken listens on every address (the
// test connects through loopback only): a token is made, /_sandbox/*
// needs it and the API does not.
func TestReferenceBeyondLoopbackNeedsTheToken(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.Addr = "0.0.0.0:0" })
	require.Len(t, s.Token, 32)
	base := "http://127.0.0.1:" + s.URL()[strings.LastIndex(s.URL(), ":")+1:]
	for _, path := range inspection {
		st, out := get(t, base, path, "192.0.2.10", nil)
		assert.Equal(t, 401, st, path)
		assert.Contains(t, out["message"], "token is required", path)
		st, _ = get(t, base, path, "", map[string]string{"Authorization": "Bearer " + s.Token})
		assert.Equal(t, 200, st, path)
		st, _ = get(t, base, path+"?token="+s.Token, "", nil)
		assert.Equal(t, 200, st, path)
	}
	req, _ := http.NewRequest("POST", base+"/v1/signature/merchant_demo", strings.NewReader("{}"))
	req.Host = "192.0.2.10:8080"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode, "the API answers whatever the Host, without a token")

	// A public URL makes a token too.
	p := MustOpenServer(t, func(s *reference.Server) { s.PublicURL = "https://ref.tunnel.example" })
	require.Len(t, p.Token, 32)
	st, _ := get(t, p.URL(), "/_sandbox/requests", "ref.tunnel.example", nil)
	assert.Equal(t, 401, st)
}
