//go:build !race

package steps_test

import (
	"runtime"
	"sync"
)

// suiteRuns bounds the suite runs of the power and precision tests
// (TestEveryFaultIsCaught and TestEveryLibertyIsPassed; the webhook
// twins in steps/webhook have a bound of their own, in their own test
// process), which go on side by side: the tests are parallel, and so are
// their runs. A run mostly waits, for notifications, quiet windows and
// retries, so several per core overlap well; the bound keeps the process
// from lagging so much that it cannot judge a notification's timing (a
// miss its lag explains is inconclusive, and inconclusive is not caught).
// The runs that wait out the delivery schedule (the demo feature's, about
// 15 s each) start first, and the short ones fill in around them.
var suiteRuns = newRunSlots(runtime.GOMAXPROCS(0) * 4)

// runSlots lets n runs go at once, long ones first, each kind in the
// order it came.
type runSlots struct {
	mu          sync.Mutex
	free        int
	long, short []chan struct{}
}

func newRunSlots(n int) *runSlots { return &runSlots{free: n} }

// take waits for a slot and returns what gives it back.
func (s *runSlots) take(long bool) (release func()) {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return s.give
	}
	ready := make(chan struct{})
	if long {
		s.long = append(s.long, ready)
	} else {
		s.short = append(s.short, ready)
	}
	s.mu.Unlock()
	<-ready
	return s.give
}

// give hands a slot to the first long run waiting, else to the first
// short one, else frees it.
func (s *runSlots) give() {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(s.long) > 0:
		close(s.long[0])
		s.long = s.long[1:]
	case len(s.short) > 0:
		close(s.short[0])
		s.short = s.short[1:]
	default:
		s.free++
	}
}
