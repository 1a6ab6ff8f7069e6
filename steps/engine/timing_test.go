package engine

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLagMonitorSeesAStoppedProcess stops this very process for 300 ms
// (SIGSTOP, then SIGCONT from a child): every goroutine is late by that
// much, and the monitor must say so for that span, and not for an earlier
// quiet one.
func TestLagMonitorSeesAStoppedProcess(t *testing.T) {
	m := StartLagMonitor()
	defer m.Stop()
	time.Sleep(50 * time.Millisecond)
	quietFrom, quietTo := time.Now().Add(-40*time.Millisecond), time.Now()
	pid := strconv.Itoa(os.Getpid())
	from := time.Now()
	cmd := exec.Command("sh", "-c", "kill -STOP "+pid+"; sleep 0.3; kill -CONT "+pid)
	require.NoError(t, cmd.Start())
	require.NoError(t, cmd.Wait())
	time.Sleep(20 * time.Millisecond)
	lag := m.Max(from, time.Now())
	assert.GreaterOrEqual(t, lag, 250*time.Millisecond, "a 300 ms stop")
	assert.Less(t, m.Max(quietFrom, quietTo), 250*time.Millisecond, "before the stop")
}

// TestLagMonitorCountsAStallInProgress: a span that ends while no
// wake-up has happened for a long time counts that time as lag.
func TestLagMonitorCountsAStallInProgress(t *testing.T) {
	m := &LagMonitor{period: 5 * time.Millisecond, last: time.Now().Add(-time.Second)}
	assert.GreaterOrEqual(t, m.Max(time.Now().Add(-2*time.Second), time.Now()), 900*time.Millisecond)
	var none *LagMonitor
	assert.Zero(t, none.Max(time.Now(), time.Now()))
}

func TestExcused(t *testing.T) {
	assert.True(t, ExcusedBy(100*time.Millisecond, 800*time.Millisecond, true), "sender and receiver in this process")
	assert.False(t, ExcusedBy(100*time.Millisecond, 801*time.Millisecond, true))
	assert.True(t, ExcusedBy(100*time.Millisecond, 400*time.Millisecond, false), "the receiver alone")
	assert.False(t, ExcusedBy(100*time.Millisecond, 401*time.Millisecond, false))
	assert.False(t, ExcusedBy(0, time.Millisecond, true), "no lag excuses nothing")
}
