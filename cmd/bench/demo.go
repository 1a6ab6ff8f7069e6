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
	"time"

	"github.com/firmakit/firmakit"
)

// runDemo creates demo contracts at a fixed rate on a reference server run
// as its own process, and measures the delay from each 201 to the arrival
// of its notification at a local sink, and the server's peak memory.
func runDemo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	n := fs.Int("n", 1000, "demo contracts to create")
	rate := fs.Int("rate", 200, "contracts per second")
	_ = fs.Parse(args)

	var mu sync.Mutex
	arrived := map[string]time.Time{}
	sinkLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sink := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		at := time.Now()
		var note struct {
			SignatureID string `json:"signature_id"`
		}
		_ = json.Unmarshal(b, &note)
		mu.Lock()
		arrived[note.SignatureID] = at
		mu.Unlock()
	})}
	go sink.Serve(sinkLn)
	defer sink.Close()

	addr, err := freeAddr()
	if err != nil {
		return err
	}
	cmd := exec.Command(*bin, "serve", "--addr", addr, "--webhook-url", "http://"+sinkLn.Addr().String()+"/hooks/"+demoMerchant.MerchantID, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w (run make build first)", *bin, err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	base := "http://" + addr
	if err := waitUp(base + "/healthz"); err != nil {
		return err
	}

	p := firmakit.BundledProfile()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	created := map[string]time.Time{}
	var cmu sync.Mutex
	var wg sync.WaitGroup
	var failures int
	interval := time.Second / time.Duration(*rate)
	start := time.Now()
	for i := 0; i < *n; i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body, _ := json.Marshal(firmakit.NewCreateRequest(demoMerchant.Template, demoMerchant.Data, fmt.Sprintf("DEMO_SIGNED bench %d", i)))
			req, _ := http.NewRequest("POST", base+"/v1/signature/"+demoMerchant.MerchantID, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range p.SignedHeaders(demoMerchant.Credential.KeyID, demoMerchant.Credential.Secret, "POST", "/v1/signature/"+demoMerchant.MerchantID, body, time.Now()) {
				req.Header[k] = v
			}
			resp, err := client.Do(req)
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
	peak := peakRSS(cmd.Process.Pid)

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
	sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
	if len(delays) == 0 {
		return fmt.Errorf("no notification arrived")
	}
	pct := func(q float64) time.Duration { return delays[int(q*float64(len(delays)-1))] }
	fmt.Printf("created %d demo contracts in %.2fs (%.0f/s), %d create failures, %d notifications missing\n",
		len(created), sendSecs, float64(len(created))/sendSecs, failures, missing)
	fmt.Printf("delay 201 -> notification: min %s  p50 %s  p99 %s  max %s (target p50 and p99 within 500ms..550ms)\n",
		delays[0].Round(100*time.Microsecond), pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), delays[len(delays)-1].Round(100*time.Microsecond))
	fmt.Printf("reference server peak memory (VmHWM): %s\n", peak)
	if failures > 0 || missing > 0 {
		return fmt.Errorf("%d failures, %d missing", failures, missing)
	}
	return nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitUp(url string) error {
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not come up", url)
}

// peakRSS reads the peak resident set size of a process from /proc.
func peakRSS(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.Atoi(f[1])
			return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
		}
	}
	return "unknown"
}
