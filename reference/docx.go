package reference

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/firmakit/firmakit"
)

// maxDocxPart bounds what is read of one part of a .docx, so that a zip
// bomb is refused instead of filling memory.
const maxDocxPart = 32 << 20

var (
	dataPlaceholder = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}`)
	signerSpot      = regexp.MustCompile(`\[\[\s*signer_([1-9][0-9]{0,3})\s*\]\]`)
)

// InspectDocxFile derives a template from a Word document on disk; the
// name comes from the file name.
func InspectDocxFile(path string) (firmakit.Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return firmakit.Template{}, fmt.Errorf("template: %w", err)
	}
	t, err := InspectDocx(data, filepath.Base(path))
	if err != nil {
		return t, fmt.Errorf("template %s: %w", path, err)
	}
	return t, nil
}

// InspectDocx derives a template from the bytes of a .docx as the service
// would (defaults.md E): data keys from {{key}} placeholders in order of
// first appearance, signer keys from [[signer_N]] spots in numeric order,
// the title from the document's title property, else the file name. Text is
// joined per paragraph before matching, since Word splits a placeholder
// over several runs. Headers and footers count too.
func InspectDocx(data []byte, fileName string) (firmakit.Template, error) {
	base := strings.TrimSuffix(fileName, filepath.Ext(fileName))
	t := firmakit.Template{Name: templateName(base)}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return t, fmt.Errorf("not a Word .docx file (it is not a zip archive): %w", err)
	}
	parts := map[string]*zip.File{}
	var extra []string
	for _, f := range zr.File {
		parts[f.Name] = f
		if strings.HasPrefix(f.Name, "word/header") || strings.HasPrefix(f.Name, "word/footer") {
			extra = append(extra, f.Name)
		}
	}
	doc := parts["word/document.xml"]
	if doc == nil {
		return t, errors.New("not a Word .docx file: word/document.xml is missing")
	}
	sort.Strings(extra)
	seenData := map[string]bool{}
	signers := map[int]bool{}
	for _, name := range append([]string{"word/document.xml"}, extra...) {
		paras, err := paragraphs(parts[name])
		if err != nil {
			return t, fmt.Errorf("%s: %w", name, err)
		}
		for _, p := range paras {
			for _, m := range dataPlaceholder.FindAllStringSubmatch(p, -1) {
				if !seenData[m[1]] {
					seenData[m[1]] = true
					t.Data = append(t.Data, m[1])
				}
			}
			for _, m := range signerSpot.FindAllStringSubmatch(p, -1) {
				n, _ := strconv.Atoi(m[1])
				signers[n] = true
			}
		}
	}
	nums := make([]int, 0, len(signers))
	for n := range signers {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		t.Signers = append(t.Signers, "signer_"+strconv.Itoa(n))
	}
	if core := parts["docProps/core.xml"]; core != nil {
		title, err := coreTitle(core)
		if err != nil {
			return t, fmt.Errorf("docProps/core.xml: %w", err)
		}
		t.Title = strings.TrimSpace(title)
	}
	if t.Title == "" {
		t.Title = base
	}
	if len(t.Signers) == 0 {
		return t, errors.New("the document has no [[signer_N]] signature spot, so no signer could sign it")
	}
	return t, nil
}

// templateName turns a file name into a template name: lower case, runs of
// anything but letters and digits become one '_'.
func templateName(s string) string {
	var b strings.Builder
	us := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			us = false
		} else if !us && b.Len() > 0 {
			b.WriteByte('_')
			us = true
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

func openPart(f *zip.File) (io.ReadCloser, error) {
	if f.UncompressedSize64 > maxDocxPart {
		return nil, fmt.Errorf("part is %d bytes, more than the %d allowed", f.UncompressedSize64, maxDocxPart)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("cannot open: %w", err)
	}
	return rc, nil
}

// paragraphs returns the text of every w:p of a WordprocessingML part, its
// runs' w:t joined.
func paragraphs(f *zip.File) ([]string, error) {
	rc, err := openPart(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, maxDocxPart))
	var out []string
	var cur strings.Builder
	depth, inText := 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("invalid XML: %w", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "p":
				if depth == 0 {
					cur.Reset()
				}
				depth++
			case "t":
				inText = true
			case "tab":
				cur.WriteByte('\t')
			}
		case xml.EndElement:
			switch el.Name.Local {
			case "p":
				if depth > 0 {
					depth--
				}
				if depth == 0 {
					out = append(out, cur.String())
				}
			case "t":
				inText = false
			}
		case xml.CharData:
			if inText && depth > 0 {
				cur.Write(el)
			}
		}
	}
	return out, nil
}

func coreTitle(f *zip.File) (string, error) {
	rc, err := openPart(f)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, maxDocxPart))
	in := false
	var title strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return title.String(), nil
		}
		if err != nil {
			return "", fmt.Errorf("invalid XML: %w", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			in = el.Name.Local == "title"
		case xml.EndElement:
			if el.Name.Local == "title" {
				return title.String(), nil
			}
		case xml.CharData:
			if in {
				title.Write(el)
			}
		}
	}
}
