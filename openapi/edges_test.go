package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocumentAgreesWithTheServerOnEdges: for values on the edges of what
// the create body's patterns and bounds say (every white-space rune, the
// format characters \S and \s disagree on, lengths at the bound in 1- and
// 4-byte text) and for path segments, the document accepts a request
// exactly when the reference server does. The validator is the one the
// traffic test uses (libopenapi-validator, RE2 patterns); the document is
// generated, and the generator and the server share one definition of
// blank (firmakit.IsBlank), so a drift of either fails here.
func TestDocumentAgreesWithTheServerOnEdges(t *testing.T) {
	ref := &reference.Server{Addr: "127.0.0.1:0"}
	require.NoError(t, ref.Open())
	defer ref.Close()
	doc := build(t, openapi.Options{ServerURL: ref.URL()})
	v, _ := newValidator(t, doc)
	demo := firmakit.Demo()

	// judge sends body to path, and tells whether the document takes the
	// request and whether the server created a contract.
	judge := func(path string, body []byte) (docOK bool, status int, answer string) {
		req, err := http.NewRequest(http.MethodPost, ref.URL()+path, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		firmakit.BundledProfile().SignRequest(req, demo.Credential.KeyID, demo.Credential.Secret, body, time.Now())
		check := req.Clone(req.Context())
		check.Body = io.NopCloser(bytes.NewReader(body))
		docOK, _ = v.ValidateHttpRequestSync(check)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return docOK, resp.StatusCode, string(b)
	}
	create := func(title, name string) []byte {
		r := firmakit.NewCreateRequest(demo.Template, demo.Data, title)
		r.Signers[0].Name = name
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return b
	}

	var edges []string
	for r := rune(0); r <= 0x3000; r++ {
		if unicode.IsSpace(r) {
			edges = append(edges, string(r))
		}
	}
	// Format and other characters some dialects call space: a BOM, a zero
	// width space, the Mongolian vowel separator, a word joiner, a soft
	// hyphen, and plain text with white space around it.
	edges = append(edges, "\ufeff", "\u200b", "\u180e", "\u2060", "\u00ad", "a", " a ", "\u0085x\u0085", "\u3000\ufeff\u3000")
	checked := 0
	for _, e := range edges {
		for _, field := range []string{"title", "name"} {
			title, name := "Contrato "+e, e
			if field == "title" {
				title, name = e, "Ana Pérez"
			}
			docOK, status, answer := judge("/v1/signature/merchant_demo", create(title, name))
			assert.Equal(t, status == http.StatusCreated, docOK, "%s %+q: the document takes it: %v; the server answered %d %s", field, e, docOK, status, answer)
			checked++
		}
	}
	for _, n := range []int{reference.MaxTitleLength, reference.MaxTitleLength + 1} {
		for _, unit := range []string{"a", "é", "😀"} {
			title := strings.Repeat(unit, n)
			docOK, status, answer := judge("/v1/signature/merchant_demo", create(title, "Ana Pérez"))
			assert.Equal(t, status == http.StatusCreated, docOK, "a title of %d %q: the document takes it: %v; the server answered %d %.200s", n, unit, docOK, status, answer)
			checked++
		}
	}
	for _, merchant := range []string{"merchant_demo", "merchant%2Fdemo", "a%2Fb"} {
		for _, path := range []string{"/v1/signature/" + merchant, "/v1/check/" + merchant} {
			body := create("Contrato 1", "Ana Pérez")
			if strings.Contains(path, "/check/") {
				body = []byte("{}")
			}
			docOK, status, answer := judge(path, body)
			assert.Equal(t, status >= 200 && status <= 299, docOK, "POST %s: the document takes it: %v; the server answered %d %s", path, docOK, status, answer)
			checked++
		}
	}
	t.Logf("%d requests on the edges, each judged alike by the document and the server", checked)
	assert.Greater(t, checked, 2*len(edges), fmt.Sprint("every edge in both fields"))
}
