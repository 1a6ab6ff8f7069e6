package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
)

// runReference measures the reference server's bounds, run as its own
// process: a flood of demo contracts whose webhook never answers
// (blackhole), and a burst of contracts delivered to a sink, then listed
// (burst).
func runReference(args []string) error {
	fs := flag.NewFlagSet("reference", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	holeN := fs.Int("blackhole-n", 40000, "demo contracts created in the blackhole round")
	hold := fs.Duration("hold", 10*time.Second, "how long the blackhole round goes on after the last contract")
	burstN := fs.Int("burst-n", 15000, "demo contracts created in the burst round")
	conns := fs.Int("conns", 32, "concurrent clients creating contracts")
	only := fs.String("only", "", "run one round: blackhole, burst")
	_ = fs.Parse(args)
	rounds := []struct {
		name string
		run  func() error
	}{
		{"blackhole", func() error { return benchBlackHole(*bin, *holeN, *conns, *hold) }},
		{"burst", func() error { return benchBurst(*bin, *burstN, *conns) }},
	}
	for _, r := range rounds {
		if *only != "" && *only != r.name {
			continue
		}
		fmt.Printf("== %s\n", r.name)
		if err := r.run(); err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
	}
	return nil
}

// refProc is a reference server run as its own process.
type refProc struct {
	cmd    *exec.Cmd
	base   string
	stderr *lineCounter
}

func startReference(bin, webhook string, extra ...string) (*refProc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	lc := &lineCounter{}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr, "--webhook-url", demoMerchant.MerchantID + "=" + webhook, "--log-level", "error"}, extra...)...)
	cmd.Stderr = lc
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w (run make build first)", bin, err)
	}
	p := &refProc{cmd: cmd, base: "http://" + addr, stderr: lc}
	if err := waitUp(p.base + "/healthz"); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	return p, nil
}

// stop interrupts the server and returns how long it took to exit.
func (p *refProc) stop() time.Duration {
	start := time.Now()
	p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
	return time.Since(start)
}

// lineCounter counts the lines a process writes, keeping the first few.
type lineCounter struct {
	mu    sync.Mutex
	lines int
	first []string
}

func (l *lineCounter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if strings.HasSuffix(line, "\n") {
			l.lines++
		}
		if len(l.first) < 3 {
			l.first = append(l.first, strings.TrimSpace(line))
		}
	}
	return len(p), nil
}

// createDemos creates n DEMO_SIGNED contracts with conns clients and
// returns how many got a 201 and how long it took.
func createDemos(base string, n, conns int) (int64, time.Duration) {
	p := firmakit.BundledProfile()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	path := "/v1/signature/" + demoMerchant.MerchantID
	var next, created atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				body, _ := json.Marshal(firmakit.NewCreateRequest(demoMerchant.Template, demoMerchant.Data, fmt.Sprintf("DEMO_SIGNED bench %d", i)))
				req, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
				req.Header = p.SignedHeaders(demoMerchant.Credential.KeyID, demoMerchant.Credential.Secret, "POST", path, body, time.Now())
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated {
					created.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return created.Load(), time.Since(start)
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
	ts := append([]time.Duration(nil), h.times...)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	q := func(f float64) time.Duration { return ts[int(f*float64(len(ts)-1))].Round(10 * time.Microsecond) }
	return fmt.Sprintf("%d probes: p50 %s, p99 %s, max %s, %d failures", len(ts), q(0.5), q(0.99), ts[len(ts)-1].Round(10*time.Microsecond), h.fails)
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

func queueStats(base string) (reference.DeliveryStats, error) {
	var st reference.DeliveryStats
	resp, err := http.Get(base + "/_sandbox/queue")
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st, err
}

// benchBlackHole floods the reference with demo contracts whose webhook
// accepts connections and never answers, and measures its peak memory,
// its open descriptors and how fast /healthz answers meanwhile.
func benchBlackHole(bin string, n, conns int, hold time.Duration) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	var held atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held.Add(1)
			go func() { // read and drop, never answer
				io.Copy(io.Discard, c)
				c.Close()
				held.Add(-1)
			}()
		}
	}()
	p, err := startReference(bin, "http://"+ln.Addr().String()+"/hooks/"+demoMerchant.MerchantID)
	if err != nil {
		return err
	}
	health := probeHealth(p.base, 100*time.Millisecond)
	fds := sampleProc(p.cmd.Process.Pid)
	created, took := createDemos(p.base, n, conns)
	time.Sleep(hold)
	st, err := queueStats(p.base)
	heldAtEnd := held.Load()
	healthLine := health.finish()
	maxFDs := fds.finish()
	peak := peakRSS(p.cmd.Process.Pid)
	stopTook := p.stop()
	if err != nil {
		return err
	}
	fmt.Printf("created %d of %d demo contracts in %.1fs (%.0f/s), webhook a black hole; then %s more\n",
		created, n, took.Seconds(), float64(created)/took.Seconds(), hold)
	fmt.Printf("queue at the end: %d sending (max %d), %d queued (oldest waited %.1fs), %d scheduled; %d records kept, %d dropped (%d still pending)\n",
		st.Sending, st.MaxDeliveries, st.Queued, st.OldestQueuedMS/1000, st.Scheduled, st.Kept, st.Dropped, st.DroppedPending)
	fmt.Printf("/healthz during the flood: %s\n", healthLine)
	fmt.Printf("reference peak memory (VmHWM): %s; open descriptors at most %d; black hole held %d connections at the end\n", peak, maxFDs, heldAtEnd)
	fmt.Printf("shutdown took %s, %d log lines on standard error\n", stopTook.Round(time.Millisecond), p.stderr.lines)
	if created < int64(n) {
		return fmt.Errorf("%d contracts not created", int64(n)-created)
	}
	return nil
}

