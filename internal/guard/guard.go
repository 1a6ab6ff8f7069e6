package guard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"github.com/firmakit/firmakit"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/firmakit/firmakit/internal/apierror"
	"github.com/labstack/echo/v4"
)

// ProxyHeaders are the headers that proxies, load balancers and tunnels
// add (Forwarded, X-Forwarded-*, X-Real-IP, CF-Connecting-IP,
// True-Client-IP, Via and the like). A request that carries any of them
// came from outside, whatever its Host says: a reverse proxy on the same
// machine connects from loopback and may rewrite Host to loopback.
var ProxyHeaders = []string{
	"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Port",
	"X-Forwarded-Server", "X-Forwarded-Ssl", "X-Original-Forwarded-For", "X-Real-Ip", "X-Client-Ip",
	"X-Cluster-Client-Ip", "Cf-Connecting-Ip", "Cf-Ray", "True-Client-Ip", "Fastly-Client-Ip",
	"X-Azure-Clientip", "X-Appengine-User-Ip", "Via",
}

// Proxied returns the first of ProxyHeaders that h carries, if any.
func Proxied(h http.Header) (string, bool) {
	for _, name := range ProxyHeaders {
		if _, ok := h[name]; ok {
			return name, true
		}
	}
	return "", false
}

// NewToken returns a random token of 32 hexadecimal digits.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// IsLoopback tells whether a listener's address is a loopback one.
func IsLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Guard holds one server's rules. Set its fields before the server takes
// requests; they are read, never written, afterwards.
type Guard struct {
	// Name names the server in messages: "receiver", "reference server".
	Name string
	// Token, when set, is what RequireToken asks for; when empty,
	// RequireToken lets through what did not come through a proxy.
	Token string
	// PublicURL is the URL the server is reached at from outside, if one
	// was given: its host is allowed as Host and Origin.
	PublicURL string
	// Self returns the server's own base URL (http://host:port).
	Self func() string
	// HostHint ends the message of a refused Host: how to allow that
	// name, for the path asked.
	HostHint func(path string) string
	// TokenMessage is the message of a missing or wrong token.
	TokenMessage string
	// ProxyHint ends the message of a proxied request refused for want of
	// a token: how to start the server with one.
	ProxyHint string
}

// Messages of the guards, as clients see them.
const (
	msgCrossSite     = "refused: this call changes the %s and came from another site's page (Sec-Fetch-Site: %s); use the dashboard itself, or a client that is not a browser"
	msgForeignOrigin = "refused: this call changes the %s and came from a page at %s, not from the %s's own pages"
	msgNotJSON       = "the body must be JSON, sent with Content-Type: application/json (curl: -H 'Content-Type: application/json')"
	msgProxied       = "refused: this request came through a proxy or tunnel (it carries %s), so it may come from anyone, and the %s has no token; %s"
)

func (g *Guard) publicHost() (host, hostport string) {
	if g.PublicURL == "" {
		return "", ""
	}
	u, err := url.Parse(g.PublicURL)
	if err != nil {
		return "", ""
	}
	return strings.ToLower(u.Hostname()), strings.ToLower(u.Host)
}

// CheckHost refuses, when there is no token, a request whose Host is not
// a loopback name or address nor the public URL's host. A page on another
// site can make its own name resolve to 127.0.0.1 (DNS rebinding); the
// browser then sends that name as Host, and the page could otherwise read
// and change everything a token-less server holds.
func (g *Guard) CheckHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if g.Token != "" || g.HostAllowed(c.Request().Host) {
			return next(c)
		}
		msg := fmt.Sprintf("refused: Host %q is not this %s's. Without a token it answers only to localhost, 127.0.0.1 and [::1] (so that no web page can reach it through DNS rebinding)",
			c.Request().Host, g.Name)
		if g.HostHint != nil {
			msg += "; " + g.HostHint(c.Request().URL.Path)
		}
		return apierror.New(http.StatusForbidden, msg)
	}
}

// HostAllowed tells whether a Host header names this server without a
// token: any loopback name or address, with any port, or the public URL's
// host.
func (g *Guard) HostAllowed(hostport string) bool {
	host, ok := SplitHost(hostport)
	if !ok {
		return false
	}
	host = strings.ToLower(host)
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	public, _ := g.publicHost()
	return public != "" && host == public
}

