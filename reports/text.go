package reports

import (
	"strings"

	"unicode/utf8"

	"github.com/firmakit/firmakit"
)

// Clip fits s in n columns of a report or a terminal line: escaped on
// one line (firmakit.Excerpt's rules: control characters escaped, bytes
// that are not UTF-8 shown as U+FFFD) and, when longer than n characters,
// cut by the one clipper, firmakit.ClipRunes, to n-1 characters and its
// "…", so that the mark fits the n too. A cut never splits a character.
func Clip(s string, n int) string {
	s = firmakit.EscapeText(strings.ToValidUTF8(s, "\uFFFD"))
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return firmakit.ClipRunes(s, n-1)
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r")
}
