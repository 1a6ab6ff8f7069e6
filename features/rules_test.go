package features_test

import (
	"os"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/features"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryRuleIsExercisedEverywhereItApplies: every rule of the rule
// table is exercised on every target it applies to, an input rule on
// both sides; and docs/rules.md is the table as generated.
func TestEveryRuleIsExercisedEverywhereItApplies(t *testing.T) {
	rules, err := features.Rules(features.FS)
	require.NoError(t, err)
	for _, e := range features.CheckRules(features.FS, rules) {
		t.Error(e)
	}
	c := features.CountRules(rules)
	t.Logf("the rule table: %s", c)
	assert.Greater(t, c.Rules, 100)
	assert.Greater(t, c.Targets, c.Rules, "some rules apply to both merchant endpoints")
	got, err := os.ReadFile("../docs/rules.md")
	require.NoError(t, err)
	assert.Equal(t, features.RulesMarkdown(rules), string(got), "docs/rules.md is stale: run firmakit features rules > docs/rules.md")
}

// TestCheckRulesFindsGaps: the check fails when a rule that applies to
// two endpoints is exercised on one only, or tried on one side only, or
// when an item has no rule.
func TestCheckRulesFindsGaps(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		change     func(string) string
		want       string
	}{
		{"the body limit tried on the check endpoint only", "en/verification.feature",
			func(s string) string {
				return strings.Replace(strings.Replace(s, "      | signature | 1048576 | 201    |\n", "", 1), "      | signature | 1048577 | 413    |\n", "", 1)
			},
			"a body over 1 MiB is refused with 413"},
		{"the key compared on its valid edge only", "en/verification.feature",
			func(s string) string {
				return strings.Replace(s, `Then the response is 401 "Invalid credentials"`, `Then the response status is 200`, -1)
			},
			"no row there refuses an invalid neighbour"},
		{"an item without a rule", "rules.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"defaults §A check 3\"\n    applies: [check, signature]\n    kind: input\n", "", 1)
			},
			"defaults §A check 3 is checked by"},
		{"an unknown target", "rules.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"defaults §A check 3\"\n    applies: [check, signature]\n", "  - ref: \"defaults §A check 3\"\n    applies: [check, payout]\n", 1)
			},
			`unknown target "payout"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := mutate(t, tc.file, tc.change)
			rules, err := features.Rules(fsys)
			require.NoError(t, err)
			var all []string
			for _, e := range features.CheckRules(fsys, rules) {
				all = append(all, e.Error())
			}
			assert.Contains(t, strings.Join(all, "\n"), tc.want)
		})
	}
}
