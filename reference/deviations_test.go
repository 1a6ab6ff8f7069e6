package reference_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/stretchr/testify/require"
)

// twiceDeviations is a deviation from outside the package: every demo
// title gets two notifications, and it counts the attempts it saw.
type twiceDeviations struct {
	reference.NopDeviations
	attempts atomic.Int32
}

func (*twiceDeviations) DemoNotifications(n int) int { return 2 * n }

func (d *twiceDeviations) Attempt(req *http.Request, body string, secrets []string) {
	d.attempts.Add(1)
}

func TestServerRunsTheDeviationsItIsGiven(t *testing.T) {
	sk, url := newSink(t)
	dev := &twiceDeviations{}
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		s.Deviations = dev
	})
	createDemo(t, s, "DEMO_SIGNED contrato 42")
	hits := sk.wait(t, 2, 5*time.Second)
	require.Len(t, hits, 2)
	require.Equal(t, int32(2), dev.attempts.Load())
}

func TestTheNamedFaultsAreDeviations(t *testing.T) {
	sk, url := newSink(t)
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		never, err := refaults.New([]string{"notification-never"})
		require.NoError(t, err)
		s.Deviations = never
	})
	createDemo(t, s, "DEMO_SIGNED contrato 42")
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, 0, sk.count())
}
