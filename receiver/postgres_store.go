package receiver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// IsPostgres tells whether a receiver's DB names a PostgreSQL database
// (a postgres:// or postgresql:// URL) rather than an SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// RedactDB returns db fit for a log line: a URL's password replaced.
func RedactDB(db string) string {
	if !IsPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// pgSchemaVersion is the receiver's PostgreSQL schema, kept in its meta
// table; a database with a greater one was written by a newer firmakit.
// Version 2 renamed verdict to check, version 3 added verified_by,
// version 4 answer_rules.reset; a
// database of an earlier version is migrated when opened.
const pgSchemaVersion = 4

// Text that comes from a request (channel, path, query, the reason that
// may quote a header, ids read from the body) is kept as bytea: a
// PostgreSQL text refuses NUL and invalid UTF-8, and bytea compares
// byte-wise, as SQLite does, whatever the database's collation.
const pgSchema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
	id           BIGSERIAL PRIMARY KEY,
	channel      BYTEA NOT NULL,
	method       TEXT NOT NULL,
	path         BYTEA NOT NULL,
	query        BYTEA NOT NULL,
	headers      TEXT NOT NULL,
	body         BYTEA NOT NULL,
	size         BIGINT NOT NULL,
	body_dropped BOOLEAN NOT NULL DEFAULT false,
	received_at  BIGINT NOT NULL,
	remote_addr  TEXT NOT NULL,
	"check"      TEXT NOT NULL,
	reason       BYTEA NOT NULL,
	event_id     BYTEA NOT NULL,
	signature_id BYTEA NOT NULL,
	state        BYTEA NOT NULL,
	created_at   BYTEA NOT NULL,
	duplicate    BOOLEAN NOT NULL DEFAULT false,
	status       INTEGER NOT NULL DEFAULT 0,
	forward      TEXT NOT NULL DEFAULT '',
	verified_by  TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS contracts (
	signature_id BYTEA PRIMARY KEY,
	created_at   TEXT NOT NULL,
	seq          BIGSERIAL NOT NULL
);
CREATE TABLE IF NOT EXISTS answer_rules (
	channel      BYTEA NOT NULL,
	signature_id BYTEA NOT NULL,
	status       INTEGER NOT NULL,
	delay        TEXT NOT NULL,
	delay_us     BIGINT NOT NULL,
	hang_up      BOOLEAN NOT NULL,
	reset        BOOLEAN NOT NULL DEFAULT false,
	remaining    INTEGER,
	PRIMARY KEY (channel, signature_id)
);
INSERT INTO meta (key, value) VALUES ('schema_version', 4) ON CONFLICT (key) DO NOTHING;
`

// pgTables are the columns of each table of the PostgreSQL schema, for
// checking a database that holds tables of these names already.
var pgTables = map[string][]string{
	"meta":         {"key", "value"},
	"records":      tables["records"],
	"contracts":    {"signature_id", "created_at", "seq"},
	"answer_rules": {"channel", "signature_id", "status", "delay", "delay_us", "hang_up", "reset", "remaining"},
}

// resetlessRuleColumns are answer_rules' columns before schema version 4,
// which added reset (Answer.Reset).
var resetlessRuleColumns = []string{"channel", "signature_id", "status", "delay", "delay_us", "hang_up", "remaining"}

// Advisory lock keys, one per job; PostgreSQL scopes them to the database.
const (
	lockSchema    = 0x666b0001 // creating or migrating the schema
	lockWrite     = 0x666b0002 // a batch of inserts, from taking ids to commit
	lockRetention = 0x666b0003 // one replica's retention pass
	lockRules     = 0x666b0004 // counting the programmed answers and adding one
)

// notifyChannel is the LISTEN/NOTIFY channel; its payload is the newest
// id of a committed batch.
const notifyChannel = "firmakit_records"

// defaultPoolConns is how many connections a replica opens at most when
// the DSN does not say (pool_max_conns).
const defaultPoolConns = 16

// deleteBatch bounds the rows one retention statement deletes, so that a
// pass never holds many row locks or a long transaction.
const deleteBatch = 1000

// pgStore keeps records in PostgreSQL, shared by every replica that
// names the same database.
//
// Writes: one goroutine commits the queued inserts in batches, each in one
// transaction holding lockWrite from taking its ids to its commit, so that
// ids are committed in order across replicas: whoever sees id n committed
// sees every committed id below it. Each batch ends with one pg_notify of
// its newest id, in the same transaction.
//
// Reads for waits and streams: one goroutine (follow) publishes to the
// hub every committed record in id order, each once: this replica's own
// batches from memory, the others' read from the table after a
// notification wakes it (a LISTEN connection of its own), from the last
// id it published on.
type pgStore struct {
	backendConfig
	sqlCore
	pool   *pgxpool.Pool
	listen *pgx.ConnConfig
	queue  *inserts
	done   chan struct{} // closed when the writer has stopped
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup // the follower, the listener and the pass ticker

	mu sync.Mutex
	// own holds this replica's committed batches, in commit order, until
	// the follower publishes them.
	own [][]*Record

	wake    chan struct{} // pokes the follower
	newest  atomic.Int64  // the greatest id notified
	resync  atomic.Bool   // read the table after a (re)connection
	seen    atomic.Int64  // the last id published (follower only writes)
	lastID  atomic.Int64  // the greatest id known committed
	floor   int64         // count retention has deleted up to here (writer only)
	healthy atomic.Pointer[error]
	drops   dropLog
	dropMu  sync.Mutex // drops.note from the writer and the passes
	// passMu runs this process's passes one at a time; lockRetention
	// does the same across replicas.
	passMu sync.Mutex
}

// openPostgres connects to the database, creates or migrates the schema
// under an advisory lock, and starts the writer, the follower and the
// retention passes.
func openPostgres(cfg backendConfig) (*pgStore, error) {
	pcfg, err := pgxpool.ParseConfig(cfg.dsn)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", RedactDB(cfg.dsn), err)
	}
	if pcfg.ConnConfig.ConnectTimeout <= 0 || pcfg.ConnConfig.ConnectTimeout > 5*time.Second {
		pcfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	if !strings.Contains(cfg.dsn, "pool_max_conns") {
		// pgxpool's default is one connection per CPU (at least 4): too
		// few for the answer rules every notification reads while the
		// writer holds one for its batch. A DSN's pool_max_conns wins.
		pcfg.MaxConns = defaultPoolConns
	}
	if cfg.every <= 0 {
		cfg.every = time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("database %s: %w", RedactDB(cfg.dsn), err)
	}
	p := &pgStore{backendConfig: cfg, sqlCore: sqlCore{d: pgDialect, readDB: pgDB{pool}, writeDB: pgDB{pool}, maxContracts: cfg.maxContracts}, pool: pool,
		listen: pcfg.ConnConfig.Copy(), queue: newInserts(), done: make(chan struct{}), ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1)}
	octx, ocancel := context.WithTimeout(ctx, 30*time.Second)
	defer ocancel()
	if err := p.migrate(octx); err != nil {
		p.pool.Close()
		cancel()
		return nil, err
	}
	var last int64
	if err := pool.QueryRow(octx, `SELECT COALESCE(MAX(id), 0) FROM records`).Scan(&last); err != nil {
		p.pool.Close()
		cancel()
		return nil, fmt.Errorf("database %s: %w", RedactDB(cfg.dsn), err)
	}
	p.seen.Store(last)
	p.lastID.Store(last)
	p.floor = 0
	var ok error
	p.healthy.Store(&ok)
	go p.writer()
	p.bg.Add(3)
	go p.follow()
	go p.listenLoop()
	go p.passes()
	return p, nil
}

// migrate creates the schema, or checks the one there, inside one
// transaction holding lockSchema, so that replicas starting together do
// not race. A database with tables of the receiver's names and other
// columns, or a newer schema, is refused.
func (p *pgStore) migrate(ctx context.Context) error {
	name := RedactDB(p.dsn)
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("database %s cannot be reached: %w", name, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockSchema); err != nil {
		return fmt.Errorf("database %s: %w", name, err)
	}
	names := make([]string, 0, len(pgTables))
	for t := range pgTables {
		names = append(names, t)
	}
	slices.Sort(names)
	rows, err := tx.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ANY($1)`, names)
	if err != nil {
		return fmt.Errorf("database %s: %w", name, err)
	}
	got := map[string][]string{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return fmt.Errorf("database %s: %w", name, err)
		}
		got[t] = append(got[t], c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("database %s: %w", name, err)
	}
	for _, t := range names {
		if cols := got[t]; len(cols) > 0 && !sameSet(cols, pgTables[t]) && !(t == "records" && (sameSet(cols, verdictColumns) || sameSet(cols, keylessColumns))) && !(t == "answer_rules" && sameSet(cols, resetlessRuleColumns)) {
			return fmt.Errorf("%w: in the PostgreSQL database %s, table %s has the columns (%s), not the receiver's (%s); give the receiver a database of its own (CREATE DATABASE firmakit)",
				ErrIncompatibleDatabase, name, t, strings.Join(cols, ", "), strings.Join(pgTables[t], ", "))
		}
	}
	if len(got["meta"]) > 0 {
		var version int64
		err := tx.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&version)
		if err == nil && version > pgSchemaVersion {
			return fmt.Errorf("%w: the PostgreSQL database %s has schema version %d, written by a newer firmakit (this one reads version %d); run that firmakit, or give this one another database",
				ErrIncompatibleDatabase, name, version, pgSchemaVersion)
		}
	} else if len(got["records"]) > 0 {
		return fmt.Errorf("%w: the PostgreSQL database %s has a records table but no receiver meta table; give the receiver a database of its own (CREATE DATABASE firmakit)",
			ErrIncompatibleDatabase, name)
	}
	if slices.Contains(got["records"], "verdict") {
		if _, err := tx.Exec(ctx, renameVerdict+`; ALTER INDEX IF EXISTS records_verdict RENAME TO records_check`); err != nil {
			return fmt.Errorf("database %s: migrating to schema version 2: %w", name, err)
		}
	}
	if len(got["records"]) > 0 && !slices.Contains(got["records"], "verified_by") {
		if _, err := tx.Exec(ctx, addVerifiedBy); err != nil {
			return fmt.Errorf("database %s: migrating to schema version 3: %w", name, err)
		}
	}
	if len(got["answer_rules"]) > 0 && !slices.Contains(got["answer_rules"], "reset") {
		if _, err := tx.Exec(ctx, `ALTER TABLE answer_rules ADD COLUMN reset BOOLEAN NOT NULL DEFAULT false`); err != nil {
			return fmt.Errorf("database %s: migrating to schema version 4: %w", name, err)
		}
	}
	if _, err := tx.Exec(ctx, pgSchema+recordIndexes); err != nil {
		return fmt.Errorf("database %s: creating the schema: %w", name, err)
	}
	if _, err := tx.Exec(ctx, `UPDATE meta SET value = $1 WHERE key = 'schema_version' AND value < $1`, pgSchemaVersion); err != nil {
		return fmt.Errorf("database %s: %w", name, err)
	}
	return tx.Commit(ctx)
}

