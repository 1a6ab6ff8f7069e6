package receiver

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // pure Go SQLite, no cgo
)

// ErrNotFound is returned for a record id that is not stored.
var ErrNotFound = errors.New("record not found")

// ErrIncompatibleDatabase is returned by Open when the database file is not
// a receiver's database of this version: not SQLite, tables with other
// columns, or a newer schema. The receiver does not touch such a file.
var ErrIncompatibleDatabase = errors.New("the database file is not a firmakit receiver database of this version")

// schemaVersion is the receiver's schema, kept in the meta table; a file
// with a greater one was written by a newer firmakit. Version 2 added the
// forward column; a version 1 file is migrated when opened.
const schemaVersion = 2

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
	status       INTEGER NOT NULL DEFAULT 0,
	forward      TEXT NOT NULL DEFAULT ''
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
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', 2), ('last_id', 0);
`

// v1Records are the records columns of schema version 1.
var v1Records = []string{"id", "channel", "method", "path", "query", "headers", "body", "size", "body_dropped", "received_at",
	"remote_addr", "verdict", "reason", "event_id", "signature_id", "state", "created_at", "duplicate", "status"}

// tables are the columns of each table of the schema, for checking a file
// made elsewhere.
var tables = map[string][]string{
	"records":   append(append([]string(nil), v1Records...), "forward"),
	"contracts": {"signature_id", "created_at"},
	"meta":      {"key", "value"},
}

// maxContracts bounds the contract notes (POST /api/contracts): past it
// the oldest noted go. With signature ids of at most 200 bytes they take a
// few MiB at most, outside the records' budget (MaxBytes), so that noting
// contracts never pushes acknowledged records out.
const maxContracts = 10000

// listBytes bounds the bodies one in-process List call holds in memory; a
// page of large records is cut short there, and paging goes on after it.
// The API's pages read listChunk at a time.
const listBytes = 32 << 20

// sqliteStore keeps records in SQLite. One goroutine writes, in batches: every
// request waiting in the queue goes into one transaction, and each learns
// its id only once that transaction is committed (group commit). Readers
// use their own connections, which WAL lets run beside the writer.
//
// Retention (count, bytes, age) runs inside each commit's transaction, so
// that no limit is exceeded once a notification is answered, and on a
// periodic pass for records that age while nothing arrives.
type sqliteStore struct {
	backendConfig
	write  *sql.DB
	read   *sql.DB
	queue  chan *pending
	passes chan chan struct{}
	done   chan struct{}

	mu     sync.Mutex
	closed bool
	// lastID is the greatest id ever given, kept in the meta table too,
	// so that ids are never reused after deletes and restarts.
	lastID int64
	// hasContracts is set once a contract is noted, so that commits skip
	// the contract lookup until then.
	hasContracts atomic.Bool
	// contractBytes is what the contract notes' pages take, measured
	// after each note: they have their own bound (maxContracts), so
	// retention by size leaves them out of the records' budget.
	contractBytes atomic.Int64
	notes         atomic.Int64 // contract notes since open

	// pageCost is what a byte of database page costs: in memory, each
	// page is an allocation of the page and its header, which the
	// allocator rounds up to the next power of two (a 4 KiB page takes
	// 8 KiB), so a memory budget counts twice the page bytes.
	pageCost int64
	// floor is an id at or below which no record is left; count
	// retention skips its delete while nothing is over the limit.
	floor int64
	// drops counts records removed by retention.
	drops dropLog
}

type pending struct {
	rec *Record
	err chan error
}

// openSQLite opens (or creates) the SQLite database at cfg.dsn; ":memory:" keeps
// it in memory for the life of the process. A new file is created readable
// by its owner only (SQLite gives its -wal and -shm files the same mode).
func openSQLite(cfg backendConfig) (*sqliteStore, error) {
	path := cfg.dsn
	memory := path == ":memory:"
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(on)"
	var dsn string
	if memory {
		// One shared connection: each new connection to :memory: would be
		// another, empty database.
		dsn = "file::memory:?" + pragmas
	} else {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		f.Close()
		dsn = "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	}
	if !memory {
		// Checked read-only first: opening for writing would already turn
		// the file to WAL mode.
		ro, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&"+pragmas)
		if err != nil {
			return nil, fmt.Errorf("open database %s: %w", path, err)
		}
		err = checkSchema(ro, path)
		ro.Close()
		if err != nil {
			return nil, err
		}
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
	if err := migrate(w); err != nil {
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
	if cfg.every <= 0 {
		cfg.every = time.Second
	}
	s := &sqliteStore{backendConfig: cfg, write: w, read: r, queue: make(chan *pending, 4096),
		passes: make(chan chan struct{}), done: make(chan struct{}), pageCost: 1}
	if memory {
		s.pageCost = 2
	}
	if err := w.QueryRow(`SELECT MAX(COALESCE((SELECT MAX(id) FROM records), 0), (SELECT value FROM meta WHERE key = 'last_id'))`).Scan(&s.lastID); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	var contracts int
	_ = w.QueryRow(`SELECT COUNT(*) FROM contracts`).Scan(&contracts)
	s.hasContracts.Store(contracts > 0)
	s.contractBytes.Store(contractPages(w))
	go s.writer()
	return s, nil
}

// checkSchema refuses a file that is not SQLite, has one of the receiver's
// tables with other columns, or was written by a newer schema.
func checkSchema(db *sql.DB, path string) error {
	names := make([]string, 0, len(tables))
	for t := range tables {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, table := range names {
		var got []string
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err == nil {
			for rows.Next() {
				var n string
				if err = rows.Scan(&n); err != nil {
					break
				}
				got = append(got, n)
			}
			if err == nil {
				err = rows.Err()
			}
			rows.Close()
		}
		if err != nil {
			var coded interface{ Code() int }
			if errors.As(err, &coded) && (coded.Code()&0xff == 26 || coded.Code()&0xff == 11) { // SQLITE_NOTADB, SQLITE_CORRUPT
				return fmt.Errorf("%w: %s is not a SQLite database (%v)", ErrIncompatibleDatabase, path, err)
			}
			return fmt.Errorf("open database %s: %w", path, err)
		}
		want := tables[table]
		if len(got) > 0 && !sameSet(got, want) && !(table == "records" && sameSet(got, v1Records)) {
			return fmt.Errorf("%w: in %s, table %s has the columns (%s), not the receiver's (%s)",
				ErrIncompatibleDatabase, path, table, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
	var version int64
	err := db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&version)
	if err == nil && version > schemaVersion {
		return fmt.Errorf("%w: %s has schema version %d, written by a newer firmakit (this one reads version %d)",
			ErrIncompatibleDatabase, path, version, schemaVersion)
	}
	return nil
}

// migrate brings a version 1 database (checkSchema let it through) to
// schemaVersion in one transaction: it adds the forward column.
func migrate(db *sql.DB) error {
	var has int
	if err := db.QueryRow(`SELECT COUNT(*) FROM pragma_table_info('records') WHERE name = 'forward'`).Scan(&has); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if has == 0 {
		if _, err := tx.Exec(`ALTER TABLE records ADD COLUMN forward TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("migrating to schema version 2: %w", err)
		}
	}
	if _, err := tx.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version' AND value < ?`, schemaVersion, schemaVersion); err != nil {
		return err
	}
	return tx.Commit()
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func (s *sqliteStore) closeDBs() {
	if s.read != s.write {
		s.read.Close()
	}
	s.write.Close()
}

