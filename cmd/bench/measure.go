package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// procStatus reads a field of a process's /proc status given in kB, such
// as VmHWM (its peak resident memory) or VmRSS (its resident memory now),
// in bytes; -1 when it cannot be read.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field+":" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// peakBytes is a process's peak resident memory (VmHWM), in bytes.
func peakBytes(pid int) int64 { return procStatus(pid, "VmHWM") }

// peakRSS says a process's peak resident memory (VmHWM) in MiB.
func peakRSS(pid int) string { return inMiB(peakBytes(pid)) }

// residentRSS says a process's resident memory now (VmRSS) in MiB.
func residentRSS(pid int) string { return inMiB(procStatus(pid, "VmRSS")) }

// inMiB says a size in bytes in MiB; "unknown" when it is not known.
func inMiB(b int64) string {
	if b < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MiB", mib(b))
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// sockets counts the sockets a process holds, its listener included.
func sockets(pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// procSampler follows a process's open file descriptors.
type procSampler struct {
	pid     int
	maxFDs  atomic.Int64
	stop    chan struct{}
	stopped chan struct{}
}

func sampleProc(pid int) *procSampler {
	s := &procSampler{pid: pid, stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd"); err == nil && int64(len(ents)) > s.maxFDs.Load() {
				s.maxFDs.Store(int64(len(ents)))
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *procSampler) finish() int64 {
	close(s.stop)
	<-s.stopped
	return s.maxFDs.Load()
}

// quantile is the f quantile (0 to 1) of durations sorted from the
// shortest, rounded to round.
func quantile(sorted []time.Duration, f float64, round time.Duration) time.Duration {
	return sorted[int(f*float64(len(sorted)-1))].Round(round)
}

// latencies says the p50, p99 and max of l, which it sorts.
func latencies(l []time.Duration) string {
	if len(l) == 0 {
		return "none"
	}
	slices.Sort(l)
	q := func(f float64) time.Duration { return quantile(l, f, 100*time.Microsecond) }
	return fmt.Sprintf("p50 %s, p99 %s, max %s", q(0.5), q(0.99), q(1))
}

// healthProbe times GET /healthz every interval until stopped.
type healthProbe struct {
	mu    sync.Mutex
	times []time.Duration
	fails int
	stop  chan struct{}
	done  chan struct{}
}

func probeHealth(base string, every time.Duration) *healthProbe {
	h := &healthProbe{stop: make(chan struct{}), done: make(chan struct{})}
	client := &http.Client{Timeout: 10 * time.Second}
	go func() {
		defer close(h.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
			start := time.Now()
			resp, err := client.Get(base + "/healthz")
			d := time.Since(start)
			h.mu.Lock()
			if err != nil || resp.StatusCode != 200 {
				h.fails++
			} else {
				h.times = append(h.times, d)
			}
			h.mu.Unlock()
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}()
	return h
}

func (h *healthProbe) finish() string {
	close(h.stop)
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.times) == 0 {
		return fmt.Sprintf("no answer (%d failures)", h.fails)
	}
	ts := slices.Sorted(slices.Values(h.times))
	q := func(f float64) time.Duration { return quantile(ts, f, 10*time.Microsecond) }
	return fmt.Sprintf("%d probes: p50 %s, p99 %s, max %s, %d failures", len(ts), q(0.5), q(0.99), q(1), h.fails)
}

// getInto decodes the JSON answer to a GET of url into out.
func getInto(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}
