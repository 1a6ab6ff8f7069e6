package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
)

// fault is what the gateway does to one request besides forwarding it.
type fault int

const (
	noFault fault = iota
	badGatewayFault
	resetFault
)

// plan is the decision about one request, carried to the proxy's hooks in
// the request's context.
type plan struct {
	fault fault
	stage Stage // BeforeUpstream or AfterUpstream when fault is set
	limit limitState
}

type planKey struct{}

func planOf(ctx context.Context) *plan {
	p, _ := ctx.Value(planKey{}).(*plan)
	if p == nil {
		return &plan{}
	}
	return p
}

// errInjected ends a forwarded request whose answer the gateway discards:
// ModifyResponse returns it, and the proxy's error handler then does what
// the plan says.
var errInjected = errors.New("gateway: answer discarded on purpose")

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.stats.requests.Add(1)
	if !sleep(r.Context(), s.Latency) {
		return
	}
	p := &plan{}
	if s.bucket != nil {
		var ok bool
		emptied := s.Shared > 0 && s.shared.float64() < s.Shared
		ok, p.limit = s.bucket.take(s.Now(), emptied)
		if !ok {
			s.stats.rateLimited.Add(1)
			h := w.Header()
			if s.RetryAfter {
				h.Set("Retry-After", strconv.FormatInt(p.limit.retryAfter, 10))
			}
			s.answer(w, r, http.StatusTooManyRequests, p)
			return
		}
	}
	p.fault, p.stage = s.pick()
	if p.fault != noFault && p.stage == BeforeUpstream {
		switch p.fault {
		case badGatewayFault:
			s.stats.badGateway.Add(1)
			s.answer(w, r, http.StatusBadGateway, p)
		case resetFault:
			s.stats.resets.Add(1)
			if sleep(r.Context(), s.Latency) {
				reset(w)
			}
		}
		return
	}
	s.stats.forwarded.Add(1)
	s.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), planKey{}, p)))
}

// pick draws the fault, if any, that strikes a request, and its stage.
func (s *Server) pick() (fault, Stage) {
	if s.BadGateway == 0 && s.Reset == 0 {
		return noFault, 0
	}
	u := s.rand.float64()
	var f fault
	var at Stage
	switch {
	case u < s.BadGateway:
		f, at = badGatewayFault, s.BadGatewayAt
	case u < s.BadGateway+s.Reset:
		f, at = resetFault, s.ResetAt
	default:
		return noFault, 0
	}
	if at != BeforeUpstream && at != AfterUpstream {
		at = AfterUpstream
		if s.rand.coin() {
			at = BeforeUpstream
		}
	}
	return f, at
}

// rewrite sends the request to the upstream as it was received: the
// request target byte for byte (net/http would re-escape the path and
// drop a query it cannot parse), the headers, including the client's own
// Forwarded and X-Forwarded-* that the proxy strips, and the Host. It adds
// no X-Forwarded-* of its own. The proxy still drops hop-by-hop headers
// (Connection, Keep-Alive, Transfer-Encoding, …), as RFC 9110 requires.
func (s *Server) rewrite(pr *httputil.ProxyRequest) {
	out, in := pr.Out, pr.In
	out.URL.Scheme, out.URL.Host = s.upstream.Scheme, s.upstream.Host
	out.URL.RawQuery, out.URL.ForceQuery = in.URL.RawQuery, in.URL.ForceQuery
	if target := in.RequestURI; strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "//") {
		// An opaque URL is written on the request line as it is.
		path, _, _ := strings.Cut(target, "?")
		out.URL.Opaque, out.URL.Path, out.URL.RawPath = path, "", ""
	}
	for _, k := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := in.Header[k]; ok {
			out.Header[k] = v
		}
	}
	out.Host = in.Host
}

// modifyResponse adds the rate-limit headers, discards the answer when
// the plan says so, and adds the latency of the way back.
func (s *Server) modifyResponse(resp *http.Response) error {
	ctx := resp.Request.Context()
	p := planOf(ctx)
	if p.fault != noFault {
		drain(resp.Body)
		return errInjected
	}
	s.limitHeaders(resp.Header, p)
	if !sleep(ctx, s.Latency) {
		return ctx.Err()
	}
	return nil
}

// proxyError ends a forwarded request that got no answer to pass on:
// one discarded on purpose, or one the upstream did not answer.
func (s *Server) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	p := planOf(r.Context())
	switch {
	case errors.Is(err, errInjected) && p.fault == resetFault:
		s.stats.resets.Add(1)
		s.stats.resetsFwd.Add(1)
		if sleep(r.Context(), s.Latency) {
			reset(w)
		}
		return
	case errors.Is(err, errInjected):
		s.stats.badGateway.Add(1)
		s.stats.badGatewayFwd.Add(1)
	case r.Context().Err() != nil:
		return // the client is gone
	default:
		s.stats.upstreamErrors.Add(1)
		s.Logger.Warn("gateway: upstream did not answer", "method", r.Method, "target", r.RequestURI, "err", err)
	}
	s.answer(w, r, http.StatusBadGateway, p)
}

// answer writes one of the gateway's own answers, after the latency of
// the way back: a small HTML page as nginx writes it, not the API's JSON.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, status int, p *plan) {
	if !sleep(r.Context(), s.Latency) {
		return
	}
	h := w.Header()
	s.limitHeaders(h, p)
	h.Set("Server", "nginx")
	h.Set("Content-Type", "text/html")
	body := errorPage(status)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// errorPage is nginx's page for an error status.
func errorPage(status int) string {
	line := fmt.Sprintf("%d %s", status, http.StatusText(status))
	return "<html>\r\n<head><title>" + line + "</title></head>\r\n<body>\r\n<center><h1>" + line +
		"</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
}

// limitHeaders adds the rate-limit headers of HeaderStyle when asked for.
func (s *Server) limitHeaders(h http.Header, p *plan) {
	if !s.RateLimitHeaders || s.bucket == nil {
		return
	}
	l := p.limit
	switch s.HeaderStyle {
	case XHeaders:
		h.Set("X-RateLimit-Limit", strconv.Itoa(l.limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(l.remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(l.fullAt.Unix()+boolInt(l.fullAt.Nanosecond() > 0), 10))
	default:
		h.Set("RateLimit-Limit", strconv.Itoa(l.limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(l.remaining))
		h.Set("RateLimit-Reset", strconv.FormatInt(l.reset, 10))
		h.Set("RateLimit-Policy", fmt.Sprintf("%d;w=%d", l.limit, l.window))
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// reset ends the connection without an answer. Over HTTP/1 it sends a
// TCP RST (linger 0, then close); over HTTP/2, where one connection
// carries other requests, it resets the stream.
func reset(w http.ResponseWriter) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if nc, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS
		c = nc.NetConn()
	}
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = c.Close()
}
