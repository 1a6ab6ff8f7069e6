package reports

import (
	"strings"

	"github.com/firmakit/firmakit"
	"unicode/utf8"
)

// Clip shortens s to at most n characters, marking a cut with "…" (which
// counts as one of the n). It never splits a UTF-8 character: a report or
// a terminal line shows "ñandú…", never "ñand\xc3". Bytes of s that are not
// UTF-8 (a target may send them) come out as U+FFFD, so what is shown is
// always valid text, and control characters are escaped (firmakit.EscapeText):
// a line shows no escape sequence and breaks nowhere.
func Clip(s string, n int) string {
	s = firmakit.EscapeText(strings.ToValidUTF8(s, "\uFFFD"))
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r")
}
