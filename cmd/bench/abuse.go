package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// runAbuse attacks a `firmakit receive` process (and a `firmakit serve`
// one) the way an outsider or a careless client can, and measures what
// it costs them: the receiver's peak resident memory (VmHWM) under pages
// of bodies that JSON escapes sixfold and under stream clients that never
// read, and how many real notifications are still acknowledged; then
// connections that trickle their bodies, against both servers; then a
// peer answering with 8 MiB of headers, against every client firmakit
// runs; then a flood of notifications whose answers are held back; then a
// flood forwarded to an endpoint that never answers.
// Loopback only, every attack bounded in count and time.
func runAbuse(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("abuse", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	db := fs.String("db", "file", `the receiver's store: "file" (a temporary file) or ":memory:"`)
	records := fs.Int("records", 40, "1 MiB notifications of '<' stored before the memory attacks")
	pages := fs.Int("pages", 4, "clients loading GET /api/events?limit=100 over and over")
	streams := fs.Int("streams", 20, "websocket clients that never read, from after=0")
	d := fs.Duration("duration", 10*time.Second, "length of each attack")
	slowConns := fs.Int("slow-conns", 1030, "connections trickling their bodies")
	delayed := fs.Int("delayed", 1040, "notifications posted at once to a channel that holds each answer back 20 s")
	forwards := fs.Int("forwards", 1100, "notifications posted at once and forwarded to an endpoint that never answers")
	boundedRuns := fs.Int("bounded-runs", 3, "runs of certify-webhook --max-duration 3s against that endpoint, timed")
	ceiling := fs.Int64("ceiling", 256, "the receiver's resident memory ceiling, MiB: a run over it fails")
	only := fs.String("only", "", "run one round: memory, slow, headers, delayed, forward")
	_ = fs.Parse(args)
	// store is the receiver's store for an attack: a file of the round's
	// own, or the in-memory store.
	store := func(r *rig, name string) string {
		if *db == "file" {
			return r.file(strings.ReplaceAll(name, " ", "-") + ".db")
		}
		return *db
	}
	var over []string
	// within notes an attack's peak over the ceiling.
	within := func(name string, peak int64, err error) error {
		if err == nil && peak > *ceiling<<20 {
			over = append(over, fmt.Sprintf("%s: %.1f MiB", name, mib(peak)))
		}
		return err
	}
	err := runRounds(out, *bin, *only, []round{
		{"memory", func(r *rig) error {
			for _, a := range []struct {
				name           string
				pages, streams int
			}{{"pages", *pages, 0}, {"streams", 0, *streams}, {"pages and streams", *pages, *streams}} {
				peak, err := abuseMemory(r, store(r, a.name), a.name, *records, a.pages, a.streams, *d)
				if err := within(a.name, peak, err); err != nil {
					return fmt.Errorf("%s: %w", a.name, err)
				}
			}
			return nil
		}},
		{"slow", func(r *rig) error {
			peak, err := abuseSlowBodies(r, store(r, "slow"), *slowConns, *d)
			return within("slow bodies", peak, err)
		}},
		{"headers", func(r *rig) error {
			peak, err := abuseHeaderBombs(r, r.file("headers.db"), *d)
			return within("header bombs", peak, err)
		}},
		{"delayed", func(r *rig) error {
			peak, err := abuseDelayedFlood(r, store(r, "delayed"), *delayed, *d)
			return within("delayed answers", peak, err)
		}},
		{"forward", func(r *rig) error {
			peak, err := abuseForwardFlood(r, store(r, "forward"), *forwards, *boundedRuns, *d)
			return within("forwards to a hanging endpoint", peak, err)
		}},
	})
	if err != nil {
		return err
	}
	if len(over) > 0 {
		return fmt.Errorf("a process went over the %d MiB ceiling: %s", *ceiling, strings.Join(over, "; "))
	}
	fmt.Fprintf(out, "every process stayed under the %d MiB ceiling\n", *ceiling)
	return nil
}

// abuseMemory stores records 1 MiB notifications of '<', then for d loads
// pages of them and opens stream clients that never read, while real
// notifications keep coming; it returns the receiver's peak RSS.
func abuseMemory(r *rig, db, name string, records, pages, streams int, d time.Duration) (int64, error) {
	p, err := r.receiver(db)
	if err != nil {
		return 0, err
	}
	lt := bytes.Repeat([]byte("<"), 1<<20)
	for i := 0; i < records; i++ {
		if code, err := postRaw(p.base, lt, ""); err != nil || code != 200 {
			return 0, fmt.Errorf("storing record %d: %d %v", i+1, code, err)
		}
	}
	base := peakBytes(p.pid())
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	var pagesRead, pageFailed, largest atomic.Int64
	for i := 0; i < pages; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for ctx.Err() == nil {
				resp, err := client.Get(p.base + "/api/events?limit=100")
				if err != nil {
					pageFailed.Add(1)
					continue
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					pageFailed.Add(1)
					continue
				}
				pagesRead.Add(1)
				for m := largest.Load(); n > m && !largest.CompareAndSwap(m, n); m = largest.Load() {
				}
			}
		}()
	}
	// Stream clients that never read, from the first record; each is
	// dialled again every 5 s, so the backlog is read anew.
	var streamsOpened atomic.Int64
	ws := strings.Replace(p.base, "http", "ws", 1) + "/api/stream?after=0"
	for i := 0; i < streams; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, _, err := websocket.DefaultDialer.DialContext(ctx, ws, nil)
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				streamsOpened.Add(1)
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
				}
				c.Close()
			}
		}()
	}
	// Live records for the stuck streams: a 1 MiB notification of '<'
	// every 100 ms.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			postRaw(p.base, lt, "")
			time.Sleep(100 * time.Millisecond)
		}
	}()
	ok, failed, lat := realSenders(ctx, p.base, 4, http.StatusOK, 50*time.Millisecond)
	wg.Wait()
	peak := peakBytes(p.pid())
	r.printf("%s (%d pages at once, %d streams that never read; %d stored 1 MiB records of '<', one more every 100 ms), %s:\n",
		name, pages, streams, records, d)
	if pages > 0 {
		r.printf("  pages read: %d (largest %.1f MiB), %d failed\n", pagesRead.Load(), float64(largest.Load())/(1<<20), pageFailed.Load())
	}
	if streams > 0 {
		r.printf("  stream connections opened: %d\n", streamsOpened.Load())
	}
	r.printf("  real notifications: %d acknowledged, %d failed; latency %s\n", ok, failed, lat)
	r.printf("  receiver peak RSS (VmHWM): %.1f MiB (%.1f MiB before the attack)\n", float64(peak)/(1<<20), float64(base)/(1<<20))
	return peak, nil
}

