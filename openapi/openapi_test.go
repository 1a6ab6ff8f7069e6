package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/reference"
	pbyaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// profiles are the profiles the document is checked under: every preset,
// and a profile file with other header names, signing and fields.
func profiles(t *testing.T) map[string]*firmakit.Profile {
	t.Helper()
	out := map[string]*firmakit.Profile{}
	for _, name := range firmakit.Presets() {
		p, err := firmakit.Preset(name)
		require.NoError(t, err)
		out[name] = p
	}
	p, err := firmakit.LoadProfile("testdata/other-headers.yaml")
	require.NoError(t, err)
	out[p.Name] = p
	return out
}

func build(t *testing.T, o openapi.Options) *openapi.Document {
	t.Helper()
	d, err := openapi.Build(o)
	require.NoError(t, err)
	return d
}

// The document is OpenAPI 3.1 under every profile, as libopenapi's
// validator of the OpenAPI specification's own schema judges it; a
// document without its info fails the same check.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	for name, p := range profiles(t) {
		t.Run(name, func(t *testing.T) {
			j, err := build(t, openapi.Options{Profile: p}).JSON()
			require.NoError(t, err)
			assertValidDocument(t, j)
			var broken map[string]any
			require.NoError(t, json.Unmarshal(j, &broken))
			delete(broken, "info")
			b, _ := json.Marshal(broken)
			doc, err := libopenapi.NewDocument(b)
			require.NoError(t, err)
			v, errs := validator.NewValidator(doc)
			require.Empty(t, errs)
			ok, _ := v.ValidateDocument()
			assert.False(t, ok, "a document without info is refused")
		})
	}
}

func assertValidDocument(t *testing.T, j []byte) {
	t.Helper()
	doc, err := libopenapi.NewDocument(j)
	require.NoError(t, err)
	require.Equal(t, "3.1.1", doc.GetVersion())
	v, errs := validator.NewValidator(doc)
	require.Empty(t, errs)
	ok, verrs := v.ValidateDocument()
	for _, e := range verrs {
		t.Errorf("%s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			t.Errorf("  %s at %s (schema %s)", f.Reason, f.FieldPath, f.KeywordLocation)
		}
	}
	assert.True(t, ok)
}

// Under each preset and a profile file the document says that profile's
// header names, signing, notification fields and schedule: one golden
// file per profile (go test ./openapi -update rewrites them).
func TestGoldenPerProfile(t *testing.T) {
	for name, p := range profiles(t) {
		t.Run(name, func(t *testing.T) {
			y, err := build(t, openapi.Options{Profile: p}).YAML()
			require.NoError(t, err)
			path := filepath.Join("testdata", "golden", name+".yaml")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, y, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "go test ./openapi -update writes it")
			assert.Equal(t, string(want), string(y), "the document under %s changed: if on purpose, go test ./openapi -update", name)
		})
	}
	// And each golden file says its profile's own names.
	for _, c := range []struct{ profile, want string }{
		{"bundled", "name: X-Service-Signature"},
		{"stripe", "name: Stripe-Signature"},
		{"standard-webhooks", "name: webhook-id"},
		{"github", "name: X-Hub-Signature-256"},
		{"shopify", "name: X-Shopify-Hmac-Sha256"},
		{"other-headers", "name: X-Api-Key"},
		{"other-headers", "discriminator:\n        propertyName: state"},
		{"other-headers", "after 2 s, 30 s"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", c.profile+".yaml"))
		require.NoError(t, err)
		assert.Contains(t, string(b), c.want, c.profile)
	}
}

// The YAML and the JSON are the same document, keys in the same order.
func TestYAMLAndJSONAreOneDocument(t *testing.T) {
	d := build(t, openapi.Options{})
	j, err := d.JSON()
	require.NoError(t, err)
	y, err := d.YAML()
	require.NoError(t, err)
	var fromJSON, fromYAML any
	require.NoError(t, json.Unmarshal(j, &fromJSON))
	require.NoError(t, yaml.Unmarshal(y, &fromYAML))
	// YAML reads integers as int, JSON as float64: compare as JSON.
	a, _ := json.Marshal(fromJSON)
	b, _ := json.Marshal(fromYAML)
	assert.JSONEq(t, string(a), string(b))
	assert.Less(t, bytes.Index(y, []byte("\ninfo:")), bytes.Index(y, []byte("\npaths:")), "the order of the JSON")
	_, err = d.Render("xml")
	assert.EqualError(t, err, `openapi: unknown format "xml" (want json or yaml)`)
}

// model parses a document with libopenapi.
func model(t *testing.T, d *openapi.Document) *v3.Document {
	t.Helper()
	_, m := newValidator(t, d)
	return m
}

