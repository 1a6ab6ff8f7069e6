package firmakit_test

import (
	"regexp"
	"testing"
	"unicode"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// TestNotBlankPatternIsIsBlank: the pattern and IsBlank agree on every
// rune of the Basic Multilingual Plane (every white-space rune is in it)
// and on one in 97 beyond, each with white space around it.
func TestNotBlankPatternIsIsBlank(t *testing.T) {
	re := regexp.MustCompile(firmakit.NotBlankPattern())
	assert.Equal(t, "[^\\t\\n\\v\\f\\r \\x85\\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]", firmakit.NotBlankPattern())
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r > 0xffff && r%97 != 0 {
			continue
		}
		if r >= 0xd800 && r <= 0xdfff {
			continue // no UTF-8 encoding
		}
		s := " " + string(r) + "\u3000"
		if re.MatchString(s) == firmakit.IsBlank(s) {
			t.Fatalf("U+%04X: pattern matches %v, IsBlank %v", r, re.MatchString(s), firmakit.IsBlank(s))
		}
	}
	assert.Equal(t, "U+0009–U+000D, U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000", firmakit.WhiteSpaceText())
	assert.True(t, firmakit.IsBlank(""))
	assert.False(t, re.MatchString(""))
	assert.True(t, firmakit.IsBlank("\u0085"), "NEL is white space")
	assert.False(t, firmakit.IsBlank("\ufeff"), "a BOM is not")
}
