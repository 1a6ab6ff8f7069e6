package steps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/features"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryCitedSentenceExists reads every breach and warning the steps
// can report (the calls of breaks and warn) and checks that the item of
// the documents each cites exists, so that a failure's citation never
// names a sentence the documents do not have. Refs made at run time
// (fieldRef, the state's row of §6.2) are checked for every value they
// take.
func TestEveryCitedSentenceExists(t *testing.T) {
	fset := token.NewFileSet()
	// Package steps/webhook's steps cite through Breaks and Warn: their
	// calls are read too.
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	webhook, err := filepath.Glob("webhook/*.go")
	require.NoError(t, err)
	files = append(files, webhook...)
	consts := map[string]string{}
	called := func(c *ast.CallExpr) string {
		switch f := c.Fun.(type) {
		case *ast.Ident:
			return f.Name
		case *ast.SelectorExpr:
			if pkg, ok := f.X.(*ast.Ident); ok && pkg.Name == "steps" {
				return strings.ToLower(f.Sel.Name)
			}
		}
		return ""
	}
	var calls []*ast.CallExpr
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[filepath.Dir(f)+"."+name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			case *ast.CallExpr:
				if name := called(n); name == "breaks" || name == "warn" {
					calls = append(calls, n)
				}
			}
			return true
		})
	}
	require.Greater(t, len(calls), 60, "the steps' breaches and warnings")
	checked := 0
	for _, c := range calls {
		arg := c.Args[0]
		if called(c) == "warn" {
			arg = c.Args[1]
		}
		var ref string
		switch a := arg.(type) {
		case *ast.BasicLit:
			ref, _ = strconv.Unquote(a.Value)
		case *ast.Ident:
			if a.Name == "ref" || a.Name == "basis" {
				continue // a variable: one of the constants, chosen at run time, or passed on (shared.go)
			}
			var ok bool
			ref, ok = consts[filepath.Dir(fset.Position(c.Pos()).Filename)+"."+a.Name]
			require.True(t, ok, "%s: %s is not a constant of the steps", fset.Position(c.Pos()), a.Name)
		default:
			continue // made at run time: checked below
		}
		_, ok := features.ItemText(ref)
		assert.True(t, ok, "%s cites %q, which no item of the documents has", fset.Position(c.Pos()), ref)
		checked++
	}
	assert.Greater(t, checked, 50)
	for _, name := range envelopeKeys {
		_, ok := features.ItemText(fieldRef(name))
		assert.True(t, ok, "fieldRef(%q)", name)
	}
	for _, st := range []string{"CREATED", "BOUNCED", "REJECTED", "CANCELED", "SIGNED"} {
		_, ok := features.ItemText("§6.2 " + demoPrefixOf(st))
		assert.True(t, ok, st)
	}
	for _, label := range authLabels {
		_, ok := features.ItemText(labelRef(label))
		assert.True(t, ok, label)
	}
}
