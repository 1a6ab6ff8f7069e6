package peer

import (
	"net/http"
	"strings"
)

// MaxHeaderBytes bounds the status line and headers of an answer from a
// peer. Go's default is 10 MiB, which a target answering 8 MiB of headers
// to each of 64 scenarios at once turns into half a GiB. Real answers
// carry a few KiB (nginx refuses an upstream's past 4 or 8 KiB, Node's
// past 16 KiB); past this bound the request fails with net/http's
// "server response headers exceeded" error, as a broken answer.
const MaxHeaderBytes = 64 << 10

// Bound sets tr's bound on answer headers and returns it. HTTP/2 takes
// the same bound from it.
func Bound(tr *http.Transport) *http.Transport {
	tr.MaxResponseHeaderBytes = MaxHeaderBytes
	return tr
}

// Transport returns a copy of http.DefaultTransport (proxies from the
// environment, HTTP/2 where TLS offers it) within the bounds.
func Transport() *http.Transport {
	return Bound(http.DefaultTransport.(*http.Transport).Clone())
}

// HeaderBomb is a handler that answers every request 200 with about n
// bytes of headers and an empty body: the hostile peer of the tests and
// of the abuse bench.
func HeaderBomb(n int) http.Handler {
	value := strings.Repeat("b", 4000)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for sent := 0; sent < n; sent += len(value) + 12 {
			h.Add("X-Bomb", value)
		}
		w.WriteHeader(http.StatusOK)
	})
}
