package receiver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Settle waits for a notification whose request has come in but is not
// stored yet (here: its body still on its way), and then List finds it,
// with the time its request came in.
func TestSettleWaitsForWhatCameIn(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	ctx := context.Background()
	require.NoError(t, rv.Settle(ctx), "nothing coming in: at once")

	body := notification(firmakit.StateSigned, "e1", "sig-settle")
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", rv.URL()+"/hooks/merchant_demo", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
	sent := make(chan error, 1)
	start := time.Now()
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	_, err = pw.Write(body[:10])
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		return errors.Is(rv.Settle(short), receiver.ErrTimeout)
	}, 10*time.Second, 10*time.Millisecond, "the request came in, and is not stored yet")
	recs, err := rv.List(ctx, receiver.Filter{SignatureID: "sig-settle"})
	require.NoError(t, err)
	assert.Empty(t, recs)

	rest := time.Now()
	settled := make(chan error, 1)
	go func() { settled <- rv.Settle(ctx) }()
	_, err = pw.Write(body[10:])
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	select {
	case err := <-settled:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Settle did not return once the notification was stored")
	}
	recs, err = rv.List(ctx, receiver.Filter{SignatureID: "sig-settle"})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.True(t, !recs[0].ReceivedAt.Before(start) && recs[0].ReceivedAt.Before(rest), "received when its request came in, not when it was stored")
	require.NoError(t, <-sent)
}
