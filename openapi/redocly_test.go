package openapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/firmakit/firmakit/openapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redoclyHint says how to install what TestRedoclyFindsNothing runs.
const redoclyHint = "run 'make deps' (npm ci in internal/interop/apitools)"

// redoclyReport is what `redocly lint --format=json` prints.
type redoclyReport struct {
	Totals struct {
		Errors, Warnings, Ignored int
	} `json:"totals"`
	Problems []struct {
		RuleID   string `json:"ruleId"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Location []struct {
			Pointer string `json:"pointer"`
		} `json:"location"`
	} `json:"problems"`
}

// redocly lints file with Redocly's recommended rules, offline.
func redocly(t *testing.T, file string) redoclyReport {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: %s", redoclyHint)
	}
	cli := filepath.Join("..", "internal", "interop", "apitools", "node_modules", "@redocly", "cli", "bin", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("Redocly CLI not installed: %s", redoclyHint)
	}
	cmd := exec.Command("node", cli, "lint", "--extends", "recommended", "--format", "json", file)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run() // exits 1 when it finds an error; the report says which
	var r redoclyReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), "redocly lint: %v\n%s\n%s", err, stdout.String(), stderr.String())
	return r
}

// TestRedoclyFindsNothing: Redocly's linter, under its recommended rules,
// finds no error and no warning in the document of any profile. The
// webhook declares the notification signature as its security, a schema
// that never carries a key defines it where it requires it, and every
// error answer's schema builds on Error.
func TestRedoclyFindsNothing(t *testing.T) {
	t.Parallel()
	names := []string{}
	ps := profiles(t)
	for name := range ps {
		names = append(names, name)
	}
	sort.Strings(names)
	dir := t.TempDir()
	for _, name := range names {
		y, err := build(t, openapi.Options{Profile: ps[name]}).YAML()
		require.NoError(t, err)
		file := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(file, y, 0o644))
		r := redocly(t, file)
		for _, p := range r.Problems {
			where := ""
			if len(p.Location) > 0 {
				where = p.Location[0].Pointer
			}
			t.Errorf("%s: %s %s at %s: %s", name, p.Severity, p.RuleID, where, p.Message)
		}
		assert.Zero(t, r.Totals.Errors+r.Totals.Warnings+r.Totals.Ignored, name)
	}
	// The linter is live: the document as it was before these fixes, a
	// webhook with no security, is an error to it.
	y, err := build(t, openapi.Options{}).YAML()
	require.NoError(t, err)
	broken := bytes.Replace(y, []byte("      security:\n        - NotificationSignature: []\n"), nil, 1)
	require.NotEqual(t, y, broken, "the webhook's security is where the test removes it")
	file := filepath.Join(dir, "broken.yaml")
	require.NoError(t, os.WriteFile(file, broken, 0o644))
	r := redocly(t, file)
	assert.Equal(t, 1, r.Totals.Errors, "the webhook without security: %+v", r.Problems)
}
