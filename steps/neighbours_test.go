package steps_test

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/steps"
)

// TestEveryOperatorProducesRowsForItsRule: the rule table's operator
// column is filled where it applies. Each operator's rows exercise the
// rule it judges by, at every target of that rule (or the one it names),
// and every row by operator names an operator that exists.
func TestEveryOperatorProducesRowsForItsRule(t *testing.T) {
	rules, err := features.Rules(features.FS)
	require.NoError(t, err)
	names := steps.OperatorNames()
	require.NotEmpty(t, names)
	for _, r := range rules {
		for _, row := range r.Rows {
			if row.Operator != "" {
				assert.Contains(t, names, row.Operator, "%s names an unknown operator", row)
			}
		}
	}
	for _, name := range names {
		ref, only := steps.OperatorRule(name)
		var targets []string
		covered := map[string]bool{}
		for _, r := range rules {
			if r.Ref != ref {
				continue
			}
			for _, tg := range r.Applies {
				if !slices.Contains(targets, tg) {
					targets = append(targets, tg)
				}
				if slices.Contains(r.Operators(tg), name) {
					covered[tg] = true
				}
			}
		}
		require.NotEmpty(t, targets, "operator %s judges by %q, which is no rule of the table", name, ref)
		if only != "" {
			targets = []string{only}
		}
		for _, tg := range targets {
			assert.True(t, covered[tg], "operator %s produced no row for %s at %s", name, ref, tg)
		}
		assert.NotEmpty(t, steps.OperatorClass(name), "operator %s has a class", name)
	}
}

// TestOperatorsAreDocumented: docs/operators.md names every operator.
func TestOperatorsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/operators.md")
	require.NoError(t, err)
	for _, name := range steps.OperatorNames() {
		assert.Contains(t, string(doc), "`"+name+"`", "docs/operators.md does not name the operator %s", name)
	}
}
