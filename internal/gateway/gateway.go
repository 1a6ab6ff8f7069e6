package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/firmakit/firmakit"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/firmakit/firmakit/internal/graceful"
)

// DefaultAddr is the address a gateway listens on when Addr is empty.
const DefaultAddr = "127.0.0.1:0"

// Errors of Open.
var (
	// ErrNotLoopback: the upstream or the listen address is not a
	// loopback address or localhost.
	ErrNotLoopback = errors.New("gateway: only loopback addresses are allowed")
	// ErrUpstream: Upstream is missing or is not an http(s) URL.
	ErrUpstream = errors.New("gateway: Upstream must be an http or https URL")
	// ErrConfig: a share, rate or burst is out of its range.
	ErrConfig = errors.New("gateway: invalid configuration")
)

// Stage says when a fault strikes a request.
type Stage int

const (
	// EitherStage picks BeforeUpstream or AfterUpstream at random, half
	// and half, for each request the fault strikes.
	EitherStage Stage = iota
	// BeforeUpstream strikes before the request is forwarded: the
	// upstream never sees it.
	BeforeUpstream
	// AfterUpstream forwards the request, waits for the upstream's whole
	// answer and discards it: a create request may have created a
	// contract that its client never hears of.
	AfterUpstream
)

// String names the stage.
func (s Stage) String() string {
	switch s {
	case BeforeUpstream:
		return "before upstream"
	case AfterUpstream:
		return "after upstream"
	}
	return "either"
}

// HeaderStyle selects the rate-limit headers a gateway adds to every
// answer when RateLimitHeaders is set.
type HeaderStyle int

const (
	// DraftHeaders are those of the IETF draft: RateLimit-Limit,
	// RateLimit-Remaining, RateLimit-Reset (seconds until the bucket is
	// full again) and RateLimit-Policy "<limit>;w=<window>".
	DraftHeaders HeaderStyle = iota
	// XHeaders are the older X-RateLimit-Limit, X-RateLimit-Remaining and
	// X-RateLimit-Reset; the reset is the Unix time, in seconds, at which
	// the bucket is full again, as GitHub's API sends it.
	XHeaders
)

// Server is the gateway. Set its fields, then Open it. Every fault is off
// by default: a zero Server with an Upstream only forwards.
type Server struct {
	// Addr is the listen address (default DefaultAddr); it must be a
	// loopback address.
	Addr string
	// Upstream is the base URL of the service behind the gateway; its host
	// must be a loopback address or localhost. Its path is ignored: the
	// request target is forwarded as received.
	Upstream string

	// Rate is the sustained number of requests a second the gateway lets
	// through (a token bucket); 0 means no limit. Requests over it are
	// answered 429 with a small HTML page, not forwarded.
	Rate float64
	// Burst is the bucket's size: how many requests may pass at once
	// (default Rate rounded up, at least 1).
	Burst int
	// Shared is the share of requests, 0 to 1, that find the bucket
	// emptied by the other clients of the same key: a sandbox's quota is
	// shared by everyone who uses the key, so a client meets a 429 at any
	// rate of its own. Such a request is refused like any other over the
	// limit, and the bucket stays empty for those after it. It needs Rate;
	// the picks come from Seed, apart from those of the faults below.
	Shared float64
	// RetryAfter adds Retry-After to each 429: the seconds until a token
	// is free, rounded up.
	RetryAfter bool
	// RateLimitHeaders adds rate-limit headers, in HeaderStyle, to every
	// answer, forwarded or not, while Rate is set.
	RateLimitHeaders bool
	// HeaderStyle is the style of those headers (default DraftHeaders).
	HeaderStyle HeaderStyle

	// BadGateway is the share of requests, 0 to 1, answered 502 with an
	// HTML page; BadGatewayAt says whether they were forwarded first.
	BadGateway   float64
	BadGatewayAt Stage
	// Reset is the share of requests, 0 to 1, whose connection is reset
	// (TCP RST, no answer); over HTTP/2 the stream is reset instead.
	// BadGateway and Reset together may not exceed 1.
	Reset   float64
	ResetAt Stage

	// Latency is added each way: before a request is forwarded (or
	// refused) and before its answer is written (or its connection reset).
	Latency time.Duration
	// Seed seeds the random source that picks the requests a fault
	// strikes; the same seed gives the same sequence of picks.
	Seed uint64

	// TLS serves HTTPS, with HTTP/2 offered by ALPN, under a certificate
	// made at Open for 127.0.0.1, ::1 and localhost and signed by a CA
	// made with it: see CACertPEM and Client.
	TLS bool

	// Now is the clock of the token bucket (default time.Now).
	Now func() time.Time
	// Logger gets the errors of the server and the proxy (default
	// discarded).
	Logger *slog.Logger
	// ShutdownGrace bounds how long Close waits for requests in flight
	// (default 5 s).
	ShutdownGrace time.Duration

	srv       *http.Server
	ln        net.Listener
	conns     graceful.Tracker
	transport *http.Transport
	proxy     *httputil.ReverseProxy
	upstream  *url.URL
	bucket    *bucket
	rand      *lockedRand
	shared    *lockedRand
	ca        *authority
	closeOnce sync.Once
	stats     counters
}

// Stats counts what a gateway did since Open.
type Stats struct {
	Requests    int64 // requests received
	RateLimited int64 // answered 429
	// BadGateway counts the 502s the gateway made up;
	// BadGatewayForwarded, those of them whose request reached the
	// upstream.
	BadGateway          int64
	BadGatewayForwarded int64
	// Resets counts the connections (or HTTP/2 streams) reset;
	// ResetsForwarded, those whose request reached the upstream.
	Resets          int64
	ResetsForwarded int64
	// Forwarded counts the requests sent to the upstream, including
	// those whose answer was then discarded.
	Forwarded int64
	// UpstreamErrors counts the requests the upstream did not answer
	// (connection refused, reset, timeout); each was answered 502.
	UpstreamErrors int64
}

