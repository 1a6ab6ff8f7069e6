package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
func benchReplicas(r *rig, d time.Duration, workers, rate int, streamFor time.Duration) error {
	bare, err := r.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The least any receiver does: read the body, answer 200.
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"received":1}`))
	}))
	if err != nil {
		return err
	}
	type row struct {
		name  string
		perS  float64
		fails int64
	}
	var rows []row
	base := ingestAt([]string{bare}, d, workers)
	rows = append(rows, row{"bare loopback handler (in the bench's process)", base.perSecond(), base.failed})

	measure := func(name string, dbs []string, extra ...string) error {
		var bases []string
		for _, db := range dbs {
			p, err := r.receiver(db, extra...)
			if err != nil {
				return err
			}
			defer p.stop()
			bases = append(bases, p.base)
		}
		t := ingestAt(bases, d, workers)
		stored, err := stats(bases[0])
		if err != nil {
			return err
		}
		if stored != t.ok {
			return fmt.Errorf("%s: %d stored, %d answered 2xx", name, stored, t.ok)
		}
		rows = append(rows, row{name, t.perSecond(), t.failed})
		return nil
	}
	if err := measure("SQLite, one receiver", []string{r.file("replicas.db")}); err != nil {
		return err
	}
	db, err := r.database()
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
	if db, err = r.database(); err != nil {
		return err
	}
	if err := measure("PostgreSQL, one replica, --db-notify=false", []string{db}, "--db-notify=false"); err != nil {
		return err
	}
	if db, err = r.database(); err != nil {
		return err
	}
	if err := measure("PostgreSQL, two replicas (senders split)", []string{db, db}); err != nil {
		return err
	}
	r.printf("ingest, signed 1 KiB notifications, %d senders, %s each, 2xx only after commit:\n", workers, d)
	for _, row := range rows {
		r.printf("  %-50s %8.0f/s  %5.2fx bare  failures %d\n", row.name, row.perS, row.perS/rows[0].perS, row.fails)
	}
	r.printf("PostgreSQL table, indexes and TOAST: %.0f bytes per stored 1 KiB notification\n", perRecord)

	if db, err = r.database(); err != nil {
		return err
	}
	if err := crossReplicaDelay(r, db, rate, streamFor); err != nil {
		return err
	}
	if db, err = r.database(); err != nil {
		return err
	}
	return killReplica(r, db, workers)
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
func crossReplicaDelay(r *rig, db string, rate int, d time.Duration) error {
	a, err := r.receiver(db)
	if err != nil {
		return err
	}
	defer a.stop()
	b, err := r.receiver(db)
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
	acked, failed, _ := paced(newSender(b.base, 64), rate, int(d.Seconds()*float64(rate)))
	time.Sleep(time.Second)
	idsA, idsB := onA.stop(), onB.stop()
	r.printf("stream delay, %d notifications at %d/s posted to replica B, %d send failures:\n", len(acked), rate, failed)
	for _, side := range []struct {
		name string
		w    *watch
		ids  []int64
	}{{"B's 2xx -> frame on A (the other replica)", onA, idsA}, {"B's 2xx -> frame on B (the same replica)", onB, idsB}} {
		var delays []time.Duration
		seen := map[int64]int{}
		ordered := slices.IsSorted(side.ids)
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
		slices.Sort(delays)
		q := func(f float64) time.Duration { return quantile(delays, f, 10*time.Microsecond) }
		r.printf("  %-44s p50 %s  p99 %s  max %s; missing %d, duplicates %d, in id order %v\n",
			side.name, q(0.5), q(0.99), q(1), missing, dups, ordered)
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
func killReplica(r *rig, db string, workers int) error {
	a, err := r.receiver(db)
	if err != nil {
		return err
	}
	b, err := r.receiver(db)
	if err != nil {
		return err
	}
	client, err := startWatch(a.base, 0)
	if err != nil {
		return err
	}
	sa, sb := newSender(a.base, workers), newSender(b.base, workers)
	var dead atomic.Bool
	stop := make(chan struct{})
	wait := untilStopped(stop, workers, func(w int) *sender {
		if w%2 == 0 && !dead.Load() {
			return sa
		}
		return sb
	})
	time.Sleep(3 * time.Second)
	a.kill()
	dead.Store(true)
	before := client.stop()
	time.Sleep(time.Second)
	close(stop)
	acked := wait()

	// The client resumes on B from the last id A gave it.
	res, err := resume(b.base, before)
	if err != nil {
		return err
	}
	stored, lost, err := lostAt(b.base, acked)
	if err != nil {
		return err
	}
	r.printf("kill -9 of one of two replicas after 3s of load (%d senders): %d notifications got a 2xx, %d stored, %d of the 2xx lost (target 0)\n",
		workers, len(acked), stored, lost)
	r.printf("a stream client of the killed replica had %d records, resumed on the other from id %d: %d more, %d of %d missing, %d duplicates\n",
		len(before), res.last, len(res.after), res.gaps, res.total, res.dups)
	if lost > 0 || res.gaps > 0 || res.dups > 0 {
		return fmt.Errorf("%d acknowledged notifications lost, %d missing from the stream, %d duplicates", lost, res.gaps, res.dups)
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

// lostAt reads every record a receiver at base stores, and returns how
// many there are and how many of the events acked, each answered with a
// 2xx, are not among them.
func lostAt(base string, acked []string) (stored, lost int, err error) {
	events, err := exportedEvents(base)
	for _, ev := range acked {
		if !events[ev] {
			lost++
		}
	}
	return len(events), lost, err
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
