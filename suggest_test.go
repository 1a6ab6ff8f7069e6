package firmakit_test

import (
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
