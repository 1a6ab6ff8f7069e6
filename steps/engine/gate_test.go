package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitingAt waits until n entrants wait at g.
func waitingAt(g *Gate, n int) {
	for {
		g.mu.Lock()
		k := len(g.waiting)
		g.mu.Unlock()
		if k >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// The gate lets in the entrant with the longest wait first, then those
// of equal waits in the order they came; one whose context ends leaves
// the line and takes no slot.
func TestGateLetsTheLongestWaitInFirst(t *testing.T) {
	g := NewGate(1)
	leave, err := g.Enter(context.Background(), 0)
	require.NoError(t, err)

	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	canceled, cancel := context.WithCancel(context.Background())
	for i, e := range []struct {
		name string
		wait time.Duration
		ctx  context.Context
	}{
		{"short 1", 0, context.Background()},
		{"retry", time.Second, context.Background()},
		{"given up", 20 * time.Second, canceled},
		{"short 2", 0, context.Background()},
		{"late answer", 11 * time.Second, context.Background()},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := g.Enter(e.ctx, e.wait)
			if err != nil {
				assert.ErrorIs(t, err, context.Canceled)
				return
			}
			mu.Lock()
			order = append(order, e.name)
			mu.Unlock()
			out()
			out() // once only
		}()
		waitingAt(g, i+1)
	}
	cancel()
	for { // until the canceled one has left
		g.mu.Lock()
		k := len(g.waiting)
		g.mu.Unlock()
		if k == 4 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	leave()
	wg.Wait()
	assert.Equal(t, []string{"late answer", "retry", "short 1", "short 2"}, order)
	assert.Equal(t, 1, g.free, "every slot came back, the canceled entrant's included")
}
