package receiver

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The SQL both backends share: a record's columns, how a Filter becomes a
// WHERE clause, how a page is listed and counted, how a row becomes a
// Record, how a batch learns its duplicates and its contracts. Adding a
// column or a filter is done here, once. What SQLite and PostgreSQL do
// differently in these statements is their dialect; how each writes
// (group commit, COPY, ids, locks, LISTEN/NOTIFY) and keeps within its
// limits stays with the backend.

// DefaultMaxContracts bounds the contract notes (POST /api/contracts):
// past it the oldest noted go. With signature ids of at most 200 bytes
// they take a few MiB at most, outside the records' budget (MaxBytes), so
// that noting contracts never pushes acknowledged records out.
const DefaultMaxContracts = 10000

// listBytes bounds the bodies one in-process List call holds in memory; a
// page of large records is cut short there, and paging goes on after it.
// The API's pages read listChunk at a time.
const listBytes = 32 << 20

// dialect is what the shared statements need to know of a database.
type dialect struct {
	// param is the placeholder of a statement's n-th argument, from 1.
	param func(n int) string
	// text binds text that came with a request (channel, ids, state…):
	// as TEXT on SQLite; as bytea on PostgreSQL, whose text refuses NUL
	// and invalid UTF-8, so that both compare bytes.
	text func(string) any
	// oneOf is the condition that col is one of vals, request text, with
	// its arguments.
	oneOf func(col string, vals []string) (string, []any)
	// weak prefixes a column to keep the planner off its index where a
	// more selective one applies.
	weak string
	// contains is the condition that a kept body holds the bytes of its
	// argument.
	contains string
	// from is the records with the contract notes that give their delay.
	from string
	// contractOrder is the contracts' column that tells which note is
	// the newest.
	contractOrder string
	// noRows is the driver's error for a query that found no row.
	noRows error
}

var sqliteDialect = &dialect{
	param: func(int) string { return "?" },
	text:  func(s string) any { return s },
	oneOf: func(col string, vals []string) (string, []any) {
		args := make([]any, len(vals))
		for i, v := range vals {
			args[i] = v
		}
		return col + " IN (" + strings.Repeat("?, ", len(vals)-1) + "?)", args
	},
	// The unary + makes the column an expression no index covers.
	weak: "+",
	// instr on two blobs compares bytes: no wildcard to escape, and the
	// same answer as Filter.Match's bytes.Contains.
	contains:      "r.body_dropped = 0 AND instr(r.body, ?) > 0",
	from:          ` FROM records r LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != ''`,
	contractOrder: "rowid", // a note updated keeps its rowid; new ones take the next
	noRows:        sql.ErrNoRows,
}

var pgDialect = &dialect{
	param: func(n int) string { return "$" + strconv.Itoa(n) },
	text:  func(s string) any { return []byte(s) },
	oneOf: func(col string, vals []string) (string, []any) {
		// One array argument: one statement whatever the batch's size,
		// so that pgx prepares it once.
		arr := make([][]byte, len(vals))
		for i, v := range vals {
			arr[i] = []byte(v)
		}
		return col + " = ANY(?)", []any{arr}
	},
	// PostgreSQL's planner weighs the indexes by their statistics.
	weak:          "",
	contains:      "NOT r.body_dropped AND position(?::bytea in r.body) > 0",
	from:          ` FROM records r LEFT JOIN contracts c ON c.signature_id = r.signature_id AND r.signature_id != ''::bytea`,
	contractOrder: "seq",
	noRows:        pgx.ErrNoRows,
}

// statement is SQL written with ? for each argument, in the dialect's
// placeholders once built.
type statement struct {
	d     *dialect
	conds []string
	args  []any
}

// add appends a condition, its ? standing for args in order.
func (s *statement) add(cond string, args ...any) {
	parts := strings.Split(cond, "?")
	var b strings.Builder
	b.WriteString(parts[0])
	for i, a := range args {
		s.args = append(s.args, a)
		b.WriteString(s.d.param(len(s.args)))
		b.WriteString(parts[i+1])
	}
	s.conds = append(s.conds, b.String())
}

