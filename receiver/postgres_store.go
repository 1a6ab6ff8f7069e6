package receiver

import (
	"context"
	"encoding/json"
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
const pgSchemaVersion = 1

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
	verdict      TEXT NOT NULL,
	reason       BYTEA NOT NULL,
	event_id     BYTEA NOT NULL,
	signature_id BYTEA NOT NULL,
	state        BYTEA NOT NULL,
	created_at   BYTEA NOT NULL,
	duplicate    BOOLEAN NOT NULL DEFAULT false,
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
	remaining    INTEGER,
	PRIMARY KEY (channel, signature_id)
);
INSERT INTO meta (key, value) VALUES ('schema_version', 1) ON CONFLICT (key) DO NOTHING;
`

// pgTables are the columns of each table of the PostgreSQL schema, for
// checking a database that holds tables of these names already.
var pgTables = map[string][]string{
	"meta":         {"key", "value"},
	"records":      tables["records"],
	"contracts":    {"signature_id", "created_at", "seq"},
	"answer_rules": {"channel", "signature_id", "status", "delay", "delay_us", "hang_up", "remaining"},
}

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
	pool   *pgxpool.Pool
	listen *pgx.ConnConfig
	queue  chan *pending
	done   chan struct{} // closed when the writer has stopped
	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup // the follower, the listener and the pass ticker

	mu     sync.Mutex
	closed bool
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
	p := &pgStore{backendConfig: cfg, pool: pool, listen: pcfg.ConnConfig.Copy(), queue: make(chan *pending, 4096),
		done: make(chan struct{}), ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
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
		if cols := got[t]; len(cols) > 0 && !sameSet(cols, pgTables[t]) {
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
	if _, err := tx.Exec(ctx, pgSchema); err != nil {
		return fmt.Errorf("database %s: creating the schema: %w", name, err)
	}
	return tx.Commit(ctx)
}

func (p *pgStore) insert(ctx context.Context, rec *Record) error {
	q := &pending{rec: rec, err: make(chan error, 1)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return errors.New("receiver is shutting down")
	}
	p.mu.Unlock()
	select {
	case p.queue <- q:
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-q.err
}

func (p *pgStore) writer() {
	defer close(p.done)
	for q := range p.queue {
		batch := []*pending{q}
	fill:
		for len(batch) < maxBatch {
			select {
			case q, ok := <-p.queue:
				if !ok {
					break fill
				}
				batch = append(batch, q)
			default:
				break fill
			}
		}
		recs := make([]*Record, len(batch))
		for i, q := range batch {
			recs[i] = q.rec
		}
		err := p.commit(recs)
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
		for _, q := range batch {
			q.err <- err
		}
	}
}

// recordColumns are the records columns a batch is copied into.
var recordColumns = []string{"id", "channel", "method", "path", "query", "headers", "body", "size", "body_dropped",
	"received_at", "remote_addr", "verdict", "reason", "event_id", "signature_id", "state", "created_at", "duplicate",
	"status", "forward"}

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
	stored, created, err := knownEventsAndContracts(ctx, tx, recs)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	rows := recordRows(recs, ids, stored, created)
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

// knownEventsAndContracts reads which event ids of recs are stored already
// (their records are duplicates) and when the contracts they name were
// created.
func knownEventsAndContracts(ctx context.Context, tx pgx.Tx, recs []*Record) (stored map[string]bool, created map[string]string, err error) {
	var events, sigs [][]byte
	for _, r := range recs {
		if r.EventID != "" {
			events = append(events, []byte(r.EventID))
		}
		if r.SignatureID != "" {
			sigs = append(sigs, []byte(r.SignatureID))
		}
	}
	stored = map[string]bool{}
	if len(events) > 0 {
		rows, _ := tx.Query(ctx, `SELECT DISTINCT event_id FROM records WHERE event_id = ANY($1)`, events)
		if err := eachRow(rows, func(r pgx.Rows) error {
			var e []byte
			err := r.Scan(&e)
			stored[string(e)] = true
			return err
		}); err != nil {
			return nil, nil, err
		}
	}
	created = map[string]string{}
	if len(sigs) > 0 {
		rows, _ := tx.Query(ctx, `SELECT signature_id, created_at FROM contracts WHERE signature_id = ANY($1)`, sigs)
		if err := eachRow(rows, func(r pgx.Rows) error {
			var s []byte
			var c string
			err := r.Scan(&s, &c)
			created[string(s)] = c
			return err
		}); err != nil {
			return nil, nil, err
		}
	}
	return stored, created, nil
}

// recordRows gives recs their ids, duplicate flags and contracts' creation
// times, and returns them as the rows COPY writes.
func recordRows(recs []*Record, ids []int64, stored map[string]bool, created map[string]string) [][]any {
	rows := make([][]any, len(recs))
	for i, r := range recs {
		r.ID = ids[i]
		if r.EventID != "" {
			r.Duplicate = stored[r.EventID]
			stored[r.EventID] = true
		}
		if r.SignatureID != "" {
			r.ContractCreatedAt = created[r.SignatureID]
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
		body := r.Body
		if body == nil {
			body = []byte{}
		}
		rows[i] = []any{r.ID, []byte(r.Channel), r.Method, []byte(r.Path), []byte(r.Query), string(h), body, r.Size,
			r.BodyDropped, r.ReceivedAt.UnixMicro(), r.RemoteAddr, r.Check, []byte(r.Reason), []byte(r.EventID),
			[]byte(r.SignatureID), []byte(r.State), []byte(r.CreatedAt), r.Duplicate, int32(r.Status), fwd}
	}
	return rows
}

// pgIDs takes n ids from the records sequence, in ascending order.
func pgIDs(ctx context.Context, tx pgx.Tx, n int) ([]int64, error) {
	rows, _ := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('records', 'id')) FROM generate_series(1, $1)`, n)
	ids := make([]int64, 0, n)
	err := eachRow(rows, func(r pgx.Rows) error {
		var id int64
		err := r.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err == nil && len(ids) != n {
		err = fmt.Errorf("the sequence gave %d ids for %d records", len(ids), n)
	}
	slices.Sort(ids)
	return ids, err
}

// eachRow calls fn on each row, closes rows, and returns the first error.
func eachRow(rows pgx.Rows, fn func(pgx.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
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
			if cut > 0 {
				if err := upTo(cut); err != nil {
					return dropped, err
				}
			}
		}
	}
	return dropped, nil
}

