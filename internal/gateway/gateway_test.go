package gateway_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/gateway"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seen is a request as the upstream received it.
type seen struct {
	method, target, host string
	header               http.Header
	body                 []byte
}

// upstream is a service that records what it receives and answers 200
// with a fixed body.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.reqs = append(u.reqs, seen{r.Method, r.RequestURI, r.Host, r.Header.Clone(), body})
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("X-Upstream", "one")
		w.Header().Add("X-Upstream", "two")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"status_code":201,"message":"created"}`)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.reqs)
}

func (u *upstream) last() seen {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.reqs[len(u.reqs)-1]
}

// mustOpen opens g in front of up and closes it at the end of the test.
func mustOpen(t *testing.T, g *gateway.Server, up *upstream) *gateway.Server {
	t.Helper()
	g.Upstream = up.URL
	require.NoError(t, g.Open())
	t.Cleanup(func() { g.Close() })
	return g
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// freshClient opens a new connection for every request, so that no
// failure of one request touches the next and net/http retries nothing.
func freshClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
}

func post(t *testing.T, c *http.Client, url string) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := c.Post(url+"/v1/signature/demo", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body, nil
}

func TestForwardsTheRequestAndTheAnswerExactly(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{}, up)

	// A raw request, so that nothing on the client side re-escapes the
	// target: percent-encodings Go would write otherwise, a query Go
	// cannot parse, a body that is not UTF-8.
	const target = "/v1/check/demo%2Dmerchant/a%2Fb%7e{x}|%41?b=2&a=%41;c&empty=&x=%zz&&y=a+b"
	body := []byte("{\"x\":\"\xff\xfe\"}\n")
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: sandbox.example\r\nX-Firma-Key: test_key_demo\r\nX-Firma-Signature: t=1,v1=abc\r\n"+
		"X-Multi: one\r\nX-Multi: two\r\nX-Forwarded-For: 10.1.2.3\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		target, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()

	in := up.last()
	assert.Equal(t, "POST", in.method)
	assert.Equal(t, target, in.target, "the request target reaches the upstream byte for byte")
	assert.Equal(t, "sandbox.example", in.host)
	assert.Equal(t, body, in.body)
	assert.Equal(t, []string{"test_key_demo"}, in.header["X-Firma-Key"])
	assert.Equal(t, []string{"t=1,v1=abc"}, in.header["X-Firma-Signature"])
	assert.Equal(t, []string{"one", "two"}, in.header["X-Multi"])
	assert.Equal(t, []string{"10.1.2.3"}, in.header["X-Forwarded-For"], "the client's own X-Forwarded-For is kept, nothing added")
	assert.Equal(t, []string{strconv.Itoa(len(body))}, in.header["Content-Length"])
	assert.NotContains(t, in.header, "X-Forwarded-Host")
	assert.NotContains(t, in.header, "X-Forwarded-Proto")
	assert.NotContains(t, in.header, "Forwarded")

	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, []string{"one", "two"}, resp.Header["X-Upstream"])
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"status_code":201,"message":"created"}`, string(got))
	assert.NotContains(t, resp.Header, "Ratelimit-Limit")
	assert.Equal(t, gateway.Stats{Requests: 1, Forwarded: 1}, g.Stats())
}

func TestForwardsWithoutAddingForwardedHeaders(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{}, up)
	_, _, err := post(t, freshClient(), g.URL())
	require.NoError(t, err)
	for _, k := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded", "Via"} {
		assert.NotContains(t, up.last().header, k)
	}
}

