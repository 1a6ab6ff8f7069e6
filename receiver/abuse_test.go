package receiver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContractNotesDoNotPushRecordsOut(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxBytes = 2000000 })
	ctx := context.Background()
	// Some through the API, the rest in-process: more than the notes kept.
	for i := 0; i < 50; i++ {
		st, out := call(t, rv, "POST", "/api/contracts", "", fmt.Sprintf(`{"signature_id":"api-%d","created_at":"2026-11-22T10:00:00Z"}`, i),
			map[string]string{"Content-Type": "application/json"})
		require.Equal(t, 204, st, out)
	}
	for i := 0; i < receiver.MaxContracts+500; i++ {
		require.NoError(t, rv.NoteContract(ctx, fmt.Sprintf("contract-%06d-%s", i, "0123456789abcdef0123456789abcdef"), "2026-11-22T10:00:00Z"))
	}
	st, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "kept", "contract-010499-0123456789abcdef0123456789abcdef"))
	require.Equal(t, 200, st, out)
	var got receiver.Record
	require.Equal(t, 200, getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &got), "an acknowledged record is kept")
	assert.NotEmpty(t, got.ContractCreatedAt, "the newest contract notes are kept")
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "old", "contract-000000-0123456789abcdef0123456789abcdef"))
	var list struct{ Events []receiver.Record }
	getJSON(t, rv.URL()+"/api/events?event_id=old", &list)
	require.Len(t, list.Events, 1)
	assert.Empty(t, list.Events[0].ContractCreatedAt, "the oldest notes went past the bound")
	n, err := rv.Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n)
}

func TestRecordsJustAcknowledgedOutliveTheirRetention(t *testing.T) {
	// A budget smaller than one record: each insert triggers retention,
	// which deletes only the records before it.
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.MaxBytes = 64 << 10 })
	big := append([]byte(`{"pad":"`), append(bytesOf('x', 200<<10), '"', '}')...)
	for i := 0; i < 3; i++ {
		st, out := post(t, rv, "merchant_demo", big, "")
		require.Equal(t, 200, st, out)
		require.Equal(t, 200, getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), nil), "record %v answered and kept", out["received"])
	}
}

func bytesOf(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}
