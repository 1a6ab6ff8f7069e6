package firmakit_test

import (
	"os/exec"
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

// The dependencies point one way: the root, what every part shares,
// imports nothing of ours; the receiver and the steps do not depend on the
// service they receive from or test (the demo merchant is the root's).
func TestDependenciesPointOneWay(t *testing.T) {
	assert.Empty(t, deps(t, "."), "the root package imports nothing of this module")
	for _, pkg := range []string{"./receiver", "./steps", "./reports", "./features"} {
		assert.NotContains(t, deps(t, pkg), "reference", "%s must not depend on the reference server", pkg)
	}
	assert.NotContains(t, deps(t, "./reference"), "receiver", "the reference must not depend on the receiver")
}
