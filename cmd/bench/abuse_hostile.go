package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
)

// bombBytes is what a hostile peer answers each request with: 8 MiB of
// headers, within Go's default bound of 10 MiB.
const bombBytes = 8 << 20

// headerBomb serves peer.HeaderBomb on loopback until the round ends,
// counting the requests it got; a GET of / (certify's check that a target
// is there, with --skip-preflight) gets a plain 404, so that the suite
// runs.
func headerBomb(r *rig) (url string, hits *atomic.Int64, err error) {
	hits = &atomic.Int64{}
	bomb := peer.HeaderBomb(bombBytes)
	url, err = r.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		bomb.ServeHTTP(w, r)
	}))
	return url, hits, err
}

// abuseHeaderBombs points every client firmakit runs at a peer that
// answers each request with 8 MiB of headers, and reports each process's
// peak RSS: certify against such a --target (the whole suite, 64
// scenarios at once), certify-webhook against such an endpoint, the
// reference delivering demo notifications to it, and the receiver
// forwarding to it; for the servers, also the answer time of real
// requests meanwhile. It returns the highest peak.
func abuseHeaderBombs(r *rig, db string, d time.Duration) (int64, error) {
	bombURL, hits, err := headerBomb(r)
	if err != nil {
		return 0, err
	}
	var highest int64
	note := func(peak int64) { highest = max(highest, peak) }

	// certify against a --target that answers so, and, to compare, one
	// that answers every request a plain 400 of the API's shape.
	plain, err := r.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"status_code":400,"message":"no"}`)
	}))
	if err != nil {
		return 0, err
	}
	for _, target := range []struct{ name, url string }{{"a target answering every request a plain 400", plain},
		{"a target answering every request with 8 MiB of headers", bombURL}} {
		peak, out, took, err := runPeak(r.bin, "certify", "--target", target.url, "--key", "k", "--secret", "s", "--webhook-secret", "w",
			"--listen", "127.0.0.1:0", "--skip-preflight", "--lang", "en", "--max-duration", d.String())
		if err != nil {
			return 0, err
		}
		if target.url == bombURL {
			note(peak)
		}
		r.printf("certify --target, %s (--lang en, 64 scenarios at once, --max-duration %s):\n", target.name, d)
		r.printf("  %d requests answered with a header bomb; %s in %s; certify's peak RSS (VmHWM): %.1f MiB\n",
			hits.Swap(0), lastLine(out), took.Round(time.Millisecond), mib(peak))
	}

	// certify-webhook against an endpoint that answers so.
	peak, out, took, err := runPeak(r.bin, "certify-webhook", "--endpoint", bombURL, "--webhook-secret", "w", "--signature-id", "sig-1",
		"--concurrency", "64", "--max-duration", d.String())
	if err != nil {
		return 0, err
	}
	note(peak)
	r.printf("certify-webhook --endpoint (the same answers, 64 scenarios at once):\n")
	r.printf("  %d requests answered so; %s in %s; peak RSS (VmHWM): %.1f MiB\n", hits.Swap(0), lastLine(out), took.Round(time.Millisecond), mib(peak))

	// The reference delivering demo notifications to it: up to 256 at
	// once, each retried on the schedule, while real requests come.
	ref, err := r.reference(bombURL)
	if err != nil {
		return 0, err
	}
	base := peakBytes(ref.pid())
	ctx, cancel := context.WithTimeout(context.Background(), d)
	created := make(chan int64, 1)
	go func() {
		var n int64
		for ctx.Err() == nil {
			c, _ := createDemos(ref.base, 200, 16)
			n += c
		}
		created <- n
	}()
	time.Sleep(time.Second)
	lat, failed := timeHealth(ctx, ref.base)
	cancel()
	n := <-created
	peak = peakBytes(ref.pid())
	ref.stop()
	note(peak)
	r.printf("reference, its merchant's webhook answering every delivery with 8 MiB of headers, %s:\n", d)
	r.printf("  %d demo contracts created, %d deliveries answered so; /healthz meanwhile: %s, %d failed\n", n, hits.Swap(0), lat, failed)
	r.printf("  reference peak RSS (VmHWM): %.1f MiB (%.1f MiB before)\n", mib(peak), mib(base))

	// The receiver forwarding every notification to it.
	p, err := r.receiver(db, "--forward-to", bombURL, "--log-level", "error")
	if err != nil {
		return 0, err
	}
	base = peakBytes(p.pid())
	ctx, cancel = context.WithTimeout(context.Background(), d)
	defer cancel()
	flood := make(chan [2]int, 1)
	go func() {
		ok, failed, _ := realSenders(ctx, p.base, 64, http.StatusBadGateway, 0)
		flood <- [2]int{ok, failed}
	}()
	time.Sleep(time.Second)
	ok, failedReal, latReal := realSenders(ctx, p.base, 1, http.StatusBadGateway, 200*time.Millisecond)
	f := <-flood
	peak = peakBytes(p.pid())
	note(peak)
	r.printf("receiver --forward-to an endpoint answering every notification with 8 MiB of headers, 64 senders at once, %s:\n", d)
	r.printf("  %d notifications forwarded and answered 502, %d failed; a real notification meanwhile: %d answered (502, the endpoint's failure), %d failed; %s\n",
		f[0], f[1], ok, failedReal, latReal)
	r.printf("  receiver peak RSS (VmHWM): %.1f MiB (%.1f MiB before)\n", mib(peak), mib(base))
	return highest, nil
}

// abuseDelayedFlood programs a channel to hold each answer back 20 s,
// posts 1,040 notifications to it at once, each on its own connection,
// then times real notifications on another channel and /healthz.
func abuseDelayedFlood(r *rig, db string, flood int, d time.Duration) (int64, error) {
	p, err := r.receiver(db)
	if err != nil {
		return 0, err
	}
	rule, _ := json.Marshal(map[string]any{"status": 200, "delay": "20s"})
	resp, err := http.Post(p.base+"/api/channels/slow/responses", "application/json", bytes.NewReader(rule))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("programming the delay: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	prof := firmakit.BundledProfile()
	var held, refused, other atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < flood; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, sig := notification1KiB(prof, fmt.Sprintf("flood-%d", i), "flood")
			resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(hookRequest(ctx, p.base, "slow", b, sig))
			switch {
			case err != nil:
				other.Add(1)
			case resp.StatusCode == http.StatusServiceUnavailable:
				refused.Add(1)
			case resp.StatusCode == http.StatusOK:
				held.Add(1)
			default:
				other.Add(1)
			}
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(2 * time.Second)
	var st struct {
		Delayed int `json:"delayed_answers"`
	}
	go func() {
		sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
		defer scancel()
		req, _ := http.NewRequestWithContext(sctx, "GET", p.base+"/api/stats", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
	}()
	healthCh := make(chan string, 1)
	go func() { lat, failed := timeHealth(ctx, p.base); healthCh <- fmt.Sprintf("%s, %d failed", lat, failed) }()
	ok, failed, lat := realSenders(ctx, p.base, 1, http.StatusOK, 50*time.Millisecond)
	health := <-healthCh
	peak := peakBytes(p.pid())
	cancel()
	wg.Wait()
	r.printf("receiver, a channel holding each answer back 20 s, %d notifications posted to it at once, %s:\n", flood, d)
	r.printf("  held back: %d at once (delayed_answers); answered 503 at once: %d; no answer within the attack: %d\n", st.Delayed, refused.Load(), other.Load()+held.Load())
	r.printf("  a real notification on another channel meanwhile: %d answered 200, %d failed; %s\n", ok, failed, lat)
	r.printf("  /healthz meanwhile: %s\n", health)
	r.printf("  receiver peak RSS (VmHWM): %.1f MiB\n", mib(peak))
	return peak, nil
}

// runPeak runs firmakit with args to its end and returns its peak RSS
// (sampled every 100 ms while it runs), its output and how long it took.
func runPeak(bin string, args ...string) (int64, string, time.Duration, error) {
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, "", 0, fmt.Errorf("start %s: %w (run make build first)", bin, err)
	}
	done := make(chan struct{})
	var peak atomic.Int64
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			peak.Store(max(peak.Load(), peakBytes(cmd.Process.Pid)))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	_ = cmd.Wait() // its exit code is the verdict's, shown in its last line
	close(done)
	return peak.Load(), out.String(), time.Since(start), nil
}

// timeHealth times GET /healthz every 200 ms, each on a new connection,
// until ctx ends, and says how many got no 200.
func timeHealth(ctx context.Context, base string) (string, int) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var lats []time.Duration
	failed := 0
	for ctx.Err() == nil {
		t0 := time.Now()
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		if err == nil && resp.StatusCode == http.StatusOK {
			lats = append(lats, time.Since(t0))
		} else if ctx.Err() == nil {
			failed++
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Sprintf("%d answered 200, latency %s", len(lats), latencies(lats)), failed
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// abuseForwardFlood points the receiver's --forward-to at an endpoint
// that accepts each notification and never answers, posts flood
// notifications at once, each on its own connection and each posted again
// as the service would (at once after a held forward ends, 1 s after a
// 503), then for d times real notifications on another channel and
// /healthz while the flood holds. Then certify-webhook runs against the
// same endpoint with --max-duration 3s, boundedRuns times, timed. It returns the receiver's
// peak RSS.
func abuseForwardFlood(r *rig, db string, flood, boundedRuns int, d time.Duration) (int64, error) {
	var reached atomic.Int64
	hanging, err := r.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			return // certify-webhook's reachability check
		}
		reached.Add(1)
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	if err != nil {
		return 0, err
	}
	p, err := r.receiver(db, "--forward-to", hanging+"/webhook", "--log-level", "error")
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prof := firmakit.BundledProfile()
	var refused, ended, failed atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < flood; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for n := 0; ctx.Err() == nil; n++ {
				b, sig := notification1KiB(prof, fmt.Sprintf("flood-%d-%d", i, n), "flood")
				resp, err := client.Do(hookRequest(ctx, p.base, "flood", b, sig))
				switch {
				case err != nil:
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				case resp.StatusCode == http.StatusServiceUnavailable:
					refused.Add(1)
					resp.Body.Close()
					select {
					case <-ctx.Done():
					case <-time.After(time.Second):
					}
				default:
					ended.Add(1)
					resp.Body.Close()
				}
			}
		}()
	}
	time.Sleep(2 * time.Second)
	var st struct {
		Forwards int   `json:"forwards"`
		AtOnce   int64 `json:"forwards_answered_at_once"`
	}
	stats := func() {
		sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
		defer scancel()
		req, _ := http.NewRequestWithContext(sctx, "GET", p.base+"/api/stats", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
	}
	stats()
	held := st.Forwards
	mctx, mcancel := context.WithTimeout(ctx, d)
	defer mcancel()
	healthCh := make(chan string, 1)
	go func() { lat, failed := timeHealth(mctx, p.base); healthCh <- fmt.Sprintf("%s, %d failed", lat, failed) }()
	// A real notification on another channel every 50 ms, each on its
	// own connection: whatever it is answered, how soon.
	var lats []time.Duration
	statuses := map[int]int{}
	unanswered := 0
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := 0; mctx.Err() == nil; i++ {
		b, sig := notification1KiB(prof, fmt.Sprintf("real-%d", i), "real")
		t0 := time.Now()
		resp, err := client.Do(hookRequest(context.Background(), p.base, demoMerchant.MerchantID, b, sig))
		if err != nil {
			unanswered++
		} else {
			lats = append(lats, time.Since(t0))
			statuses[resp.StatusCode]++
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		time.Sleep(50 * time.Millisecond)
	}
	health := <-healthCh
	stats()
	peak := peakBytes(p.pid())
	cancel()
	wg.Wait()
	p.stop()
	r.printf("receiver --forward-to an endpoint that never answers, %d notifications posted to it at once (each posted again: at once after a held forward ends, 1 s after a 503), %s:\n", flood, d)
	r.printf("  forwards waiting for the endpoint: %d at once (an eighth of --max-conns); answered 503 at once: %d (forwards_answered_at_once %d); held forwards ended 504: %d; failed: %d; the endpoint got %d\n",
		held, refused.Load(), st.AtOnce, ended.Load(), failed.Load(), reached.Load())
	r.printf("  a real notification on another channel meanwhile: %d answered (%v), %d unanswered; %s\n", len(lats), statuses, unanswered, latencies(lats))
	r.printf("  /healthz meanwhile: %s\n", health)
	r.printf("  receiver peak RSS (VmHWM): %.1f MiB\n", mib(peak))

	// certify-webhook against the same endpoint, bounded to 3 s.
	for i := 0; i < boundedRuns; i++ {
		cpeak, out, took, err := runPeak(r.bin, "certify-webhook", "--endpoint", hanging+"/webhook", "--webhook-secret", "w", "--max-duration", "3s")
		if err != nil {
			return 0, err
		}
		r.printf("certify-webhook --max-duration 3s against it: ended after %s, %s; peak RSS %.1f MiB\n", took.Round(time.Millisecond), lastLine(out), mib(cpeak))
	}
	return peak, nil
}
