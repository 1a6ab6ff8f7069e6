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

// Bounds of a .docx, so that a zip bomb (a small file whose parts expand
// to gigabytes, or a zip of many thousands of parts) is refused instead of
// filling memory: what is read of one part, of all parts together, and
// how many entries the archive may have. A real contract is far below
// each. Variables only so that tests can shrink them.
var (
	maxDocxPart  int64 = 16 << 20
	maxDocxTotal int64 = 32 << 20
	maxDocxParts       = 2000
)

// ErrDocxTooLarge is returned for a .docx beyond the bounds above.
var ErrDocxTooLarge = errors.New("the .docx expands beyond what a Word document needs (a zip bomb?)")

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
	if len(zr.File) > maxDocxParts {
		return t, fmt.Errorf("%w: %d parts, more than the %d allowed", ErrDocxTooLarge, len(zr.File), maxDocxParts)
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
	// Every part read takes from one budget, whatever sizes the archive
	// declares: a declared size may lie.
	budget := &docxBudget{left: maxDocxTotal}
	seenData := map[string]bool{}
	signers := map[int]bool{}
	for _, name := range append([]string{"word/document.xml"}, extra...) {
		err := paragraphs(parts[name], budget, func(p string) {
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
		})
		if err != nil {
			return t, fmt.Errorf("%s: %w", name, err)
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
		title, err := coreTitle(core, budget)
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

// docxBudget is what may still be read of a .docx's parts, all together.
type docxBudget struct{ left int64 }

// part reads a part within the budget: at most maxDocxPart bytes of it
// and what is left of the total. Reading past either is ErrDocxTooLarge.
type part struct {
	rc     io.ReadCloser
	budget *docxBudget
	n      int64
}

func (p *part) Read(b []byte) (int, error) {
	n, err := p.rc.Read(b)
	p.n += int64(n)
	p.budget.left -= int64(n)
	switch {
	case p.n > maxDocxPart:
		return n, fmt.Errorf("%w: a part expands past %d MiB", ErrDocxTooLarge, maxDocxPart>>20)
	case p.budget.left < 0:
		return n, fmt.Errorf("%w: its parts expand past %d MiB together", ErrDocxTooLarge, maxDocxTotal>>20)
	}
	return n, err
}

func (p *part) Close() error { return p.rc.Close() }

func openPart(f *zip.File, budget *docxBudget) (io.ReadCloser, error) {
	if f.UncompressedSize64 > uint64(maxDocxPart) {
		return nil, fmt.Errorf("%w: a part of %d bytes, more than the %d allowed", ErrDocxTooLarge, f.UncompressedSize64, maxDocxPart)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("cannot open: %w", err)
	}
	p := &part{rc: rc, budget: budget}
	// The decoder reads the part's markup within its bounds (markup).
	return struct {
		io.Reader
		io.Closer
	}{&markup{r: p}, p}, nil
}

// paragraphs calls each with the text of every w:p of a WordprocessingML
// part, its runs' w:t joined, one paragraph at a time.
func paragraphs(f *zip.File, budget *docxBudget, each func(string)) error {
	rc, err := openPart(f, budget)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := xml.NewDecoder(rc)
	var cur strings.Builder
	depth, inText := 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, ErrDocxTooLarge) {
			return err
		}
		if err != nil {
			return fmt.Errorf("invalid XML: %w", err)
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
					each(cur.String())
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
}

func coreTitle(f *zip.File, budget *docxBudget) (string, error) {
	rc, err := openPart(f, budget)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	dec := xml.NewDecoder(rc)
	in := false
	var title strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return title.String(), nil
		}
		if errors.Is(err, ErrDocxTooLarge) {
			return "", err
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
