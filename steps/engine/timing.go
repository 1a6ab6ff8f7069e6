package engine

import (
	"context"
	"strconv"
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
	late   []tick    // wake-ups later than noticeable, oldest first
	last   time.Time // the latest wake-up, late or not
	stop   chan struct{}
	done   chan struct{}
}

type tick struct{ due, woke time.Time }

// Wake-ups later than noticeable are kept for keep; the others only
// advance last, so that a long run costs little memory.
const (
	noticeable = 2 * time.Millisecond
	keep       = 30 * time.Minute
)

// StartLagMonitor starts measuring; Stop ends it.
func StartLagMonitor() *LagMonitor {
	m := &LagMonitor{period: 5 * time.Millisecond, stop: make(chan struct{}), done: make(chan struct{})}
	m.last = time.Now()
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
			m.last = woke
			if woke.Sub(due) >= noticeable {
				m.late = append(m.late, tick{due, woke})
				if len(m.late) > 1024 && woke.Sub(m.late[0].woke) > keep {
					cut := 0
					for cut < len(m.late) && woke.Sub(m.late[cut].woke) > keep {
						cut++
					}
					m.late = append(m.late[:0], m.late[cut:]...)
				}
			}
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

// Max returns the longest lateness of a wake-up due or woken within
// [from, to]: how late this process may have been in that span. A stall
// still going on at to has not woken yet, and counts up to to. A nil
// monitor measures nothing.
func (m *LagMonitor) Max(from, to time.Time) time.Duration {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var max time.Duration
	for i := len(m.late) - 1; i >= 0; i-- {
		tk := m.late[i]
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
	if pending := to.Sub(m.last) - m.period; pending > max && !m.last.After(to) {
		max = pending
	}
	return max
}

// Hops is how many times a notification may wait for this process's
// scheduler on its way in: the receiver's accept, connection and handler
// goroutines and the suite's own wait; when the sender runs in this process
// too (the bundled reference), also its timer, its goroutine and the
// transport's dial and write loops. Each can wait about as long as the lag
// measured, so a miss up to that many times the lag is no verdict.
// (Measured under load with the bundled reference: deliveries came as late
// as 4.4 times the largest lag.)
const (
	receiverHops = 4
	senderHops   = 4
)

// ExcusedBy tells whether a timing miss may be this process's own
// lateness: lag is how late it ran meanwhile (LagMonitor.Max);
// senderHere, that the sender of what was timed runs in it too.
func ExcusedBy(lag, miss time.Duration, senderHere bool) bool {
	return lag > 0 && lag*LagHops(senderHere) >= miss
}

// LagHops is how many times the lag measured a timing through this
// process may be late: receiverHops, plus senderHops when the sender of
// what was timed runs in it too.
func LagHops(senderHere bool) time.Duration {
	if senderHere {
		return receiverHops + senderHops
	}
	return receiverHops
}

// LaggingMonitor is a monitor that saw this process wake lag late every
// 50 ms from now on for an hour, and measures nothing more: what a run on
// a loaded machine decides, made reproducible (a zero lag: a process
// always on time).
func LaggingMonitor(lag time.Duration) *LagMonitor {
	m := &LagMonitor{period: 5 * time.Millisecond, last: time.Now().Add(time.Hour)}
	if lag > 0 {
		for at, end := time.Now(), time.Now().Add(time.Hour); at.Before(end); at = at.Add(50 * time.Millisecond) {
			m.late = append(m.late, tick{due: at, woke: at.Add(lag)})
		}
	}
	return m
}

// Millis writes a duration in whole milliseconds, as the steps' messages
// do.
func Millis(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// SleepUntil waits until t, or until ctx ends (its error).
func SleepUntil(ctx context.Context, t time.Time) error {
	select {
	case <-time.After(time.Until(t)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
