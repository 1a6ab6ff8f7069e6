package freeport

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The address is free to listen on, and out of the range outgoing
// connections take their local ports from.
func TestAddrIsFreeAndBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	for i := 0; i < 20; i++ {
		addr, err := Addr()
		require.NoError(t, err)
		ln, err := net.Listen("tcp", addr)
		require.NoError(t, err, "nothing listens at %s", addr)
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if low > 11000 {
			assert.Less(t, port, low, "below the ephemeral range")
			assert.GreaterOrEqual(t, port, 10000)
		}
	}
	port, err := Port()
	require.NoError(t, err)
	assert.Positive(t, port)
}