// SplitHost returns the host of a Host header, strictly: a name or an
// IPv4 address, or an IPv6 address in brackets, then optionally ":" and a
// port of 1 to 5 digits up to 65535, and nothing else. net.SplitHostPort
// reads "127.0.0.1:80.evil.test" as 127.0.0.1 with the port "80.evil.test";
// here it is no host at all (false).
func SplitHost(hostport string) (string, bool) {
	host, port, hasPort := hostport, "", false
	if rest, ok := strings.CutPrefix(hostport, "["); ok {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", false
		}
		host, rest = rest[:end], rest[end+1:]
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil && !strings.Contains(host, ":") {
			return "", false // brackets hold an IPv6 address, nothing else
		}
		if rest != "" {
			port, hasPort = strings.CutPrefix(rest, ":")
			if !hasPort {
				return "", false
			}
		}
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port, hasPort = hostport[:i], hostport[i+1:], true
		if strings.ContainsRune(host, ':') {
			return "", false // an IPv6 address without brackets
		}
	}
	if host == "" || hasPort && !validPort(port) {
		return "", false
	}
	return host, true
}

// validPort tells whether a Host header's port is 1 to 5 ASCII digits
// naming a port up to 65535.
func validPort(port string) bool {
	if port == "" || len(port) > 5 {
		return false
	}
	n := 0
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
		n = n*10 + int(port[i]-'0')
	}
	return n <= 65535
}

// RefuseCrossSite refuses what a browser sent on behalf of a page that is
// not the server's own: Sec-Fetch-Site cross-site or same-site (another
// port of localhost is the same site), or an Origin that is not the
// server's. Clients that are not browsers send neither header.
func (g *Guard) RefuseCrossSite(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if site := req.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			return apierror.New(http.StatusForbidden, fmt.Sprintf(msgCrossSite, g.Name, site))
		}
		if o := req.Header.Get("Origin"); o != "" && !g.OwnOrigin(o, req.Host) {
			return apierror.New(http.StatusForbidden, fmt.Sprintf(msgForeignOrigin, g.Name, o, g.Name))
		}
		return next(c)
	}
}

// RequireJSON refuses a call with a body that is not declared JSON (a
// form or text/plain is what a page can send without asking first).
func RequireJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodGet && req.Method != http.MethodDelete || req.ContentLength > 0 {
			mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				return apierror.New(http.StatusUnsupportedMediaType, msgNotJSON)
			}
		}
		return next(c)
	}
}

// OwnOrigin tells whether an Origin header is the server's: the host it
// was reached at, its own address or its public URL.
func (g *Guard) OwnOrigin(origin, reqHost string) bool {
	u, err := firmakit.ParseHTTPURL(origin)
	if err != nil {
		return false // includes "null", sent by sandboxed frames and file: pages
	}
	h := strings.ToLower(u.Host)
	_, public := g.publicHost()
	self := ""
	if g.Self != nil {
		self = strings.TrimPrefix(g.Self(), "http://")
	}
	for _, own := range []string{reqHost, self, public} {
		if own != "" && h == strings.ToLower(own) {
			return true
		}
	}
	return false
}

// RequireToken guards what only the developer may read or change. With a
// token, the token comes as a Bearer header or a ?token= query, never as
// a cookie: a browser sends a cookie of 127.0.0.1 to every server on
// 127.0.0.1, whatever its port (neither HttpOnly nor SameSite changes
// that), so a cookie would give the token to any other local server the
// developer's browser visits. A page sends it itself, to its own origin
// only (the receiver's dashboard keeps it from its own URL). Without a
// token, a request that came through a proxy or tunnel (Proxied) is
// refused: it may come from anyone.
func (g *Guard) RequireToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if g.Token == "" {
			if h, ok := Proxied(req.Header); ok {
				return apierror.New(http.StatusForbidden, fmt.Sprintf(msgProxied, h, g.Name, g.ProxyHint))
			}
			return next(c)
		}
		var given string
		if scheme, tok, ok := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") {
			given = strings.TrimSpace(tok)
		}
		if q := c.QueryParam("token"); q != "" && given == "" {
			given = q
		}
		if subtle.ConstantTimeCompare([]byte(given), []byte(g.Token)) != 1 {
			return apierror.New(http.StatusUnauthorized, g.TokenMessage)
		}
		return next(c)
	}
}
