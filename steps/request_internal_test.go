package steps

import (
	"net/http"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

func TestSpell(t *testing.T) {
	for how, want := range map[string]string{"lower": "x-service-key", "upper": "X-SERVICE-KEY", "mixed": "x-sErViCe-kEy"} {
		got := spell("X-Service-Key", how)
		assert.Equal(t, want, got, how)
		assert.Equal(t, "X-Service-Key", http.CanonicalHeaderKey(got), "the same name to HTTP")
	}
}

// A request sent with a timestamp just past the tolerance is ambiguous
// when its round trip may have let the server read its clock on the
// other side of the tolerance, and only then.
func TestStampAmbiguous(t *testing.T) {
	s := &Steps{T: &Target{Profile: firmakit.BundledProfile()}}
	sent := time.Now().Truncate(time.Second).Add(10 * time.Millisecond)
	for _, tc := range []struct {
		name      string
		offset    time.Duration
		roundTrip time.Duration
		ambiguous bool
	}{
		{"301 s ahead, answered at once", 301 * time.Second, 50 * time.Millisecond, false},
		{"301 s ahead, answered 2.5 s later: the server may have read 300 s", 301 * time.Second, 2500 * time.Millisecond, true},
		{"301 s ahead, answered 1 s later: a server rounding its clock may have read 300 s", 301 * time.Second, time.Second, true},
		{"301 s ago, answered 2.5 s later: only older", -301 * time.Second, 2500 * time.Millisecond, false},
		{"10 s ahead, answered 2.5 s later: within, either way", 10 * time.Second, 2500 * time.Millisecond, false},
	} {
		sc := &scenario{offset: tc.offset, sentAt: sent, answered: sent.Add(tc.roundTrip), stampSent: stampOff(sent, tc.offset)}
		_, ambiguous := s.stampAmbiguous(sc)
		assert.Equal(t, tc.ambiguous, ambiguous, tc.name)
	}
}
