package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/google/uuid"
	"github.com/gorilla/websocket"
)

// runReceiver measures the receiver, run as its own process on a
// persistent database: ingest rate, stream delay with 50 clients, kill -9
// durability, and list and wait latency with 100,000 stored records; then
// its bounds: peak memory of the in-memory receiver under 1 MiB bodies,
// and idle connections.
func runReceiver(args []string) error {
	fs := flag.NewFlagSet("receiver", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	ingestFor := fs.Duration("ingest", 10*time.Second, "length of the ingest round")
	workers := fs.Int("workers", 64, "concurrent senders in the ingest round")
	clients := fs.Int("clients", 50, "websocket clients in the stream round")
	streamRate := fs.Int("rate", 1000, "notifications per second in the stream round")
	streamFor := fs.Duration("stream", 10*time.Second, "length of the stream round")
	fill := fs.Int("records", 100000, "records stored for the list and wait round")
	memFor := fs.Duration("memory", 20*time.Second, "length of the memory round (in-memory receiver, 1 MiB bodies)")
	memSenders := fs.Int("memory-senders", 16, "concurrent senders in the memory round")
	idleConns := fs.Int("idle-conns", 2000, "idle connections in the idle round")
	idleWait := fs.Duration("idle-wait", 60*time.Second, "how long the idle round leaves them idle")
	replicaRate := fs.Int("replica-rate", 500, "notifications per second in the replicas round's stream delay")
	only := fs.String("only", "", "run one round: ingest, stream, kill, large, memory, idle, replicas, presets")
	presets := fs.String("profiles", "", "the presets round: ingest under each named preset (comma-separated, or all) beside bundled")
	_ = fs.Parse(args)
	dir, err := os.MkdirTemp("", "firmakit-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rounds := []struct {
		name string
		run  func() error
	}{
		{"ingest", func() error { return benchIngest(*bin, dir, *ingestFor, *workers) }},
		{"stream", func() error { return benchStream(*bin, dir, *clients, *streamRate, *streamFor) }},
		{"kill", func() error { return benchKill(*bin, dir, *workers) }},
		{"large", func() error { return benchLarge(*bin, dir, *fill, *workers) }},
		{"memory", func() error { return benchMemory(*bin, *memFor, *memSenders) }},
		{"idle", func() error { return benchIdle(*bin, *idleConns, *idleWait) }},
		{"replicas", func() error { return benchReplicas(*bin, dir, *ingestFor, *workers, *replicaRate, *streamFor) }},
	}
	if *presets != "" || *only == "presets" {
		if *presets == "" {
			*presets = "all"
		}
		rounds = append(rounds, struct {
			name string
			run  func() error
		}{"presets", func() error { return benchIngestPresets(*bin, dir, *ingestFor, *workers, *presets) }})
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

type proc struct {
	cmd  *exec.Cmd
	base string
}

func startReceiver(bin, db string, extra ...string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"receive", "--listen", addr, "--db", db, "--log-level", "warn", "--max-events", "0"}, extra...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w (run make build first)", bin, err)
	}
	p := &proc{cmd: cmd, base: "http://" + addr}
	if err := waitUp(p.base + "/healthz"); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	return p, nil
}

func (p *proc) stop() { p.cmd.Process.Signal(os.Interrupt); p.cmd.Wait() }

// notification1KiB returns a signed notification of about 1 KiB.
func notification1KiB(prof *firmakit.Profile, eventID, sigID string) ([]byte, string) {
	n := firmakit.Notification{EventID: eventID, Type: firmakit.NotificationType, MerchantID: demoMerchant.MerchantID,
		SignatureID: sigID, Title: "DEMO_CANCELED " + strings.Repeat("x", 700), Status: firmakit.StateCanceled,
		Reason: "El comercio canceló la solicitud de firma antes de completarse (demo)", Demo: true, CreatedAt: firmakit.FormatTime(time.Now())}
	b, _ := prof.EncodeNotification(n)
	return b, prof.WebhookSignature(demoMerchant.WebhookSecrets, time.Now(), b)
}

// sender posts signed notifications; it returns the received id.
type sender struct {
	client *http.Client
	prof   *firmakit.Profile
	base   string
}

func newSender(base string, conns int) *sender {
	return &sender{client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}},
		prof: firmakit.BundledProfile(), base: base}
}

func (s *sender) send(eventID, sigID string) (int64, error) {
	body, sig := notification1KiB(s.prof, eventID, sigID)
	req, _ := http.NewRequest("POST", s.base+"/hooks/"+demoMerchant.MerchantID, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct{ Received int64 }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("answered %d", resp.StatusCode)
	}
	return out.Received, nil
}

