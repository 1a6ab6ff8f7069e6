package docxtest

import (
	"archive/zip"
	"bytes"
)

// WordNS is the WordprocessingML namespace declaration.
const WordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

// LeaseDocument is the demo lease contract. One placeholder is split over
// three runs, the way Word saves text that was edited or spell-checked.
const LeaseDocument = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + WordNS + `><w:body>
<w:p><w:r><w:t>Contrato de arriendo entre </w:t></w:r><w:r><w:t>{{nombre_</w:t></w:r><w:proofErr w:type="spellStart"/><w:r><w:rPr><w:b/></w:rPr><w:t>arrendatario</w:t></w:r><w:r><w:t>}} y el comercio.</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Monto mensual: {{ monto_mensual }} pesos; repetido {{nombre_arrendatario}}.</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>[[signer_</w:t></w:r><w:r><w:t>2]]</w:t></w:r></w:p></w:tc>
<w:tc><w:p><w:r><w:t>[[signer_1]]</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><w:t>{{no_cerrado</w:t></w:r></w:p><w:p><w:r><w:t>}}</w:t></w:r></w:p>
</w:body></w:document>`

// CoreProps gives the document the title "Contrato de arriendo".
const CoreProps = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Contrato de arriendo</dc:title></cp:coreProperties>`

// Build zips the parts into a .docx.
func Build(parts map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Lease returns the demo lease contract as a .docx.
func Lease() []byte {
	return Build(map[string]string{
		"[Content_Types].xml": `<Types/>`,
		"word/document.xml":   LeaseDocument,
		"docProps/core.xml":   CoreProps,
	})
}
