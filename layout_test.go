package firmakit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deps lists the packages of this module that pkg depends on, itself
// excluded, as the go command sees them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	require.NoError(t, err, "go list -deps %s", pkg)
	const module = "github.com/firmakit/firmakit"
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		if (p == module || strings.HasPrefix(p, module+"/")) && p != strings.Replace(pkg, ".", module, 1) {
			ours = append(ours, strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
		}
	}
	return ours
}

// under returns the packages of list that are room or inside it: an
// import of reference/faults is an import of the reference's room.
func under(list []string, room string) []string {
	var out []string
	for _, p := range list {
		if p == room || strings.HasPrefix(p, room+"/") {
			out = append(out, p)
		}
	}
	return out
}

// The dependencies point one way: the root, what every part shares,
// imports nothing of ours; the receiver and the steps do not depend on the
// service they receive from or test (the demo merchant is the root's).
func TestDependenciesPointOneWay(t *testing.T) {
	assert.Empty(t, deps(t, "."), "the root package imports nothing of this module")
	for _, pkg := range []string{"./receiver", "./steps", "./steps/engine", "./steps/webhook", "./reports", "./features", "./explore"} {
		assert.Empty(t, under(deps(t, pkg), "reference"), "%s must not depend on the reference server, its faults or its liberties", pkg)
	}
	// The webhook endpoint suite is built on the steps' run, never the
	// other way round.
	assert.Empty(t, under(deps(t, "./steps"), "steps/webhook"), "steps must not depend on steps/webhook")
	// Both suites run on the engine, which knows neither (nor anything
	// else under steps/).
	assert.Empty(t, under(deps(t, "./steps/engine"), "steps"), "the run engine must not depend on either suite")
	assert.Equal(t, []string{"steps/engine"}, under(deps(t, "./steps/webhook"), "steps"),
		"the endpoint suite shares the engine with the service suite, nothing of the service suite itself")
	assert.Empty(t, under(deps(t, "./reference"), "receiver"), "the reference must not depend on the receiver")
	// The independent service measures the suite's precision only if it
	// shares no code with what it is measured against.
	assert.Empty(t, deps(t, "./internal/stdservice"), "internal/stdservice imports only the standard library")
}

// The report groups and shows failures by the facts their steps wrote,
// never by reading a message back: package reports uses no regular
// expression (its tests may, over whole outputs).
func TestReportsReadNoMessageBack(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./reports").Output()
	require.NoError(t, err, "go list ./reports")
	assert.NotContains(t, strings.Fields(string(out)), "regexp")
}

// The README's layout table names every package of the module (and the
// example module), and nothing that is not one.
func TestREADMELayoutListsEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
	require.NoError(t, err, "go list ./...")
	root, err := os.Getwd()
	require.NoError(t, err)
	want := map[string]bool{"examples/godog-suite/": true, "examples/openapi-client/": true, "profiles/": true}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		require.NoError(t, err)
		if rel == "." {
			continue // the root's row names its package
		}
		want[filepath.ToSlash(rel)+"/"] = true
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	require.True(t, ok, "README.md has a Layout section")
	layout, _, _ = strings.Cut(layout, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+/)` \\|").FindAllStringSubmatch(layout, -1) {
		listed[m[1]] = true
	}
	for dir := range want {
		assert.True(t, listed[dir], "README.md's layout table does not list %s", dir)
	}
	for dir := range listed {
		assert.True(t, want[dir], "README.md's layout table lists %s, which is not a package of the module", dir)
	}
}

// TestEveryTestWithoutRaceRuns: a test built only without the race
// detector (a file under //go:build !race) is not run by make test's race
// stage, so the power stage must select it (.ci/test's power list), or it
// would never run in make test.
func TestEveryTestWithoutRaceRuns(t *testing.T) {
	script, err := os.ReadFile(".ci/test")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^power='([^']+)'$`).FindSubmatch(script)
	require.NotNil(t, m, ".ci/test's power list")
	power := regexp.MustCompile(string(m[1]))
	stage := regexp.MustCompile(`(?m)-run "\$power" ([^\n|]+?)( \|\||\n)`)
	var pkgs []string
	for _, s := range stage.FindAllSubmatch(script, -1) {
		pkgs = append(pkgs, strings.Fields(string(s[1]))...)
	}
	require.NotEmpty(t, pkgs, "the packages of the power stage")
	test := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	seen := 0
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil || !regexp.MustCompile(`(?m)^//go:build !race$`).Match(src) {
			return err
		}
		for _, name := range test.FindAllSubmatch(src, -1) {
			seen++
			assert.True(t, power.Match(name[1]), "%s in %s runs only without -race, and .ci/test's power stage does not select it", name[1], path)
			assert.Contains(t, pkgs, "./"+filepath.Dir(path), "%s: the power stage does not test its package", path)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, seen, "tests that run only without -race")
}
