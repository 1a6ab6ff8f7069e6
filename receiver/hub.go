package receiver

import (
	"sync"
	"sync/atomic"
)

// subscriptionBytes bounds the bytes of the records waiting in one
// subscription: a client that lags behind by this much is cut off like one
// whose buffer is full, so that a stalled stream of large records cannot
// hold them all. hubBytes bounds them for all subscriptions together: past
// it, the subscription furthest behind is cut off. Cut subscriptions let
// go of their records at once.
const (
	subscriptionBytes = 8 << 20
	hubBytes          = 16 << 20
)

// hub fans committed records out to subscribers. A subscriber whose buffer
// is full is cut off (its channel closed), so that no client can slow
// ingestion or the other clients; it reconnects and catches up from storage.
type hub struct {
	mu     sync.Mutex
	subs   map[*subscription]struct{}
	queued int64 // bytes waiting in all subscriptions, counted in each
}

type subscription struct {
	ch     chan *Record
	filter func(*Record) bool
	cut    bool         // closed because it fell behind
	queued atomic.Int64 // bytes of the records in ch
	hub    *hub
}

// cost is what a record waiting in a subscription is counted for.
func cost(r *Record) int64 { return int64(len(r.Body)+len(r.headerJSON)) + 512 }

// took tells the subscription that r left its channel.
func (s *subscription) took(r *Record) {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if _, ok := s.hub.subs[s]; ok {
		s.queued.Add(-cost(r))
		s.hub.queued -= cost(r)
	}
}

func newHub() *hub { return &hub{subs: map[*subscription]struct{}{}} }

// subscribe returns a subscription receiving every record published after
// the call that passes filter (nil: all).
func (h *hub) subscribe(buffer int, filter func(*Record) bool) *subscription {
	s := &subscription{ch: make(chan *Record, buffer), filter: filter, hub: h}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		h.end(s)
	}
}

// end removes s and lets go of what waits in it; h.mu is held. Its reader
// sees the channel closed (records it takes meanwhile are not counted).
func (h *hub) end(s *subscription) {
	delete(h.subs, s)
	close(s.ch)
	for range s.ch {
	}
	h.queued -= s.queued.Swap(0)
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
			n := cost(r)
			if len(s.ch) > 0 && s.queued.Load()+n > subscriptionBytes {
				h.cut(s)
				break
			}
			// Past the bound of all, the furthest behind goes first.
			for h.queued+n > hubBytes && !s.cut {
				worst := h.furthest()
				if worst == nil {
					break
				}
				h.cut(worst)
			}
			if s.cut {
				break
			}
			select {
			case s.ch <- r:
				s.queued.Add(n)
				h.queued += n
			default:
				h.cut(s)
			}
			if s.cut {
				break
			}
		}
	}
}

// cut ends s for falling behind; h.mu is held.
func (h *hub) cut(s *subscription) {
	s.cut = true
	h.end(s)
}

// furthest returns the subscription with the most bytes waiting, or nil
// when there are none; h.mu is held.
func (h *hub) furthest() *subscription {
	var worst *subscription
	for s := range h.subs {
		if s.queued.Load() > 0 && (worst == nil || s.queued.Load() > worst.queued.Load()) {
			worst = s
		}
	}
	return worst
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		h.end(s)
	}
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
