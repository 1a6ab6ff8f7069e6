package steps

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSpell(t *testing.T) {
	for how, want := range map[string]string{"lower": "x-service-key", "upper": "X-SERVICE-KEY", "mixed": "x-sErViCe-kEy"} {
		got := spell("X-Service-Key", how)
		assert.Equal(t, want, got, how)
		assert.Equal(t, "X-Service-Key", http.CanonicalHeaderKey(got), "the same name to HTTP")
	}
}
