package steps_test

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// runTime is how long one of these runs took, and how many of its rows
// it ran again alone (inconclusive the first time: see steps.Suite.Run);
// the tests log them, so that a slow or lagging run shows.
type runTime struct {
	took  time.Duration
	again rerunCounter
}

func (r *runTime) String() string {
	if n := r.again.count(); n > 0 {
		return fmt.Sprintf("%4.1fs, %d again", r.took.Seconds(), n)
	}
	return fmt.Sprintf("%4.1fs", r.took.Seconds())
}

// rerunCounter is a run's Progress writer that counts the rows run again:
// several at a time, then alone.
type rerunCounter struct {
	mu           sync.Mutex
	several, one int
}

func (c *rerunCounter) Write(p []byte) (int, error) {
	var k int
	if _, err := fmt.Sscanf(string(p), "running %d inconclusive", &k); err == nil && strings.HasPrefix(string(p), "running ") {
		c.mu.Lock()
		if strings.Contains(string(p), "again, alone") {
			c.one += k
		} else {
			c.several += k
		}
		c.mu.Unlock()
	}
	return len(p), nil
}

func (c *rerunCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.several + c.one
}

// String says how many rows ran again, several at a time and alone.
func (c *rerunCounter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("%d row(s) run again a few at a time, %d alone", c.several, c.one)
}