// where is " WHERE " and the conditions, or "" without any.
func (s *statement) where() string {
	if len(s.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(s.conds, " AND ")
}

// bind returns q with its ? in the dialect's placeholders, for args.
func (d *dialect) bind(q string, args ...any) (string, []any) {
	s := statement{d: d}
	s.add(q, args...)
	return s.conds[0], s.args
}

// recordColumns are the records table's columns, in the order of values
// and scanRecord.
var recordColumns = append(slices.Clone(keylessColumns), "verified_by")

// keylessColumns are the records columns before verified_by (SQLite's
// schema version 3, PostgreSQL's 2): a database of then gains the column
// when opened.
var keylessColumns = []string{"id", "channel", "method", "path", "query", "headers", "body", "size", "body_dropped",
	"received_at", "remote_addr", "check", "reason", "event_id", "signature_id", "state", "created_at", "duplicate",
	"status", "forward"}

// addVerifiedBy is the migration that adds the verified_by column.
const addVerifiedBy = `ALTER TABLE records ADD COLUMN verified_by TEXT NOT NULL DEFAULT ''`

// recordIndexes are the records table's indexes, alike on both databases.
const recordIndexes = `
CREATE INDEX IF NOT EXISTS records_channel ON records(channel, id);
CREATE INDEX IF NOT EXISTS records_signature ON records(signature_id, id);
CREATE INDEX IF NOT EXISTS records_event ON records(event_id);
CREATE INDEX IF NOT EXISTS records_received ON records(received_at);
CREATE INDEX IF NOT EXISTS records_state ON records(state, id);
CREATE INDEX IF NOT EXISTS records_check ON records("check", id);
`

// verdictColumns are the records columns before the check took its name
// (SQLite's schema version 2, PostgreSQL's 1): a database of then is
// migrated with renameVerdict when opened.
var verdictColumns = func() []string {
	cols := slices.Clone(keylessColumns)
	cols[slices.Index(cols, "check")] = "verdict"
	return cols
}()

// renameVerdict gives the check column its name; each backend renames or
// remakes its index.
const renameVerdict = `ALTER TABLE records RENAME COLUMN verdict TO "check"`

// quoted is the columns as SQL names, each with prefix.
func quoted(prefix string, cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = prefix + `"` + c + `"`
	}
	return strings.Join(q, ", ")
}

// recordSelect is what a read selects: the columns, then the contract's
// creation time.
var recordSelect = `SELECT ` + quoted("r.", recordColumns) + `, COALESCE(c.created_at, '')`

// values returns r's columns in recordColumns' order, ready to write.
func (d *dialect) values(r *Record) []any {
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
	return []any{r.ID, d.text(r.Channel), r.Method, d.text(r.Path), d.text(r.Query), string(h), body, r.Size,
		r.BodyDropped, r.ReceivedAt.UnixMicro(), r.RemoteAddr, r.Check, d.text(r.Reason), d.text(r.EventID),
		d.text(r.SignatureID), d.text(r.State), d.text(r.CreatedAt), r.Duplicate, int32(r.Status), fwd, r.VerifiedBy}
}

