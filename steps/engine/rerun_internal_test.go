package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/features"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every row of every feature set, in both languages, is found again for
// a rerun alone: an outline whose name holds a placeholder ("… una
// notificación <state>, …") runs under the name its row fills in, and a
// rerun once failed on it with "no scenario".
func TestEveryRowCanRunAgain(t *testing.T) {
	placeholders := 0
	for _, set := range features.Sets() {
		for _, lang := range []string{"es", "en"} {
			scs, err := set.Scenarios(features.FS, lang)
			require.NoError(t, err)
			starts := map[string]bool{}
			for _, sc := range scs {
				starts[fmt.Sprintf("%s/%s:%d", lang, sc.File, sc.Line)] = true
				if strings.Contains(sc.Name, "<") {
					placeholders++
				}
			}
			rows, err := Planned(set, lang, "")
			require.NoError(t, err)
			require.NotEmpty(t, rows)
			byFile, err := scenariosByFile(set)
			require.NoError(t, err)
			for _, r := range rows {
				path, err := scenarioPath(byFile, r)
				require.NoError(t, err, "%s line %d", r.Feature, r.Line)
				assert.True(t, starts[path], "%s: %s starts no scenario", r.Name, path)
				var line int
				_, err = fmt.Sscanf(path[strings.LastIndex(path, ":")+1:], "%d", &line)
				require.NoError(t, err)
				assert.LessOrEqual(t, line, r.Line, "%s: the scenario starts at or before its row", r.Name)
			}
			paths, err := (&Pass{set: set}).scenarioPaths(rows)
			require.NoError(t, err)
			assert.Len(t, paths, len(scs), "every scenario once")
		}
	}
	assert.Positive(t, placeholders, "an outline's name holds a placeholder somewhere in the features")
}

func TestFitsOutlineName(t *testing.T) {
	for _, tc := range []struct {
		template, name string
		fits           bool
	}{
		{"a plain name", "a plain name", true},
		{"a plain name", "a plain name!", false},
		{"a <state> notification", "a REJECTED notification", true},
		{"a <state> notification", "a  notification", true},
		{"a <state> notification", "a REJECTED notice", false},
		{"a <state> notification", "the REJECTED notification", false},
		{"<a> and <b>", "x and y", true},
		{"<a> and <b>", "x or y", false},
		{"<a>-<b>-end", "1-2-3-end", true},
		{"ends <x>", "ends here", true},
		{"<x>", "anything", true},
		{"an <unclosed name", "an <unclosed name", true},
		{"a <state> notification", "a notification", false},
	} {
		assert.Equal(t, tc.fits, FitsOutlineName(tc.template, tc.name), "%q ~ %q", tc.template, tc.name)
	}
}
