package receiver

import (
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// Messages of the guards, as clients see them.
const (
	msgTokenRequired = "a token is required: open the dashboard with ?token=<token> or send Authorization: Bearer <token>"
	msgCrossSite     = "refused: this call changes the receiver and came from another site's page (Sec-Fetch-Site: %s); use the dashboard itself, or a client that is not a browser"
	msgForeignOrigin = "refused: this call changes the receiver and came from a page at %s, not from the receiver's own dashboard"
	msgNotJSON       = "the body must be JSON, sent with Content-Type: application/json (curl: -H 'Content-Type: application/json')"
)

// checkHost refuses, when the receiver has no token, a request whose Host
// is not a loopback name or address nor the --public-url host. A page on
// another site can make its own name resolve to 127.0.0.1 (DNS
// rebinding); the browser then sends that name as Host, and the page could
// otherwise read and change everything a token-less receiver holds.
func (rv *Receiver) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if rv.Token != "" || rv.hostAllowed(c.Request().Host) {
			return next(c)
		}
		msg := fmt.Sprintf("refused: Host %q is not this receiver's. Without a token it answers only to localhost, 127.0.0.1 and [::1] (so that no web page can reach it through DNS rebinding)", c.Request().Host)
		if strings.HasPrefix(c.Request().URL.Path, "/hooks/") {
			msg += "; a receiver behind a tunnel or proxy that keeps the public Host: start it with --public-url https://<that host> to allow that host"
		} else {
			msg += "; to serve another name, start it with --public-url http://<that name>:<port> or with --token"
		}
		return apiError(http.StatusForbidden, msg)
	}
}

// hostAllowed tells whether a Host header names this receiver without a
// token: any loopback name or address, with any port, or the public URL's
// host.
func (rv *Receiver) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	return rv.publicHost != "" && host == rv.publicHost
}

// refuseCrossSite refuses a state-changing call (and a stream) that a
// browser sent on behalf of a page that is not the receiver's own:
// Sec-Fetch-Site cross-site or same-site (another port of localhost is the
// same site), an Origin that is not the receiver's, or a body that is not
// declared JSON (a form or text/plain is what a page can send without
// asking first). Clients that are not browsers send neither header.
func (rv *Receiver) refuseCrossSite(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if site := req.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			return apiError(http.StatusForbidden, fmt.Sprintf(msgCrossSite, site))
		}
		if o := req.Header.Get("Origin"); o != "" && !rv.ownOrigin(o, req.Host) {
			return apiError(http.StatusForbidden, fmt.Sprintf(msgForeignOrigin, o))
		}
		if req.Method != http.MethodGet && req.Method != http.MethodDelete || req.ContentLength > 0 {
			mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				return apiError(http.StatusUnsupportedMediaType, msgNotJSON)
			}
		}
		return next(c)
	}
}

// ownOrigin tells whether an Origin header is the receiver's: the host it
// was reached at, its listen address or its public URL.
func (rv *Receiver) ownOrigin(origin, reqHost string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // includes "null", sent by sandboxed frames and file: pages
	}
	h := strings.ToLower(u.Host)
	for _, own := range []string{reqHost, strings.TrimPrefix(rv.URL(), "http://"), rv.publicHostPort} {
		if own != "" && h == strings.ToLower(own) {
			return true
		}
	}
	return false
}

const tokenCookie = "firmakit_token"

// requireToken guards the dashboard and the API when a token is set. The
// token comes as a Bearer header, a ?token= query or the cookie that a good
// ?token= sets (so that the dashboard's own calls pass). A wrong token
// leaves the cookie as it was.
func (rv *Receiver) requireToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if rv.Token == "" {
			return next(c)
		}
		req := c.Request()
		var given string
		fromQuery := false
		if scheme, tok, ok := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") {
			given = strings.TrimSpace(tok)
		}
		if q := c.QueryParam("token"); q != "" && given == "" {
			given, fromQuery = q, true
		}
		if given == "" {
			if ck, err := c.Cookie(tokenCookie); err == nil {
				given = ck.Value
			}
		}
		if subtle.ConstantTimeCompare([]byte(given), []byte(rv.Token)) != 1 {
			return apiError(http.StatusUnauthorized, msgTokenRequired)
		}
		if fromQuery {
			c.SetCookie(&http.Cookie{Name: tokenCookie, Value: given, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		return next(c)
	}
}