func TestRateLimit(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		gw     *gateway.Server
		header func(t *testing.T, i int, h http.Header) // i: 0, 1 passed, 2 refused
	}{
		{name: "429 alone", gw: &gateway.Server{},
			header: func(t *testing.T, _ int, h http.Header) {
				assert.NotContains(t, h, "Retry-After")
				assert.NotContains(t, h, "Ratelimit-Limit")
				assert.NotContains(t, h, "X-Ratelimit-Limit")
			}},
		{name: "Retry-After", gw: &gateway.Server{RetryAfter: true},
			header: func(t *testing.T, i int, h http.Header) {
				if i == 2 {
					// One token comes back in 1 / 0.5 = 2 seconds.
					assert.Equal(t, "2", h.Get("Retry-After"))
				} else {
					assert.NotContains(t, h, "Retry-After")
				}
				assert.NotContains(t, h, "Ratelimit-Limit")
			}},
		{name: "draft headers", gw: &gateway.Server{RateLimitHeaders: true},
			header: func(t *testing.T, i int, h http.Header) {
				remaining, reset := []string{"1", "0", "0"}[i], []string{"2", "4", "4"}[i]
				assert.Equal(t, "2", h.Get("RateLimit-Limit"))
				assert.Equal(t, remaining, h.Get("RateLimit-Remaining"))
				assert.Equal(t, reset, h.Get("RateLimit-Reset"))
				assert.Equal(t, "2;w=4", h.Get("RateLimit-Policy"))
				assert.NotContains(t, h, "X-Ratelimit-Limit")
				assert.NotContains(t, h, "Retry-After")
			}},
		{name: "X- headers and Retry-After", gw: &gateway.Server{RateLimitHeaders: true, HeaderStyle: gateway.XHeaders, RetryAfter: true},
			header: func(t *testing.T, i int, h http.Header) {
				remaining, reset := []string{"1", "0", "0"}[i], []int64{2, 4, 4}[i]
				assert.Equal(t, "2", h.Get("X-RateLimit-Limit"))
				assert.Equal(t, remaining, h.Get("X-RateLimit-Remaining"))
				assert.Equal(t, strconv.FormatInt(start.Unix()+reset, 10), h.Get("X-RateLimit-Reset"))
				assert.NotContains(t, h, "Ratelimit-Limit")
				assert.NotContains(t, h, "Ratelimit-Policy")
				if i == 2 {
					assert.Equal(t, "2", h.Get("Retry-After"))
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t)
			clock := &fakeClock{now: start}
			g := tc.gw
			g.Rate, g.Burst, g.Now = 0.5, 2, clock.Now
			mustOpen(t, g, up)
			c := freshClient()
			for i, want := range []int{http.StatusCreated, http.StatusCreated, http.StatusTooManyRequests} {
				resp, body, err := post(t, c, g.URL())
				require.NoError(t, err)
				require.Equal(t, want, resp.StatusCode, "request %d", i+1)
				tc.header(t, i, resp.Header)
				if want == http.StatusTooManyRequests {
					assert.Equal(t, "text/html", resp.Header.Get("Content-Type"))
					assert.Contains(t, string(body), "<h1>429 Too Many Requests</h1>")
					assert.NotContains(t, string(body), "status_code", "a gateway's page, not the API's JSON")
				}
			}
			assert.Equal(t, 2, up.count(), "a request refused never reaches the upstream")

			clock.Advance(2 * time.Second)
			resp, _, err := post(t, c, g.URL())
			require.NoError(t, err)
			assert.Equal(t, http.StatusCreated, resp.StatusCode, "a token is back after Retry-After")
			assert.Equal(t, gateway.Stats{Requests: 4, RateLimited: 1, Forwarded: 3}, g.Stats())
		})
	}
}

func TestRateLimitRetryAfterRoundsUp(t *testing.T) {
	up := newUpstream(t)
	clock := &fakeClock{now: time.Unix(1_900_000_000, 0)}
	g := mustOpen(t, &gateway.Server{Rate: 3, Burst: 1, RetryAfter: true, Now: clock.Now}, up)
	c := freshClient()
	resp, _, err := post(t, c, g.URL())
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	clock.Advance(100 * time.Millisecond)
	resp, _, err = post(t, c, g.URL())
	require.NoError(t, err)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"), "a token in 0.23 s is a Retry-After of 1")
}

func TestBadGateway(t *testing.T) {
	cases := []struct {
		at        gateway.Stage
		forwarded int
	}{
		{gateway.BeforeUpstream, 0},
		{gateway.AfterUpstream, 1},
	}
	for _, tc := range cases {
		t.Run(tc.at.String(), func(t *testing.T) {
			up := newUpstream(t)
			g := mustOpen(t, &gateway.Server{BadGateway: 1, BadGatewayAt: tc.at}, up)
			resp, body, err := post(t, freshClient(), g.URL())
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
			assert.Equal(t, "text/html", resp.Header.Get("Content-Type"))
			assert.Equal(t, "nginx", resp.Header.Get("Server"))
			assert.Contains(t, string(body), "<title>502 Bad Gateway</title>")
			assert.NotContains(t, resp.Header, "X-Upstream", "the upstream's answer is discarded whole")
			assert.Equal(t, tc.forwarded, up.count())
			if tc.forwarded == 1 {
				assert.Equal(t, `{"a":1}`, string(up.last().body), "the request reached the upstream whole")
			}
			n := int64(tc.forwarded)
			assert.Equal(t, gateway.Stats{Requests: 1, BadGateway: 1, BadGatewayForwarded: n, Forwarded: n}, g.Stats())
		})
	}
}

