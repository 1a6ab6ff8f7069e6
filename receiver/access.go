package receiver

import (
	"strings"

	"github.com/firmakit/firmakit/internal/guard"
)

// newGuard makes the receiver's guard (see package guard): without a
// token, only loopback names and the --public-url host reach anything,
// hooks included; the token guards every route but the hooks, /healthz
// and the dashboard's static assets, and a request that came through a
// proxy or tunnel needs it. The token never goes in a cookie (see
// guard.RequireToken): the dashboard sends it itself.
func (rv *Receiver) newGuard() *guard.Guard {
	rv.guard = &guard.Guard{Name: "receiver", Token: rv.Token, PublicURL: rv.publicURL, Self: rv.URL,
		HostHint: func(path string) string {
			if strings.HasPrefix(path, "/hooks/") {
				return msgHookHostHint
			}
			return msgHostHint
		},
		TokenMessage: msgTokenRequired,
		ProxyHint:    msgProxyHint}
	return rv.guard
}

// ownOrigin tells whether an Origin header is the receiver's: the host it
// was reached at, its listen address or its public URL.
func (rv *Receiver) ownOrigin(origin, reqHost string) bool {
	return rv.guard.OwnOrigin(origin, reqHost)
}
