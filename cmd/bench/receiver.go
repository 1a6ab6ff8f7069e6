package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"
)

// runReceiver measures the receiver, run as its own process on a
// persistent database: ingest rate, stream delay with 50 clients, kill -9
// durability, and list and wait latency with 100,000 stored records; then
// its bounds: peak memory of the in-memory receiver under 1 MiB bodies,
// and idle connections.
func runReceiver(out io.Writer, args []string) error {
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
	rounds := []round{
		{"ingest", func(r *rig) error { return benchIngest(r, *ingestFor, *workers) }},
		{"stream", func(r *rig) error { return benchStream(r, *clients, *streamRate, *streamFor) }},
		{"kill", func(r *rig) error { return benchKill(r, *workers) }},
		{"large", func(r *rig) error { return benchLarge(r, *fill, *workers) }},
		{"memory", func(r *rig) error { return benchMemory(r, *memFor, *memSenders) }},
		{"idle", func(r *rig) error { return benchIdle(r, *idleConns, *idleWait) }},
		{"replicas", func(r *rig) error { return benchReplicas(r, *ingestFor, *workers, *replicaRate, *streamFor) }},
	}
	if *presets != "" || *only == "presets" {
		if *presets == "" {
			*presets = "all"
		}
		rounds = append(rounds, round{"presets", func(r *rig) error { return benchIngestPresets(r, *ingestFor, *workers, *presets) }})
	}
	return runRounds(out, *bin, *only, rounds)
}

// stats is how many records a receiver stores.
func stats(base string) (count int64, err error) {
	var s struct{ Count int64 }
	err = getInto(base+"/api/stats", &s)
	return s.Count, err
}

func benchIngest(r *rig, d time.Duration, workers int) error {
	p, err := r.receiver(r.file("ingest.db"))
	if err != nil {
		return err
	}
	t := ingestAt([]string{p.base}, d, workers)
	stored, err := stats(p.base)
	if err != nil {
		return err
	}
	r.printf("ingested %d signed 1 KiB notifications in %.1fs: %.0f/s with %d senders (target >= 5000/s); failures %d\n",
		t.ok, t.elapsed.Seconds(), t.perSecond(), workers, t.failed)
	r.printf("stored %d, 2xx answers %d: %s\n", stored, t.ok, map[bool]string{true: "equal", false: "DIFFERENT"}[stored == t.ok])
	r.printf("receiver peak memory (VmHWM): %s\n", peakRSS(p.pid()))
	if stored != t.ok {
		return fmt.Errorf("stored count differs from 2xx count")
	}
	return nil
}

func benchStream(r *rig, clients, rate int, d time.Duration) error {
	p, err := r.receiver(r.file("stream.db"))
	if err != nil {
		return err
	}
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
	acked, failed, sent := paced(newSender(p.base, 64), rate, int(d.Seconds()*float64(rate)))
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
				// A frame that beat the 2xx to the sender counts as 0.
				delays = append(delays, max(f.at.Sub(a), 0))
			}
		}
		for id := range acked {
			if !seen[id] {
				missing++
			}
		}
	}
	if len(delays) == 0 {
		return fmt.Errorf("no frame arrived")
	}
	slices.Sort(delays)
	q := func(f float64) time.Duration { return quantile(delays, f, 10*time.Microsecond) }
	r.printf("%d notifications at %.0f/s to %d websocket clients: %d frames, %d missing, %d send failures\n",
		len(acked), float64(len(acked))/sent.Seconds(), clients, len(delays), missing, failed)
	r.printf("delay 2xx -> frame: p50 %s  p99 %s  max %s (target p99 <= 50ms)\n", q(0.5), q(0.99), q(1))
	return nil
}

func benchKill(r *rig, workers int) error {
	db := r.file("kill.db")
	p, err := r.receiver(db)
	if err != nil {
		return err
	}
	s := newSender(p.base, workers)
	stop := make(chan struct{})
	wait := untilStopped(stop, workers, func(int) *sender { return s })
	time.Sleep(3 * time.Second)
	p.kill()
	close(stop)
	acked := wait()

	p2, err := r.receiver(db)
	if err != nil {
		return err
	}
	stored, lost, err := lostAt(p2.base, acked)
	if err != nil {
		return err
	}
	r.printf("kill -9 after 3s of load: %d notifications got a 2xx, %d stored after restart, %d of the 2xx lost (target 0)\n",
		len(acked), stored, lost)
	if lost > 0 {
		return fmt.Errorf("%d acknowledged notifications lost", lost)
	}
	return nil
}

func benchLarge(r *rig, n, workers int) error {
	p, err := r.receiver(r.file("large.db"))
	if err != nil {
		return err
	}
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
	r.printf("stored %d records in %.1fs\n", stored, time.Since(start).Seconds())
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
		slices.Sort(d)
		r.printf("%-42s p50 %-9s p99 %-9s max %-9s (%d calls)\n", name, d[times/2].Round(10*time.Microsecond),
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
	for _, rd := range rounds {
		if err := measure(rd.name, rd.url, 200, rd.times); err != nil {
			return err
		}
	}
	r.printf("receiver resident memory: now %s, peak %s (target <= 150 MiB)\n", residentRSS(p.pid()), peakRSS(p.pid()))
	return nil
}
