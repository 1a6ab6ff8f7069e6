package firmakit

// The one clipper of firmakit: it shortens untrusted or long text for
// messages, logs and indexes, by bytes or by characters, never splitting a
// UTF-8 character, and marks the cut with "…".

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Ellipsis is appended where text was cut.
const Ellipsis = "…"

// ClipBytes returns s when it has at most n bytes; otherwise the longest
// prefix of at most n bytes that ends on a character boundary, followed by
// Ellipsis (which is not counted in n). Bytes that are not UTF-8 are cut
// where the limit falls.
func ClipBytes(s string, n int) string {
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

// ClipRunes returns s when it has at most n characters; otherwise its first n
// characters followed by Ellipsis.
func ClipRunes(s string, n int) string {
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

// Excerpt is an excerpt of foreign text for a message on one line: at
// most n bytes of it (ClipBytes, the mark not counted) with its control
// characters escaped (EscapeText). A target's answer, an endpoint's, a
// header or a field of a notification is shown through it, so that
// nothing it sends can start a line of firmakit's output.
func Excerpt(s string, n int) string { return EscapeText(ClipBytes(s, n)) }

// EscapeText makes foreign text (a response's body, a header) safe to print
// on one line of a terminal, a log or a file: control characters (C0,
// DEL, C1, and the bidirectional overrides that reorder what a terminal
// shows) become Go escapes (\n, \r, \t, \x1b, \u202e), and so do bytes
// that are not UTF-8. A line break inside the text never makes a new line
// of output, and no escape sequence reaches a terminal. Printable text,
// quotes and backslashes stay as they are.
func EscapeText(s string) string { return escape(s, false) }

// EscapeTextLines is Escape but for "\n", which stays a line break: for text
// whose lines firmakit laid out itself, foreign excerpts in it escaped
// already.
func EscapeTextLines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) && !(keepLines && r == '\n') {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && r == '\n', !unsafeRune(r, size):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafeRune tells whether a rune must not reach a terminal as it is.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// EditDistance is the Levenshtein distance between a and b, counted in
// characters: what "did you mean" suggestions of flags, tags and fault
// names measure.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
