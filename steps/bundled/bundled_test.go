package bundled_test

import (
	"testing"

	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/bundled"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A harness refuses, before any scenario runs, a target the sentences
// cannot run against, saying what it lacks.
func TestNewHarnessRefusesAnIncompleteTarget(t *testing.T) {
	_, err := steps.NewHarness(nil)
	assert.EqualError(t, err, "steps: no target")
	stack, err := bundled.Start(nil, nil)
	require.NoError(t, err)
	defer stack.Close()
	target := *stack.Target
	target.Notifications = nil
	_, err = steps.NewHarness(&target)
	assert.EqualError(t, err, "no receiver for the notifications")
	h, err := steps.NewHarness(stack.Target)
	require.NoError(t, err)
	h.Close()
	_, ok := h.LedgerResult()
	assert.False(t, ok, "no suite ran, so no ledger was checked")
}
