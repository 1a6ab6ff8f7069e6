package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/firmakit/firmakit/internal/pgtest"
	"github.com/google/uuid"
	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"
)

// benchReplicas measures the receiver on PostgreSQL next to SQLite in one
// run, on a PostgreSQL server of its own (Debian's, started in a
// temporary folder as the tests do): ingest of signed 1 KiB notifications
// by the same senders into a bare loopback handler, one receiver on
// SQLite, one on PostgreSQL with and without NOTIFY, and two replicas on
// one PostgreSQL; then the delay from a 2xx on one replica to the frame
// on the other's websocket; then a kill -9 of one of two replicas under
// load.
func benchReplicas(bin, dir string, d time.Duration, workers, rate int, streamFor time.Duration) error {
	pg, err := pgtest.Start()
	if err != nil {
		return err
	}
	defer pg.Stop()
	dbs := 0
	newDB := func() (string, error) {
		dbs++
		return pg.CreateDatabase(fmt.Sprintf("bench_%d", dbs))
	}

	bare, err := startBare()
	if err != nil {
		return err
	}
	defer bare.Close()
	type row struct {
		name  string
		perS  float64
		fails int64
	}
	var rows []row
	base := ingestAt([]string{"http://" + bare.Addr}, d, workers)
	rows = append(rows, row{"bare loopback handler (in the bench's process)", base.perSecond(), base.failed})

	measure := func(name string, dbs []string, extra ...string) error {
		var procs []*proc
		var bases []string
		for _, db := range dbs {
			p, err := startReceiver(bin, db, extra...)
			if err != nil {
				return err
			}
			defer p.stop()
			procs, bases = append(procs, p), append(bases, p.base)
		}
		r := ingestAt(bases, d, workers)
		stored, err := stats(bases[0])
		if err != nil {
			return err
		}
		if stored != r.ok {
			return fmt.Errorf("%s: %d stored, %d answered 2xx", name, stored, r.ok)
		}
		rows = append(rows, row{name, r.perSecond(), r.failed})
		return nil
	}
	if err := measure("SQLite, one receiver", []string{filepath.Join(dir, "replicas.db")}); err != nil {
		return err
	}
	db, err := newDB()
	if err != nil {
		return err
	}
	if err := measure("PostgreSQL, one replica", []string{db}); err != nil {
		return err
	}
	perRecord, err := tableBytesPerRecord(db)
	if err != nil {
		return err
	}
	if db, err = newDB(); err != nil {
		return err
	}
	if err := measure("PostgreSQL, one replica, --db-notify=false", []string{db}, "--db-notify=false"); err != nil {
		return err
	}
	if db, err = newDB(); err != nil {
		return err
	}
	if err := measure("PostgreSQL, two replicas (senders split)", []string{db, db}); err != nil {
		return err
	}
	fmt.Printf("ingest, signed 1 KiB notifications, %d senders, %s each, 2xx only after commit:\n", workers, d)
	for _, r := range rows {
		fmt.Printf("  %-50s %8.0f/s  %5.2fx bare  failures %d\n", r.name, r.perS, r.perS/rows[0].perS, r.fails)
	}
	fmt.Printf("PostgreSQL table, indexes and TOAST: %.0f bytes per stored 1 KiB notification\n", perRecord)

	if db, err = newDB(); err != nil {
		return err
	}
	if err := crossReplicaDelay(bin, db, rate, streamFor); err != nil {
		return err
	}
	if db, err = newDB(); err != nil {
		return err
	}
	return killReplica(bin, db, workers)
}