func TestBadGatewayAtEitherStageStrikesBoth(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{BadGateway: 1, Seed: 7}, up)
	c := freshClient()
	for range 40 {
		resp, _, err := post(t, c, g.URL())
		require.NoError(t, err)
		require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	}
	st := g.Stats()
	assert.EqualValues(t, 40, st.BadGateway)
	assert.Positive(t, st.BadGatewayForwarded, "some requests reached the upstream")
	assert.Less(t, st.BadGatewayForwarded, st.BadGateway, "some did not")
	assert.EqualValues(t, up.count(), st.BadGatewayForwarded)
}

// statuses sends n requests, one at a time, and returns what each got: a
// status, or "reset".
func statuses(t *testing.T, g *gateway.Server, n int) []string {
	t.Helper()
	c := freshClient()
	var out []string
	for range n {
		resp, _, err := post(t, c, g.URL())
		if err != nil {
			out = append(out, "reset")
			continue
		}
		out = append(out, strconv.Itoa(resp.StatusCode))
	}
	return out
}

func TestSharesAndSeed(t *testing.T) {
	up := newUpstream(t)
	a := mustOpen(t, &gateway.Server{BadGateway: 0.2, Reset: 0.2, Seed: 42}, up)
	b := mustOpen(t, &gateway.Server{BadGateway: 0.2, Reset: 0.2, Seed: 42}, up)
	first, second := statuses(t, a, 100), statuses(t, b, 100)
	assert.Equal(t, first, second, "the same seed strikes the same requests")

	st := a.Stats()
	assert.EqualValues(t, 100, st.Requests)
	assert.InDelta(t, 20, st.BadGateway, 12, "about a fifth are 502s")
	assert.InDelta(t, 20, st.Resets, 12, "about a fifth are reset")
	count := func(s string) (n int64) {
		for _, x := range first {
			if x == s {
				n++
			}
		}
		return n
	}
	assert.Equal(t, st.BadGateway, count("502"))
	assert.Equal(t, st.Resets, count("reset"))
	assert.Equal(t, 100-st.BadGateway-st.Resets, count("201"))
}

// TestSharedQuota: other clients of the key empty the bucket before a
// share of the requests, whatever the client's own rate. The clock moves a
// second, a full bucket, between requests, so every 429 is one of the
// shared quota's, and the same seed picks the same ones.
func TestSharedQuota(t *testing.T) {
	up := newUpstream(t)
	run := func() ([]string, gateway.Stats) {
		clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
		g := mustOpen(t, &gateway.Server{Rate: 1, Burst: 1, Shared: 0.25, RetryAfter: true, Seed: 9, Now: clock.Now}, up)
		var out []string
		for range 60 {
			clock.Advance(time.Second)
			out = append(out, statuses(t, g, 1)...)
		}
		return out, g.Stats()
	}
	first, st := run()
	second, _ := run()
	assert.Equal(t, first, second, "the same seed empties the bucket before the same requests")
	assert.InDelta(t, 15, st.RateLimited, 10, "about a quarter meet an empty bucket")
	limited := 0
	for i, s := range first {
		if s == "429" {
			limited++
			continue
		}
		assert.Equal(t, "201", s, "request %d", i)
	}
	assert.EqualValues(t, st.RateLimited, limited)

	// Retry-After says when a token is back.
	c := mustOpen(t, &gateway.Server{Rate: 2, Burst: 5, Shared: 1, RetryAfter: true}, up)
	resp, _, err := post(t, freshClient(), c.URL())
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
}

// isReset tells whether err is what a client sees of a connection reset
// before an answer: ECONNRESET, or an EOF when the RST came while nothing
// was being read.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

