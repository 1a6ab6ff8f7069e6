package receiver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplayBoundsTheAnswerHeaders: a destination answering a replay with
// 1 MiB of headers gets a 502 that says so, not 1 MiB kept in memory.
// (The forward's bound is a row of TestForwardAnswersWhatTheEndpointDid.)
func TestReplayBoundsTheAnswerHeaders(t *testing.T) {
	bomb := httptest.NewServer(peer.HeaderBomb(1 << 20))
	defer bomb.Close()
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.AllowPrivateReplay = true })
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	st, out := call(t, rv, "POST", "/api/events/1/replay", "", `{"url":"`+bomb.URL+`/hook"}`, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, 502, st, out)
	assert.Contains(t, out["error"], "response headers exceeded")
}

// TestClientBoundsTheAnswerHeaders: the default client of a remote
// receiver refuses an answer with 1 MiB of headers.
func TestClientBoundsTheAnswerHeaders(t *testing.T) {
	bomb := httptest.NewServer(peer.HeaderBomb(1 << 20))
	defer bomb.Close()
	_, err := (&receiver.Client{URL: bomb.URL}).List(context.Background(), receiver.Filter{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response headers exceeded")
	// Within the bound, the same server's answer is read.
	small := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"events":[]}`))
	}))
	defer small.Close()
	_, err = (&receiver.Client{URL: small.URL}).List(context.Background(), receiver.Filter{})
	require.NoError(t, err)
}