// insert queues rec and returns once it is committed, with rec.ID set.
func (s *sqliteStore) insert(ctx context.Context, rec *Record) error {
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

func (s *sqliteStore) writer() {
	defer close(s.done)
	tick := time.NewTicker(s.every)
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
			s.pass()
		case done := <-s.passes:
			s.pass()
			close(done)
		}
	}
}

func (s *sqliteStore) commit(batch []*pending) {
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

func (s *sqliteStore) commitRecords(recs []*Record) error {
	tx, err := s.write.Begin()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT INTO records (id, channel, method, path, query, headers, body, size, body_dropped,
		received_at, remote_addr, verdict, reason, event_id, signature_id, state, created_at, duplicate, status, forward)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
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
		fwd := ""
		if r.Forward != nil {
			b, _ := json.Marshal(r.Forward)
			fwd = string(b)
		}
		if _, err := ins.Exec(r.ID, r.Channel, r.Method, r.Path, r.Query, string(h), r.Body, r.Size, r.BodyDropped,
			r.ReceivedAt.UnixMicro(), r.RemoteAddr, r.Check, r.Reason, r.EventID, r.SignatureID, r.State,
			r.CreatedAt, r.Duplicate, r.Status, fwd); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if _, err := tx.Exec(`UPDATE meta SET value = ? WHERE key = 'last_id'`, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	// The records of this batch are about to be acknowledged: the
	// retention their insert triggers deletes only older ones.
	dropped, err := s.retain(tx, id, recs[0].ID)
	if err != nil {
		return fmt.Errorf("store: retention: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.mu.Lock()
	s.lastID = id
	s.mu.Unlock()
	s.drops.note(s.backendConfig, dropped)
	return nil
}

// execer is a transaction or the database.
type execer interface {
	Exec(query string, args ...any) (sql.Result, error)
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
}

// retain deletes what is over the limits, oldest first, and returns how
// many records went. It runs on the writer goroutine (inside a commit or
// on a pass), so it never races an insert; last is the last id given, and
// no record from keepFrom on is deleted (the batch being committed).
func (s *sqliteStore) retain(db execer, last, keepFrom int64) (int64, error) {
	var dropped int64
	del := func(q string, args ...any) error {
		res, err := db.Exec(q, args...)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		dropped += n
		return nil
	}
	if upTo := min(last-s.maxEvents, keepFrom-1); s.maxEvents > 0 && upTo > s.floor {
		if err := del(`DELETE FROM records WHERE id <= ?`, upTo); err != nil {
			return dropped, err
		}
		s.floor = upTo
	}
	if s.maxAge > 0 {
		if err := del(`DELETE FROM records WHERE received_at < ? AND id < ?`, s.now().Add(-s.maxAge).UnixMicro(), keepFrom); err != nil {
			return dropped, err
		}
	}
	if s.maxBytes > 0 {
		// Down to 90% of the budget, so that the next commits do not each
		// delete a little. The sizes are estimates (indexes and pages add
		// to them), so measure again until under.
		for range 8 {
			used, err := bytesInUse(db)
			if err != nil {
				return dropped, err
			}
			used = (used - s.contractBytes.Load()) * s.pageCost
			if used <= s.maxBytes {
				break
			}
			upTo, err := oldestWorth(db, (used-s.maxBytes*9/10)/s.pageCost)
			if err != nil || upTo == 0 {
				return dropped, err
			}
			if upTo = min(upTo, keepFrom-1); upTo < 1 {
				break
			}
			if err := del(`DELETE FROM records WHERE id <= ?`, upTo); err != nil {
				return dropped, err
			}
		}
	}
	return dropped, nil
}

// bytesInUse returns the bytes of the database's pages that hold data
// (free pages are kept for reuse, not counted).
func bytesInUse(db execer) (int64, error) {
	var n int64
	err := db.QueryRow(`SELECT (p.page_count - f.freelist_count) * s.page_size
		FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s`).Scan(&n)
	return n, err
}

// oldestWorth returns the id up to which the oldest records add up to at
// least need bytes, or 0 when there are none.
func oldestWorth(db execer, need int64) (int64, error) {
	rows, err := db.Query(`SELECT id, COALESCE(length(body), 0) + length(headers) + 256 FROM records ORDER BY id`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var id, sum int64
	for sum < need && rows.Next() {
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return 0, err
		}
		sum += n
	}
	return id, rows.Err()
}

// pass applies the limits outside a commit, on the writer: records age
// while nothing arrives.
func (s *sqliteStore) pass() {
	last := s.last()
	dropped, err := s.retain(s.write, last, last+1)
	if err != nil {
		s.log.Error("retention pass failed", "err", err)
	}
	s.drops.note(s.backendConfig, dropped)
}

// retentionPass runs a pass on the writer now and returns once it is done.
func (s *sqliteStore) retentionPass() {
	done := make(chan struct{})
	select {
	case s.passes <- done:
		<-done
	case <-s.done:
	}
}

func (s *sqliteStore) dropped() int64 { return s.drops.total.Load() }

// health is always nil: the file is the process's own.
func (s *sqliteStore) health(context.Context) error { return nil }

func (s *sqliteStore) close() {
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
	r.forward, COALESCE(c.created_at, '')`

func scanRecord(row interface{ Scan(...any) error }) (*Record, error) {
	var r Record
	var headers, fwd string
	var micros int64
	if err := row.Scan(&r.ID, &r.Channel, &r.Method, &r.Path, &r.Query, &headers, &r.Body, &r.Size, &r.BodyDropped,
		&micros, &r.RemoteAddr, &r.Check, &r.Reason, &r.EventID, &r.SignatureID, &r.State, &r.CreatedAt,
		&r.Duplicate, &r.Status, &fwd, &r.ContractCreatedAt); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(headers), &r.Header)
	if fwd != "" {
		r.Forward = &Forward{}
		if json.Unmarshal([]byte(fwd), r.Forward) != nil {
			r.Forward = nil
		}
	}
	r.ReceivedAt = time.UnixMicro(micros).UTC()
	if r.Body == nil {
		r.Body = []byte{}
	}
	return &r, nil
}

func (s *sqliteStore) get(ctx context.Context, id int64) (*Record, error) {
	r, err := scanRecord(s.read.QueryRowContext(ctx, `SELECT `+columns+` FROM records r
		LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != '' WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// conditions returns the WHERE clause (empty, or " WHERE …") and its
// arguments for f; paging adds the id bounds (AfterID, BeforeID).
func conditions(f Filter, paging bool) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, v ...any) { where = append(where, cond); args = append(args, v...) }
	if f.Channel != "" {
		add("r.channel = ?", f.Channel)
	}
	if f.ChannelPrefix != "" {
		// A byte-wise range, so the channel index serves it and no LIKE
		// wildcard or case folding applies: prefix <= channel < prefix+\xff…
		add("r.channel >= ? AND r.channel < ?", f.ChannelPrefix, f.ChannelPrefix+"\xff\xff\xff\xff")
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
	if f.Check != "" {
		add(weak+"r.verdict = ?", f.Check)
	}
	if f.Text != "" {
		// instr on two blobs compares bytes: no wildcard to escape, and
		// the same answer as Filter.Match's bytes.Contains.
		add("r.body_dropped = 0 AND instr(r.body, ?) > 0", []byte(f.Text))
	}
	if paging && f.AfterID > 0 {
		add("r.id > ?", f.AfterID)
	}
	if paging && f.BeforeID > 0 {
		add("r.id < ?", f.BeforeID)
	}
	if !f.Since.IsZero() {
		add("r.received_at >= ?", f.Since.UnixMicro())
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

// list returns the records matching f, up to f.Limit of them; truncated
// tells that it stopped early, past maxBytes of bodies, with more to come.
func (s *sqliteStore) list(ctx context.Context, f Filter, maxBytes int) (recs []*Record, truncated bool, err error) {
	where, args := conditions(f, true)
	q := `SELECT ` + columns + ` FROM records r LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != ''` + where
	if f.Newest {
		q += " ORDER BY r.id DESC"
	} else {
		q += " ORDER BY r.id ASC"
	}
	q += " LIMIT ?"
	args = append(args, f.Limit)
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []*Record{}
	var size int
	for rows.Next() {
		if size >= maxBytes {
			return out, true, nil
		}
		r, err := scanRecord(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, r)
		size += len(r.Body)
	}
	return out, false, rows.Err()
}

// total counts the records matching f's conditions, paging left out.
func (s *sqliteStore) total(ctx context.Context, f Filter) (int64, error) {
	where, args := conditions(f, false)
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM records r`+where, args...).Scan(&n)
	return n, err
}

// last returns the id of the last committed record.
func (s *sqliteStore) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

func (s *sqliteStore) count(ctx context.Context) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM records`).Scan(&n)
	return n, err
}

func (s *sqliteStore) deleteOne(ctx context.Context, id int64) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM records WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *sqliteStore) deleteAll(ctx context.Context) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM records`)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// noteContract keeps when a contract was created, the last maxContracts
// noted only, and measures what they take.
func (s *sqliteStore) noteContract(ctx context.Context, signatureID, createdAt string) error {
	s.hasContracts.Store(true)
	_, err := s.write.ExecContext(ctx, `INSERT INTO contracts (signature_id, created_at) VALUES (?, ?)
		ON CONFLICT(signature_id) DO UPDATE SET created_at = excluded.created_at`, signatureID, createdAt)
	if err != nil {
		return err
	}
	// A note updated keeps its rowid; new ones take the next.
	if _, err := s.write.ExecContext(ctx, `DELETE FROM contracts WHERE rowid <= (SELECT MAX(rowid) FROM contracts) - ?`, maxContracts); err != nil {
		return err
	}
	// Measured now and then: between two measures, records may be
	// dropped a few KiB early, never kept over the budget.
	if s.notes.Add(1)%64 == 1 {
		s.contractBytes.Store(contractPages(s.write))
	}
	return nil
}

// contractPages returns the bytes of the pages the contract notes and
// their index take (0 when it cannot tell).
func contractPages(db execer) int64 {
	var n int64
	_ = db.QueryRow(`SELECT COALESCE(SUM(pgsize), 0) FROM dbstat('main', 1)
		WHERE name IN ('contracts', 'sqlite_autoindex_contracts_1')`).Scan(&n)
	return n
}
