package receiver

import (
	"context"
	"sync"
	"time"
)

// taking keeps when each notification being taken in (read, checked and
// stored) began, so that Settle can wait for those that came before it.
type taking struct {
	mu   sync.Mutex
	next uint64
	open map[uint64]time.Time
}

// begin notes a notification coming in at; the function it returns notes
// that it is stored or refused, and may be called more than once.
func (k *taking) begin(at time.Time) func() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.open == nil {
		k.open = map[uint64]time.Time{}
	}
	k.next++
	id := k.next
	k.open[id] = at
	return func() {
		k.mu.Lock()
		delete(k.open, id)
		k.mu.Unlock()
	}
}

// before tells whether a notification that began at or before t is still
// being taken in.
func (k *taking) before(t time.Time) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, at := range k.open {
		if !at.After(t) {
			return true
		}
	}
	return false
}

// settlePoll is how often Settle looks again.
const settlePoll = 10 * time.Millisecond

// Settle waits until every notification whose request had come in when
// it was called is stored (and so found by List and Wait) or refused. On
// a busy machine storing can lag well behind receiving; a record's
// ReceivedAt is when its request came in, whenever it was stored. It
// returns ErrTimeout when ctx ends first.
func (rv *Receiver) Settle(ctx context.Context) error {
	now := time.Now()
	for rv.taking.before(now) {
		t := time.NewTimer(settlePoll)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ErrTimeout
		}
	}
	return nil
}
