package receiver

import (
	"context"
	"net"
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

// MaxContracts is how many contract notes are kept.
const MaxContracts = maxContracts

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
