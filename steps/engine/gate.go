package engine

import (
	"context"
	"sync"
	"time"
)

// A run's scenarios mostly wait: for a notification, for the quiet window
// after it, for a retry. A run lasts at least as long as its longest
// wait, so it starts those scenarios first and runs the others in their
// shadow: godog is handed every selected scenario at once, and a Gate of
// Concurrency slots lets them start longest wait first, the rest in
// godog's order. The suite says how long each scenario waits.

// A Gate lets at most n scenarios run at once, the one that waits longest
// on the delivery schedule first, then in the order they came.
type Gate struct {
	mu      sync.Mutex
	free    int
	next    uint64
	waiting []*entrant // longest wait first, then by arrival
}

type entrant struct {
	wait  time.Duration
	seq   uint64
	ready chan struct{}
}

// NewGate returns a gate of n slots.
func NewGate(n int) *Gate { return &Gate{free: n} }

// Enter waits for a slot for a scenario that waits wait on the delivery
// schedule, and returns what gives the slot back (once, however often it
// is called); or ctx's error, when ctx ends first.
func (g *Gate) Enter(ctx context.Context, wait time.Duration) (func(), error) {
	g.mu.Lock()
	if g.free > 0 && len(g.waiting) == 0 {
		g.free--
		g.mu.Unlock()
		return g.releaser(), nil
	}
	e := &entrant{wait: wait, seq: g.next, ready: make(chan struct{})}
	g.next++
	i := len(g.waiting)
	for i > 0 && g.waiting[i-1].wait < wait {
		i--
	}
	g.waiting = append(g.waiting, nil)
	copy(g.waiting[i+1:], g.waiting[i:])
	g.waiting[i] = e
	g.mu.Unlock()
	select {
	case <-e.ready:
		return g.releaser(), nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		for i, w := range g.waiting {
			if w == e {
				g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
				return func() {}, ctx.Err()
			}
		}
		// Let in meanwhile: the slot goes to the next.
		g.pass()
		return func() {}, ctx.Err()
	}
}

// releaser gives a slot back once.
func (g *Gate) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.pass()
			g.mu.Unlock()
		})
	}
}

// pass hands a freed slot to the first waiting, or frees it. g.mu is held.
func (g *Gate) pass() {
	if len(g.waiting) == 0 {
		g.free++
		return
	}
	e := g.waiting[0]
	g.waiting = g.waiting[1:]
	close(e.ready)
}
