package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHostAllowedParsesTheHostStrictly: a Host is a loopback name or
// address with a port of digits, or nothing after it; whatever follows
// the colon that is not a port makes it no loopback Host at all.
func TestHostAllowedParsesTheHostStrictly(t *testing.T) {
	g := &Guard{PublicURL: "https://abc.tunnel.example"}
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8090": true, "127.0.0.1": true, "127.0.0.1:8090": true, "127.9.9.9:1": true,
		"[::1]": true, "[::1]:8090": true, "abc.tunnel.example": true, "abc.tunnel.example:443": true, "127.0.0.1:65535": true,

		"127.0.0.1:8090.evil.test": false, "localhost:8090.evil.test": false, "[::1]:8090.evil.test": false,
		"127.0.0.1:80x": false, "127.0.0.1:": false, "127.0.0.1:+80": false, "127.0.0.1:-1": false, "127.0.0.1: 80": false,
		"127.0.0.1:65536": false, "127.0.0.1:123456": false, "127.0.0.1:8090:8090": false,
		"[::1]x": false, "[::1]:": false, "[::1": false, "::1": false, "[127.0.0.1]": false, "[localhost]": false,
		"abc.tunnel.example:443.evil.test": false, "evil.test": false, "127.0.0.1.evil.test": false, "": false, ":8090": false,
	} {
		assert.Equal(t, want, g.HostAllowed(host), "%q", host)
	}
}
