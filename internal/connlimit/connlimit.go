package connlimit

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// SlowAfter is how long a new connection's request header, or a request's
// body, may take before the connection may be closed to make room: a
// client sending at any speed gets that long.
const SlowAfter = time.Second

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
	slow    atomic.Int64
	// watching is set by WatchBodies: requests are then watched on the
	// connections that ConnContext saw.
	watching atomic.Bool
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
	l        *Listener
	once     sync.Once
	state    http.ConnState // guarded by l.mu
	since    uint64         // when it entered state, in accept order; guarded by l.mu
	accepted time.Time
	watched  atomic.Bool // seen by ConnContext
	// bodyStart is when the request (its header, then its body) began to
	// be awaited (0: none pending), bodyRead how much of its body the
	// handler has read.
	bodyStart atomic.Int64
	bodyRead  atomic.Int64
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

// NetConn returns the connection the listener accepted, as tls.Conn's
// does: what a handler that hijacks it may set socket options on.
func (c *conn) NetConn() net.Conn { return c.Conn }

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
			lc := &conn{Conn: c, l: l, state: http.StateNew, since: l.seq, accepted: time.Now()}
			l.conns[lc] = struct{}{}
			l.mu.Unlock()
			return lc, nil
		}
		victim := l.oldestIdle(time.Now())
		if victim == nil {
			if victim = l.slowestBody(time.Now()); victim != nil {
				l.slow.Add(1)
			}
		}
		l.mu.Unlock()
		if victim != nil {
			l.evicted.Add(1)
			victim.Close()
			continue
		}
		// Look again when one ends, or when bodies may have become slow.
		t := time.NewTimer(SlowAfter / 10)
		select {
		case <-l.freed:
		case <-t.C:
		case <-l.done:
			t.Stop()
			c.Close()
			return nil, net.ErrClosed
		}
		t.Stop()
	}
}

// slowestBody returns the connection whose request body has come slowest
// (bytes read per second since it began to be awaited), among those begun
// at least SlowAfter ago, or nil; l.mu is held.
func (l *Listener) slowestBody(now time.Time) *conn {
	var victim *conn
	var worst float64
	for c := range l.conns {
		start := c.bodyStart.Load()
		if start == 0 || c.state != http.StateActive {
			continue
		}
		elapsed := now.Sub(time.Unix(0, start))
		if elapsed < SlowAfter {
			continue
		}
		rate := float64(c.bodyRead.Load()) / elapsed.Seconds()
		if victim == nil || rate < worst {
			victim, worst = c, rate
		}
	}
	return victim
}

// oldestIdle returns the keep-alive connection idle the longest, else the
// oldest that has not sent a whole request header within SlowAfter, or
// nil; l.mu is held.
func (l *Listener) oldestIdle(now time.Time) *conn {
	var idle, silent *conn
	for c := range l.conns {
		switch {
		case c.state == http.StateIdle && (idle == nil || c.since < idle.since):
			idle = c
		case c.state == http.StateNew && now.Sub(c.accepted) >= SlowAfter && (silent == nil || c.since < silent.since):
			silent = c
		}
	}
	if idle != nil {
		return idle
	}
	return silent
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
	if s == http.StateActive && l.watching.Load() && lc.watched.Load() {
		// A request's header is whole; until the handler runs, count
		// from here.
		lc.bodyRead.Store(0)
		lc.bodyStart.Store(time.Now().UnixNano())
	} else {
		lc.bodyStart.Store(0)
	}
}

type connKey struct{}

// ConnContext is for the http.Server's ConnContext: it lets WatchBodies
// find the connection of a request.
func (l *Listener) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*conn); ok && lc.l == l {
		lc.watched.Store(true)
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// WatchBodies tells the listener when each request's header is whole and,
// for a request with a body, when the body began to be awaited and how
// much of it the handler has read, so that Accept can close the slowest to
// make room. A body not read to its end when the handler returns stays
// watched while the server drains it. It needs ConnContext set on the
// server; without it, only idle connections are closed.
func (l *Listener) WatchBodies(next http.Handler) http.Handler {
	l.watching.Store(true)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lc, ok := r.Context().Value(connKey{}).(*conn)
		if !ok || lc.l != l {
			next.ServeHTTP(w, r)
			return
		}
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			// The request is whole: it is being answered.
			lc.bodyStart.Store(0)
			next.ServeHTTP(w, r)
			return
		}
		// The header took its time; the body's rate counts from here.
		lc.bodyRead.Store(0)
		lc.bodyStart.Store(time.Now().UnixNano())
		r.Body = &watchedBody{ReadCloser: r.Body, c: lc, left: r.ContentLength}
		next.ServeHTTP(w, r)
	})
}

// watchedBody counts what is read of a body; left is what remains of a
// known length (negative: unknown, until EOF).
type watchedBody struct {
	io.ReadCloser
	c    *conn
	left int64
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.bodyRead.Add(int64(n))
	if b.left > 0 {
		b.left -= int64(n)
	}
	if err != nil || b.left == 0 {
		b.c.bodyStart.Store(0)
	}
	return n, err
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

// Evicted returns how many connections were closed to make room, idle
// ones and slow bodies.
func (l *Listener) Evicted() int64 { return l.evicted.Load() }

// EvictedSlow returns how many of those were slow bodies.
func (l *Listener) EvictedSlow() int64 { return l.slow.Load() }

// BodyRead tells the listener, from a handler, that it has read all of
// r's body it will read (a JSON decoder stops at the end of the value,
// before a trailing newline): r is being answered, and its connection is
// no longer a slow body to close, however long the answer takes.
func BodyRead(r *http.Request) {
	if lc, ok := r.Context().Value(connKey{}).(*conn); ok {
		lc.bodyStart.Store(0)
	}
}