func stats(base string) (count int64, err error) {
	resp, err := http.Get(base + "/api/stats")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var s struct{ Count int64 }
	err = json.NewDecoder(resp.Body).Decode(&s)
	return s.Count, err
}

func benchIngest(bin, dir string, d time.Duration, workers int) error {
	p, err := startReceiver(bin, filepath.Join(dir, "ingest.db"))
	if err != nil {
		return err
	}
	defer p.stop()
	s := newSender(p.base, workers)
	var ok, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := s.send(uuid.NewString(), uuid.NewString()); err != nil {
					failed.Add(1)
				} else {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	stored, err := stats(p.base)
	if err != nil {
		return err
	}
	fmt.Printf("ingested %d signed 1 KiB notifications in %.1fs: %.0f/s with %d senders (target >= 5000/s); failures %d\n",
		ok.Load(), secs, float64(ok.Load())/secs, workers, failed.Load())
	fmt.Printf("stored %d, 2xx answers %d: %s\n", stored, ok.Load(), map[bool]string{true: "equal", false: "DIFFERENT"}[stored == ok.Load()])
	fmt.Printf("receiver peak memory (VmHWM): %s\n", peakRSS(p.cmd.Process.Pid))
	if stored != ok.Load() {
		return fmt.Errorf("stored count differs from 2xx count")
	}
	return nil
}

func benchStream(bin, dir string, clients, rate int, d time.Duration) error {
	p, err := startReceiver(bin, filepath.Join(dir, "stream.db"))
	if err != nil {
		return err
	}
	defer p.stop()
	var mu sync.Mutex
	acked := map[int64]time.Time{}
	type frame struct {
		id int64
		at time.Time
	}
	frames := make([][]frame, clients)
	var cwg sync.WaitGroup
	conns := make([]*websocket.Conn, clients)
	for i := range conns {
		c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(p.base, "http")+"/api/stream", nil)
		if err != nil {
			return err
		}
		conns[i] = c
		cwg.Add(1)
		go func(i int, c *websocket.Conn) {
			defer cwg.Done()
			for {
				_, b, err := c.ReadMessage()
				at := time.Now()
				if err != nil {
					return
				}
				// Only the id is needed: read it off the front of the frame,
				// so the clients do not eat the CPU the receiver is measured on.
				var id int64
				if rest, ok := bytes.CutPrefix(b, []byte(`{"id":`)); ok {
					for _, c := range rest {
						if c < '0' || c > '9' {
							break
						}
						id = id*10 + int64(c-'0')
					}
				}
				frames[i] = append(frames[i], frame{id, at})
			}
		}(i, c)
	}
	s := newSender(p.base, 64)
	interval := time.Second / time.Duration(rate)
	var swg sync.WaitGroup
	var failed atomic.Int64
	n := int(d.Seconds() * float64(rate))
	start := time.Now()
	for i := 0; i < n; i++ {
		// An absolute schedule: a late send is followed by quicker ones,
		// where a ticker would drop ticks and lower the rate.
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		swg.Add(1)
		go func() {
			defer swg.Done()
			id, err := s.send(uuid.NewString(), uuid.NewString())
			at := time.Now()
			if err != nil {
				failed.Add(1)
				return
			}
			mu.Lock()
			acked[id] = at
			mu.Unlock()
		}()
	}
	swg.Wait()
	sent := time.Since(start)
	time.Sleep(500 * time.Millisecond)
	for _, c := range conns {
		c.Close()
	}
	cwg.Wait()
	var delays []time.Duration
	missing := 0
	for _, fs := range frames {
		seen := map[int64]bool{}
		for _, f := range fs {
			seen[f.id] = true
			if a, ok := acked[f.id]; ok {
				d := f.at.Sub(a)
				if d < 0 {
					d = 0 // the frame beat the 2xx to the sender
				}
				delays = append(delays, d)
			}
		}
		for id := range acked {
			if !seen[id] {
				missing++
			}
		}
	}
	sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
	if len(delays) == 0 {
		return fmt.Errorf("no frame arrived")
	}
	q := func(f float64) time.Duration {
		return delays[int(f*float64(len(delays)-1))].Round(10 * time.Microsecond)
	}
	fmt.Printf("%d notifications at %.0f/s to %d websocket clients: %d frames, %d missing, %d send failures\n",
		len(acked), float64(len(acked))/sent.Seconds(), clients, len(delays), missing, failed.Load())
	fmt.Printf("delay 2xx -> frame: p50 %s  p99 %s  max %s (target p99 <= 50ms)\n", q(0.5), q(0.99), delays[len(delays)-1].Round(10*time.Microsecond))
	return nil
}

