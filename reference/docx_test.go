package reference_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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

// bomb is a small .docx whose header parts, each within the bound of one
// part, expand together far past the bound of the whole.
func bomb(t *testing.T, headers int, perHeader int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	add := func(name string, fill func(io.Writer)) {
		w, err := zw.Create(name)
		require.NoError(t, err)
		fill(w)
	}
	add("word/document.xml", func(w io.Writer) { io.WriteString(w, leaseDocument) })
	para := []byte(`<w:p><w:r><w:t>{{relleno}} [[signer_1]] ` + strings.Repeat("x", 64<<10) + `</w:t></w:r></w:p>`)
	for i := range headers {
		add(fmt.Sprintf("word/header%d.xml", i+1), func(w io.Writer) {
			io.WriteString(w, `<w:hdr `+wordNS+`>`)
			for n := 0; n < perHeader; n += len(para) {
				w.Write(para)
			}
			io.WriteString(w, `</w:hdr>`)
		})
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestInspectDocxRefusesZipBombs(t *testing.T) {
	// The bounds shrunk 16 times (1 MiB a part, 2 MiB in all), so that
	// the test expands little; the real ones are 16 and 32 MiB.
	reference.ShrinkDocxBounds(t.Cleanup, 1<<20, 2<<20)
	// Within the bounds, a document still reads: 1 MiB of headers, timed
	// to compare.
	start := time.Now()
	tmpl, err := reference.InspectDocx(bomb(t, 2, 512<<10), "large.docx")
	within := time.Since(start)
	require.NoError(t, err)
	assert.Equal(t, []string{"nombre_arrendatario", "monto_mensual", "relleno"}, tmpl.Data)

	// 40 headers of 768 KiB: each under the bound of a part, 30 MiB
	// together. Reading it all would take some 30 times as long as the
	// 1 MiB above; it stops at the 2 MiB bound.
	doc := bomb(t, 40, 768<<10)
	require.Less(t, len(doc), 256<<10, "the file itself is small")
	start = time.Now()
	_, err = reference.InspectDocx(doc, "bomb.docx")
	require.ErrorIs(t, err, reference.ErrDocxTooLarge)
	assert.Contains(t, err.Error(), "expand past 2 MiB together")
	assert.Less(t, time.Since(start), 10*within+2*time.Second, "refused after reading what the bound allows, not all (1 MiB took %s)", within)

	// One part past its own bound.
	_, err = reference.InspectDocx(bomb(t, 1, 3<<20), "bomb.docx")
	require.ErrorIs(t, err, reference.ErrDocxTooLarge)

	// Too many parts.
	parts := map[string]string{"word/document.xml": leaseDocument}
	for i := range 2001 {
		parts[fmt.Sprintf("customXml/item%d.xml", i)] = "<x/>"
	}
	_, err = reference.InspectDocx(makeDocx(t, parts), "many.docx")
	require.ErrorIs(t, err, reference.ErrDocxTooLarge)
	assert.Contains(t, err.Error(), "2002 parts, more than the 2000 allowed")
}

// TestInspectDocxBoundsItsMarkup: a part within every size bound whose
// markup would make the XML decoder hold far more than it read is
// refused before it is read (elements nested too deep, a tag too large,
// too much markup open at once, a DTD), and a document within those
// bounds, with a '>' in an attribute and markup in comments and CDATA,
// still reads.
func TestInspectDocxBoundsItsMarkup(t *testing.T) {
	spot := `<w:p><w:r><w:t>[[signer_1]]</w:t></w:r></w:p>`
	doc := func(inner string) []byte {
		return makeDocx(t, map[string]string{"word/document.xml": `<w:document ` + wordNS + `><w:body>` + spot + inner + `</w:body></w:document>`})
	}
	nested := func(depth int, open string) string {
		return strings.Repeat(open, depth) + strings.Repeat("</w:x>", depth)
	}
	attrs := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, ` a%d="v"`, i)
		}
		return b.String()
	}
	for _, tc := range []struct{ name, inner, want string }{
		{"nested 5,000 deep", nested(5000, "<w:x>"), "elements nested more than 1000 deep"},
		{"a tag of 1 MiB of attributes", `<w:x` + attrs(100000) + `/>`, "a tag of more than 64 KiB"},
		{"one of 1 MiB of namespaces", `<w:x` + strings.ReplaceAll(attrs(100000), " a", " xmlns:a") + `/>`, "a tag of more than 64 KiB"},
		{"300 KiB of tags open", nested(300, `<w:x a="`+strings.Repeat("v", 1000)+`">`), "more than 256 KiB of tags"},
		{"a DTD", ``, "it holds a DTD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := doc(tc.inner)
			if tc.name == "a DTD" {
				data = makeDocx(t, map[string]string{"word/document.xml": `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY e "x">]><w:document ` + wordNS + `><w:body>` + spot + `</w:body></w:document>`})
			}
			_, err := reference.InspectDocx(data, "x.docx")
			require.ErrorIs(t, err, reference.ErrDocxTooLarge)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// 16 MiB of nested elements, a file of some 16 KiB: refused after
	// reading a little of it, not after holding 600 MiB.
	bomb := doc(strings.Repeat("<w:x>", (16<<20)/5))
	require.Less(t, len(bomb), 64<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := reference.InspectDocx(bomb, "bomb.docx")
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, reference.ErrDocxTooLarge)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "allocated while reading the bomb")

	// Within the bounds: 900 deep, a start tag of 60 KiB, a '>' and a
	// '/>' in attribute values, markup in a comment, a CDATA section and
	// a processing instruction.
	fine := doc(nested(900, "<w:x>") + `<w:x` + attrs(6000) + `/>` +
		`<w:p><w:r a="x>y" b='/>'><w:t>{{dato}}</w:t></w:r></w:p>` +
		`<!-- a comment with <w:p> and "quotes" and -> --><![CDATA[<w:x>]]]><?pi <w:x> ?>` +
		`<w:p><w:r><w:t>[[signer_2]]</w:t></w:r></w:p>`)
	tmpl, err := reference.InspectDocx(fine, "fine.docx")
	require.NoError(t, err)
	assert.Equal(t, []string{"dato"}, tmpl.Data)
	assert.Equal(t, []string{"signer_1", "signer_2"}, tmpl.Signers)
}