// benchBurst creates a burst of demo contracts delivered to a sink that
// answers at once, then lists the records: how many are kept, and what a
// page and 30 parallel full pages cost.
func benchBurst(bin string, n, conns int) error {
	var delivered atomic.Int64
	sinkLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sink := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		delivered.Add(1)
	})}
	go sink.Serve(sinkLn)
	defer sink.Close()
	p, err := startReference(bin, "http://"+sinkLn.Addr().String()+"/hooks/"+demoMerchant.MerchantID)
	if err != nil {
		return err
	}
	defer p.stop()
	created, took := createDemos(p.base, n, conns)
	deadline := time.Now().Add(60 * time.Second)
	var st reference.DeliveryStats
	for time.Now().Before(deadline) {
		if st, err = queueStats(p.base); err != nil {
			return err
		}
		if st.Pending == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("created %d demo contracts in %.1fs; %d notifications delivered; %d pending at the end\n",
		created, took.Seconds(), delivered.Load(), st.Pending)
	fmt.Printf("records kept %d (limit %d), dropped %d (%d of them still pending when dropped)\n",
		st.Kept, st.MaxKeptDeliveries, st.Dropped, st.DroppedPending)

	get := func(url string) (int, time.Duration, error) {
		start := time.Now()
		resp, err := http.Get(url)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		return int(n), time.Since(start), err
	}
	size, d, err := get(p.base + "/_sandbox/deliveries")
	if err != nil {
		return err
	}
	fmt.Printf("GET /_sandbox/deliveries (default page): %d bytes in %s\n", size, d.Round(100*time.Microsecond))
	size, d, err = get(p.base + "/_sandbox/deliveries?limit=1000")
	if err != nil {
		return err
	}
	fmt.Printf("GET /_sandbox/deliveries?limit=1000: %d bytes in %s\n", size, d.Round(100*time.Microsecond))
	var wg sync.WaitGroup
	var errs atomic.Int64
	start := time.Now()
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := get(p.base + "/_sandbox/deliveries?limit=1000"); err != nil {
				errs.Add(1)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("30 parallel pages of 1000: %s, %d errors; reference peak memory (VmHWM): %s\n",
		time.Since(start).Round(time.Millisecond), errs.Load(), peakRSS(p.cmd.Process.Pid))
	if st.Kept > st.MaxKeptDeliveries {
		return fmt.Errorf("%d records kept, over the limit of %d", st.Kept, st.MaxKeptDeliveries)
	}
	return nil
}
