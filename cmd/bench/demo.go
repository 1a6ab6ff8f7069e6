package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/firmakit/firmakit"
)

// runDemo creates demo contracts at a fixed rate on a reference server run
// as its own process, and measures the delay from each 201 to the arrival
// of its notification at a local sink, and the server's peak memory.
func runDemo(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	n := fs.Int("n", 1000, "demo contracts to create")
	rate := fs.Int("rate", 200, "contracts per second")
	_ = fs.Parse(args)
	return withRig(out, *bin, func(r *rig) error { return benchDemo(r, *n, *rate) })
}

func benchDemo(r *rig, n, rate int) error {
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	sink, err := r.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		at := time.Now()
		var note struct {
			SignatureID string `json:"signature_id"`
		}
		_ = json.Unmarshal(b, &note)
		mu.Lock()
		arrived[note.SignatureID] = at
		mu.Unlock()
	}))
	if err != nil {
		return err
	}
	p, err := r.reference(sink+"/hooks/"+demoMerchant.MerchantID, "--log-level", "warn")
	if err != nil {
		return err
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	created := map[string]time.Time{}
	var cmu sync.Mutex
	var wg sync.WaitGroup
	var failures int
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i := 0; i < n; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := client.Do(demoRequest(p.base, int64(i)))
			at := time.Now()
			if err != nil {
				cmu.Lock()
				failures++
				cmu.Unlock()
				return
			}
			var out firmakit.APIResponse
			_ = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			cmu.Lock()
			defer cmu.Unlock()
			if resp.StatusCode != 201 || out.Data == nil {
				failures++
				return
			}
			created[out.Data.SignatureID] = at
		}(i)
	}
	wg.Wait()
	sendSecs := time.Since(start).Seconds()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		got := len(arrived)
		mu.Unlock()
		if got >= len(created) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	peak := peakRSS(p.pid())

	var delays []time.Duration
	missing := 0
	mu.Lock()
	for id, c := range created {
		a, ok := arrived[id]
		if !ok {
			missing++
			continue
		}
		delays = append(delays, a.Sub(c))
	}
	mu.Unlock()
	if len(delays) == 0 {
		return fmt.Errorf("no notification arrived")
	}
	slices.Sort(delays)
	q := func(f float64) time.Duration { return quantile(delays, f, 100*time.Microsecond) }
	r.printf("created %d demo contracts in %.2fs (%.0f/s), %d create failures, %d notifications missing\n",
		len(created), sendSecs, float64(len(created))/sendSecs, failures, missing)
	r.printf("delay 201 -> notification: min %s  p50 %s  p99 %s  max %s (target p50 and p99 within 500ms..550ms)\n",
		q(0), q(0.50), q(0.99), q(1))
	r.printf("reference server peak memory (VmHWM): %s\n", peak)
	if p.stderr.lines > 0 {
		r.printf("reference log: %d lines on standard error, the first: %s\n", p.stderr.lines, p.stderr.first[0])
	}
	if failures > 0 || missing > 0 {
		return fmt.Errorf("%d failures, %d missing", failures, missing)
	}
	return nil
}
