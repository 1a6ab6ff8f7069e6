package openapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/reference"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newmanRun is what internal/interop/apitools/postman.mjs prints: the
// collection's requests and newman's exchanges.
type newmanRun struct {
	Requests  []string `json:"requests"`
	Exchanges []struct {
		Name, Method, URL, Body, ResponseBody, Error string
		Headers, ResponseHeaders                     map[string]string
		Status                                       int
	} `json:"exchanges"`
}

// TestPostmanCollectionRunsInNewman: the document converted into a
// Postman collection by openapi-to-postmanv2 (the converter Postman's own
// import uses), with the pre-request script that signs, which
// docs/openapi.md gives, runs in newman against the reference: every
// request of the collection gets its success answer (so it was signed
// right), and every exchange is one the document allows.
func TestPostmanCollectionRunsInNewman(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: %s", redoclyHint)
	}
	tools := filepath.Join("..", "internal", "interop", "apitools")
	if _, err := os.Stat(filepath.Join(tools, "node_modules", "newman")); err != nil {
		t.Fatalf("newman not installed: %s", redoclyHint)
	}
	ref := &reference.Server{Addr: "127.0.0.1:0"}
	require.NoError(t, ref.Open())
	defer ref.Close()
	doc := build(t, openapi.Options{ServerURL: ref.URL()})
	j, err := doc.JSON()
	require.NoError(t, err)
	dir := t.TempDir()
	docFile, collFile := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "collection.json")
	require.NoError(t, os.WriteFile(docFile, j, 0o644))
	demo := firmakit.Demo()
	cmd := exec.Command("node", "postman.mjs", docFile, ref.URL(), demo.Credential.KeyID, demo.Credential.Secret, collFile)
	cmd.Dir = tools
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "node postman.mjs: %s", stderr.String())
	var run newmanRun
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &run), stdout.String())

	require.Len(t, run.Requests, 2, "one request per operation: %v", run.Requests)
	require.Len(t, run.Exchanges, len(run.Requests), "newman sent every request")
	v, model := newValidator(t, doc)
	jd := &judge{v: v, model: model, schemas: schema_validation.NewSchemaValidator()}
	success := map[string]int{"/v1/check/": http.StatusOK, "/v1/signature/": http.StatusCreated}
	for _, e := range run.Exchanges {
		require.Empty(t, e.Error, e.Name)
		want := 0
		for path, status := range success {
			if strings.Contains(e.URL, path) {
				want = status
			}
		}
		assert.Equal(t, want, e.Status, "%s %s: %s", e.Method, e.URL, e.ResponseBody)
		assert.Regexp(t, `^[0-9a-f]{64}$`, e.Headers["X-Service-Signature"], "signed by the collection's script")
		ex := &exchange{method: e.Method, url: e.URL, header: http.Header{}, body: []byte(e.Body), status: e.Status,
			respHeader: http.Header{}, respBody: []byte(e.ResponseBody)}
		for k, val := range e.Headers {
			ex.header.Set(k, val)
		}
		for k, val := range e.ResponseHeaders {
			ex.respHeader.Set(k, val)
		}
		for _, problem := range jd.exchange(ex) {
			t.Errorf("%s\n  %s", ex, problem)
		}
	}
	coll, err := os.ReadFile(collFile)
	require.NoError(t, err)
	assert.Contains(t, string(coll), "CryptoJS.HmacSHA256", "the collection carries the signing script")

	// The script docs/openapi.md gives is the one that ran, line by line.
	script, err := os.ReadFile(filepath.Join(tools, "postman.mjs"))
	require.NoError(t, err)
	docs, err := os.ReadFile(filepath.Join("..", "docs", "openapi.md"))
	require.NoError(t, err)
	lines := regexp.MustCompile(`(?m)^  '(.*)',$`).FindAllStringSubmatch(string(script), -1)
	require.Len(t, lines, 7, "the lines of signScript")
	for _, l := range lines {
		assert.Contains(t, string(docs), strings.ReplaceAll(l[1], `\\`, `\`), "docs/openapi.md gives the script that ran")
	}
}