func benchKill(bin, dir string, workers int) error {
	db := filepath.Join(dir, "kill.db")
	p, err := startReceiver(bin, db)
	if err != nil {
		return err
	}
	s := newSender(p.base, workers)
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ev := uuid.NewString()
				if _, err := s.send(ev, "kill"); err == nil {
					mu.Lock()
					acked = append(acked, ev)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(3 * time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
	close(stop)
	wg.Wait()

	p2, err := startReceiver(bin, db)
	if err != nil {
		return err
	}
	defer p2.stop()
	stored, err := exportedEvents(p2.base)
	if err != nil {
		return err
	}
	lost := 0
	for _, ev := range acked {
		if !stored[ev] {
			lost++
		}
	}
	fmt.Printf("kill -9 after 3s of load: %d notifications got a 2xx, %d stored after restart, %d of the 2xx lost (target 0)\n",
		len(acked), len(stored), lost)
	if lost > 0 {
		return fmt.Errorf("%d acknowledged notifications lost", lost)
	}
	return nil
}

func benchLarge(bin, dir string, n, workers int) error {
	p, err := startReceiver(bin, filepath.Join(dir, "large.db"))
	if err != nil {
		return err
	}
	defer p.stop()
	s := newSender(p.base, workers)
	ids := make(chan int, n)
	for i := 0; i < n; i++ {
		ids <- i
	}
	close(ids)
	sigIDs := make([]string, n)
	for i := range sigIDs {
		sigIDs[i] = uuid.NewString()
	}
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ids {
				_, _ = s.send(uuid.NewString(), sigIDs[i])
			}
		}()
	}
	wg.Wait()
	stored, _ := stats(p.base)
	fmt.Printf("stored %d records in %.1fs\n", stored, time.Since(start).Seconds())
	client := &http.Client{Timeout: 10 * time.Second}
	measure := func(name string, urls func(i int) string, want, times int) error {
		var d []time.Duration
		for i := 0; i < times; i++ {
			t0 := time.Now()
			resp, err := client.Get(urls(i))
			if err != nil {
				return err
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d = append(d, time.Since(t0))
			if resp.StatusCode != want {
				return fmt.Errorf("%s answered %d", name, resp.StatusCode)
			}
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		fmt.Printf("%-42s p50 %-9s p99 %-9s max %-9s (%d calls)\n", name, d[times/2].Round(10*time.Microsecond),
			d[times*99/100].Round(10*time.Microsecond), d[times-1].Round(10*time.Microsecond), times)
		return nil
	}
	rounds := []struct {
		name  string
		url   func(i int) string
		times int
	}{
		{"list newest 100", func(int) string { return p.base + "/api/events?limit=100" }, 500},
		{"list by state, newest 100", func(int) string { return p.base + "/api/events?state=CANCELED&limit=100" }, 500},
		{"list by a state no record has", func(int) string { return p.base + "/api/events?state=SIGNED&limit=100" }, 500},
		{"list by check, page after id", func(i int) string {
			return fmt.Sprintf("%s/api/events?check=valid&order=asc&after=%d&limit=100", p.base, i*150)
		}, 500},
		{"list by signature_id", func(i int) string { return p.base + "/api/events?signature_id=" + sigIDs[i*97%n] }, 500},
		{"wait for a stored signature_id", func(i int) string {
			return p.base + "/api/events/wait?status=CANCELED&timeout=1s&signature_id=" + sigIDs[i*89%n]
		}, 500},
		{"list by channel prefix, newest 100", func(int) string { return p.base + "/api/events?channel_prefix=merchant_&limit=100" }, 500},
		// Text in the body reads every stored body for the total: the
		// dashboard's search, whose cost grows with what is kept.
		{"search text in the body (one match)", func(i int) string { return p.base + "/api/events?q=" + sigIDs[i*83%n] }, 50},
		{"search text in the body (no match)", func(int) string { return p.base + "/api/events?q=no-such-text" }, 50},
	}
	for _, r := range rounds {
		if err := measure(r.name, r.url, 200, r.times); err != nil {
			return err
		}
	}
	fmt.Printf("receiver resident memory: now %s, peak %s (target <= 150 MiB)\n", rss(p.cmd.Process.Pid, "VmRSS:"), peakRSS(p.cmd.Process.Pid))
	return nil
}

func rss(pid int, field string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field) {
			var kb int
			fmt.Sscan(strings.TrimSpace(strings.TrimPrefix(line, field)), &kb)
			return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
		}
	}
	return "unknown"
}
