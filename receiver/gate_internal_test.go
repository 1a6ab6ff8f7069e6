package receiver

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestACommitGoesBeforeTheStatementsQueuedBehindIt: with gateOthers
// statements at the connection and more waiting, a commit that asks
// waits for those at the connection only, then goes before every other
// one, however many there are.
func TestACommitGoesBeforeTheStatementsQueuedBehindIt(t *testing.T) {
	g := newDBGate()
	var held []func()
	for range gateOthers {
		held = append(held, g.enter())
	}
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	// Statements beyond gateOthers wait for a turn.
	var wg, started sync.WaitGroup
	for range 20 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			leave := g.enter()
			note("other")
			leave()
		}()
	}
	// They are on their way (a gate letting them through would let them
	// finish here, before the commit asks).
	started.Wait()
	for range 100 {
		runtime.Gosched()
	}
	wrote := make(chan struct{})
	go func() {
		done := g.write()
		note("commit")
		done()
		close(wrote)
	}()
	// Wait until the commit has asked (a reader can no longer enter), or
	// has gone through already.
asked:
	for g.rw.TryRLock() {
		g.rw.RUnlock()
		select {
		case <-wrote:
			break asked
		default:
			runtime.Gosched()
		}
	}
	for _, leave := range held {
		leave()
	}
	<-wrote
	wg.Wait()
	require.Len(t, order, 21)
	assert.Equal(t, "commit", order[0], "the commit went before every statement that waited: %v", order)

	// A nil gate lets everything through.
	var none *dbGate
	none.enter()()
	none.write()()
}
