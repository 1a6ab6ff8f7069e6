package openapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookDriver calls docs/schemathesis/firmakit_hooks.py's before_call on
// cases read from stdin, as Schemathesis 4 calls it (a case with headers,
// body, method, formatted_path and query), and prints each case after it.
// Schemathesis itself is not on the registries this project reaches: the
// stub module gives the hook decorator only, so the hook's own code runs
// as written.
const hookDriver = `
import json, sys, types
stub = types.ModuleType("schemathesis")
stub.hook = lambda f: f
sys.modules["schemathesis"] = stub
import firmakit_hooks

class Case:
    pass

out = []
for c in json.load(sys.stdin):
    case = Case()
    case.headers, case.method, case.formatted_path, case.query = c["headers"], c["method"], c["path"], c.get("query")
    case.body = c["body"]
    firmakit_hooks.before_call(None, case, {})
    body = case.body
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    elif body is not None:
        body = json.dumps(body)
    out.append({"headers": case.headers, "body": body or ""})
json.dump(out, sys.stdout)
`

// TestSchemathesisHookSigns: the signing hook docs/openapi.md gives for
// Schemathesis signs a case with all three headers so that the reference
// accepts it (the create body with non-ASCII text, the check body, a
// query), and leaves a case without one of them as it is.
func TestSchemathesisHookSigns(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 not found: run 'make deps'")
	}
	ref := &reference.Server{Addr: "127.0.0.1:0"}
	require.NoError(t, ref.Open())
	defer ref.Close()

	demo := firmakit.Demo()
	create := firmakit.NewCreateRequest(demo.Template, demo.Data, "Contrato de arriendo ñandú 42")
	var createBody any
	b, err := json.Marshal(create)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &createBody))
	placeholders := map[string]string{"X-Service-Key": "x", "X-Service-Timestamp": "0", "X-Service-Signature": "0"}
	cases := []map[string]any{
		{"method": "POST", "path": "/v1/signature/merchant_demo", "headers": placeholders, "body": createBody},
		{"method": "POST", "path": "/v1/check/merchant_demo", "headers": placeholders, "body": map[string]any{}},
		{"method": "POST", "path": "/v1/check/merchant_demo", "headers": placeholders, "body": map[string]any{"a": 1}, "query": map[string]any{"page": "2"}},
		{"method": "POST", "path": "/v1/check/merchant_demo", "headers": map[string]string{"X-Service-Key": "x", "X-Service-Timestamp": "0"}, "body": map[string]any{}},
	}
	in, err := json.Marshal(cases)
	require.NoError(t, err)
	dir := t.TempDir()
	driver := filepath.Join(dir, "driver.py")
	require.NoError(t, os.WriteFile(driver, []byte(hookDriver), 0o644))
	cmd := exec.Command("python3", driver)
	cmd.Dir = filepath.Join("..", "docs", "schemathesis")
	cmd.Env = append(os.Environ(), "PYTHONPATH=.", "PYTHONDONTWRITEBYTECODE=1", "FIRMAKIT_KEY="+demo.Credential.KeyID, "FIRMAKIT_SECRET="+demo.Credential.Secret)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var signed []struct {
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	require.NoError(t, json.Unmarshal(out, &signed), string(out))
	require.Len(t, signed, len(cases))

	want := []int{http.StatusCreated, http.StatusOK, http.StatusOK, http.StatusBadRequest}
	for i, s := range signed {
		target := cases[i]["path"].(string)
		if q, ok := cases[i]["query"]; ok && q != nil {
			target += "?page=2"
		}
		req, err := http.NewRequest(http.MethodPost, ref.URL()+target, bytes.NewReader([]byte(s.Body)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range s.Headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, want[i], resp.StatusCode, "case %d %s: %s", i, target, answer)
	}
	assert.Equal(t, "0", signed[3].Headers["X-Service-Timestamp"], "a case without the signature header is left unsigned")
	assert.Contains(t, signed[0].Body, "ñandú", "the body is sent as UTF-8, signed as sent")
}
