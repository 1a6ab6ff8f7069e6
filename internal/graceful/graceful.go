package graceful

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Tracker follows the state of a server's connections. Set its Hook as
// the server's ConnState.
type Tracker struct {
	mu    sync.Mutex
	conns map[net.Conn]http.ConnState
}

// Hook records a connection's state change.
func (t *Tracker) Hook(c net.Conn, s http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		t.conns = map[net.Conn]http.ConnState{}
	}
	if s == http.StateClosed || s == http.StateHijacked {
		delete(t.conns, c)
		return
	}
	t.conns[c] = s
}

// CloseUnused closes connections that have not begun a request. Go's
// Shutdown, and its SetKeepAlivesEnabled(false), count them as active
// for five seconds; a client's transport often dials one it then does not
// use, and keeps it in its pool for a later request.
func (t *Tracker) CloseUnused() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for c, s := range t.conns {
		if s == http.StateNew {
			c.Close()
			delete(t.conns, c)
		}
	}
}

// Shutdown stops srv: it stops listening, lets requests in flight finish
// for up to grace, closes unused connections at once, then closes what is
// left.
func Shutdown(srv *http.Server, t *Tracker, grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(ctx) }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		t.CloseUnused()
		select {
		case err := <-done:
			if err != nil {
				return srv.Close()
			}
			return nil
		case <-tick.C:
		}
	}
}
