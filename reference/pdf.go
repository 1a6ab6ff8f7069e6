package reference

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DemoPDF renders a one-page PDF 1.4 document for a demo contract: its
// title, signature id and signers. It uses the standard Helvetica font with
// WinAnsi encoding, so it needs no embedded font; characters outside
// Latin-1 are shown as '?'.
func DemoPDF(title, signatureID, createdAt string, signers []string) []byte {
	var lines []pdfLine
	add := func(size int, s string) {
		for _, l := range wrap(s, 2*500/size) {
			lines = append(lines, pdfLine{size, l})
		}
	}
	add(20, "Contrato de demostración / Demo contract")
	add(11, "Documento de prueba generado por el servidor de referencia de firmakit. Sin validez legal.")
	add(11, "")
	add(14, "Título: "+title)
	add(11, "signature_id: "+signatureID)
	add(11, "Creado / created: "+createdAt)
	add(11, "")
	add(12, "Firmantes / signers:")
	for _, s := range signers {
		add(11, "  - "+s)
	}
	add(11, "")
	add(11, "Estado: SIGNED (demo). Este enlace es un document_url de prueba.")

	var content bytes.Buffer
	content.WriteString("BT\n")
	y := 790
	for _, l := range lines {
		y -= l.size + 6
		if y < 40 {
			break
		}
		fmt.Fprintf(&content, "/F1 %d Tf 1 0 0 1 50 %d Tm (%s) Tj\n", l.size, y, pdfString(l.text))
	}
	content.WriteString("ET\n")

	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()),
		fmt.Sprintf("<< /Title (%s) /Producer (firmakit reference server) >>", pdfString(title)),
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return out.Bytes()
}

type pdfLine struct {
	size int
	text string
}

// pdfString encodes s for a PDF literal string in WinAnsi: Latin-1 runes as
// their byte, others as '?', with the delimiters escaped.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == utf8.RuneError:
			b.WriteByte(' ')
		case r < 0x7f:
			b.WriteRune(r)
		case r >= 0xa0 && r <= 0xff:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// wrap cuts s into lines of at most n runes, at spaces where it can, and
// stops after a few lines so that a huge title still fits the page.
func wrap(s string, n int) []string {
	r := []rune(s)
	var out []string
	for len(r) > n && len(out) < 6 {
		cut := n
		for i := n; i > n/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, string(r[:cut]))
		r = []rune(strings.TrimLeft(string(r[cut:]), " "))
	}
	if len(out) == 6 && len(r) > 0 {
		out = append(out, "...")
	} else {
		out = append(out, string(r))
	}
	return out
}
