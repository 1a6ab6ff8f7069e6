package receiver_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// via sends one request to base (a proxy in front of rv) and returns its
// status and JSON body.
func via(t *testing.T, base, method, path, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, r)
	require.NoError(t, err)
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

// TestReceiverBehindAProxyNeedsTheToken puts reverse proxies on loopback
// in front of a receiver that listens on loopback: one adds
// X-Forwarded-For and keeps the proxy's Host, one rewrites Host to the
// receiver's own and adds X-Forwarded-*. Through either, only the hooks
// answer without a token.
func TestReceiverBehindAProxyNeedsTheToken(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	require.Empty(t, rv.Token, "on loopback, no token")
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	target, _ := url.Parse(rv.URL())
	forwarding := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	defer forwarding.Close()
	rewriting := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.SetXForwarded()
	}})
	defer rewriting.Close()
	ctJSON := map[string]string{"Content-Type": "application/json"}
	for _, proxy := range []string{forwarding.URL, rewriting.URL} {
		for _, tc := range []struct{ method, path, body string }{
			{"GET", "/", ""},
			{"GET", "/api/events", ""},
			{"GET", "/api/events/1", ""},
			{"GET", "/api/events/export", ""},
			{"DELETE", "/api/events", ""},
			{"POST", "/api/events/1/replay", `{"url":"http://127.0.0.1:1/x"}`},
			{"POST", "/api/channels/merchant_demo/responses", `{"status":503}`},
		} {
			st, out := via(t, proxy, tc.method, tc.path, tc.body, ctJSON)
			assert.Equal(t, 403, st, "%s %s via %s", tc.method, tc.path, proxy)
			assert.Contains(t, out["error"], "came through a proxy or tunnel", tc.path)
			assert.Contains(t, out["error"], "--public-url", "the message names the fix")
		}
		b := notification(firmakit.StateSigned, "e2", "s2")
		st2, _ := via(t, proxy, "POST", "/hooks/merchant_demo", string(b), map[string]string{"Content-Type": "application/json",
			"X-Service-Signature": profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), b)})
		assert.Equal(t, 200, st2, "the hooks stay open to senders")
	}
	// The stream through a proxy.
	u := "ws" + strings.TrimPrefix(forwarding.URL, "http") + "/api/stream"
	c, resp, err := websocket.DefaultDialer.Dial(u, nil)
	if c != nil {
		c.Close()
	}
	require.Error(t, err)
	require.NotNil(t, resp)
	resp.Body.Close()
	assert.Equal(t, 403, resp.StatusCode)

	// Each proxy header alone marks a request as from outside.
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-IP", "CF-Connecting-IP", "True-Client-IP", "Via"} {
		st, _ := call(t, rv, "GET", "/api/events", "", "", map[string]string{h: "203.0.113.9"})
		assert.Equal(t, 403, st, h)
	}
	st, _ := call(t, rv, "GET", "/api/events", "", "", nil)
	assert.Equal(t, 200, st, "straight from loopback, no token is needed")
	n, _ := rv.Count(t.Context())
	assert.Equal(t, int64(3), n, "nothing was deleted")

	// With a token, the token lets a proxied call through.
	guarded := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Token = "s3cret" })
	gt, _ := url.Parse(guarded.URL())
	gp := httptest.NewServer(httputil.NewSingleHostReverseProxy(gt))
	defer gp.Close()
	st, _ = via(t, gp.URL, "GET", "/api/events", "", nil)
	assert.Equal(t, 401, st)
	st, _ = via(t, gp.URL, "GET", "/api/events", "", map[string]string{"Authorization": "Bearer s3cret"})
	assert.Equal(t, 200, st)
}

// TestTunnelNeedsTheToken puts a tunnel (a proxy that keeps the public
// Host and adds no header) in front of the receiver.
func TestTunnelNeedsTheToken(t *testing.T) {
	tunnel := func(rv *receiver.Receiver) *httptest.Server {
		target, _ := url.Parse(rv.URL())
		p := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = "abc.tunnel.example"
		}}
		s := httptest.NewServer(p)
		t.Cleanup(s.Close)
		return s
	}
	// Without --public-url, the public name is refused everywhere.
	plain := MustOpenReceiver(t, nil)
	st, out := via(t, tunnel(plain).URL, "GET", "/api/events", "", nil)
	assert.Equal(t, 403, st)
	assert.Contains(t, out["error"], `Host "abc.tunnel.example" is not this receiver's`)

	// With it, a token is made: hooks open, the rest needs it.
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.PublicURL = "https://abc.tunnel.example" })
	require.Len(t, rv.Token, 32)
	tu := tunnel(rv).URL
	b := notification(firmakit.StateSigned, "e", "s")
	st, _ = via(t, tu, "POST", "/hooks/merchant_demo", string(b), map[string]string{"Content-Type": "application/json",
		"X-Service-Signature": profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), b)})
	assert.Equal(t, 200, st)
	for _, path := range []string{"/", "/api/events", "/api/events/1", "/api/info"} {
		st, out := via(t, tu, "GET", path, "", nil)
		assert.Equal(t, 401, st, path)
		assert.Contains(t, out["error"], "token", path)
	}
	st, _ = via(t, tu, "POST", "/api/events/1/replay", `{"url":"http://127.0.0.1:1/"}`, map[string]string{"Content-Type": "application/json"})
	assert.Equal(t, 401, st)
	st, _ = via(t, tu, "GET", "/api/events", "", map[string]string{"Authorization": "Bearer " + rv.Token})
	assert.Equal(t, 200, st)
}

