package receiver

import (
	"context"
	"errors"
	"fmt"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Why the receiver refuses to send somewhere.
var (
	// ErrPrivateDestination: a replay to a loopback, link-local, private
	// (RFC 1918, ULA), CGNAT, multicast or unspecified address, without
	// Receiver.AllowPrivateReplay. Whoever can call the API could
	// otherwise make the developer's machine reach its own network and
	// read the answer.
	ErrPrivateDestination = errors.New("the destination is a loopback, link-local, private or otherwise internal address; " +
		"a replay goes there only when the receiver was started with --allow-private-replay")
	// ErrSelfDestination: a replay or forward to the receiver itself (its
	// listen address or its public URL), refused in any case: a replay of
	// a replay call calls itself again until file descriptors run out.
	ErrSelfDestination = errors.New("the destination is this receiver itself, which nothing it sends may reach")
)

// internalPrefixes are the ranges refused besides what net.IP's own
// predicates name (loopback, private, link-local, multicast, unspecified).
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // CGNAT
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved
	netip.MustParsePrefix("255.255.255.255/32"), // broadcast
	netip.MustParsePrefix("64:ff9b::/96"),       // NAT64: an IPv4 address inside
	netip.MustParsePrefix("64:ff9b:1::/48"),     // local NAT64
	netip.MustParsePrefix("2002::/16"),          // 6to4: an IPv4 address inside
	netip.MustParsePrefix("fec0::/10"),          // site-local, deprecated
	netip.MustParsePrefix("100::/64"),           // discard
}

// internal tells whether ip is an address a replay may reach only with
// AllowPrivateReplay.
func internal(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return true
	}
	for _, addr := range []netip.Addr{a, a.Unmap()} {
		if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
			addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() {
			return true
		}
		for _, p := range internalPrefixes {
			if p.Contains(addr) {
				return true
			}
		}
	}
	return false
}

// destinations decides where the receiver may send: never to itself, and
// to internal addresses only when allowPrivate. A name is resolved once
// and only the addresses checked are dialled, each checked again at the
// socket (a net.Dialer Control), so that a name that resolves to a public
// address when checked and to an internal one when dialled (DNS
// rebinding) gets nowhere.
type destinations struct {
	allowPrivate bool
	// self returns the receiver's listen address and its public URL.
	self     func() (net.Addr, string)
	lookupIP func(ctx context.Context, host string) ([]net.IP, error)
}

// checkURL checks a URL before anything is sent: its scheme, whether it
// names the receiver's public URL, and every address its host resolves
// to. Errors wrap ErrSelfDestination or ErrPrivateDestination, or say
// that the URL is not usable.
func (d *destinations) checkURL(ctx context.Context, raw string) error {
	u, err := firmakit.ParseHTTPURL(raw)
	if err != nil {
		return errors.New("url must be an http(s) URL")
	}
	if _, public := d.self(); public != "" {
		if pu, err := url.Parse(public); err == nil && hostPort(pu) == hostPort(u) {
			return fmt.Errorf("%w: %s is its public URL", ErrSelfDestination, u.Host)
		}
	}
	_, err = d.resolve(ctx, u.Hostname(), portOf(u))
	return err
}

// hostPort is a URL's host and port, the scheme's default port written
// out, in lower case.
func hostPort(u *url.URL) string {
	return strings.ToLower(net.JoinHostPort(strings.TrimSuffix(u.Hostname(), "."), portOf(u)))
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// resolve returns the addresses of host, after checking each of them.
func (d *destinations) resolve(ctx context.Context, host, port string) ([]net.IP, error) {
	var ips []net.IP
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if ip != nil {
		ips = []net.IP{ip}
	} else {
		found, err := d.lookupIP(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("%s could not be resolved: %w", host, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s resolves to no address", host)
		}
		ips = found
	}
	for _, addr := range ips {
		if err := d.checkIP(addr, port); err != nil {
			if ip == nil {
				return nil, fmt.Errorf("%w (%s resolves to %s)", err, host, addr)
			}
			return nil, err
		}
	}
	return ips, nil
}

// checkIP checks one address and port, as resolved or as dialled.
func (d *destinations) checkIP(ip net.IP, port string) error {
	if listen, _ := d.self(); listen != nil {
		if tcp, ok := listen.(*net.TCPAddr); ok && port == strconv.Itoa(tcp.Port) &&
			(ip.IsLoopback() || ip.IsUnspecified() || ip.Equal(tcp.IP) || localAddress(ip)) {
			return fmt.Errorf("%w: %s is its listen address", ErrSelfDestination, net.JoinHostPort(ip.String(), port))
		}
	}
	if !d.allowPrivate && internal(ip) {
		return fmt.Errorf("%w: %s", ErrPrivateDestination, ip)
	}
	return nil
}

// localAddress tells whether ip is one of this machine's own addresses.
func localAddress(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// control is the dialer's last word, on the address about to be connected.
func (d *destinations) control(_, address string, _ syscall.RawConn) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("refusing to dial %s: not an IP address", address)
	}
	return d.checkIP(ip, port)
}

// client returns an HTTP client that dials only what d allows, through no
// proxy (a proxy would hide where a request goes), and follows no
// redirect: a request goes only to the URL its caller named. timeout 0:
// none but the request's context.
func (d *destinations) client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: d.control}
	// What a destination answers costs a bounded amount (package peer):
	// its headers here, the excerpt its caller keeps, the timeout.
	tr := &http.Transport{
		MaxResponseHeaderBytes: peer.MaxHeaderBytes,
		Proxy:                  nil, ForceAttemptHTTP2: true, MaxIdleConns: 100, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := d.resolve(ctx, host, port)
			if err != nil {
				return nil, err
			}
			var first error
			for _, ip := range ips {
				c, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
				if err == nil {
					return c, nil
				}
				if first == nil {
					first = err
				}
			}
			return nil, first
		},
	}
	return &http.Client{Timeout: timeout, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