func (p *pgStore) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.queue)
	<-p.done
	p.cancel()
	p.bg.Wait()
	p.pool.Close()
}

const pgColumns = `r.id, r.channel, r.method, r.path, r.query, r.headers, r.body, r.size, r.body_dropped, r.received_at,
	r.remote_addr, r.verdict, r.reason, r.event_id, r.signature_id, r.state, r.created_at, r.duplicate, r.status,
	r.forward, COALESCE(c.created_at, '')`

const pgFrom = ` FROM records r LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != ''::bytea`

func scanPgRecord(row pgx.Row) (*Record, error) {
	var r Record
	var channel, path, query, reason, event, sig, state, created []byte
	var headers, fwd string
	var micros int64
	var status int32
	if err := row.Scan(&r.ID, &channel, &r.Method, &path, &query, &headers, &r.Body, &r.Size, &r.BodyDropped,
		&micros, &r.RemoteAddr, &r.Check, &reason, &event, &sig, &state, &created,
		&r.Duplicate, &status, &fwd, &r.ContractCreatedAt); err != nil {
		return nil, err
	}
	r.Channel, r.Path, r.Query, r.Reason = string(channel), string(path), string(query), string(reason)
	r.EventID, r.SignatureID, r.State, r.CreatedAt = string(event), string(sig), string(state), string(created)
	r.Status = int(status)
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

func (p *pgStore) get(ctx context.Context, id int64) (*Record, error) {
	r, err := scanPgRecord(p.pool.QueryRow(ctx, `SELECT `+pgColumns+pgFrom+` WHERE r.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// pgConditions is conditions in PostgreSQL's terms.
func pgConditions(f Filter, paging bool) (string, []any) {
	var where []string
	var args []any
	add := func(cond string, v ...any) {
		for _, x := range v {
			args = append(args, x)
			cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(args)), 1)
		}
		where = append(where, cond)
	}
	if f.Channel != "" {
		add("r.channel = ?", []byte(f.Channel))
	}
	if f.ChannelPrefix != "" {
		// A byte-wise range, so the channel index serves it.
		add("r.channel >= ? AND r.channel < ?", []byte(f.ChannelPrefix), []byte(f.ChannelPrefix+"\xff\xff\xff\xff"))
	}
	if f.State != "" {
		add("r.state = ?", []byte(f.State))
	}
	if f.SignatureID != "" {
		add("r.signature_id = ?", []byte(f.SignatureID))
	}
	if f.EventID != "" {
		add("r.event_id = ?", []byte(f.EventID))
	}
	if f.Check != "" {
		add("r.verdict = ?", f.Check)
	}
	if f.Text != "" {
		add("NOT r.body_dropped AND position(?::bytea in r.body) > 0", []byte(f.Text))
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

func (p *pgStore) list(ctx context.Context, f Filter, maxBytes int) ([]*Record, bool, error) {
	where, args := pgConditions(f, true)
	q := `SELECT ` + pgColumns + pgFrom + where
	if f.Newest {
		q += " ORDER BY r.id DESC"
	} else {
		q += " ORDER BY r.id ASC"
	}
	args = append(args, f.Limit)
	q += " LIMIT $" + strconv.Itoa(len(args))
	rows, err := p.pool.Query(ctx, q, args...)
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
		r, err := scanPgRecord(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, r)
		size += len(r.Body)
	}
	return out, false, rows.Err()
}

func (p *pgStore) total(ctx context.Context, f Filter) (int64, error) {
	where, args := pgConditions(f, false)
	var n int64
	err := p.pool.QueryRow(ctx, `SELECT COUNT(*) FROM records r`+where, args...).Scan(&n)
	return n, err
}

func (p *pgStore) count(ctx context.Context) (int64, error) {
	var n int64
	err := p.pool.QueryRow(ctx, `SELECT COUNT(*) FROM records`).Scan(&n)
	return n, err
}

func (p *pgStore) deleteOne(ctx context.Context, id int64) error {
	tag, err := p.pool.Exec(ctx, `DELETE FROM records WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

func (p *pgStore) deleteAll(ctx context.Context) (int64, error) {
	tag, err := p.pool.Exec(ctx, `DELETE FROM records`)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// noteContract keeps when a contract was created, the last maxContracts
// noted only (a note updated keeps its place).
func (p *pgStore) noteContract(ctx context.Context, signatureID, createdAt string) error {
	if _, err := p.pool.Exec(ctx, `INSERT INTO contracts (signature_id, created_at) VALUES ($1, $2)
		ON CONFLICT (signature_id) DO UPDATE SET created_at = excluded.created_at`, []byte(signatureID), createdAt); err != nil {
		return err
	}
	_, err := p.pool.Exec(ctx, `DELETE FROM contracts WHERE seq <= (SELECT MAX(seq) FROM contracts) - $1`, maxContracts)
	return err
}
