package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit/reference"
)

// runReference measures the reference server's bounds, run as its own
// process: a flood of demo contracts whose webhook never answers
// (blackhole), and a burst of contracts delivered to a sink, then listed
// (burst).
func runReference(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("reference", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	holeN := fs.Int("blackhole-n", 40000, "demo contracts created in the blackhole round")
	hold := fs.Duration("hold", 10*time.Second, "how long the blackhole round goes on after the last contract")
	burstN := fs.Int("burst-n", 15000, "demo contracts created in the burst round")
	conns := fs.Int("conns", 32, "concurrent clients creating contracts")
	only := fs.String("only", "", "run one round: blackhole, burst")
	_ = fs.Parse(args)
	return runRounds(out, *bin, *only, []round{
		{"blackhole", func(r *rig) error { return benchBlackHole(r, *holeN, *conns, *hold) }},
		{"burst", func(r *rig) error { return benchBurst(r, *burstN, *conns) }},
	})
}

func queueStats(base string) (reference.DeliveryStats, error) {
	var st reference.DeliveryStats
	err := getInto(base+"/_sandbox/queue", &st)
	return st, err
}

// benchBlackHole floods the reference with demo contracts whose webhook
// accepts connections and never answers, and measures its peak memory,
// its open descriptors and how fast /healthz answers meanwhile.
func benchBlackHole(r *rig, n, conns int, hold time.Duration) error {
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
	p, err := r.reference("http://" + ln.Addr().String() + "/hooks/" + demoMerchant.MerchantID)
	if err != nil {
		return err
	}
	health := probeHealth(p.base, 100*time.Millisecond)
	fds := sampleProc(p.pid())
	created, took := createDemos(p.base, n, conns)
	time.Sleep(hold)
	st, err := queueStats(p.base)
	heldAtEnd := held.Load()
	healthLine := health.finish()
	maxFDs := fds.finish()
	peak := peakRSS(p.pid())
	stopTook := p.stop()
	if err != nil {
		return err
	}
	r.printf("created %d of %d demo contracts in %.1fs (%.0f/s), webhook a black hole; then %s more\n",
		created, n, took.Seconds(), float64(created)/took.Seconds(), hold)
	r.printf("queue at the end: %d sending (max %d), %d queued (oldest waited %.1fs), %d scheduled; %d records kept, %d dropped (%d still pending)\n",
		st.Sending, st.MaxDeliveries, st.Queued, st.OldestQueuedMS/1000, st.Scheduled, st.Kept, st.Dropped, st.DroppedPending)
	r.printf("/healthz during the flood: %s\n", healthLine)
	r.printf("reference peak memory (VmHWM): %s; open descriptors at most %d; black hole held %d connections at the end\n", peak, maxFDs, heldAtEnd)
	r.printf("shutdown took %s, %d log lines on standard error\n", stopTook.Round(time.Millisecond), p.stderr.lines)
	if created < int64(n) {
		return fmt.Errorf("%d contracts not created", int64(n)-created)
	}
	return nil
}

// benchBurst creates a burst of demo contracts delivered to a sink that
// answers at once, then lists the records: how many are kept, and what a
// page and 30 parallel full pages cost.
func benchBurst(r *rig, n, conns int) error {
	var delivered atomic.Int64
	sink, err := r.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		delivered.Add(1)
	}))
	if err != nil {
		return err
	}
	p, err := r.reference(sink + "/hooks/" + demoMerchant.MerchantID)
	if err != nil {
		return err
	}
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
	r.printf("created %d demo contracts in %.1fs; %d notifications delivered; %d pending at the end\n",
		created, took.Seconds(), delivered.Load(), st.Pending)
	r.printf("records kept %d (limit %d), dropped %d (%d of them still pending when dropped)\n",
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
	r.printf("GET /_sandbox/deliveries (default page): %d bytes in %s\n", size, d.Round(100*time.Microsecond))
	size, d, err = get(p.base + "/_sandbox/deliveries?limit=1000")
	if err != nil {
		return err
	}
	r.printf("GET /_sandbox/deliveries?limit=1000: %d bytes in %s\n", size, d.Round(100*time.Microsecond))
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
	r.printf("30 parallel pages of 1000: %s, %d errors; reference peak memory (VmHWM): %s\n",
		time.Since(start).Round(time.Millisecond), errs.Load(), peakRSS(p.pid()))
	if st.Kept > st.MaxKeptDeliveries {
		return fmt.Errorf("%d records kept, over the limit of %d", st.Kept, st.MaxKeptDeliveries)
	}
	return nil
}
