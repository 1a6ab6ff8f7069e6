package firmakit_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// Bending are the characters no log line may carry raw: C0 and C1
// controls (NEL, U+0085, among them), DEL, the line and paragraph
// separators and the bidirectional controls.
func Bending() []rune {
	var rs []rune
	for r := rune(0); r < 0x20; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x7f)
	for r := rune(0x80); r <= 0x9f; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x2028, 0x2029, 0x061c, 0x200e, 0x200f)
	for r := rune(0x202a); r <= 0x202e; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x2066); r <= 0x2069; r++ {
		rs = append(rs, r)
	}
	return rs
}

// RawBending returns the first character of Bending found raw in a log's
// lines (the line feed that ends each line aside), and where.
func RawBending(log string) (rune, string, bool) {
	bad := map[rune]bool{}
	for _, r := range Bending() {
		bad[r] = true
	}
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		for _, r := range line {
			if bad[r] {
				return r, line, true
			}
		}
	}
	return 0, "", false
}

type stringer string

func (s stringer) String() string { return string(s) }

type logged struct{ Channel string }

// TestSafeLogsEscapeEveryBendingCharacter: each bending character, in a
// message, a key, a string, an error, a Stringer, a structure, a group and
// attributes given beforehand, reaches neither format raw, and each call
// stays one line.
func TestSafeLogsEscapeEveryBendingCharacter(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var out bytes.Buffer
		h := slog.Handler(slog.NewTextHandler(&out, nil))
		if format == "json" {
			h = slog.NewJSONHandler(&out, nil)
		}
		log := slog.New(firmakit.SafeLogs(firmakit.SafeLogs(h)))
		calls := 0
		for _, r := range Bending() {
			s := "a" + string(r) + "b"
			log.Info("message "+s, "channel", s, "k"+s, 1, "err", errors.New(s), "stringer", stringer(s),
				"struct", logged{s}, "map", map[string]string{s: s}, slog.Group("g"+s, "event_id", s))
			log.With("channel", s).WithGroup("group"+s).Warn("with", "event_id", s)
			calls += 2
		}
		if r, line, ok := RawBending(out.String()); ok {
			t.Errorf("%s: %U raw in %q", format, r, line)
		}
		assert.Equal(t, calls, strings.Count(out.String(), "\n"), "%s: one line per call", format)
		// Visibly escaped; JSON escapes the backslash once more.
		for _, want := range []string{`a\u202eb`, `a\x85b`} {
			if format == "json" {
				want = strings.ReplaceAll(want, `\`, `\\`)
			}
			assert.True(t, strings.Contains(out.String(), `"channel":"`+want+`"`) || strings.Contains(out.String(), "channel="+want), "%s: %s", format, want)
		}
	}
}

// TestSafeLogsKeepTheRest: what needs no escape is logged as slog writes
// it, typed values included.
func TestSafeLogsKeepTheRest(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(firmakit.SafeLogs(slog.NewJSONHandler(&out, nil)))
	log.Info("notification forwarded", "channel", "merchant_demo ñ 😀", "status", 200, "latency_ms", 1.5, "ok", true,
		"list", []string{"a", "b"}, "err", fmt.Errorf("wrapped: %w", errors.New("x")))
	assert.Contains(t, out.String(), `"msg":"notification forwarded","channel":"merchant_demo ñ 😀","status":200,"latency_ms":1.5,"ok":true,"list":["a","b"],"err":"wrapped: x"}`)
	assert.True(t, utf8.Valid(out.Bytes()))
}
