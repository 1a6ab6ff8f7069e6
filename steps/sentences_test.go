package steps

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// methodFiles maps each method of the steps package to the file that
// declares it, read from the source.
func methodFiles(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	m := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok {
						m[id.Name+"."+fd.Name.Name] = f
					}
				}
			}
		}
	}
	return m
}

// godog reports every step at the file of its own method, not at one
// binding helper: a QA team reading a cucumber report or 'godog
// --definitions' finds the code behind a step where it says. The
// locations are read from godog's own list of definitions.
func TestEveryStepIsReportedAtItsMethodsFile(t *testing.T) {
	list, err := Sentences()
	require.NoError(t, err)
	require.Len(t, list, 116, "the service set's sentences (package steps/webhook checks its own)")
	files := methodFiles(t)
	var reported []string
	var out bytes.Buffer
	godog.TestSuite{ScenarioInitializer: (&Steps{}).InitializeScenario,
		Options: &godog.Options{ShowStepDefinitions: true, NoColors: true, Format: "progress", Output: &out}}.Run()
	for _, line := range strings.Split(regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out.String(), ""), "\n") {
		if _, after, ok := strings.Cut(line, "# "); ok {
			loc, _, _ := strings.Cut(after, " ")
			reported = append(reported, loc)
		}
	}
	require.Len(t, reported, 2*len(list), "godog lists both sentences of each step")
	for i, s := range list {
		file, ok := files["Steps."+s.Method]
		require.True(t, ok, "no method %s in the source", s.Method)
		for _, loc := range reported[2*i : 2*i+2] {
			f, _, _ := strings.Cut(loc, ":")
			assert.Equal(t, file, f, "godog reports %s (%q) at %s", s.Method, s.English, loc)
		}
		assert.Equal(t, reported[2*i], s.Location)
	}
}

// Each sentence has its Spanish twin and says what its parameters take.
func TestSentencesListBothLanguagesAndTheirParameters(t *testing.T) {
	list, err := Sentences()
	require.NoError(t, err)
	var found bool
	for _, s := range list {
		assert.NotEmpty(t, s.English)
		assert.NotEmpty(t, s.Spanish)
		assert.Equal(t, strings.Count(s.English, "("), strings.Count(s.Spanish, "("), s.Method)
		if s.Method == "aSignedRequestToTheEndpoint" {
			found = true
			assert.Equal(t, `una solicitud firmada al endpoint "(check|signature)"`, s.Spanish)
			assert.Equal(t, []string{"check | signature"}, s.Params)
			assert.Equal(t, "service", s.Set)
		}
	}
	assert.True(t, found)
}
