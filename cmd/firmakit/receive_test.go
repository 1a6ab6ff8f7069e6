package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"
)

// TestReceiveRefusesAnotherDatabase: a --db file whose schema is not the
// receiver's stops 'firmakit receive' at once, with exit code 2 and what to
// do, instead of a receiver that answers 503 to every notification. The
// run is bounded, so that a receiver that does start fails the test
// rather than hanging it.
func TestReceiveRefusesAnotherDatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", file)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE records (id INTEGER PRIMARY KEY, channel TEXT, method TEXT, path TEXT, query TEXT,
		headers TEXT, body BLOB, size INTEGER, body_dropped INTEGER, received_at INTEGER, remote_addr TEXT, verdict TEXT,
		reason TEXT, event_id TEXT, signature_id TEXT, state TEXT, created_at TEXT, duplicate INTEGER)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code := m.Run(ctx, []string{"receive", "--listen", "127.0.0.1:0", "--db", file})
	assert.Equal(t, ExitUsage, code, errOut.String())
	assert.Contains(t, errOut.String(), file)
	assert.Contains(t, errOut.String(), "table records has the columns")
	assert.Contains(t, errOut.String(), "move it aside, or start with another --db")
	assert.Empty(t, out.String(), "no URL is printed")
}
