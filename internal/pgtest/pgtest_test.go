package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/firmakit/firmakit/internal/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestServerGivesSeparateDatabases: each NewDatabase is a database of its
// own on one server, reached over loopback.
func TestServerGivesSeparateDatabases(t *testing.T) {
	ctx := context.Background()
	a, err := pgtest.NewDatabase()
	require.NoError(t, err)
	b, err := pgtest.NewDatabase()
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
	assert.Contains(t, a, "127.0.0.1")

	ca, err := pgx.Connect(ctx, a)
	require.NoError(t, err)
	defer ca.Close(ctx)
	cb, err := pgx.Connect(ctx, b)
	require.NoError(t, err)
	defer cb.Close(ctx)
	_, err = ca.Exec(ctx, `CREATE TABLE only_in_a (x int)`)
	require.NoError(t, err)
	var n int
	require.NoError(t, cb.QueryRow(ctx, `SELECT COUNT(*) FROM pg_tables WHERE tablename = 'only_in_a'`).Scan(&n))
	assert.Zero(t, n, "a table of one database is not in the other")
	var version string
	require.NoError(t, ca.QueryRow(ctx, `SHOW server_version`).Scan(&version))
	t.Logf("PostgreSQL %s", version)
}

// TestStopRemovesEverything: a server of its own stops and leaves nothing.
func TestStopRemovesEverything(t *testing.T) {
	s, err := pgtest.Start()
	require.NoError(t, err)
	url, err := s.CreateDatabase("x")
	require.NoError(t, err)
	c, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	c.Close(context.Background())
	s.Stop()
	_, err = pgx.Connect(context.Background(), url)
	assert.Error(t, err, "stopped")
}

func TestBinIsFound(t *testing.T) {
	dir, err := pgtest.Bin()
	require.NoError(t, err, "the PostgreSQL tests need the server: apt-get install postgresql")
	assert.FileExists(t, dir+"/postgres")
}
