package receiver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listenRecords listens on the records channel of db and returns what
// it heard: each payload until wait passes with nothing more.
func listenRecords(t *testing.T, db string) func(wait time.Duration) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(ctx) })
	_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
	require.NoError(t, err)
	return func(wait time.Duration) []string {
		var got []string
		for {
			c, cancel := context.WithTimeout(ctx, wait)
			n, err := conn.WaitForNotification(c)
			cancel()
			if err != nil {
				return got
			}
			got = append(got, n.Payload)
		}
	}
}

func openPG(t *testing.T, db string, noNotify bool) *pgStore {
	t.Helper()
	p, err := openPostgres(backendConfig{dsn: db, now: time.Now, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		published: func([]*Record) {}, every: time.Hour, noNotify: noNotify})
	require.NoError(t, err)
	t.Cleanup(p.close)
	return p
}

// TestOneNotifyPerBatch: a committed batch sends one NOTIFY, carrying its
// newest id, never one per record (NOTIFY takes a database-wide lock at
// commit); with noNotify it sends none and stores the batch all the same.
func TestOneNotifyPerBatch(t *testing.T) {
	db, err := pgtest.NewDatabase()
	require.NoError(t, err)
	heard := listenRecords(t, db)
	batch := func(n int, tag string) []*Record {
		var recs []*Record
		for i := range n {
			recs = append(recs, &Record{Channel: "c", Method: "POST", Path: "/hooks/c", ReceivedAt: time.Now(),
				Check: CheckValid, EventID: fmt.Sprint(tag, i), Header: map[string][]string{}})
		}
		return recs
	}

	loud := openPG(t, db, false)
	recs := batch(5, "loud")
	require.NoError(t, loud.commit(recs))
	assert.Equal(t, []string{fmt.Sprint(recs[4].ID)}, heard(2*time.Second), "one NOTIFY for five records, with the newest id")

	quiet := openPG(t, db, true)
	require.NoError(t, quiet.commit(batch(3, "quiet")))
	assert.Empty(t, heard(500*time.Millisecond), "noNotify: no NOTIFY")
	n, err := quiet.count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(8), n, "stored all the same")
}