type counters struct {
	requests, rateLimited, badGateway, badGatewayFwd, resets, resetsFwd, forwarded, upstreamErrors atomic.Int64
}

// Open checks the configuration, listens synchronously, so that URL is
// known when it returns, and serves in a goroutine. It returns
// ErrNotLoopback, ErrUpstream or ErrConfig (wrapped) for a configuration
// it refuses.
func (s *Server) Open() error {
	if s.Addr == "" {
		s.Addr = DefaultAddr
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.ShutdownGrace <= 0 {
		s.ShutdownGrace = 5 * time.Second
	}
	if err := s.check(); err != nil {
		return err
	}
	if s.Rate > 0 {
		if s.Burst <= 0 {
			s.Burst = max(1, int(ceil(s.Rate)))
		}
		s.bucket = newBucket(s.Rate, s.Burst, s.Now())
	}
	s.rand = &lockedRand{r: rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))}
	s.shared = &lockedRand{r: rand.New(rand.NewPCG(s.Seed, 0x5851f42d4c957f2d))}

	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: loopbackOnly}
	s.transport = &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 64,
		IdleConnTimeout: 30 * time.Second, TLSHandshakeTimeout: 10 * time.Second}
	s.proxy = &httputil.ReverseProxy{Rewrite: s.rewrite, Transport: s.transport,
		ModifyResponse: s.modifyResponse, ErrorHandler: s.proxyError,
		ErrorLog: slog.NewLogLogger(s.Logger.Handler(), slog.LevelError)}

	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 30 * time.Second, ConnState: s.conns.Hook,
		ErrorLog: slog.NewLogLogger(s.Logger.Handler(), slog.LevelError)}
	serve := func() error { return s.srv.Serve(ln) }
	if s.TLS {
		if s.ca, err = newAuthority(s.Now()); err != nil {
			ln.Close()
			return err
		}
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{s.ca.leaf}, NextProtos: []string{"h2", "http/1.1"},
			MinVersion: tls.VersionTLS12}
		serve = func() error { return s.srv.ServeTLS(ln, "", "") }
	}
	go func() {
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.Logger.Error("gateway stopped", "err", err)
		}
	}()
	return nil
}

// check refuses a configuration the gateway cannot honour.
func (s *Server) check() error {
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return fmt.Errorf("%w: Addr %q: %v", ErrConfig, s.Addr, err)
	}
	if !isLoopbackHost(host) {
		return fmt.Errorf("%w: Addr %q", ErrNotLoopback, s.Addr)
	}
	u, err := firmakit.ParseHTTPURL(s.Upstream)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrUpstream, s.Upstream)
	}
	if !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%w: Upstream %q", ErrNotLoopback, s.Upstream)
	}
	s.upstream = u
	switch {
	case s.Rate < 0 || s.Burst < 0:
		return fmt.Errorf("%w: Rate and Burst may not be negative", ErrConfig)
	case s.Shared < 0 || s.Shared > 1:
		return fmt.Errorf("%w: Shared is a share from 0 to 1", ErrConfig)
	case s.Shared > 0 && s.Rate == 0:
		return fmt.Errorf("%w: Shared needs Rate: it empties the bucket", ErrConfig)
	case s.BadGateway < 0 || s.BadGateway > 1 || s.Reset < 0 || s.Reset > 1 || s.BadGateway+s.Reset > 1:
		return fmt.Errorf("%w: BadGateway and Reset are shares from 0 to 1 whose sum is at most 1", ErrConfig)
	case s.Latency < 0:
		return fmt.Errorf("%w: Latency may not be negative", ErrConfig)
	}
	return nil
}

// isLoopbackHost tells whether host is localhost or a loopback IP.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackOnly is the dialer's check: localhost may resolve to anything,
// so the address actually dialled must be loopback too.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: dialling %s", ErrNotLoopback, address)
	}
	return nil
}

// URL returns the base URL the gateway listens on: https:// when TLS is
// set.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	if s.TLS {
		return "https://" + s.ln.Addr().String()
	}
	return "http://" + s.ln.Addr().String()
}

// Close stops taking requests, lets those in flight finish within
// ShutdownGrace, then closes what is left and the connections to the
// upstream.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.srv == nil {
			return
		}
		err = graceful.Shutdown(s.srv, &s.conns, s.ShutdownGrace)
		s.transport.CloseIdleConnections()
	})
	return err
}

// Stats returns the gateway's counts so far; it may be called at any
// time, from any goroutine.
func (s *Server) Stats() Stats {
	c := &s.stats
	return Stats{Requests: c.requests.Load(), RateLimited: c.rateLimited.Load(),
		BadGateway: c.badGateway.Load(), BadGatewayForwarded: c.badGatewayFwd.Load(),
		Resets: c.resets.Load(), ResetsForwarded: c.resetsFwd.Load(),
		Forwarded: c.forwarded.Load(), UpstreamErrors: c.upstreamErrors.Load()}
}

// lockedRand is a random source safe for concurrent use.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (l *lockedRand) float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

func (l *lockedRand) coin() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.IntN(2) == 0
}

// drain reads what is left of a body, up to a bound, so that the upstream
// has written its whole answer before it is discarded.
func drain(r io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<20))
}

// sleep waits d, or less if ctx ends first; it tells whether ctx is still
// alive.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
