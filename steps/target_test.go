package steps_test

import (
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTemplateChoice(t *testing.T) {
	demo := steps.DemoTarget("", nil, false)
	for _, tc := range []struct {
		name   string
		choice steps.TemplateChoice
		want   firmakit.Template
		data   map[string]string
		err    string
	}{
		{"nothing chosen: the demo template", steps.TemplateChoice{}, demo.Template, demo.Data, ""},
		{"a named template takes its data keys from the values", steps.TemplateChoice{Name: "t", Title: "T", Signers: "a,b", Data: []string{"k=v=w"}},
			firmakit.Template{Name: "t", Title: "T", Signers: []string{"a", "b"}, Data: []string{"k"}}, map[string]string{"k": "v=w"}, ""},
		{"a named template needs its signers", steps.TemplateChoice{Name: "t"}, firmakit.Template{}, nil, "--template-signers is required with --template"},
		{"a Word template's data keys need values", steps.TemplateChoice{FromDocx: &firmakit.Template{Name: "w", Signers: []string{"s"}, Data: []string{"x"}}},
			firmakit.Template{}, nil, `the template's data key "x" has no value: add --template-data x=…`},
		{"a Word template renamed, its values given", steps.TemplateChoice{FromDocx: &firmakit.Template{Name: "w", Signers: []string{"s"}, Data: []string{"x"}}, Name: "n", Data: []string{"x=1"}},
			firmakit.Template{Name: "n", Signers: []string{"s"}, Data: []string{"x"}}, map[string]string{"x": "1"}, ""},
		{"a value that is no key=value", steps.TemplateChoice{Name: "t", Signers: "a", Data: []string{"=v"}}, firmakit.Template{}, nil, `--template-data "=v": want key=value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := &steps.Target{}
			err := tc.choice.Apply(target)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, target.Template)
			assert.Equal(t, tc.data, target.Data)
		})
	}
}
