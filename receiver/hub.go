package receiver

import (
	"sync"
	"sync/atomic"
)

// subscriptionBytes bounds the bodies waiting in one subscription: a
// client that lags behind by this much is cut off like one whose buffer is
// full, so that a stalled stream of large records cannot hold them all.
const subscriptionBytes = 64 << 20

// hub fans committed records out to subscribers. A subscriber whose buffer
// is full is cut off (its channel closed), so that no client can slow
// ingestion or the other clients; it reconnects and catches up from storage.
type hub struct {
	mu   sync.Mutex
	subs map[*subscription]struct{}
}

type subscription struct {
	ch     chan *Record
	filter func(*Record) bool
	cut    bool         // closed because it fell behind
	queued atomic.Int64 // body bytes in ch
}

// took tells the subscription that r left its channel.
func (s *subscription) took(r *Record) { s.queued.Add(-int64(len(r.Body))) }

func newHub() *hub { return &hub{subs: map[*subscription]struct{}{}} }

// subscribe returns a subscription receiving every record published after
// the call that passes filter (nil: all).
func (h *hub) subscribe(buffer int, filter func(*Record) bool) *subscription {
	s := &subscription{ch: make(chan *Record, buffer), filter: filter}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
}

// wasCut tells whether s was closed for falling behind.
func (h *hub) wasCut(s *subscription) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return s.cut
}

func (h *hub) publish(recs []*Record) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		for _, r := range recs {
			if s.filter != nil && !s.filter(r) {
				continue
			}
			n := int64(len(r.Body))
			if len(s.ch) > 0 && s.queued.Load()+n > subscriptionBytes {
				s.cut = true
				delete(h.subs, s)
				close(s.ch)
				break
			}
			select {
			case s.ch <- r:
				s.queued.Add(n)
			default:
				s.cut = true
				delete(h.subs, s)
				close(s.ch)
			}
			if s.cut {
				break
			}
		}
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		delete(h.subs, s)
		close(s.ch)
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
