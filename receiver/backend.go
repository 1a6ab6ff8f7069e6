package receiver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNotFound is returned for a record id that is not stored.
var ErrNotFound = errors.New("record not found")

// ErrIncompatibleDatabase is returned by Open when the database file is not
// a receiver's database of this version: not SQLite, tables with other
// columns, or a newer schema. The receiver does not touch such a file.
var ErrIncompatibleDatabase = errors.New("the database file is not a firmakit receiver database of this version")

// backend is where a receiver keeps its records and contract notes: an
// SQLite file (or memory) for one process, PostgreSQL for several
// replicas sharing one store. The HTTP, stream and dashboard code use
// only this, and the hub that the backend feeds.
type backend interface {
	// insert stores rec and returns once it is committed (inserts that
	// wait together share one transaction), with rec.ID set. Ids come in
	// commit order and are never given twice, even after deletes and
	// restarts.
	insert(ctx context.Context, rec *Record) error
	// get returns one record, or ErrNotFound.
	get(ctx context.Context, id int64) (*Record, error)
	// list returns the records matching f, paging bounds included, up to
	// f.Limit of them; truncated tells that it stopped early, past
	// maxBytes of bodies, with more to come.
	list(ctx context.Context, f Filter, maxBytes int) (recs []*Record, truncated bool, err error)
	// total counts the records matching f, paging left out.
	total(ctx context.Context, f Filter) (int64, error)
	// count returns how many records are stored.
	count(ctx context.Context) (int64, error)
	// last returns the greatest id committed that this process knows of.
	last() int64
	// deleteOne deletes a record, or returns ErrNotFound.
	deleteOne(ctx context.Context, id int64) error
	// deleteAll deletes every record and says how many went.
	deleteAll(ctx context.Context) (int64, error)
	// noteContract keeps when a contract was created.
	noteContract(ctx context.Context, signatureID, createdAt string) error
	// retentionPass applies the limits now and returns once done; it also
	// runs on its own, now and then.
	retentionPass()
	// dropped counts the records removed by retention since opening.
	dropped() int64
	// health says whether the backend can store notifications now: nil,
	// or why not.
	health(ctx context.Context) error
	// close commits what is queued and lets go of the database.
	close()
}

// backendConfig is what a backend is opened with.
type backendConfig struct {
	dsn       string        // a file, ":memory:", or a postgres:// URL
	maxEvents int64         // records kept at most (0: no limit)
	maxAge    time.Duration // age kept at most (0: no limit)
	maxBytes  int64         // bytes the records may take (0: no limit)
	// maxContracts bounds the contract notes (0: DefaultMaxContracts).
	maxContracts int
	now          func() time.Time
	log          *slog.Logger
	// published is called with every committed record, in id order, each
	// once: the hub's feed for waits and streams. With several replicas
	// it carries the records every replica committed.
	published func([]*Record)
	// every is how often the periodic retention pass runs.
	every time.Duration
	// noNotify, on PostgreSQL, leaves out the NOTIFY of each batch (see
	// Receiver.NoNotify).
	noNotify bool
}

// openBackend opens the database dsn names, with the programmed answers
// that go with it: in the database on PostgreSQL, so that every replica
// answers by the same rules; in memory beside SQLite, whose file one
// process owns.
func openBackend(cfg backendConfig) (backend, answerBook, error) {
	if IsPostgres(cfg.dsn) {
		pg, err := openPostgres(cfg)
		if err != nil {
			return nil, nil, err
		}
		return pg, pg.rules(), nil
	}
	st, err := openSQLite(cfg)
	if err != nil {
		return nil, nil, err
	}
	return st, &answers{}, nil
}

// inserts queues the records a backend's writer commits in batches:
// every record waiting goes into one transaction, and each learns its id
// only once that transaction is committed (group commit).
type inserts struct {
	ch chan *pending
	// mu is held to send, and to close ch, so that no send meets it closed.
	mu     sync.RWMutex
	closed bool
}

type pending struct {
	rec *Record
	err chan error
}

// maxBatch bounds the records one transaction commits.
const maxBatch = 512

func newInserts() *inserts { return &inserts{ch: make(chan *pending, 4096)} }

// insert queues rec and returns once it is committed, with rec.ID set,
// or the commit's error.
func (q *inserts) insert(ctx context.Context, rec *Record) error {
	p := &pending{rec: rec, err: make(chan error, 1)}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return errors.New("receiver is shutting down")
	}
	select {
	case q.ch <- p:
		q.mu.RUnlock()
	case <-ctx.Done():
		q.mu.RUnlock()
		return ctx.Err()
	}
	return <-p.err
}

// batch returns first and what else is queued now, maxBatch at most.
func (q *inserts) batch(first *pending) []*pending {
	batch := []*pending{first}
	for len(batch) < maxBatch {
		select {
		case p, ok := <-q.ch:
			if !ok {
				return batch
			}
			batch = append(batch, p)
		default:
			return batch
		}
	}
	return batch
}

// records returns the batch's records.
func records(batch []*pending) []*Record {
	recs := make([]*Record, len(batch))
	for i, p := range batch {
		recs[i] = p.rec
	}
	return recs
}

// answer tells every insert of the batch how its commit went.
func answer(batch []*pending, err error) {
	for _, p := range batch {
		p.err <- err
	}
}

// close stops taking inserts, once; the writer then drains what is
// queued and stops. It tells whether this call closed it.
func (q *inserts) close() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.closed = true
	close(q.ch)
	return true
}

// dropLog counts records removed by retention and says so in the log: at
// once the first time, then at most every 10 s, with the count since. Its
// note is called from one goroutine at a time.
type dropLog struct {
	total    atomic.Int64
	unlogged int64
	lastLog  time.Time
}

func (d *dropLog) note(cfg backendConfig, n int64) {
	if n > 0 {
		d.total.Add(n)
		d.unlogged += n
	}
	if d.unlogged == 0 {
		return
	}
	now := cfg.now()
	if !d.lastLog.IsZero() && now.Sub(d.lastLog) < 10*time.Second && now.After(d.lastLog) {
		return
	}
	cfg.log.Warn("oldest records dropped to stay within the receiver's limits",
		"dropped", d.unlogged, "dropped_total", d.total.Load(),
		"max_events", cfg.maxEvents, "max_bytes", cfg.maxBytes, "max_age", cfg.maxAge.String())
	d.unlogged, d.lastLog = 0, now
}

var (
	_ backend    = (*pgStore)(nil)
	_ backend    = (*sqliteStore)(nil)
	_ answerBook = (*pgRules)(nil)
	_ answerBook = (*answers)(nil)
)
