package main

import (
	"flag"
	"net/http/httptest"
	"testing"

	"github.com/firmakit/firmakit/internal/peer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientsBoundTheAnswerHeaders: certify's client to a --target and
// certify-webhook's reachability check refuse an answer with 1 MiB of
// headers, and read one within the bound.
func TestClientsBoundTheAnswerHeaders(t *testing.T) {
	bomb := httptest.NewServer(peer.HeaderBomb(1 << 20))
	defer bomb.Close()
	fine := httptest.NewServer(peer.HeaderBomb(16 << 10))
	defer fine.Close()

	nf := networkFlags(flag.NewFlagSet("certify", flag.ContinueOnError))
	client, _, _, err := nf.Build(true)
	require.NoError(t, err)
	_, err = client.Get(bomb.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response headers exceeded")
	resp, err := client.Get(fine.URL)
	require.NoError(t, err)
	resp.Body.Close()

	err = reachable(t.Context(), bomb.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response headers exceeded")
	require.NoError(t, reachable(t.Context(), fine.URL))
}