// Every operation and answer names the requirement tags of scenarios
// that exist, read from the features' traceability; each tag is a
// scenario of the service's or of the webhook endpoint's features.
func TestRequirementTagsNameScenarios(t *testing.T) {
	known := map[string]bool{}
	for _, set := range features.Sets() {
		scs, err := set.Scenarios(features.FS, "en")
		require.NoError(t, err)
		for _, s := range scs {
			known[s.Requirement] = true
		}
	}
	m := model(t, build(t, openapi.Options{}))
	check := func(where string, ext *orderedmap.Map[string, *pbyaml.Node]) []string {
		node, ok := ext.Get("x-firmakit-requirement")
		if !assert.True(t, ok, "%s has no x-firmakit-requirement", where) {
			return nil
		}
		var tags []string
		require.NoError(t, node.Decode(&tags))
		assert.NotEmpty(t, tags, where)
		for _, tag := range tags {
			assert.True(t, known[tag], "%s names %s, which no scenario carries", where, tag)
		}
		return tags
	}
	ops := map[string]*v3.Operation{}
	for path, item := range m.Paths.PathItems.FromOldest() {
		ops["POST "+path] = item.Post
	}
	ops["webhook "+openapi.WebhookName] = m.Webhooks.GetOrZero(openapi.WebhookName).Post
	for where, op := range ops {
		check(where, op.Extensions)
		for code, resp := range op.Responses.Codes.FromOldest() {
			check(where+" "+code, resp.Extensions)
		}
		if op.Responses.Default != nil {
			check(where+" default", op.Responses.Default.Extensions)
		}
	}
	assert.Contains(t, check("401", m.Paths.PathItems.GetOrZero("/{api_version}/check/{merchant_id}").Post.Responses.Codes.GetOrZero("401").Extensions), "AUTH-WRONG-SECRET")
	assert.Equal(t, []string{"AUTH-BODY-LIMIT", "AUTH-BODY-FRAMING"}, check("413", m.Paths.PathItems.GetOrZero("/v1/signature/{merchant_id}").Post.Responses.Codes.GetOrZero("413").Extensions))
	webhook := check("webhook", m.Webhooks.GetOrZero(openapi.WebhookName).Post.Extensions)
	assert.Contains(t, webhook, "DEMO-NOTIFICATION", "the service's scenarios")
	assert.Contains(t, webhook, "WH-STATE", "the endpoint's scenarios")
	for _, st := range firmakit.States {
		name := "Notification" + string(st[0]) + strings.ToLower(string(st[1:]))
		check(name, m.Components.Schemas.GetOrZero(name).Schema().Extensions)
	}
}

// Every example is valid under its own schema.
func TestExamplesConformToTheirSchemas(t *testing.T) {
	for name, p := range profiles(t) {
		t.Run(name, func(t *testing.T) {
			m := model(t, build(t, openapi.Options{Profile: p}))
			sv := schema_validation.NewSchemaValidator()
			n := 0
			checkContent := func(where string, content *orderedmap.Map[string, *v3.MediaType]) {
				for _, mt := range content.FromOldest() {
					for exName, ex := range mt.Examples.FromOldest() {
						n++
						var v any
						require.NoError(t, ex.Value.Decode(&v))
						b, err := json.Marshal(v)
						require.NoError(t, err)
						if ok, errs := sv.ValidateSchemaBytes(mt.Schema.Schema(), b); !ok {
							t.Errorf("%s example %q: %s", where, exName, describe(errs))
						}
					}
				}
			}
			ops := map[string]*v3.Operation{"webhook": m.Webhooks.GetOrZero(openapi.WebhookName).Post}
			for path, item := range m.Paths.PathItems.FromOldest() {
				ops[path] = item.Post
			}
			for where, op := range ops {
				checkContent(where+" request", op.RequestBody.Content)
				for code, resp := range op.Responses.Codes.FromOldest() {
					if resp.Content != nil {
						checkContent(where+" "+code, resp.Content)
					}
				}
				for _, prm := range op.Parameters {
					if prm.Example != nil {
						n++
						var v any
						require.NoError(t, prm.Example.Decode(&v))
						b, _ := json.Marshal(v)
						if ok, errs := sv.ValidateSchemaBytes(prm.Schema.Schema(), b); !ok {
							t.Errorf("%s parameter %s: %s", where, prm.Name, describe(errs))
						}
					}
				}
			}
			assert.Greater(t, n, 20)
		})
	}
}