// startBare serves a handler that reads the body and answers 200, the
// least any receiver does.
func startBare() (*http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Addr: ln.Addr().String(), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"received":1}`))
	})}
	go srv.Serve(ln)
	return srv, nil
}

// ingestResult is what a round of senders got.
type ingestResult struct {
	ok, failed int64
	elapsed    time.Duration
}

func (r ingestResult) perSecond() float64 { return float64(r.ok) / r.elapsed.Seconds() }

// ingestAt sends signed 1 KiB notifications from workers senders for d,
// the senders split evenly over bases.
func ingestAt(bases []string, d time.Duration, workers int) ingestResult {
	senders := make([]*sender, len(bases))
	for i, b := range bases {
		senders[i] = newSender(b, workers)
	}
	var ok, failed atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := senders[w%len(senders)]
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
	return ingestResult{ok: ok.Load(), failed: failed.Load(), elapsed: time.Since(start)}
}

// watch reads a receiver's websocket stream from after, noting when each
// id arrived, until the connection ends.
type watch struct {
	conn *websocket.Conn
	mu   sync.Mutex
	at   map[int64]time.Time
	ids  []int64
	done chan struct{}
}

func startWatch(base string, after int64) (*watch, error) {
	c, _, err := websocket.DefaultDialer.Dial(fmt.Sprintf("ws%s/api/stream?after=%d", strings.TrimPrefix(base, "http"), after), nil)
	if err != nil {
		return nil, err
	}
	w := &watch{conn: c, at: map[int64]time.Time{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			_, b, err := c.ReadMessage()
			at := time.Now()
			if err != nil {
				return
			}
			var r struct {
				ID int64 `json:"id"`
			}
			if json.Unmarshal(b, &r) != nil || r.ID == 0 {
				continue
			}
			w.mu.Lock()
			w.at[r.ID] = at
			w.ids = append(w.ids, r.ID)
			w.mu.Unlock()
		}
	}()
	return w, nil
}

func (w *watch) stop() []int64 {
	w.conn.Close()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ids
}

// crossReplicaDelay posts to replica B at rate a second and measures the
// time from B's 2xx to the record's frame on replica A's websocket, and,
// for comparison, to the frame on B's own.
func crossReplicaDelay(bin, db string, rate int, d time.Duration) error {
	a, err := startReceiver(bin, db)
	if err != nil {
		return err
	}
	defer a.stop()
	b, err := startReceiver(bin, db)
	if err != nil {
		return err
	}
	defer b.stop()
	onA, err := startWatch(a.base, 0)
	if err != nil {
		return err
	}
	onB, err := startWatch(b.base, 0)
	if err != nil {
		return err
	}
	s := newSender(b.base, 64)
	var mu sync.Mutex
	acked := map[int64]time.Time{}
	var failed atomic.Int64
	interval := time.Second / time.Duration(rate)
	n := int(d.Seconds() * float64(rate))
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		wg.Add(1)
		go func() {
			defer wg.Done()
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
	wg.Wait()
	time.Sleep(time.Second)
	idsA, idsB := onA.stop(), onB.stop()
	fmt.Printf("stream delay, %d notifications at %d/s posted to replica B, %d send failures:\n", len(acked), rate, failed.Load())
	for _, side := range []struct {
		name string
		w    *watch
		ids  []int64
	}{{"B's 2xx -> frame on A (the other replica)", onA, idsA}, {"B's 2xx -> frame on B (the same replica)", onB, idsB}} {
		var delays []time.Duration
		seen := map[int64]int{}
		ordered := sort.SliceIsSorted(side.ids, func(i, j int) bool { return side.ids[i] < side.ids[j] })
		for _, id := range side.ids {
			seen[id]++
		}
		missing, dups := 0, 0
		for id, t := range acked {
			got, ok := side.w.at[id]
			if !ok {
				missing++
				continue
			}
			delays = append(delays, max(got.Sub(t), 0))
		}
		for _, c := range seen {
			dups += c - 1
		}
		if len(delays) == 0 {
			return fmt.Errorf("%s: no frame arrived", side.name)
		}
		sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
		q := func(f float64) time.Duration {
			return delays[int(f*float64(len(delays)-1))].Round(10 * time.Microsecond)
		}
		fmt.Printf("  %-44s p50 %s  p99 %s  max %s; missing %d, duplicates %d, in id order %v\n",
			side.name, q(0.5), q(0.99), delays[len(delays)-1].Round(10*time.Microsecond), missing, dups, ordered)
		if missing > 0 || dups > 0 || !ordered {
			return fmt.Errorf("%s: %d missing, %d duplicates, in order %v", side.name, missing, dups, ordered)
		}
	}
	return nil
}

// killReplica sends to two replicas under load, kills one with SIGKILL
// after 3 s (its senders move to the other, as a load balancer's would),
// and checks that every notification that got a 2xx is on the other's
// list; a stream client of the dead one reconnects to the other with its
// last id and must end up with every record, once.
func killReplica(bin, db string, workers int) error {
	a, err := startReceiver(bin, db)
	if err != nil {
		return err
	}
	b, err := startReceiver(bin, db)
	if err != nil {
		a.cmd.Process.Kill()
		return err
	}
	defer b.stop()
	client, err := startWatch(a.base, 0)
	if err != nil {
		return err
	}
	sa, sb := newSender(a.base, workers), newSender(b.base, workers)
	var dead atomic.Bool
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := sb
				if w%2 == 0 && !dead.Load() {
					s = sa
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
	_ = a.cmd.Process.Signal(syscall.SIGKILL)
	_ = a.cmd.Wait()
	dead.Store(true)
	before := client.stop()
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	// The client resumes on B from the last id A gave it.
	r, err := resume(b.base, before)
	if err != nil {
		return err
	}
	stored, err := exportedEvents(b.base)
	if err != nil {
		return err
	}
	lost := 0
	for _, ev := range acked {
		if !stored[ev] {
			lost++
		}
	}
	fmt.Printf("kill -9 of one of two replicas after 3s of load (%d senders): %d notifications got a 2xx, %d stored, %d of the 2xx lost (target 0)\n",
		workers, len(acked), len(stored), lost)
	fmt.Printf("a stream client of the killed replica had %d records, resumed on the other from id %d: %d more, %d of %d missing, %d duplicates\n",
		len(before), r.last, len(r.after), r.gaps, r.total, r.dups)
	if lost > 0 || r.gaps > 0 || r.dups > 0 {
		return fmt.Errorf("%d acknowledged notifications lost, %d missing from the stream, %d duplicates", lost, r.gaps, r.dups)
	}
	return nil
}

// resumption is how a stream client fared moving to another replica.
type resumption struct {
	last       int64   // the id it resumed after
	after      []int64 // the ids the new stream gave
	gaps, dups int     // stored records it never got, and those it got twice
	total      int64   // records stored
}

// resume opens a stream on base from the last of the ids a client had
// from another replica, reads until it holds as many records as are
// stored, and says how many it missed and got twice.
func resume(base string, before []int64) (resumption, error) {
	var r resumption
	if len(before) > 0 {
		r.last = before[len(before)-1]
	}
	w, err := startWatch(base, r.last)
	if err != nil {
		return r, err
	}
	if r.total, err = stats(base); err != nil {
		return r, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		n := len(w.ids)
		w.mu.Unlock()
		if int64(len(before)+n) >= r.total {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.after = w.stop()
	streamed := map[int64]int{}
	for _, id := range append(append([]int64{}, before...), r.after...) {
		streamed[id]++
	}
	r.gaps = int(r.total) - len(streamed)
	for _, c := range streamed {
		r.dups += c - 1
	}
	return r, nil
}

// exportedEvents reads the event ids of every stored record.
func exportedEvents(base string) (map[string]bool, error) {
	resp, err := http.Get(base + "/api/events/export?format=jsonl")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	stored := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var r struct {
			EventID string `json:"event_id"`
		}
		if err := json.NewDecoder(bytes.NewReader(sc.Bytes())).Decode(&r); err != nil {
			return nil, err
		}
		stored[r.EventID] = true
	}
	return stored, sc.Err()
}

// tableBytesPerRecord is what the records table takes on disk (indexes
// and TOAST included) per record, after a VACUUM.
func tableBytesPerRecord(db string) (float64, error) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, db)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "VACUUM records"); err != nil {
		return 0, err
	}
	var size, n int64
	if err := c.QueryRow(ctx, "SELECT pg_total_relation_size('records'), COUNT(*) FROM records").Scan(&size, &n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("no records stored")
	}
	return float64(size) / float64(n), nil
}