// fakeDNS answers names from a table; a name with two answers gives the
// first, then the second (a name that rebinds).
type fakeDNS struct {
	names map[string][][]net.IP
	calls atomic.Int64
	seen  map[string]int
}

func (f *fakeDNS) lookup(_ context.Context, host string) ([]net.IP, error) {
	f.calls.Add(1)
	answers, ok := f.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := f.seen[host]
	f.seen[host]++
	return answers[min(i, len(answers)-1)], nil
}

func TestReplayToInternalAddressesIsRefused(t *testing.T) {
	var hits atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.WriteHeader(204) }))
	defer sink.Close()
	ip := func(s string) []net.IP { return []net.IP{net.ParseIP(s)} }
	dns := &fakeDNS{seen: map[string]int{}, names: map[string][][]net.IP{
		"loopback.example": {ip("127.0.0.1")},
		"metadata.example": {ip("169.254.169.254")},
		"mixed.example":    {{net.ParseIP("203.0.113.7"), net.ParseIP("10.1.2.3")}},
		"rebind.example":   {ip("203.0.113.7"), ip("127.0.0.1")},
		"localhost":        {ip("127.0.0.1"), ip("::1")},
	}}
	open := func(allow bool) *receiver.Receiver {
		return MustOpenReceiver(t, func(r *receiver.Receiver) {
			r.AllowPrivateReplay = allow
			r.PublicURL = "https://abc.tunnel.example"
			r.Token = "s3cret"
			receiver.SetLookupIP(r, dns.lookup)
		})
	}
	rv := open(false)
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	auth := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret"}
	replay := func(rv *receiver.Receiver, u string) (int, string) {
		st, out := call(t, rv, "POST", "/api/events/1/replay", "", `{"url":"`+u+`"}`, auth)
		msg, _ := out["error"].(string)
		return st, msg
	}
	for _, u := range []string{
		sink.URL + "/x",
		"http://10.0.0.1/x",
		"http://172.16.5.4/x",
		"http://192.168.1.1/x",
		"http://169.254.169.254/latest/meta-data/",
		"http://100.64.0.1/x",
		"http://0.0.0.0:9/x",
		"http://[::1]:9/x",
		"http://[fd00::1]/x",
		"http://[fe80::1]/x",
		"http://[::ffff:127.0.0.1]:9/x",
		"http://224.0.0.1/x",
		"http://loopback.example:" + strings.TrimPrefix(sink.URL, "http://127.0.0.1:") + "/x",
		"http://metadata.example/latest/meta-data/",
		"http://mixed.example/x",
	} {
		st, msg := replay(rv, u)
		assert.Equal(t, 403, st, u)
		assert.Contains(t, msg, "--allow-private-replay", u)
	}
	// A name that resolves to a public address when checked and to
	// loopback when dialled: the dial refuses it (and the public address
	// is never dialled).
	st, msg := replay(rv, "http://rebind.example:"+strings.TrimPrefix(sink.URL, "http://127.0.0.1:")+"/x")
	assert.Equal(t, 403, st)
	assert.Contains(t, msg, "internal address")
	assert.Contains(t, msg, "rebind.example resolves to 127.0.0.1")
	assert.Equal(t, int64(0), hits.Load(), "nothing reached the loopback server")

	// The receiver itself, even with the opt-in: its listen address by
	// any name, and its public URL.
	allowed := open(true)
	signedPost(t, allowed, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	aport := strings.TrimPrefix(allowed.URL(), "http://127.0.0.1:")
	for _, u := range []string{
		allowed.URL() + "/api/events/1/replay",
		allowed.URL() + "/hooks/merchant_demo",
		"http://localhost:" + aport + "/api/events/1/replay",
		"http://[::1]:" + aport + "/x",
		"http://127.0.0.2:" + aport + "/x",
		"https://abc.tunnel.example/api/events/1/replay",
		"https://ABC.tunnel.example:443/hooks/x",
	} {
		st, msg := replay(allowed, u)
		assert.Equal(t, 403, st, u)
		assert.Contains(t, msg, "this receiver itself", u)
	}
	n, _ := allowed.Count(t.Context())
	assert.Equal(t, int64(1), n, "no replay reached the receiver")
	// With the opt-in, the loopback server is reached.
	st, _ = replay(allowed, sink.URL+"/x")
	assert.Equal(t, 200, st)
	assert.Equal(t, int64(1), hits.Load())
}

func TestForwardToItselfIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	rv := &receiver.Receiver{Addr: addr, DB: ":memory:", ForwardTo: "http://" + addr + "/hooks/x"}
	err = rv.Open()
	if err == nil {
		rv.Close()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is the receiver itself")
}