// abuseSlowBodies opens conns connections to a receiver, then to a
// reference server, each sending its header and one byte of a 1,000-byte
// body, then nothing (a connection closed is opened again at once), and
// meanwhile sends real notifications and health checks.
func abuseSlowBodies(r *rig, db string, conns int, d time.Duration) (int64, error) {
	p, err := r.receiver(db)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	dialled := trickle(ctx, p.base, "/hooks/"+demoMerchant.MerchantID, conns)
	// The trickling connections first take every slot.
	time.Sleep(2 * time.Second)
	ok, failed, lat := realSenders(ctx, p.base, 1, http.StatusOK, 50*time.Millisecond)
	n := <-dialled
	var st struct {
		SlowBodiesEvicted int64 `json:"slow_bodies_evicted"`
	}
	_ = getInto(p.base+"/api/stats", &st)
	peak := peakBytes(p.pid())
	r.printf("receiver, %d connections trickling their bodies (%d dialled in all), %s:\n", conns, n, d)
	r.printf("  real notifications: %d acknowledged, %d failed; latency %s\n", ok, failed, lat)
	r.printf("  slow bodies closed to make room: %d; receiver peak RSS (VmHWM): %.1f MiB\n", st.SlowBodiesEvicted, float64(peak)/(1<<20))

	ref, err := r.reference("http://127.0.0.1:9/hooks")
	if err != nil {
		return 0, err
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), d)
	defer cancel2()
	dialled = trickle(ctx2, ref.base, "/v1/check/"+demoMerchant.MerchantID, conns)
	time.Sleep(2 * time.Second)
	lat, hFailed := timeHealth(ctx2, ref.base)
	n = <-dialled
	r.printf("reference, the same %d connections (%d dialled in all), %s:\n", conns, n, d)
	r.printf("  /healthz: %s; %d failed\n", lat, hFailed)
	return peak, nil
}

// trickle keeps conns connections sending a POST header and one byte of
// a 1,000-byte body to path until ctx ends; it sends on the channel how
// many it dialled in all.
func trickle(ctx context.Context, base, path string, conns int) <-chan int64 {
	addr := strings.TrimPrefix(base, "http://")
	var dialled atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
				if err != nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				dialled.Add(1)
				fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", path, addr)
				stop := context.AfterFunc(ctx, func() { c.Close() })
				io.Copy(io.Discard, c) // until the server closes it
				stop()
				c.Close()
			}
		}()
	}
	out := make(chan int64, 1)
	go func() { wg.Wait(); out <- dialled.Load() }()
	return out
}
