package firmakit

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// IsBlank tells whether s is empty or white space only: every rune of it
// is white space as unicode.IsSpace reads it (Unicode's White_Space
// property, which holds U+0085 and not U+FEFF). The interface refuses a
// blank title or signer name; the reference server and the OpenAPI
// document's NotBlankPattern read blank by this one definition.
func IsBlank(s string) bool {
	return strings.TrimFunc(s, unicode.IsSpace) == ""
}

// NotBlankPattern is a pattern that matches a string IsBlank does not
// call blank: one that holds a rune other than white space. It is a
// negated class of every white-space rune, those below U+0100 escaped
// (\t, \x85, …) and the others written as themselves, so that ECMA-262
// (JSON Schema's dialect), RE2 and Python's re read it alike, and no JSON
// or YAML reader takes U+0085 for a line break; \S differs from IsBlank
// in two runes (U+0085 and U+FEFF) and \s is not the same set in every
// dialect. U+2028 and U+2029 are written as themselves: JSON encoders
// escape them, and a YAML writer must double-quote them.
func NotBlankPattern() string { return notBlank().pattern }

// WhiteSpaceText lists the runes IsBlank calls white space, for a
// reader: "U+0009–U+000D, U+0020, U+0085, …".
func WhiteSpaceText() string { return notBlank().text }

var notBlank = sync.OnceValue(func() (out struct{ pattern, text string }) {
	var spans [][2]rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.IsSpace(r) {
			continue
		}
		end := r
		for end < unicode.MaxRune && unicode.IsSpace(end+1) {
			end++
		}
		spans = append(spans, [2]rune{r, end})
		r = end
	}
	var pattern strings.Builder
	var text []string
	pattern.WriteString("[^")
	escaped := map[rune]string{'\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`, ' ': ` `}
	for _, sp := range spans {
		if sp[0] < 0x100 {
			for r := sp[0]; r <= sp[1]; r++ {
				if e, ok := escaped[r]; ok {
					pattern.WriteString(e)
				} else {
					fmt.Fprintf(&pattern, `\x%02x`, r)
				}
			}
		} else {
			pattern.WriteRune(sp[0])
			if sp[1] > sp[0]+1 {
				pattern.WriteByte('-')
			}
			if sp[1] > sp[0] {
				pattern.WriteRune(sp[1])
			}
		}
		switch {
		case sp[1] == sp[0]:
			text = append(text, fmt.Sprintf("U+%04X", sp[0]))
		case sp[1] == sp[0]+1:
			text = append(text, fmt.Sprintf("U+%04X, U+%04X", sp[0], sp[1]))
		default:
			text = append(text, fmt.Sprintf("U+%04X–U+%04X", sp[0], sp[1]))
		}
	}
	pattern.WriteString("]")
	out.pattern, out.text = pattern.String(), strings.Join(text, ", ")
	return out
})