// scanRecord reads a row of recordSelect. Request text is read as bytes,
// which both drivers give whether the column is TEXT or bytea.
func scanRecord(row scanner) (*Record, error) {
	var r Record
	var channel, path, query, reason, event, sig, state, created []byte
	var headers, fwd string
	var micros int64
	var status int32
	if err := row.Scan(&r.ID, &channel, &r.Method, &path, &query, &headers, &r.Body, &r.Size, &r.BodyDropped,
		&micros, &r.RemoteAddr, &r.Check, &reason, &event, &sig, &state, &created,
		&r.Duplicate, &status, &fwd, &r.VerifiedBy, &r.ContractCreatedAt); err != nil {
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

// conditions returns the WHERE clause (empty, or " WHERE …") and its
// arguments for f; paging adds the id bounds (AfterID, BeforeID).
func (d *dialect) conditions(f Filter, paging bool) (string, []any) {
	s := statement{d: d}
	if f.Channel != "" {
		s.add("r.channel = ?", d.text(f.Channel))
	}
	if f.ChannelPrefix != "" {
		// A byte-wise range, so that the channel index serves it and no
		// LIKE wildcard or case folding applies: prefix <= channel < prefix+\xff…
		s.add("r.channel >= ? AND r.channel < ?", d.text(f.ChannelPrefix), d.text(f.ChannelPrefix+"\xff\xff\xff\xff"))
	}
	// With a signature or event id, that index is the selective one: keep
	// the planner off the state and check indexes.
	weak := ""
	if f.SignatureID != "" || f.EventID != "" {
		weak = d.weak
	}
	if f.State != "" {
		s.add(weak+"r.state = ?", d.text(f.State))
	}
	if f.SignatureID != "" {
		s.add("r.signature_id = ?", d.text(f.SignatureID))
	}
	if f.EventID != "" {
		s.add("r.event_id = ?", d.text(f.EventID))
	}
	if f.Check != "" {
		s.add(weak+`r."check" = ?`, f.Check)
	}
	if f.Text != "" {
		s.add(d.contains, []byte(f.Text))
	}
	if paging && f.AfterID > 0 {
		s.add("r.id > ?", f.AfterID)
	}
	if paging && f.BeforeID > 0 {
		s.add("r.id < ?", f.BeforeID)
	}
	if !f.Since.IsZero() {
		s.add("r.received_at >= ?", f.Since.UnixMicro())
	}
	return s.where(), s.args
}

// sqlCore is the reads and deletes both backends run alike.
type sqlCore struct {
	d       *dialect
	readDB  sqlDB // reads: SQLite's read-only pool
	writeDB sqlDB // deletes and notes: SQLite's one writing connection
	// maxContracts bounds the contract notes (DefaultMaxContracts when 0).
	maxContracts int
}

func (c *sqlCore) get(ctx context.Context, id int64) (*Record, error) {
	q, args := c.d.bind(recordSelect+c.d.from+` WHERE r.id = ?`, id)
	r, err := scanRecord(c.readDB.row(ctx, q, args...))
	if errors.Is(err, c.d.noRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// list returns the records matching f, up to f.Limit of them; truncated
// tells that it stopped early, past maxBytes of bodies, with more to come.
func (c *sqlCore) list(ctx context.Context, f Filter, maxBytes int) (recs []*Record, truncated bool, err error) {
	where, args := c.d.conditions(f, true)
	order := " ORDER BY r.id ASC"
	if f.Newest {
		order = " ORDER BY r.id DESC"
	}
	args = append(args, f.Limit)
	q := recordSelect + c.d.from + where + order + " LIMIT " + c.d.param(len(args))
	out := []*Record{}
	var size int
	err = c.readDB.each(ctx, q, args, func(row scanner) (bool, error) {
		if size >= maxBytes {
			truncated = true
			return false, nil
		}
		r, err := scanRecord(row)
		if err != nil {
			return false, err
		}
		out = append(out, r)
		size += len(r.Body)
		return true, nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, truncated, nil
}

// total counts the records matching f's conditions, paging left out.
func (c *sqlCore) total(ctx context.Context, f Filter) (int64, error) {
	where, args := c.d.conditions(f, false)
	var n int64
	err := c.readDB.row(ctx, `SELECT COUNT(*) FROM records r`+where, args...).Scan(&n)
	return n, err
}

func (c *sqlCore) count(ctx context.Context) (int64, error) {
	var n int64
	err := c.readDB.row(ctx, `SELECT COUNT(*) FROM records`).Scan(&n)
	return n, err
}

func (c *sqlCore) deleteOne(ctx context.Context, id int64) error {
	q, args := c.d.bind(`DELETE FROM records WHERE id = ?`, id)
	n, err := c.writeDB.exec(ctx, q, args...)
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (c *sqlCore) deleteAll(ctx context.Context) (int64, error) {
	return c.writeDB.exec(ctx, `DELETE FROM records`)
}

// noteContract keeps when a contract was created, the last maxContracts
// noted only (a note updated keeps its place).
func (c *sqlCore) noteContract(ctx context.Context, signatureID, createdAt string) error {
	q, args := c.d.bind(`INSERT INTO contracts (signature_id, created_at) VALUES (?, ?)
		ON CONFLICT (signature_id) DO UPDATE SET created_at = excluded.created_at`, c.d.text(signatureID), createdAt)
	if _, err := c.writeDB.exec(ctx, q, args...); err != nil {
		return err
	}
	o := c.d.contractOrder
	q, args = c.d.bind(`DELETE FROM contracts WHERE `+o+` <= (SELECT MAX(`+o+`) FROM contracts) - ?`, cmp.Or(c.maxContracts, DefaultMaxContracts))
	_, err := c.writeDB.exec(ctx, q, args...)
	return err
}

// stamp marks the records of a batch about to be written (their ids
// given) whose event id a valid record stored already, or one earlier in
// the batch, carries, as duplicates: a forged copy that came first does
// not make the real event a duplicate; with contracts, it gives each the creation time of its
// contract, when one was noted. tx is the batch's transaction.
func (d *dialect) stamp(ctx context.Context, tx sqlDB, recs []*Record, contracts bool) error {
	var events, sigs []string
	for _, r := range recs {
		if r.EventID != "" && !slices.Contains(events, r.EventID) {
			events = append(events, r.EventID)
		}
		if contracts && r.SignatureID != "" && !slices.Contains(sigs, r.SignatureID) {
			sigs = append(sigs, r.SignatureID)
		}
	}
	stored := map[string]bool{}
	if len(events) > 0 {
		cond, args := d.oneOf("event_id", events)
		q, args := d.bind(`SELECT DISTINCT event_id FROM records WHERE "check" = ? AND `+cond, append([]any{CheckValid}, args...)...)
		if err := tx.each(ctx, q, args, func(row scanner) (bool, error) {
			var e []byte
			err := row.Scan(&e)
			stored[string(e)] = true
			return true, err
		}); err != nil {
			return err
		}
	}
	created := map[string]string{}
	if len(sigs) > 0 {
		cond, args := d.oneOf("signature_id", sigs)
		q, args := d.bind(`SELECT signature_id, created_at FROM contracts WHERE `+cond, args...)
		if err := tx.each(ctx, q, args, func(row scanner) (bool, error) {
			var s []byte
			var c string
			err := row.Scan(&s, &c)
			created[string(s)] = c
			return true, err
		}); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if r.EventID != "" {
			r.Duplicate = stored[r.EventID]
			if r.Check == CheckValid {
				stored[r.EventID] = true
			}
		}
		if r.SignatureID != "" {
			r.ContractCreatedAt = created[r.SignatureID]
		}
	}
	return nil
}

// sameSet tells whether a and b hold the same names, in any order.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// scanner is a row to read: database/sql's and pgx's alike.
type scanner interface{ Scan(dest ...any) error }

// sqlDB runs a statement on a database or in a transaction, whichever
// the driver: database/sql for SQLite (stdDB), pgx for PostgreSQL (pgDB).
type sqlDB interface {
	row(ctx context.Context, q string, args ...any) scanner
	// each calls fn on every row until fn returns false or an error.
	each(ctx context.Context, q string, args []any, fn func(scanner) (bool, error)) error
	// exec runs q and returns how many rows it changed.
	exec(ctx context.Context, q string, args ...any) (int64, error)
}

// eachRow calls fn on each row until fn returns false or an error, and
// returns that error or the rows'.
func eachRow(rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}, fn func(scanner) (bool, error)) error {
	for rows.Next() {
		if more, err := fn(rows); err != nil || !more {
			return err
		}
	}
	return rows.Err()
}

// stdDB is a *sql.DB or *sql.Tx.
type stdDB struct {
	db interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
	// gate, when set, is passed by every statement (dbGate): the
	// SQLite store's, on the one connection its writer shares.
	gate *dbGate
}

func (s stdDB) row(ctx context.Context, q string, args ...any) scanner {
	leave := s.gate.enter()
	return gatedRow{s.db.QueryRowContext(ctx, q, args...), leave}
}

func (s stdDB) each(ctx context.Context, q string, args []any, fn func(scanner) (bool, error)) error {
	defer s.gate.enter()()
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, fn)
}

func (s stdDB) exec(ctx context.Context, q string, args ...any) (int64, error) {
	defer s.gate.enter()()
	res, err := s.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// gatedRow is a row that leaves its gate once scanned: the connection
// is held until then.
type gatedRow struct {
	row   *sql.Row
	leave func()
}

func (r gatedRow) Scan(dest ...any) error {
	defer r.leave()
	return r.row.Scan(dest...)
}

// dbGate puts the SQLite writer's commits first on the one connection
// the store writes through (and, in memory, reads through too).
// database/sql hands a freed connection to any one of its waiters, so
// behind a flood of other statements (contract notes, one per contract
// a suite creates, hundreds at once) a commit waited its turn for a
// minute and a half on a loaded machine, and the receiver answered no
// notification meanwhile. Other statements now wait here, at most
// gateOthers of them at the connection at once, and none once a commit
// waits: a commit waits for gateOthers statements at most.
type dbGate struct {
	others chan struct{}
	rw     sync.RWMutex
}

// gateOthers is how many statements besides the writer's may wait for
// the connection at once.
const gateOthers = 2

func newDBGate() *dbGate { return &dbGate{others: make(chan struct{}, gateOthers)} }

// enter waits for the turn of a statement other than the writer's and
// returns what ends it; a nil gate lets everything through.
func (g *dbGate) enter() (leave func()) {
	if g == nil {
		return func() {}
	}
	g.others <- struct{}{}
	g.rw.RLock()
	return func() {
		g.rw.RUnlock()
		<-g.others
	}
}

// write waits for the writer's turn, ahead of every statement not yet
// at the connection, and returns what ends it.
func (g *dbGate) write() (done func()) {
	if g == nil {
		return func() {}
	}
	g.rw.Lock()
	return g.rw.Unlock
}

// pgDB is a pgx pool, connection or transaction.
type pgDB struct {
	db interface {
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	}
}

func (p pgDB) row(ctx context.Context, q string, args ...any) scanner {
	return p.db.QueryRow(ctx, q, args...)
}

func (p pgDB) each(ctx context.Context, q string, args []any, fn func(scanner) (bool, error)) error {
	rows, err := p.db.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, fn)
}

func (p pgDB) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := p.db.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}