func (p *pgStore) insert(ctx context.Context, rec *Record) error { return p.queue.insert(ctx, rec) }

func (p *pgStore) writer() {
	defer close(p.done)
	for first := range p.queue.ch {
		batch := p.queue.batch(first)
		err := p.commit(records(batch))
		switch {
		case err == nil && *p.healthy.Load() != nil:
			p.healthyAgain()
		case err != nil:
			ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
			if p.pool.Ping(ctx) != nil {
				p.unhealthy(err)
			}
			cancel()
		}
		answer(batch, err)
	}
}

// commit stores recs in one transaction and hands them to the follower.
func (p *pgStore) commit(recs []*Record) error {
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockWrite); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	ids, err := pgIDs(ctx, tx, len(recs))
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	rows := make([][]any, len(recs))
	for i, r := range recs {
		r.ID = ids[i]
	}
	if err := p.d.stamp(ctx, pgDB{tx}, recs, true); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for i, r := range recs {
		rows[i] = p.d.values(r)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"records"}, recordColumns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	newest := ids[len(ids)-1]
	// Count retention with the commit, as on SQLite: nothing over the
	// limit once a notification is answered. Ids are taken in commit
	// order, so the newest maxEvents ids hold the newest records.
	var dropped int64
	upTo := min(newest-p.maxEvents, ids[0]-1)
	if p.maxEvents > 0 && upTo > p.floor {
		tag, err := tx.Exec(ctx, `DELETE FROM records WHERE id <= $1 AND id > $2`, upTo, p.floor)
		if err != nil {
			return fmt.Errorf("store: retention: %w", err)
		}
		dropped = tag.RowsAffected()
	}
	// One notification per batch, never one per record: NOTIFY takes a
	// database-wide lock at commit.
	if !p.noNotify {
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, strconv.FormatInt(newest, 10)); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	if p.maxEvents > 0 && upTo > p.floor {
		p.floor = upTo
	}
	p.raiseLast(newest)
	p.mu.Lock()
	p.own = append(p.own, recs)
	p.mu.Unlock()
	p.poke()
	p.noteDropped(dropped)
	return nil
}

