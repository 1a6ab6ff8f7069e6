package firmakit

import (
	"strconv"
	"testing"
	"unicode/utf8"
)

// TestEscapedWidth: escapeClip's count of each character's escape agrees
// with strconv.Quote, for every byte and a sample of every kind of rune.
func TestEscapedWidth(t *testing.T) {
	var samples [][]byte
	for b := 0; b < 256; b++ {
		samples = append(samples, []byte{byte(b)})
	}
	for _, r := range []rune{'ñ', 'ú', 0x85, 0xa0, 0xad, 0x2028, 0xfeff, 0xfffd, 0xffff, 0x1f600, 0xe0001, 0x10ffff, '\a', '\v', '"', '\\'} {
		samples = append(samples, utf8.AppendRune(nil, r))
	}
	samples = append(samples, []byte("\xc3"), []byte("\xf0\x9f\x98"), []byte("\xed\xa0\x80"))
	for _, s := range samples {
		want := len(strconv.Quote(string(s))) - 2
		got := 0
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRune(s[i:])
			got += escapedWidth(r, size)
			i += size
		}
		if got != want {
			t.Errorf("%q: counted %d escaped bytes, strconv.Quote writes %d", s, got, want)
		}
	}
}
