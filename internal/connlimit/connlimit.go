// Package connlimit caps the connections an HTTP server holds at once.
//
// A plain limit (golang.org/x/net/netutil.LimitListener) makes a new
// connection wait while the cap is reached, so a flood of connections that
// send nothing keeps out a client with a request to make until they time
// out. This listener instead makes room by closing the connection that has
// been idle longest: one that has not sent a complete request header yet,
// or a keep-alive connection between requests. Connections in the middle of
// a request and hijacked ones (websockets) are never closed by it; when
// every connection is busy, Accept waits for one to end.
package connlimit

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// Listener holds at most max connections at once (one more waits in
// Accept while every slot is busy). Set its Hook as (part of) the
// http.Server's ConnState, so that it knows which are idle.
type Listener struct {
	net.Listener
	max int

	mu      sync.Mutex
	conns   map[*conn]struct{}
	seq     uint64
	freed   chan struct{}
	done    chan struct{}
	once    sync.Once
	evicted atomic.Int64
}

// Listen wraps ln so that at most max connections are open at once; max
// below 1 means 1.
func Listen(ln net.Listener, max int) *Listener {
	if max < 1 {
		max = 1
	}
	return &Listener{Listener: ln, max: max, conns: map[*conn]struct{}{},
		freed: make(chan struct{}, 1), done: make(chan struct{})}
}

type conn struct {
	net.Conn
	l     *Listener
	once  sync.Once
	state http.ConnState // guarded by l.mu
	since uint64         // when it entered state, in accept order; guarded by l.mu
}

// Close closes the connection and frees its slot.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		c.l.signal()
	})
	return err
}

func (l *Listener) signal() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// Accept accepts a connection, then makes room for it: it closes the
// longest-idle connection when the cap is reached, or waits for one to end
// when every connection is busy. Room is made only for a connection that
// has arrived, so the cap is never undercut.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		l.mu.Lock()
		if len(l.conns) < l.max {
			l.seq++
			lc := &conn{Conn: c, l: l, state: http.StateNew, since: l.seq}
			l.conns[lc] = struct{}{}
			l.mu.Unlock()
			return lc, nil
		}
		victim := l.oldestIdle()
		l.mu.Unlock()
		if victim != nil {
			l.evicted.Add(1)
			victim.Close()
			continue
		}
		select {
		case <-l.freed:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// oldestIdle returns the connection idle the longest, or nil; l.mu is held.
func (l *Listener) oldestIdle() *conn {
	var victim *conn
	for c := range l.conns {
		if (c.state == http.StateNew || c.state == http.StateIdle) && (victim == nil || c.since < victim.since) {
			victim = c
		}
	}
	return victim
}

// Hook records a connection's state change; connections this listener did
// not accept are ignored.
func (l *Listener) Hook(c net.Conn, s http.ConnState) {
	lc, ok := c.(*conn)
	if !ok || lc.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, open := l.conns[lc]; !open {
		return
	}
	l.seq++
	lc.state, lc.since = s, l.seq
}

// Close stops listening; open connections stay open.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// Open returns how many connections are open.
func (l *Listener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// Evicted returns how many idle connections were closed to make room.
func (l *Listener) Evicted() int64 { return l.evicted.Load() }