// pgIDs takes n ids from the records sequence, in ascending order.
func pgIDs(ctx context.Context, tx pgx.Tx, n int) ([]int64, error) {
	ids := make([]int64, 0, n)
	err := pgDB{tx}.each(ctx, `SELECT nextval(pg_get_serial_sequence('records', 'id')) FROM generate_series(1, $1)`, []any{n},
		func(row scanner) (bool, error) {
			var id int64
			err := row.Scan(&id)
			ids = append(ids, id)
			return true, err
		})
	if err == nil && len(ids) != n {
		err = fmt.Errorf("the sequence gave %d ids for %d records", len(ids), n)
	}
	slices.Sort(ids)
	return ids, err
}

// unhealthy records that the database failed, and says so in the log when
// it was healthy until then.
func (p *pgStore) unhealthy(err error) {
	if err == nil || p.ctx.Err() != nil {
		return
	}
	e := fmt.Errorf("database unreachable: %w", err)
	if old := p.healthy.Swap(&e); *old == nil {
		p.log.Error("the database cannot be reached; notifications are answered 503 until it is back", "db", RedactDB(p.dsn), "err", err)
	}
}

func (p *pgStore) healthyAgain() {
	var ok error
	if old := p.healthy.Swap(&ok); *old != nil {
		p.log.Info("the database is reachable again", "db", RedactDB(p.dsn))
	}
}

