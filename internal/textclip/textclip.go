// Package textclip shortens untrusted or long text for messages, logs and
// indexes: by bytes or by characters, never splitting a UTF-8 character,
// and marking the cut with "…".
package textclip

import "unicode/utf8"

// Ellipsis is appended where text was cut.
const Ellipsis = "…"

// Bytes returns s when it has at most n bytes; otherwise the longest
// prefix of at most n bytes that ends on a character boundary, followed by
// Ellipsis (which is not counted in n). Bytes that are not UTF-8 are cut
// where the limit falls.
func Bytes(s string, n int) string {
	n = max(n, 0)
	if len(s) <= n {
		return s
	}
	cut := n
	// The character that s[n] belongs to starts at most UTFMax-1 bytes
	// before it; cut before that character.
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r != utf8.RuneError || size > 1) && i+size > n {
				cut = i
			}
			break
		}
	}
	return s[:cut] + Ellipsis
}

// Runes returns s when it has at most n characters; otherwise its first n
// characters followed by Ellipsis.
func Runes(s string, n int) string {
	n = max(n, 0)
	if len(s) <= n {
		return s // n bytes hold at most n characters
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + Ellipsis
		}
		count++
	}
	return s
}
