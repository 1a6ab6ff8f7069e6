package reference_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/require"
)

// twiceDeviations is a deviation from outside the package, of two areas:
// every demo title gets two notifications, and it counts the attempts it
// saw.
type twiceDeviations struct {
	reference.NopNotificationDeviations
	reference.NopDeliveryDeviations
	attempts atomic.Int32
}

func (*twiceDeviations) DemoNotifications(n int) int { return 2 * n }

func (d *twiceDeviations) Attempt(req *http.Request, body string, secrets []string) {
	d.attempts.Add(1)
}

func TestServerRunsTheDeviationsItIsGiven(t *testing.T) {
	sk, url := reftest.NewSink(t)
	dev := &twiceDeviations{}
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		s.Deviations = &reference.Deviations{Notification: dev, Delivery: dev}
	})
	createDemo(t, s, "DEMO_SIGNED contrato 42")
	hits := sk.Wait(t, 2, 5*time.Second)
	require.Len(t, hits, 2)
	require.Equal(t, int32(2), dev.attempts.Load())
}

func TestTheNamedFaultsAreDeviations(t *testing.T) {
	sk, url := reftest.NewSink(t)
	s := openWithWebhook(t, url, func(s *reference.Server) {
		s.DemoDelay = 10 * time.Millisecond
		never, err := refaults.New([]string{"notification-never"})
		require.NoError(t, err)
		s.Deviations = never
	})
	createDemo(t, s, "DEMO_SIGNED contrato 42")
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, 0, sk.Count())
}
