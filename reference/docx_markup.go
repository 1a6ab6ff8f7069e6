package reference

import (
	"bytes"
	"fmt"
	"io"
)

// Bounds of a .docx part's markup, so that a part within the size bounds
// cannot make the XML decoder hold far more than it read: the decoder
// keeps, for each element still open, its name and the namespaces it
// declares, and for a start tag every attribute, at some 35 bytes of
// memory per byte of markup (16 MiB of nested elements took 610 MiB; one
// start tag of 16 MiB of attributes, 550 MiB). Word writes a few KiB of
// namespace declarations on the root, attributes of a few hundred bytes
// elsewhere, and nests some 20 deep, a few more for tables in tables.
// Variables only so that tests can shrink them.
var (
	// maxDocxDepth is how deeply elements may nest.
	maxDocxDepth = 1000
	// maxDocxTag bounds one tag, from '<' to '>'.
	maxDocxTag = 64 << 10
	// maxDocxOpen bounds the start tags of the elements open at once,
	// together.
	maxDocxOpen = 256 << 10
)

// markup passes a part's bytes on to the XML decoder while it follows
// their markup: tags (quotes included: an attribute value may hold '>'),
// comments, CDATA sections and processing instructions. A tag, the
// elements open or the start tags open past their bounds is
// ErrDocxTooLarge, before the decoder reads them; so is a DTD, which no
// Office document may hold.
type markup struct {
	r     io.Reader
	state int
	quote byte // the quote of the attribute value being read, or 0
	prev  byte // the byte before, in a tag
	start bool // the tag being read is a start tag
	tag   int  // bytes of the tag being read
	open  []int
	total int // bytes of the start tags open
	// bang holds the bytes after "<!" until they tell a comment from a
	// CDATA section; end is what closes the one being read.
	bang []byte
	end  []byte
	seen int // bytes of end seen
}

const (
	inText     = iota
	inTagStart // just after '<'
	inTag
	inBang
	inUntil // a comment, a CDATA section or a processing instruction, until end
)

var (
	commentOpen = []byte("--")
	cdataOpen   = []byte("[CDATA[")
)

func (m *markup) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	for i := 0; i < n; i++ {
		if ferr := m.step(p[i]); ferr != nil {
			return i, ferr
		}
	}
	return n, err
}

func (m *markup) step(b byte) error {
	switch m.state {
	case inText:
		if b == '<' {
			m.state, m.tag = inTagStart, 1
		}
		return nil
	case inTagStart:
		switch b {
		case '!':
			m.state, m.bang = inBang, m.bang[:0]
			return nil
		case '?':
			m.state, m.end, m.seen = inUntil, []byte("?>"), 0
			return nil
		}
		m.state, m.start, m.quote, m.prev = inTag, b != '/', 0, 0
		return m.inTag(b)
	case inTag:
		return m.inTag(b)
	case inBang:
		m.bang = append(m.bang, b)
		switch {
		case bytes.Equal(m.bang, commentOpen):
			m.state, m.end, m.seen = inUntil, []byte("-->"), 0
		case bytes.Equal(m.bang, cdataOpen):
			m.state, m.end, m.seen = inUntil, []byte("]]>"), 0
		case !bytes.HasPrefix(commentOpen, m.bang) && !bytes.HasPrefix(cdataOpen, m.bang):
			return fmt.Errorf("%w: it holds a DTD (<!%s…), which an Office document may not", ErrDocxTooLarge, m.bang)
		}
		return nil
	case inUntil:
		// end's bytes are all different, but for "-->" whose "-" may
		// repeat: "--->" ends too.
		switch {
		case b == m.end[m.seen]:
			m.seen++
		case m.seen > 0 && b == m.end[0] && m.end[0] == m.end[1]:
		default:
			m.seen = 0
			if b == m.end[0] {
				m.seen = 1
			}
		}
		if m.seen == len(m.end) {
			m.state = inText
		}
		return nil
	}
	return nil
}

// inTag follows one byte of a tag.
func (m *markup) inTag(b byte) error {
	m.tag++
	if m.tag > maxDocxTag {
		return fmt.Errorf("%w: a tag of more than %d KiB", ErrDocxTooLarge, maxDocxTag>>10)
	}
	switch {
	case m.quote != 0:
		if b == m.quote {
			m.quote = 0
		}
	case b == '"' || b == '\'':
		m.quote = b
	case b == '>':
		m.state = inText
		switch {
		case !m.start:
			if len(m.open) > 0 {
				m.total -= m.open[len(m.open)-1]
				m.open = m.open[:len(m.open)-1]
			}
		case m.prev != '/':
			if len(m.open) >= maxDocxDepth {
				return fmt.Errorf("%w: elements nested more than %d deep", ErrDocxTooLarge, maxDocxDepth)
			}
			if m.total+m.tag > maxDocxOpen {
				return fmt.Errorf("%w: the elements open at once have more than %d KiB of tags", ErrDocxTooLarge, maxDocxOpen>>10)
			}
			m.open = append(m.open, m.tag)
			m.total += m.tag
		}
	}
	m.prev = b
	return nil
}
