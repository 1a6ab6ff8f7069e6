package steps

import (
	"sync"
	"time"
)

// LagMonitor measures how late this process runs: a goroutine asks to
// wake every period and notes how late it woke. On a loaded machine the
// suite, its in-process receiver and the reference all run late together;
// a timing miss no larger than the lag measured meanwhile says nothing
// about the target, so it is judged inconclusive rather than failed.
type LagMonitor struct {
	period time.Duration
	mu     sync.Mutex
	ticks  []tick // a ring of the last len(ticks) wake-ups
	next   int
	stop   chan struct{}
	done   chan struct{}
}

type tick struct{ due, woke time.Time }

// StartLagMonitor starts measuring; Stop ends it. It keeps about two
// minutes of wake-ups.
func StartLagMonitor() *LagMonitor {
	m := &LagMonitor{period: 5 * time.Millisecond, ticks: make([]tick, 24000), stop: make(chan struct{}), done: make(chan struct{})}
	go m.run()
	return m
}

func (m *LagMonitor) run() {
	defer close(m.done)
	t := time.NewTimer(m.period)
	defer t.Stop()
	due := time.Now().Add(m.period)
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			// The channel's value is when the timer fired; what counts is
			// when this goroutine got to run.
			woke := time.Now()
			m.mu.Lock()
			m.ticks[m.next%len(m.ticks)] = tick{due, woke}
			m.next++
			m.mu.Unlock()
			due = time.Now().Add(m.period)
			t.Reset(m.period)
		}
	}
}

// Stop ends the measurement.
func (m *LagMonitor) Stop() {
	if m == nil {
		return
	}
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
}

// Max returns the longest lateness of a wake-up due within [from, to], or
// woken within it: how late this process may have been in that span. A
// stall still going on at to has not woken yet; to is treated as the
// wake-up of the pending tick. A nil monitor measures nothing.
func (m *LagMonitor) Max(from, to time.Time) time.Duration {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var max time.Duration
	n := min(m.next, len(m.ticks))
	var last time.Time
	for i := 0; i < n; i++ {
		tk := m.ticks[(m.next-1-i+len(m.ticks))%len(m.ticks)]
		if i == 0 {
			last = tk.woke
		}
		if tk.woke.Before(from) {
			break
		}
		if tk.due.After(to) {
			continue
		}
		if d := tk.woke.Sub(tk.due); d > max {
			max = d
		}
	}
	// A stall in progress: nothing has woken since last.
	if pending := to.Sub(last) - m.period; n > 0 && pending > max && !last.After(to) {
		max = pending
	}
	return max
}

// hops is how many times a notification waits for this process's
// scheduler on its way in: the sender's timer and connection, the
// receiver's accept, read and handler. Each can wait as long as the lag
// measured, so a miss up to hops times the lag is no verdict.
const hops = 4

// excused tells whether a timing miss may be this process's own lateness.
func excused(lag, miss time.Duration) bool { return lag > 0 && lag*hops >= miss }
