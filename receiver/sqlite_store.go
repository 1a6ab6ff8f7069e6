package receiver

import (
	"context"
	"database/sql"
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

// schemaVersion is the receiver's schema, kept in the meta table; a file
// with a greater one was written by a newer firmakit. Version 2 added the
// forward column, version 3 renamed verdict to check, version 4 added
// verified_by; a file of an earlier version is migrated when opened.
const schemaVersion = 4

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
	"check"      TEXT NOT NULL,
	reason       TEXT NOT NULL DEFAULT '',
	event_id     TEXT NOT NULL DEFAULT '',
	signature_id TEXT NOT NULL DEFAULT '',
	state        TEXT NOT NULL DEFAULT '',
	created_at   TEXT NOT NULL DEFAULT '',
	duplicate    INTEGER NOT NULL DEFAULT 0,
	status       INTEGER NOT NULL DEFAULT 0,
	forward      TEXT NOT NULL DEFAULT '',
	verified_by  TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS contracts (
	signature_id TEXT PRIMARY KEY,
	created_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', 4), ('last_id', 0);
`

// v1Records are the records columns of schema version 1: verdict, and no
// forward.
var v1Records = slices.DeleteFunc(slices.Clone(verdictColumns), func(c string) bool { return c == "forward" })

// tables are the columns of each table of the schema, for checking a file
// made elsewhere.
var tables = map[string][]string{
	"records":   recordColumns,
	"contracts": {"signature_id", "created_at"},
	"meta":      {"key", "value"},
}

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
	sqlCore
	write *sql.DB
	read  *sql.DB
	// gate puts commit first on the write connection.
	gate   *dbGate
	queue  *inserts
	passes chan chan struct{}
	done   chan struct{}

	mu sync.Mutex
	// lastID is the greatest id ever given, kept in the meta table too,
	// so that ids are never reused after deletes and restarts.
	lastID int64
	// hasContracts is set once a contract is noted, so that commits skip
	// the contract lookup until then.
	hasContracts atomic.Bool
	// contractBytes is what the contract notes' pages take, measured
	// after each note: they have their own bound (Receiver.MaxContracts), so
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
	// The writer's commits go first on the write connection (dbGate); in
	// memory the reads share it.
	gate := newDBGate()
	readGate := gate
	if !memory {
		readGate = nil
	}
	s := &sqliteStore{backendConfig: cfg, sqlCore: sqlCore{d: sqliteDialect, readDB: stdDB{r, readGate}, writeDB: stdDB{w, gate}, maxContracts: cfg.maxContracts}, gate: gate,
		write: w, read: r, queue: newInserts(), passes: make(chan chan struct{}), done: make(chan struct{}), pageCost: 1}
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
	s.contractBytes.Store(contractPages(context.Background(), s.writeDB))
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
		if len(got) > 0 && !sameSet(got, want) && !(table == "records" && (sameSet(got, v1Records) || sameSet(got, verdictColumns) || sameSet(got, keylessColumns))) {
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

// migrate creates the schema, or brings a database of an earlier version
// (checkSchema let it through) to schemaVersion, in one transaction:
// version 2 added the forward column, version 3 renamed verdict to check,
// version 4 added verified_by.
func migrate(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	var forward, verdict, verifiedBy int
	if err := tx.QueryRow(`SELECT COUNT(*) FILTER (WHERE name = 'forward'), COUNT(*) FILTER (WHERE name = 'verdict'),
		COUNT(*) FILTER (WHERE name = 'verified_by') FROM pragma_table_info('records')`).Scan(&forward, &verdict, &verifiedBy); err != nil {
		return err
	}
	if forward == 0 {
		if _, err := tx.Exec(`ALTER TABLE records ADD COLUMN forward TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("migrating to schema version 2: %w", err)
		}
	}
	if verdict > 0 {
		if _, err := tx.Exec(renameVerdict + `; DROP INDEX IF EXISTS records_verdict`); err != nil {
			return fmt.Errorf("migrating to schema version 3: %w", err)
		}
	}
	if verifiedBy == 0 {
		if _, err := tx.Exec(addVerifiedBy); err != nil {
			return fmt.Errorf("migrating to schema version 4: %w", err)
		}
	}
	if _, err := tx.Exec(recordIndexes); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE meta SET value = ? WHERE key = 'schema_version' AND value < ?`, schemaVersion, schemaVersion); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *sqliteStore) closeDBs() {
	if s.read != s.write {
		s.read.Close()
	}
	s.write.Close()
}

func (s *sqliteStore) insert(ctx context.Context, rec *Record) error { return s.queue.insert(ctx, rec) }

func (s *sqliteStore) writer() {
	defer close(s.done)
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case p, ok := <-s.queue.ch:
			if !ok {
				return
			}
			batch := s.queue.batch(p)
			recs := records(batch)
			err := s.commit(recs)
			answer(batch, err)
			if err == nil && s.published != nil {
				s.published(recs)
			}
		case <-tick.C:
			s.pass()
		case done := <-s.passes:
			s.pass()
			close(done)
		}
	}
}

// commit stores recs in one transaction, with the retention their
// insert calls for.
func (s *sqliteStore) commit(recs []*Record) error {
	ctx := context.Background()
	defer s.gate.write()()
	tx, err := s.write.Begin()
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT INTO records (` + quoted("", recordColumns) + `)
		VALUES (?` + strings.Repeat(", ?", len(recordColumns)-1) + `)`)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer ins.Close()
	id := s.lastID
	for _, r := range recs {
		id++
		r.ID = id
	}
	if err := s.d.stamp(ctx, stdDB{db: tx}, recs, s.hasContracts.Load()); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for _, r := range recs {
		if _, err := ins.Exec(s.d.values(r)...); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if _, err := tx.Exec(`UPDATE meta SET value = ? WHERE key = 'last_id'`, id); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	// The records of this batch are about to be acknowledged: the
	// retention their insert triggers deletes only older ones.
	dropped, err := s.retain(ctx, stdDB{db: tx}, id, recs[0].ID)
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

// retain deletes what is over the limits, oldest first, and returns how
// many records went. It runs on the writer goroutine (inside a commit or
// on a pass), so it never races an insert; last is the last id given, and
// no record from keepFrom on is deleted (the batch being committed).
func (s *sqliteStore) retain(ctx context.Context, db sqlDB, last, keepFrom int64) (int64, error) {
	var dropped int64
	del := func(q string, args ...any) error {
		n, err := db.exec(ctx, q, args...)
		dropped += n
		return err
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
			used, err := bytesInUse(ctx, db)
			if err != nil {
				return dropped, err
			}
			used = (used - s.contractBytes.Load()) * s.pageCost
			if used <= s.maxBytes {
				break
			}
			upTo, err := oldestWorth(ctx, db, (used-s.maxBytes*9/10)/s.pageCost)
			if err != nil || upTo == 0 {
				return dropped, err
			}
			// The newest record stays, whatever its size: a pass between
			// its answer and the next insert must not take a record
			// the sender was just told was kept.
			if upTo = min(upTo, keepFrom-1, last-1); upTo < 1 {
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
func bytesInUse(ctx context.Context, db sqlDB) (int64, error) {
	var n int64
	err := db.row(ctx, `SELECT (p.page_count - f.freelist_count) * s.page_size
		FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s`).Scan(&n)
	return n, err
}

// oldestWorth returns the id up to which the oldest records add up to at
// least need bytes, or 0 when there are none.
func oldestWorth(ctx context.Context, db sqlDB, need int64) (int64, error) {
	var id, sum int64
	err := db.each(ctx, `SELECT id, COALESCE(length(body), 0) + length(headers) + 256 FROM records ORDER BY id`, nil,
		func(row scanner) (bool, error) {
			var n int64
			err := row.Scan(&id, &n)
			sum += n
			return sum < need, err
		})
	return id, err
}

// pass applies the limits outside a commit, on the writer: records age
// while nothing arrives.
func (s *sqliteStore) pass() {
	// The writer's turn, as a commit's (dbGate): behind the gate, a pass
	// waited for every statement queued before it, and the commits with it.
	defer s.gate.write()()
	last := s.last()
	dropped, err := s.retain(context.Background(), stdDB{db: s.write}, last, last+1)
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
	if s.queue.close() {
		<-s.done
		s.closeDBs()
	}
}

// last returns the id of the last committed record.
func (s *sqliteStore) last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastID
}

// noteContract keeps when a contract was created, the last maxContracts
// noted only, and measures what they take.
func (s *sqliteStore) noteContract(ctx context.Context, signatureID, createdAt string) error {
	s.hasContracts.Store(true)
	if err := s.sqlCore.noteContract(ctx, signatureID, createdAt); err != nil {
		return err
	}
	// Measured now and then: between two measures, records may be
	// dropped a few KiB early, never kept over the budget.
	if s.notes.Add(1)%64 == 1 {
		s.contractBytes.Store(contractPages(ctx, s.writeDB))
	}
	return nil
}

// contractPages returns the bytes of the pages the contract notes and
// their index take (0 when it cannot tell).
func contractPages(ctx context.Context, db sqlDB) int64 {
	var n int64
	_ = db.row(ctx, `SELECT COALESCE(SUM(pgsize), 0) FROM dbstat('main', 1)
		WHERE name IN ('contracts', 'sqlite_autoindex_contracts_1')`).Scan(&n)
	return n
}
