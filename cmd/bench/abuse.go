package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/gorilla/websocket"
)

// runAbuse attacks a `firmakit receive` process (and a `firmakit serve`
// one) the way an outsider or a careless client can, and measures what
// it costs them: the receiver's peak resident memory (VmHWM) under pages
// of bodies that JSON escapes sixfold and under stream clients that never
// read, and how many real notifications are still acknowledged; then
// connections that trickle their bodies, against both servers; then a
// peer answering with 8 MiB of headers, against every client firmakit
// runs; then a flood of notifications whose answers are held back.
// Loopback only, every attack bounded in count and time.
func runAbuse(args []string) error {
	fs := flag.NewFlagSet("abuse", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	db := fs.String("db", "file", `the receiver's store: "file" (a temporary file) or ":memory:"`)
	records := fs.Int("records", 40, "1 MiB notifications of '<' stored before the memory attacks")
	pages := fs.Int("pages", 4, "clients loading GET /api/events?limit=100 over and over")
	streams := fs.Int("streams", 20, "websocket clients that never read, from after=0")
	d := fs.Duration("duration", 10*time.Second, "length of each attack")
	slowConns := fs.Int("slow-conns", 1030, "connections trickling their bodies")
	delayed := fs.Int("delayed", 1040, "notifications posted at once to a channel that holds each answer back 20 s")
	ceiling := fs.Int64("ceiling", 256, "the receiver's resident memory ceiling, MiB: a run over it fails")
	only := fs.String("only", "", "run one round: memory, slow, headers, delayed")
	_ = fs.Parse(args)
	dir, err := os.MkdirTemp("", "firmakit-abuse-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var over []string
	if *only == "" || *only == "memory" {
		fmt.Println("== memory")
		for _, a := range []struct {
			name           string
			pages, streams int
		}{{"pages", *pages, 0}, {"streams", 0, *streams}, {"pages and streams", *pages, *streams}} {
			store := *db
			if store == "file" {
				store = filepath.Join(dir, strings.ReplaceAll(a.name, " ", "-")+".db")
			}
			peak, err := abuseMemory(*bin, store, a.name, *records, a.pages, a.streams, *d)
			if err != nil {
				return fmt.Errorf("memory, %s: %w", a.name, err)
			}
			if peak > *ceiling<<20 {
				over = append(over, fmt.Sprintf("%s: %.1f MiB", a.name, float64(peak)/(1<<20)))
			}
		}
	}
	if *only == "" || *only == "slow" {
		fmt.Println("== slow bodies")
		store := *db
		if store == "file" {
			store = filepath.Join(dir, "slow.db")
		}
		peak, err := abuseSlowBodies(*bin, store, *slowConns, *d)
		if err != nil {
			return fmt.Errorf("slow bodies: %w", err)
		}
		if peak > *ceiling<<20 {
			over = append(over, fmt.Sprintf("slow bodies: %.1f MiB", float64(peak)/(1<<20)))
		}
	}
	if *only == "" || *only == "headers" {
		fmt.Println("== header bombs")
		peak, err := abuseHeaderBombs(*bin, filepath.Join(dir, "headers.db"), *d)
		if err != nil {
			return fmt.Errorf("header bombs: %w", err)
		}
		if peak > *ceiling<<20 {
			over = append(over, fmt.Sprintf("header bombs: %.1f MiB", mib(peak)))
		}
	}
	if *only == "" || *only == "delayed" {
		fmt.Println("== delayed answers")
		store := *db
		if store == "file" {
			store = filepath.Join(dir, "delayed.db")
		}
		peak, err := abuseDelayedFlood(*bin, store, *delayed, *d)
		if err != nil {
			return fmt.Errorf("delayed answers: %w", err)
		}
		if peak > *ceiling<<20 {
			over = append(over, fmt.Sprintf("delayed answers: %.1f MiB", mib(peak)))
		}
	}
	if len(over) > 0 {
		return fmt.Errorf("a process went over the %d MiB ceiling: %s", *ceiling, strings.Join(over, "; "))
	}
	fmt.Printf("every process stayed under the %d MiB ceiling\n", *ceiling)
	return nil
}

// abuseMemory stores records 1 MiB notifications of '<', then for d loads
// pages of them and opens stream clients that never read, while real
// notifications keep coming; it returns the receiver's peak RSS.
func abuseMemory(bin, db, name string, records, pages, streams int, d time.Duration) (int64, error) {
	p, err := startReceiver(bin, db)
	if err != nil {
		return 0, err
	}
	defer p.stop()
	lt := bytes.Repeat([]byte("<"), 1<<20)
	for i := 0; i < records; i++ {
		if code, err := postRaw(p.base, lt, ""); err != nil || code != 200 {
			return 0, fmt.Errorf("storing record %d: %d %v", i+1, code, err)
		}
	}
	base := peakBytes(p.cmd.Process.Pid)
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
	peak := peakBytes(p.cmd.Process.Pid)
	fmt.Printf("%s (%d pages at once, %d streams that never read; %d stored 1 MiB records of '<', one more every 100 ms), %s:\n",
		name, pages, streams, records, d)
	if pages > 0 {
		fmt.Printf("  pages read: %d (largest %.1f MiB), %d failed\n", pagesRead.Load(), float64(largest.Load())/(1<<20), pageFailed.Load())
	}
	if streams > 0 {
		fmt.Printf("  stream connections opened: %d\n", streamsOpened.Load())
	}
	fmt.Printf("  real notifications: %d acknowledged, %d failed; latency %s\n", ok, failed, lat)
	fmt.Printf("  receiver peak RSS (VmHWM): %.1f MiB (%.1f MiB before the attack)\n", float64(peak)/(1<<20), float64(base)/(1<<20))
	return peak, nil
}

// abuseSlowBodies opens conns connections to a receiver, then to a
// reference server, each sending its header and one byte of a 1,000-byte
// body, then nothing (a connection closed is opened again at once), and
// meanwhile sends real notifications and health checks.
func abuseSlowBodies(bin, db string, conns int, d time.Duration) (int64, error) {
	p, err := startReceiver(bin, db)
	if err != nil {
		return 0, err
	}
	defer p.stop()
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
	peak := peakBytes(p.cmd.Process.Pid)
	fmt.Printf("receiver, %d connections trickling their bodies (%d dialled in all), %s:\n", conns, n, d)
	fmt.Printf("  real notifications: %d acknowledged, %d failed; latency %s\n", ok, failed, lat)
	fmt.Printf("  slow bodies closed to make room: %d; receiver peak RSS (VmHWM): %.1f MiB\n", st.SlowBodiesEvicted, float64(peak)/(1<<20))

	ref, err := startReference(bin, "http://127.0.0.1:9/hooks")
	if err != nil {
		return 0, err
	}
	defer ref.stop()
	ctx2, cancel2 := context.WithTimeout(context.Background(), d)
	defer cancel2()
	dialled = trickle(ctx2, ref.base, "/v1/check/"+demoMerchant.MerchantID, conns)
	time.Sleep(2 * time.Second)
	lat, hFailed := timeHealth(ctx2, ref.base)
	n = <-dialled
	fmt.Printf("reference, the same %d connections (%d dialled in all), %s:\n", conns, n, d)
	fmt.Printf("  /healthz: %s; %d failed\n", lat, hFailed)
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

// realSenders posts signed 1 KiB notifications from n senders until ctx
// ends, each waiting up to 30 s for its answer (want, to count as
// answered) and pause before the next.
func realSenders(ctx context.Context, base string, n, want int, pause time.Duration) (ok, failed int, lat string) {
	prof := firmakit.BundledProfile()
	var mu sync.Mutex
	var lats []time.Duration
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			for i := 0; ctx.Err() == nil; i++ {
				b, sig := notification1KiB(prof, fmt.Sprintf("abuse-%d-%d", w, i), "abuse")
				req, _ := http.NewRequest("POST", base+"/hooks/"+demoMerchant.MerchantID, bytes.NewReader(b))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Service-Signature", sig)
				t0 := time.Now()
				resp, err := client.Do(req)
				took := time.Since(t0)
				good := err == nil && resp.StatusCode == want
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				if good {
					ok++
					lats = append(lats, took)
				} else {
					failed++
				}
				mu.Unlock()
				time.Sleep(pause)
			}
		}()
	}
	wg.Wait()
	return ok, failed, latencies(lats)
}

func latencies(l []time.Duration) string {
	if len(l) == 0 {
		return "none"
	}
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	q := func(f float64) time.Duration { return l[int(f*float64(len(l)-1))].Round(100 * time.Microsecond) }
	return fmt.Sprintf("p50 %s, p99 %s, max %s", q(0.5), q(0.99), l[len(l)-1].Round(100*time.Microsecond))
}

// postRaw posts body to the demo merchant's hook, signed with sig when
// not empty.
func postRaw(base string, body []byte, sig string) (int, error) {
	req, _ := http.NewRequest("POST", base+"/hooks/"+demoMerchant.MerchantID, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("X-Service-Signature", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// peakBytes reads a process's peak resident set size (VmHWM), in bytes.
func peakBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}
