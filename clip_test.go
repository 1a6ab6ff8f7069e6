package firmakit_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		name, s string
		n       int
		want    string
	}{
		{"short enough", "abc", 3, "abc"},
		{"empty", "", 0, ""},
		{"ascii cut", "abcdef", 4, "abcd…"},
		{"zero", "abc", 0, "…"},
		{"negative is zero", "abc", -1, "…"},
		{"two-byte character not split", "añb", 2, "a…"},
		{"two-byte character kept whole", "añb", 3, "añ…"},
		{"four-byte character not split", "x😀y", 3, "x…"},
		{"four-byte character not split, last byte", "x😀y", 4, "x…"},
		{"four-byte character kept whole", "x😀y", 5, "x😀…"},
		{"invalid bytes are cut where the limit falls", "a\x80\x80\x80\x80b", 3, "a\x80\x80…"},
		{"a valid character before invalid bytes is kept", "a\x80\x80b", 2, "a\x80…"},
		{"an encoded U+FFFD is a character", "a\uFFFDb", 2, "a…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, firmakit.ClipBytes(tc.s, tc.n))
		})
	}
}

func TestBytesNeverSplitsValidText(t *testing.T) {
	s := strings.Repeat("ñandú 😀 €", 20)
	for n := 0; n <= len(s)+1; n++ {
		got := firmakit.ClipBytes(s, n)
		assert.True(t, utf8.ValidString(got), "n=%d: %q", n, got)
		body := strings.TrimSuffix(got, firmakit.Ellipsis)
		assert.LessOrEqual(t, len(body), n)
		assert.Greater(t, len(body), n-utf8.UTFMax, "n=%d: cut no further than the character at the limit", n)
		assert.True(t, strings.HasPrefix(s, body))
	}
}

func TestRunes(t *testing.T) {
	for _, tc := range []struct {
		name, s string
		n       int
		want    string
	}{
		{"short enough", "ñandú", 5, "ñandú"},
		{"more bytes than n, not more characters", "ñandú", 5, "ñandú"},
		{"cut by characters", "ñandú", 3, "ñan…"},
		{"emoji count once", "😀😀😀", 2, "😀😀…"},
		{"zero", "abc", 0, "…"},
		{"empty", "", 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, firmakit.ClipRunes(tc.s, tc.n))
		})
	}
}

func ExampleClipBytes() {
	// ñ takes two bytes: nine bytes would split it.
	fmt.Println(firmakit.ClipBytes("contraseña", 9))
	fmt.Println(firmakit.ClipRunes("contraseña", 9))
	// Output:
	// contrase…
	// contraseñ…
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want, lines string }{
		{"plain \"text\" ñ \\ ok", "plain \"text\" ñ \\ ok", "plain \"text\" ñ \\ ok"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"a\nb\r\nc\td", `a\nb\r\nc\td`, "a\nb\\r\nc\\td"},
		{"bell\a del\x7f c1\u009b", `bell\x07 del\x7f c1\x9b`, `bell\x07 del\x7f c1\x9b`},
		{"bidi \u202etxt.exe", `bidi \u202etxt.exe`, `bidi \u202etxt.exe`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
	} {
		assert.Equal(t, tc.want, firmakit.EscapeText(tc.in), "%q", tc.in)
		assert.Equal(t, tc.lines, firmakit.EscapeTextLines(tc.in), "%q", tc.in)
	}
}
