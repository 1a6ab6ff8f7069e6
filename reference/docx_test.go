package reference_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/docxtest"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func makeDocx(_ testing.TB, parts map[string]string) []byte { return docxtest.Build(parts) }

const (
	wordNS        = docxtest.WordNS
	leaseDocument = docxtest.LeaseDocument
	coreProps     = docxtest.CoreProps
)

func TestInspectDocx(t *testing.T) {
	doc := makeDocx(t, map[string]string{
		"[Content_Types].xml": `<Types/>`,
		"word/document.xml":   leaseDocument,
		"word/footer1.xml":    `<w:ftr ` + wordNS + `><w:p><w:r><w:t>Folio {{folio}}</w:t></w:r></w:p></w:ftr>`,
		"docProps/core.xml":   coreProps,
	})
	tmpl, err := reference.InspectDocx(doc, "Contrato Arriendo 2026.docx")
	require.NoError(t, err)
	assert.Equal(t, firmakit.Template{
		Name:    "contrato_arriendo_2026",
		Title:   "Contrato de arriendo",
		Signers: []string{"signer_1", "signer_2"},
		Data:    []string{"nombre_arrendatario", "monto_mensual", "folio"},
	}, tmpl)
}

func TestInspectDocxTitleFallsBackToFileName(t *testing.T) {
	doc := makeDocx(t, map[string]string{"word/document.xml": leaseDocument})
	tmpl, err := reference.InspectDocx(doc, "mandato.docx")
	require.NoError(t, err)
	assert.Equal(t, "mandato", tmpl.Title)
	assert.Equal(t, "mandato", tmpl.Name)
}

func TestInspectDocxErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not a zip", []byte("hello, I am a text file"), "not a Word .docx file (it is not a zip archive)"},
		{"empty file", nil, "not a Word .docx file (it is not a zip archive)"},
		{"zip without document", makeDocx(t, map[string]string{"a.txt": "x"}), "word/document.xml is missing"},
		{"broken XML", makeDocx(t, map[string]string{"word/document.xml": `<w:document ` + wordNS + `><w:body><w:p>`}), "word/document.xml: invalid XML"},
		{"no signature spot", makeDocx(t, map[string]string{"word/document.xml": `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>{{a}}</w:t></w:r></w:p></w:body></w:document>`}), "no [[signer_N]] signature spot"},
		{"broken core properties", makeDocx(t, map[string]string{"word/document.xml": leaseDocument, "docProps/core.xml": "<a><b></a>"}), "docProps/core.xml: invalid XML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := reference.InspectDocx(tc.data, "x.docx")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestConfigWithDocxTemplate(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lease.docx"), makeDocx(t, map[string]string{"word/document.xml": leaseDocument, "docProps/core.xml": coreProps}), 0o600))
	cfg, err := reference.ParseConfig([]byte(`
merchants:
  - id: m1
    sender: {name: M, email: m@example.com}
    credentials: [{key: k1, secret: s1}]
    signature_webhook: http://127.0.0.1:9/hook
    templates:
      - {docx: lease.docx, name: arriendo}
`), dir)
	require.NoError(t, err)
	tmpl := cfg.Merchant("m1").Template("arriendo")
	require.NotNil(t, tmpl)
	assert.Equal(t, []string{"signer_1", "signer_2"}, tmpl.Signers)
	assert.Equal(t, "Contrato de arriendo", tmpl.Title)
	assert.True(t, cfg.AcceptsVersion("v1"))
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"merchants: [{id: 'a b'}]", "id must be"},
		{"merchants: [{id: a, sender: {email: x}}]", "sender email"},
		{"merchants: [{id: a, sender: {email: a@b.c}, signature_webhook: 'ftp://x'}]", "not an http(s) URL"},
		{"merchants: [{id: a, sender: {email: a@b.c}, credentials: [{key: k}]}]", "needs a key and a secret"},
		{"merchants: [{id: a, sender: {email: a@b.c}, templates: [{docx: nope.docx}]}]", "no such file"},
		{"merchants: [{id: a, sender: {email: a@b.c}, templates: [{name: t}]}]", "at least one signer"},
		{"merchant: []", "field merchant not found"},
		{"merchants: [{id: a, sender: {email: a@b.c}, templates: [{name: t, signers: [s], data: [k], example: {kk: v}}]}]",
			"template t: example key kk is not one of its data keys"},
	} {
		_, err := reference.ParseConfig([]byte(tc.yaml), t.TempDir())
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want)
	}
}
