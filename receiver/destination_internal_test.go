package receiver

import (
	"errors"
	"net"
	"testing"
)

// TestDialTimeCheck checks the dialer's Control on its own: the address
// about to be connected is checked whatever resolved it.
func TestDialTimeCheck(t *testing.T) {
	self := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8090}
	d := &destinations{self: func() (net.Addr, string) { return self, "" }}
	for addr, want := range map[string]error{
		"10.0.0.1:80":          ErrPrivateDestination,
		"169.254.169.254:80":   ErrPrivateDestination,
		"127.0.0.1:3000":       ErrPrivateDestination,
		"[::1]:3000":           ErrPrivateDestination,
		"100.100.1.1:80":       ErrPrivateDestination,
		"[fd12::1]:80":         ErrPrivateDestination,
		"127.0.0.1:8090":       ErrSelfDestination,
		"203.0.113.7:80":       nil,
		"[2001:4860::8888]:80": nil,
	} {
		if err := d.control("tcp", addr, nil); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("control(%s) = %v, want %v", addr, err, want)
		}
	}
	d.allowPrivate = true
	if err := d.control("tcp", "127.0.0.1:3000", nil); err != nil {
		t.Errorf("with private destinations allowed: %v", err)
	}
	if err := d.control("tcp", "[::1]:8090", nil); !errors.Is(err, ErrSelfDestination) {
		t.Errorf("the receiver itself, allowed or not: %v", err)
	}
}
