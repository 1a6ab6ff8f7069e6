package firmakit_test

import (
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// TestClosest starts from a near miss and changes one thing per case.
func TestClosest(t *testing.T) {
	flags := []string{"concurrency", "target", "tags", "lang"}
	for _, tc := range []struct {
		name, word string
		want       string
	}{
		{"a letter missing", "concurency", "concurrency"},
		{"in upper case", "TARGT", "target"},
		{"the start of a name", "conc", "concurrency"},
		{"too short to be a start", "co", ""},
		{"too far from any", "bogus-flag", ""},
		{"as many edits as letters", "xy", ""},
		{"no candidates", "target", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := flags
			if tc.name == "no candidates" {
				list = nil
			}
			assert.Equal(t, tc.want, firmakit.Closest(tc.word, list))
		})
	}
}

// Nearest ranks by distance then name, folds both sides, counts a name
// that contains the word as nearest, and leaves out what is too far.
func TestNearest(t *testing.T) {
	known := []string{"@AUTH-EXPIRED", "@AUTH-EXPIRED-FUTURE", "@DEMO-RETRY", "@WH-ROTATION"}
	fold := func(s string) string { return strings.ToLower(strings.TrimPrefix(s, "@")) }
	assert.Equal(t, []string{"@AUTH-EXPIRED", "@AUTH-EXPIRED-FUTURE"},
		firmakit.Nearest(known, 2, firmakit.NearestOptions{Fold: fold}, "auth-expird"))
	assert.Equal(t, []string{"@WH-ROTATION", "@DEMO-RETRY"}, // one edit, then two
		firmakit.Nearest(known, 2, firmakit.NearestOptions{Fold: fold}, "demo-retyr", "wh-rotaton"))
	faults := []string{"notification-late", "notification-never", "auth-key-case-insensitive"}
	assert.Equal(t, []string{"notification-late", "notification-never"},
		firmakit.Nearest(faults, 5, firmakit.NearestOptions{Contains: true, Within: func(f string) int { return max(3, len(f)/3) }}, "notification"))
	assert.Empty(t, firmakit.Nearest(faults, 5, firmakit.NearestOptions{Within: func(string) int { return 2 }}, "zzzzzz"))
	assert.Len(t, firmakit.Nearest(known, 10, firmakit.NearestOptions{}, "x", "y"), 4, "each name once")
}
