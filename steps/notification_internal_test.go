package steps

import (
	"testing"
	"time"

	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
)

// The quiet window counts what arrived within 3 s of the first
// notification, whenever the receiver is read: a second notification at
// once, or 2 s later, is in it; the retry of a 2xx the sender saw too
// late (after its 10 s timeout) is not.
func TestInQuietWindow(t *testing.T) {
	at := func(ms int) *receiver.Record {
		return &receiver.Record{ReceivedAt: time.Unix(1795690000, 0).Add(time.Duration(ms) * time.Millisecond)}
	}
	for _, tc := range []struct {
		name   string
		recs   []*receiver.Record
		within int
	}{
		{"none", nil, 0},
		{"one", []*receiver.Record{at(500)}, 1},
		{"two at once", []*receiver.Record{at(500), at(510)}, 2},
		{"a redelivery 2 s later", []*receiver.Record{at(2500), at(500)}, 2},
		{"at the window's end", []*receiver.Record{at(500), at(3500)}, 2},
		{"a retry after the delivery timeout", []*receiver.Record{at(11600), at(500)}, 1},
	} {
		assert.Len(t, inQuietWindow(tc.recs), tc.within, tc.name)
	}
}
