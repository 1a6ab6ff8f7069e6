package receiver

import (
	"strings"

	"github.com/firmakit/firmakit/internal/guard"
)

const tokenCookie = "firmakit_token"

// msgTokenRequired is the answer to a call of the API or the dashboard
// without the token.
const msgTokenRequired = "a token is required: open the dashboard with ?token=<token> or send Authorization: Bearer <token> (the token is printed when the receiver starts)"

// newGuard makes the receiver's guard (see package guard): without a
// token, only loopback names and the --public-url host reach anything,
// hooks included; the token guards every route but the hooks and
// /healthz, and a request that came through a proxy or tunnel needs it.
func (rv *Receiver) newGuard() *guard.Guard {
	rv.guard = &guard.Guard{Name: "receiver", Token: rv.Token, PublicURL: rv.publicURL, Self: rv.URL,
		HostHint: func(path string) string {
			if strings.HasPrefix(path, "/hooks/") {
				return "a receiver behind a tunnel or proxy that keeps the public Host: start it with --public-url https://<that host> to allow that host"
			}
			return "to serve another name, start it with --public-url http://<that name>:<port> or with --token"
		},
		TokenMessage: msgTokenRequired,
		ProxyHint: "start it with --public-url https://<the public name> (it then creates a token and prints it) or with --token T, " +
			"and send Authorization: Bearer <token>; only /hooks/ stay open to senders",
		Cookie: tokenCookie}
	return rv.guard
}

// ownOrigin tells whether an Origin header is the receiver's: the host it
// was reached at, its listen address or its public URL.
func (rv *Receiver) ownOrigin(origin, reqHost string) bool {
	return rv.guard.OwnOrigin(origin, reqHost)
}