// health is the listener's view of the database, with a ping when that
// says it is down, so that recovery shows at once.
func (p *pgStore) health(ctx context.Context) error {
	err := *p.healthy.Load()
	if err == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if p.pool.Ping(ctx) != nil {
		return err
	}
	return nil
}

func (p *pgStore) noteDropped(n int64) {
	p.dropMu.Lock()
	defer p.dropMu.Unlock()
	p.drops.note(p.backendConfig, n)
}

func (p *pgStore) dropped() int64 { return p.drops.total.Load() }

func (p *pgStore) last() int64 { return p.lastID.Load() }

// passes runs a retention pass every p.every while there are limits of
// age or size. Count is applied with each commit: ids are taken in commit
// order, so keeping the last maxEvents ids keeps maxEvents records at most.
func (p *pgStore) passes() {
	defer p.bg.Done()
	if p.maxAge <= 0 && p.maxBytes <= 0 {
		return
	}
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-tick.C:
			p.retentionPass()
		}
	}
}

// retentionPass applies the limits on one replica at a time: the one
// that holds lockRetention (a session lock, so that each bounded delete
// commits on its own); the others skip the pass.
func (p *pgStore) retentionPass() {
	p.passMu.Lock()
	defer p.passMu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, lockRetention).Scan(&got); err != nil || !got {
		return
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockRetention)
	dropped, err := p.retain(ctx, conn)
	if err != nil && ctx.Err() == nil {
		p.log.Error("retention pass failed", "err", err)
	}
	p.noteDropped(dropped)
}

// retain deletes what is over the limits, oldest first, deleteBatch rows
// per statement.
func (p *pgStore) retain(ctx context.Context, conn *pgxpool.Conn) (int64, error) {
	var dropped int64
	// upTo deletes the records up to id, a batch at a time.
	upTo := func(id int64) error {
		for {
			tag, err := conn.Exec(ctx, `DELETE FROM records WHERE id IN (SELECT id FROM records WHERE id <= $1 ORDER BY id LIMIT $2)`, id, deleteBatch)
			if err != nil {
				return err
			}
			dropped += tag.RowsAffected()
			if tag.RowsAffected() < deleteBatch {
				return nil
			}
		}
	}
	if p.maxAge > 0 {
		before := p.now().Add(-p.maxAge).UnixMicro()
		for {
			tag, err := conn.Exec(ctx, `DELETE FROM records WHERE id IN (SELECT id FROM records WHERE received_at < $1 ORDER BY id LIMIT $2)`,
				before, deleteBatch)
			if err != nil {
				return dropped, err
			}
			dropped += tag.RowsAffected()
			if tag.RowsAffected() < deleteBatch {
				break
			}
		}
	}
	if p.maxBytes > 0 {
		// The bytes of bodies and headers, with 256 for each row's other
		// columns and index entries, as SQLite's estimate; down to 90% of
		// the budget, so that the next passes do not each delete a little.
		var used int64
		if err := conn.QueryRow(ctx, `SELECT COALESCE(SUM(octet_length(body) + octet_length(headers) + 256), 0) FROM records`).Scan(&used); err != nil {
			return dropped, err
		}
		if used > p.maxBytes {
			var cut int64
			err := conn.QueryRow(ctx, `SELECT id FROM (SELECT id, SUM(octet_length(body) + octet_length(headers) + 256) OVER (ORDER BY id) AS run
				FROM records) t WHERE run >= $1 ORDER BY id LIMIT 1`, used-p.maxBytes*9/10).Scan(&cut)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return dropped, err
			}
			// The newest record stays, whatever its size, as in SQLite.
			if cut = min(cut, p.last()-1); cut > 0 {
				if err := upTo(cut); err != nil {
					return dropped, err
				}
			}
		}
	}
	return dropped, nil
}

func (p *pgStore) close() {
	if !p.queue.close() {
		return
	}
	<-p.done
	p.cancel()
	p.bg.Wait()
	p.pool.Close()
}
