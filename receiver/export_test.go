package receiver

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// RetentionPass runs a retention pass now and returns once it is done, so
// that tests of retention by age need not wait for the periodic one.
func RetentionPass(rv *Receiver) { rv.store.retentionPass() }

// SetServerTimeouts shortens the server's read and write timeouts for
// receivers opened after the call; the returned function restores them.
func SetServerTimeouts(read, write time.Duration) (restore func()) {
	oldRead, oldWrite := readTimeout, writeTimeout
	readTimeout, writeTimeout = read, write
	return func() { readTimeout, writeTimeout = oldRead, oldWrite }
}

// SetLookupIP makes rv resolve the names it sends to with lookup; call it
// before Open.
func SetLookupIP(rv *Receiver, lookup func(ctx context.Context, host string) ([]net.IP, error)) {
	rv.lookupIP = lookup
}

// SetMaxRules changes how many programmed answers may be held at once;
// the returned function restores it.
func SetMaxRules(n int) (restore func()) {
	old := maxRules
	maxRules = n
	return func() { maxRules = old }
}

// Backend is a receiver's storage opened on its own, so that the contract
// test (TestBackends) calls each backend directly, not only through HTTP.
type Backend struct {
	b         backend
	mu        sync.Mutex
	published []int64
}

// OpenBackend opens the backend db names, as Receiver.Open does; it is
// closed with the test.
func OpenBackend(t testing.TB, db string) *Backend {
	t.Helper()
	w := &Backend{}
	b, _, err := openBackend(backendConfig{dsn: db, now: time.Now, log: slog.New(slog.DiscardHandler), every: time.Hour,
		published: func(recs []*Record) {
			w.mu.Lock()
			defer w.mu.Unlock()
			for _, r := range recs {
				w.published = append(w.published, r.ID)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	w.b = b
	t.Cleanup(b.close)
	return w
}

func (w *Backend) Insert(ctx context.Context, rec *Record) error      { return w.b.insert(ctx, rec) }
func (w *Backend) Get(ctx context.Context, id int64) (*Record, error) { return w.b.get(ctx, id) }
func (w *Backend) List(ctx context.Context, f Filter, maxBytes int) ([]*Record, bool, error) {
	return w.b.list(ctx, f, maxBytes)
}
func (w *Backend) Total(ctx context.Context, f Filter) (int64, error) { return w.b.total(ctx, f) }
func (w *Backend) Count(ctx context.Context) (int64, error)           { return w.b.count(ctx) }
func (w *Backend) Last() int64                                        { return w.b.last() }
func (w *Backend) DeleteOne(ctx context.Context, id int64) error      { return w.b.deleteOne(ctx, id) }
func (w *Backend) DeleteAll(ctx context.Context) (int64, error)       { return w.b.deleteAll(ctx) }
func (w *Backend) NoteContract(ctx context.Context, signatureID, createdAt string) error {
	return w.b.noteContract(ctx, signatureID, createdAt)
}

// Published returns the ids the backend has handed to the hub so far.
func (w *Backend) Published() []int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.published)
}