func TestReset(t *testing.T) {
	cases := []struct {
		at        gateway.Stage
		forwarded int
	}{
		{gateway.BeforeUpstream, 0},
		{gateway.AfterUpstream, 1},
	}
	for _, tc := range cases {
		t.Run(tc.at.String(), func(t *testing.T) {
			up := newUpstream(t)
			g := mustOpen(t, &gateway.Server{Reset: 1, ResetAt: tc.at}, up)
			resp, _, err := post(t, freshClient(), g.URL())
			require.Error(t, err, "no answer at all")
			assert.Nil(t, resp)
			assert.True(t, isReset(err), "a reset or an EOF, got %v", err)
			assert.Equal(t, tc.forwarded, up.count())
			n := int64(tc.forwarded)
			assert.Equal(t, gateway.Stats{Requests: 1, Resets: 1, ResetsForwarded: n, Forwarded: n}, g.Stats())
		})
	}
}

func TestResetIsATCPReset(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{Reset: 1, ResetAt: gateway.BeforeUpstream}, up)
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	n, err := conn.Read(make([]byte, 1024))
	assert.Zero(t, n, "not a byte of an answer")
	assert.ErrorIs(t, err, syscall.ECONNRESET)
}

func TestLatencyEachWay(t *testing.T) {
	const latency = 40 * time.Millisecond
	cases := []struct {
		name string
		gw   *gateway.Server
		want int
	}{
		{"forwarded", &gateway.Server{}, http.StatusCreated},
		{"502 before upstream", &gateway.Server{BadGateway: 1, BadGatewayAt: gateway.BeforeUpstream}, http.StatusBadGateway},
		{"502 after upstream", &gateway.Server{BadGateway: 1, BadGatewayAt: gateway.AfterUpstream}, http.StatusBadGateway},
		{"429", &gateway.Server{Rate: 1, Burst: 1, Now: func() time.Time { return time.Unix(1_900_000_000, 0) }}, http.StatusTooManyRequests},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			up := newUpstream(t)
			g := tc.gw
			g.Latency = latency
			mustOpen(t, g, up)
			c := freshClient()
			if tc.want == http.StatusTooManyRequests {
				_, _, err := post(t, c, g.URL()) // spends the one token
				require.NoError(t, err)
			}
			start := time.Now()
			resp, _, err := post(t, c, g.URL())
			took := time.Since(start)
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.StatusCode)
			assert.GreaterOrEqual(t, took, 2*latency, "latency each way")
		})
	}
	t.Run("reset", func(t *testing.T) {
		up := newUpstream(t)
		g := mustOpen(t, &gateway.Server{Latency: latency, Reset: 1}, up)
		start := time.Now()
		_, _, err := post(t, freshClient(), g.URL())
		assert.Error(t, err)
		assert.GreaterOrEqual(t, time.Since(start), 2*latency, "the reset comes as late as an answer")
	})
}

func TestTLSAndHTTP2(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{TLS: true}, up)
	require.True(t, strings.HasPrefix(g.URL(), "https://127.0.0.1:"), g.URL())

	// A client that trusts only the PEM the gateway exposes.
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(g.CACertPEM()))
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	for _, base := range []string{g.URL(), strings.Replace(g.URL(), "127.0.0.1", "localhost", 1)} {
		resp, body, err := post(t, c, base)
		require.NoError(t, err)
		assert.Equal(t, 2, resp.ProtoMajor, "HTTP/2 by ALPN")
		assert.Equal(t, http.StatusCreated, resp.StatusCode)
		assert.Equal(t, `{"status_code":201,"message":"created"}`, string(body))
	}
	resp, _, err := post(t, g.Client(), g.URL())
	require.NoError(t, err)
	assert.Equal(t, 2, resp.ProtoMajor)

	_, err = freshClient().Get(g.URL() + "/healthz")
	var unknown x509.UnknownAuthorityError
	assert.ErrorAs(t, err, &unknown, "a client that does not trust the CA refuses the certificate")

	h1 := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, NextProtos: []string{"http/1.1"}}}}
	resp, _, err = post(t, h1, g.URL())
	require.NoError(t, err)
	assert.Equal(t, 1, resp.ProtoMajor, "HTTP/1.1 too, for a client that does not offer h2")
}

