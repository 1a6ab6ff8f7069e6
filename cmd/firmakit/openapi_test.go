package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestOpenAPICommand(t *testing.T) {
	code, out, errOut := run(t, nil, "openapi")
	require.Equal(t, ExitOK, code, errOut)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(out), &doc), "YAML by default")
	assert.Equal(t, "3.1.1", doc["openapi"])
	assert.Equal(t, "http://127.0.0.1:8080", doc["servers"].([]any)[0].(map[string]any)["url"])

	// --out FILE.json writes JSON; the document is Build's.
	f := filepath.Join(t.TempDir(), "api.json")
	code, out, errOut = run(t, nil, "openapi", "--profile", "github", "--server", "https://sandbox.example.test", "--out", f)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, `profile "github"`)
	got, err := os.ReadFile(f)
	require.NoError(t, err)
	p, _ := firmakit.Preset("github")
	d, err := openapi.Build(openapi.Options{Profile: p, ServerURL: "https://sandbox.example.test"})
	require.NoError(t, err)
	want, err := d.JSON()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	code, out, _ = run(t, nil, "openapi", "--format", "json", "--merchant", "merchant_demo")
	require.Equal(t, ExitOK, code)
	var narrowed struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Items struct{ Enum []string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &narrowed), "JSON with --format json")
	assert.Equal(t, []string{"contrato_arriendo"}, narrowed.Components.Schemas["CreateSignatureRequest"].Properties["documents"].Items.Enum,
		"narrowed to the demo merchant's template")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, "firmakit openapi: --format xml: want yaml or json\n"},
		{[]string{"--merchant", "nobody"}, "firmakit openapi: openapi: no merchant \"nobody\" in the configuration\n"},
		{[]string{"--server", "ftp://x"}, "firmakit openapi: --server: not an absolute http(s) URL: \"ftp://x\"\n"},
		{[]string{"--merchants", "/nonexistent.yaml"}, "firmakit openapi: merchant config: open /nonexistent.yaml: no such file or directory\n"},
		{[]string{"extra"}, "firmakit openapi: unexpected argument \"extra\"\n"},
	} {
		code, _, errOut := run(t, nil, append([]string{"openapi"}, c.args...)...)
		assert.Equal(t, ExitUsage, code, c.args)
		assert.Equal(t, c.want, errOut, c.args)
	}
}

// serve publishes the document of the profile and merchants it serves,
// with its own address as the server, at /openapi.json and /openapi.yaml.
func TestServePublishesTheOpenAPIDocument(t *testing.T) {
	urls := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--profile", "stripe", "--log-level", "warn")
	base := urls["reference"]
	p, _ := firmakit.Preset("stripe")
	d, err := openapi.Build(openapi.Options{Profile: p, Config: reference.DemoConfig(), ServerURL: base})
	require.NoError(t, err)
	for _, c := range []struct {
		path, contentType string
		render            func() ([]byte, error)
	}{
		{"/openapi.json", "application/json", d.JSON},
		{"/openapi.yaml", "application/yaml", d.YAML},
	} {
		resp, err := http.Get(base + c.path)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, c.path)
		assert.Equal(t, c.contentType, resp.Header.Get("Content-Type"), c.path)
		want, err := c.render()
		require.NoError(t, err)
		assert.Equal(t, string(want), string(body), c.path)
	}
	assert.Contains(t, string(mustGet(t, base+"/openapi.yaml")), "name: Stripe-Signature")
}

func mustGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}