// The examples are what the reference answers: the check example's
// signed request gets the 200 example, the create example the 201
// example (its id and time aside); the vectors in the descriptions are
// defaults.md's, and the notification example's header signs its bytes.
func TestExamplesAreTheReferencesAnswers(t *testing.T) {
	ref := &reference.Server{Addr: "127.0.0.1:0"}
	require.NoError(t, ref.Open())
	defer ref.Close()
	d := build(t, openapi.Options{ServerURL: ref.URL()})
	example := func(op *openapi.Operation, code, name string) []byte {
		content := op.RequestBody.Content
		if code != "" {
			content = op.Responses[code].Content
		}
		b, err := json.Marshal(content["application/json"].Examples[name].Value)
		require.NoError(t, err)
		return b
	}
	demo := firmakit.Demo()
	send := func(path string, body []byte) (int, []byte) {
		req, err := http.NewRequest(http.MethodPost, ref.URL()+path, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		firmakit.BundledProfile().SignRequest(req, demo.Credential.KeyID, demo.Credential.Secret, body, time.Now())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, b
	}
	check := d.Paths["/{api_version}/check/{merchant_id}"].Post
	assert.Equal(t, "{}", string(example(check, "", "vector")), "the test vector's body")
	status, body := send("/v1/check/merchant_demo", example(check, "", "vector"))
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, string(example(check, "200", "authenticated")), string(body))

	create := d.Paths["/v1/signature/{merchant_id}"].Post
	sent := example(create, "", "contract")
	want, err := json.Marshal(firmakit.NewCreateRequest(demo.Template, demo.Data, "Contrato de arriendo 42"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(sent), "the bytes firmakit's demo clients send")
	status, body = send("/v1/signature/merchant_demo", sent)
	require.Equal(t, http.StatusCreated, status, string(body))
	var gotEnv, wantEnv map[string]any
	require.NoError(t, json.Unmarshal(body, &gotEnv))
	require.NoError(t, json.Unmarshal(example(create, "201", "contract"), &wantEnv))
	for _, env := range []map[string]any{gotEnv, wantEnv} {
		data := env["data"].(map[string]any)
		data["signature_id"], data["created_at"] = "ID", "TIME"
	}
	assert.Equal(t, wantEnv, gotEnv)

	scheme := d.Components.SecuritySchemes["RequestSignature"]
	assert.Contains(t, scheme.Description, "signs the string `1763805600\\nPOST\\n/v1/check/merchant_demo\\n{}`, giving `X-Service-Signature` `93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b`")
	webhook := d.Webhooks[openapi.WebhookName].Post
	assert.Contains(t, webhook.Description, "`X-Service-Signature: t=1763805600,v1=6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16`")
	signed := webhook.RequestBody.Content["application/json"].Examples["SIGNED"].Value.(json.RawMessage)
	header := webhook.Parameters[0].Example.(string)
	require.NoError(t, firmakit.BundledProfile().VerifyWebhook(header, signed, demo.WebhookSecrets, time.Unix(1763805600, 0)),
		"the example's signature header signs the example's bytes")
	assert.Contains(t, string(signed), `"document_url":"`+ref.URL()+`/demo/documents/`)
}

// Narrowed to one merchant, the document names its id, templates, signer
// keys and data keys; a merchant the configuration lacks is an error.
func TestNarrowedToAMerchant(t *testing.T) {
	m := model(t, build(t, openapi.Options{Merchant: "merchant_demo"}))
	create := m.Components.Schemas.GetOrZero("CreateSignatureRequest").Schema()
	docs := create.Properties.GetOrZero("documents").Schema().Items.A.Schema()
	assert.Equal(t, []any{"contrato_arriendo"}, values(t, docs.Enum))
	data := create.Properties.GetOrZero("data").Schema()
	assert.Equal(t, []string{"nombre_arrendatario", "monto_mensual"}, data.Required)
	assert.Contains(t, create.Required, "data")
	signer := m.Components.Schemas.GetOrZero("SignerInput").Schema().Properties.GetOrZero("key").Schema()
	assert.Equal(t, []any{"signer_1", "signer_2"}, values(t, signer.Enum))
	param := m.Paths.PathItems.GetOrZero("/v1/signature/{merchant_id}").Post.Parameters[0].Schema.Schema()
	assert.Equal(t, []any{"merchant_demo"}, values(t, param.Enum))

	_, err := openapi.Build(openapi.Options{Merchant: "merchant_nobody"})
	assert.EqualError(t, err, `openapi: no merchant "merchant_nobody" in the configuration`)
	// A configuration without templates still has its document, without
	// a create example; narrowed to such a merchant, it has none.
	cfg, err := reference.ParseConfig([]byte("merchants:\n  - id: m1\n    sender: {name: A, email: a@example.com}\n"), "")
	require.NoError(t, err)
	d := build(t, openapi.Options{Config: cfg})
	assert.Empty(t, d.Paths["/v1/signature/{merchant_id}"].Post.RequestBody.Content["application/json"].Examples)
	assert.Equal(t, "m1", d.Paths["/v1/signature/{merchant_id}"].Post.Parameters[0].Example)
	j, err := d.JSON()
	require.NoError(t, err)
	assertValidDocument(t, j)
	_, err = openapi.Build(openapi.Options{Config: cfg, Merchant: "m1"})
	assert.EqualError(t, err, "openapi: merchant m1 has no template, so it cannot create a contract")
}

func values(t *testing.T, nodes []*pbyaml.Node) []any {
	t.Helper()
	var out []any
	for _, n := range nodes {
		var v any
		require.NoError(t, n.Decode(&v))
		out = append(out, v)
	}
	return out
}