func TestResetOverTLS(t *testing.T) {
	for _, proto := range []string{"h2", "http/1.1"} {
		t.Run(proto, func(t *testing.T) {
			up := newUpstream(t)
			g := mustOpen(t, &gateway.Server{TLS: true, Reset: 1}, up)
			pool := x509.NewCertPool()
			require.True(t, pool.AppendCertsFromPEM(g.CACertPEM()))
			c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{ForceAttemptHTTP2: true, DisableKeepAlives: true,
				TLSClientConfig: &tls.Config{RootCAs: pool, NextProtos: []string{proto}}}}
			resp, _, err := post(t, c, g.URL())
			require.Error(t, err, "no answer at all")
			assert.Nil(t, resp)
			assert.EqualValues(t, 1, g.Stats().Resets)
		})
	}
}

func TestUpstreamDownIsA502(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{}, up)
	up.Close()
	resp, body, err := post(t, freshClient(), g.URL())
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Contains(t, string(body), "502 Bad Gateway")
	assert.Equal(t, gateway.Stats{Requests: 1, Forwarded: 1, UpstreamErrors: 1}, g.Stats())
}

func TestOpenRefuses(t *testing.T) {
	cases := []struct {
		name string
		gw   *gateway.Server
		err  error
	}{
		{"a host on the internet", &gateway.Server{Upstream: "http://example.com"}, gateway.ErrNotLoopback},
		{"a private address", &gateway.Server{Upstream: "http://10.0.0.1:8080"}, gateway.ErrNotLoopback},
		{"an IPv6 address not loopback", &gateway.Server{Upstream: "https://[2001:db8::1]:443"}, gateway.ErrNotLoopback},
		{"the unspecified address", &gateway.Server{Upstream: "http://0.0.0.0:8080"}, gateway.ErrNotLoopback},
		{"listening on every interface", &gateway.Server{Addr: "0.0.0.0:0", Upstream: "http://127.0.0.1:1"}, gateway.ErrNotLoopback},
		{"listening on every interface, no host", &gateway.Server{Addr: ":0", Upstream: "http://127.0.0.1:1"}, gateway.ErrNotLoopback},
		{"no upstream", &gateway.Server{}, gateway.ErrUpstream},
		{"not http", &gateway.Server{Upstream: "ftp://127.0.0.1/"}, gateway.ErrUpstream},
		{"a share over 1", &gateway.Server{Upstream: "http://127.0.0.1:1", BadGateway: 1.5}, gateway.ErrConfig},
		{"shares summing over 1", &gateway.Server{Upstream: "http://127.0.0.1:1", BadGateway: 0.6, Reset: 0.6}, gateway.ErrConfig},
		{"a negative rate", &gateway.Server{Upstream: "http://127.0.0.1:1", Rate: -1}, gateway.ErrConfig},
		{"a shared quota over 1", &gateway.Server{Upstream: "http://127.0.0.1:1", Rate: 1, Shared: 1.5}, gateway.ErrConfig},
		{"a shared quota without a rate", &gateway.Server{Upstream: "http://127.0.0.1:1", Shared: 0.5}, gateway.ErrConfig},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.gw
			err := g.Open()
			if err == nil {
				g.Close()
			}
			assert.ErrorIs(t, err, tc.err)
			assert.Empty(t, g.URL(), "nothing listens")
		})
	}
	for _, u := range []string{"http://localhost:1", "http://LOCALHOST:1", "http://[::1]:1", "http://127.0.0.2:1"} {
		g := gateway.Server{Upstream: u}
		require.NoError(t, g.Open(), u)
		g.Close()
	}
}

func TestStatsUnderConcurrentLoad(t *testing.T) {
	up := newUpstream(t)
	g := mustOpen(t, &gateway.Server{Rate: 50, Burst: 5, BadGateway: 0.1, Reset: 0.1, Seed: 3}, up)
	var wg sync.WaitGroup
	done := make(chan struct{})
	go func() { // Stats may be read while requests come in.
		for {
			select {
			case <-done:
				return
			default:
				_ = g.Stats()
			}
		}
	}()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := freshClient()
			for range 10 {
				resp, err := c.Post(g.URL()+"/v1/x", "text/plain", bytes.NewReader([]byte("x")))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	st := g.Stats()
	assert.EqualValues(t, 80, st.Requests)
	assert.Equal(t, st.Requests, st.RateLimited+st.BadGateway-st.BadGatewayForwarded+st.Resets-st.ResetsForwarded+st.Forwarded,
		"each request is refused, struck before the upstream, or forwarded: %+v", st)
	assert.EqualValues(t, up.count(), st.Forwarded)
}
