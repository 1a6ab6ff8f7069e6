package receiver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // pure Go SQLite, no cgo
)

// ErrNotFound is returned for a record id that is not stored.
var ErrNotFound = errors.New("record not found")

const schema = `
CREATE TABLE IF NOT EXISTS records (
	id           INTEGER PRIMARY KEY,
	channel      TEXT NOT NULL,
	method       TEXT NOT NULL,
	path         TEXT NOT NULL,
	query        TEXT NOT NULL,
	headers      TEXT NOT NULL,
	body         BLOB,
	size         INTEGER NOT NULL,
	body_dropped INTEGER NOT NULL DEFAULT 0,
	received_at  INTEGER NOT NULL,
	remote_addr  TEXT NOT NULL,
	verdict      TEXT NOT NULL,
	reason       TEXT NOT NULL DEFAULT '',
	event_id     TEXT NOT NULL DEFAULT '',
	signature_id TEXT NOT NULL DEFAULT '',
	state        TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL DEFAULT '',
	duplicate    INTEGER NOT NULL DEFAULT 0,
	status       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS records_channel ON records(channel, id);
CREATE INDEX IF NOT EXISTS records_signature ON records(signature_id, id);
CREATE INDEX IF NOT EXISTS records_event ON records(event_id);
CREATE INDEX IF NOT EXISTS records_received ON records(received_at);
CREATE INDEX IF NOT EXISTS records_state ON records(state, id);
CREATE INDEX IF NOT EXISTS records_verdict ON records(verdict, id);
CREATE TABLE IF NOT EXISTS contracts (
	signature_id TEXT PRIMARY KEY,
	created_at   TEXT NOT NULL
);
`

// store keeps records in SQLite. One goroutine writes, in batches: every
// request waiting in the queue goes into one transaction, and each learns
// its id only once that transaction is committed (group commit). Readers
// use their own connections, which WAL lets run beside the writer.
type store struct {
	write *sql.DB
	read  *sql.DB
	queue chan *pending
	done  chan struct{}
	// published is called with each committed batch, in id order.
	published func([]*Record)

	mu     sync.Mutex
	closed bool
	lastID int64
	// hasContracts is set once a contract is noted, so that commits skip
	// the contract lookup until then.
	hasContracts atomic.Bool

	maxEvents int64
	maxAge    time.Duration
	now       func() time.Time
}

type pending struct {
	rec *Record
	err chan error
}

// openStore opens (or creates) the database at path; ":memory:" keeps it
// in memory for the life of the process.
func openStore(path string, maxEvents int64, maxAge time.Duration, now func() time.Time, published func([]*Record)) (*store, error) {
	memory := path == ":memory:"
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(on)"
	var dsn string
	if memory {
		// One shared connection: each new connection to :memory: would be
		// another, empty database.
		dsn = "file::memory:?" + pragmas
	} else {
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	}
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	if _, err := w.Exec(schema); err != nil {
		w.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	r := w
	if !memory {
		if r, err = sql.Open("sqlite", dsn+"&_pragma=query_only(on)"); err != nil {
			w.Close()
			return nil, err
		}
		r.SetMaxOpenConns(8)
	}
	s := &store{write: w, read: r, queue: make(chan *pending, 4096), done: make(chan struct{}),
		published: published, maxEvents: maxEvents, maxAge: maxAge, now: now}
	if err := w.QueryRow(`SELECT COALESCE(MAX(id), 0) FROM records`).Scan(&s.lastID); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	var contracts int
	_ = w.QueryRow(`SELECT COUNT(*) FROM contracts`).Scan(&contracts)
	s.hasContracts.Store(contracts > 0)
	go s.writer()
	return s, nil
}

func (s *store) closeDBs() {
	if s.read != s.write {
		s.read.Close()
	}
	s.write.Close()
}

// insert queues rec and returns once it is committed, with rec.ID set.
func (s *store) insert(ctx context.Context, rec *Record) error {
	p := &pending{rec: rec, err: make(chan error, 1)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("receiver is shutting down")
	}
	s.mu.Unlock()
	select {
	case s.queue <- p:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-p.err
}

const maxBatch = 512

func (s *store) writer() {
	defer close(s.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case p, ok := <-s.queue:
			if !ok {
				return
			}
			batch := []*pending{p}
		fill:
			for len(batch) < maxBatch {
				select {
				case q, ok := <-s.queue:
					if !ok {
						break fill
					}
					batch = append(batch, q)
				default:
					break fill
				}
			}
			s.commit(batch)
		case <-tick.C:
			s.enforceRetention()
		}
	}
}

func (s *store) commit(batch []*pending) {
	recs := make([]*Record, len(batch))
	for i, p := range batch {
		recs[i] = p.rec
	}
	err := s.commitRecords(recs)
	for _, p := range batch {
		p.err <- err
	}
	if err == nil && s.published != nil {
		s.published(recs)
	}
}

func (s *store) commitRecords(recs []*Record) error {
	tx, err := s.write.Begin()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT INTO records (id, channel, method, path, query, headers, body, size, body_dropped,
		received_at, remote_addr, verdict, reason, event_id, signature_id, state, created_at, duplicate, status)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer ins.Close()
	dupQ, err := tx.Prepare(`SELECT 1 FROM records WHERE event_id = ? LIMIT 1`)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer dupQ.Close()
	contractQ, err := tx.Prepare(`SELECT created_at FROM contracts WHERE signature_id = ?`)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer contractQ.Close()
	id := s.lastID
	seen := map[string]bool{}
	for _, r := range recs {
		id++
		r.ID = id
		if r.EventID != "" {
			if seen[r.EventID] {
				r.Duplicate = true
			} else {
				var one int
				r.Duplicate = dupQ.QueryRow(r.EventID).Scan(&one) == nil
			}
			seen[r.EventID] = true
		}
		if r.SignatureID != "" && s.hasContracts.Load() {
			_ = contractQ.QueryRow(r.SignatureID).Scan(&r.ContractCreatedAt)
		}
		h := r.headerJSON
		if h == nil {
			h, _ = json.Marshal(r.Header)
		}
		if _, err := ins.Exec(r.ID, r.Channel, r.Method, r.Path, r.Query, string(h), r.Body, r.Size, r.BodyDropped,
			r.ReceivedAt.UnixMicro(), r.RemoteAddr, r.Verdict, r.Reason, r.EventID, r.SignatureID, r.State,
			r.CreatedAt, r.Duplicate, r.Status); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.mu.Lock()
	s.lastID = id
	s.mu.Unlock()
	return nil
}

// enforceRetention deletes what is over the limits; it runs on the writer
// goroutine, so it never races an insert.
func (s *store) enforceRetention() {
	if s.maxEvents > 0 {
		_, _ = s.write.Exec(`DELETE FROM records WHERE id <= ?`, s.last()-s.maxEvents)
	}
	if s.maxAge > 0 {
		_, _ = s.write.Exec(`DELETE FROM records WHERE received_at < ?`, s.now().Add(-s.maxAge).UnixMicro())
	}
}

func (s *store) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.queue)
	<-s.done
	s.closeDBs()
}

