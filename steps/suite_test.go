package steps_test

import (
	"testing"

	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/require"
)

// startReference opens a receiver and a reference server whose demo
// merchant notifies it, both in-process on loopback.
func startReference(t *testing.T, change func(*reference.Server, *receiver.Receiver)) (*reference.Server, *receiver.Receiver) {
	t.Helper()
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
	if change != nil {
		change(ref, rv)
	}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	require.NoError(t, ref.Config.SetWebhook("merchant_demo", rv.HookURL("merchant_demo")))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	return ref, rv
}

// TestConformanceSuite runs every scenario, Spanish and English, against
// the bundled reference server: strict, concurrent, in random order.
func TestConformanceSuite(t *testing.T) {
	ref, rv := startReference(t, nil)
	s := &steps.Suite{Target: steps.DemoTarget(ref.URL(), rv, true), Lang: "all", Randomize: -1, TestingT: t}
	status, err := s.Run()
	require.NoError(t, err)
	require.Equal(t, 0, status, "the suite failed against the reference server")
	require.Empty(t, s.NotRun(), "every scenario runs against the reference")
}