const columns = `r.id, r.channel, r.method, r.path, r.query, r.headers, r.body, r.size, r.body_dropped, r.received_at,
	r.remote_addr, r.verdict, r.reason, r.event_id, r.signature_id, r.state, r.created_at, r.duplicate, r.status,
	COALESCE(c.created_at, '')`

func scanRecord(row interface{ Scan(...any) error }) (*Record, error) {
	var r Record
	var headers string
	var micros int64
	if err := row.Scan(&r.ID, &r.Channel, &r.Method, &r.Path, &r.Query, &headers, &r.Body, &r.Size, &r.BodyDropped,
		&micros, &r.RemoteAddr, &r.Verdict, &r.Reason, &r.EventID, &r.SignatureID, &r.State, &r.CreatedAt,
		&r.Duplicate, &r.Status, &r.ContractCreatedAt); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(headers), &r.Header)
	r.ReceivedAt = time.UnixMicro(micros).UTC()
	if r.Body == nil {
		r.Body = []byte{}
	}
	return &r, nil
}

func (s *store) get(ctx context.Context, id int64) (*Record, error) {
	r, err := scanRecord(s.read.QueryRowContext(ctx, `SELECT `+columns+` FROM records r
		LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != '' WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

func (s *store) list(ctx context.Context, f Filter) ([]*Record, error) {
	var where []string
	var args []any
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.Channel != "" {
		add("r.channel = ?", f.Channel)
	}
	// With a signature or event id, that index is the selective one: the
	// unary + keeps the planner off the state and verdict indexes.
	weak := ""
	if f.SignatureID != "" || f.EventID != "" {
		weak = "+"
	}
	if f.State != "" {
		add(weak+"r.state = ?", f.State)
	}
	if f.SignatureID != "" {
		add("r.signature_id = ?", f.SignatureID)
	}
	if f.EventID != "" {
		add("r.event_id = ?", f.EventID)
	}
	if f.Verdict != "" {
		add(weak+"r.verdict = ?", f.Verdict)
	}
	if f.AfterID > 0 {
		add("r.id > ?", f.AfterID)
	}
	if !f.Since.IsZero() {
		add("r.received_at >= ?", f.Since.UnixMicro())
	}
	q := `SELECT ` + columns + ` FROM records r LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != ''`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Newest {
		q += " ORDER BY r.id DESC"
	} else {
		q += " ORDER BY r.id ASC"
	}
	q += " LIMIT ?"
	args = append(args, f.Limit)
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*Record{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// last returns the id of the last committed record.
func (s *store) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

func (s *store) count(ctx context.Context) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM records`).Scan(&n)
	return n, err
}

func (s *store) deleteOne(ctx context.Context, id int64) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM records WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *store) deleteAll(ctx context.Context) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM records`)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

func (s *store) noteContract(ctx context.Context, signatureID, createdAt string) error {
	s.hasContracts.Store(true)
	_, err := s.write.ExecContext(ctx, `INSERT INTO contracts (signature_id, created_at) VALUES (?, ?)
		ON CONFLICT(signature_id) DO UPDATE SET created_at = excluded.created_at`, signatureID, createdAt)
	return err
}
