package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/firmakit/firmakit/reports"
)

// A step writes what it judged as the arguments of its message, and the
// engine takes the failure's facts (reports.Facts) from them as it
// writes the message, so that nothing reads a message back: a Field
// names what was judged and stays in the message's shape; a Want and a
// Seen are the values compared; an Answer is the answer it was judged
// on; a breach (an error of Breaks) within the message carries its facts
// on. Any other argument is a value, taken out of the shape, unless it is
// a short word (a state, a header's name, a method).

// Field names what a step judged: a field of a body, a header, a key.
type Field string

// Name is a fixed phrase of a suite within a message (a reason, a
// state): it stays in the message's shape, as a Field does, but is not
// what was judged.
type Name string

// Want is the value a rule asks for, Seen the value that came.
type (
	Want string
	Seen string
)

// An Answer is an answer of the target a step judged: printed in full in
// a message, said as its status and label in its shape and summary.
type Answer interface {
	fmt.Stringer
	// Status is the answer's HTTP status, Label its body's message ("" for
	// none).
	Status() int
	Label() string
}

// Said is a message written with Describe, with its facts: as an
// argument of another message, its shape and facts carry on.
type Said struct {
	Text  string
	Facts reports.Facts
}

func (s Said) String() string { return s.Text }

// Say is Describe's message and facts as one Said.
func Say(format string, a ...any) Said {
	msg, f := Describe(format, a...)
	return Said{msg, f}
}

// Describe writes a message as fmt.Sprintf does, and its facts from its
// arguments.
func Describe(format string, a ...any) (string, reports.Facts) {
	var f reports.Facts
	var shape, summary strings.Builder
	args := a
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			shape.WriteByte(c)
			summary.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			shape.WriteString(format[i:])
			summary.WriteString(format[i:])
			break
		}
		spec, verb := format[i:j+1], format[j]
		i = j
		if verb == '%' {
			shape.WriteByte('%')
			summary.WriteByte('%')
			continue
		}
		if len(args) == 0 {
			continue // fmt says %!v(MISSING): nothing of a fact
		}
		arg := args[0]
		args = args[1:]
		switch v := arg.(type) {
		case Field:
			f.Field = string(v)
			fmt.Fprintf(&shape, spec, arg)
			fmt.Fprintf(&summary, spec, arg)
			continue
		case Said:
			carryOn(&f, v.Facts, &shape, &summary)
			continue
		case Name:
			fmt.Fprintf(&shape, spec, arg)
			fmt.Fprintf(&summary, spec, arg)
			continue
		case Want:
			f.Expected = string(v)
		case Seen:
			f.Seen = string(v)
		case error:
			var b *breach
			if errors.As(v, &b) { // a breach within this one
				carryOn(&f, b.facts, &shape, &summary)
				continue
			}
		case Answer:
			f.Status, f.Label = v.Status(), v.Label()
			short := "got " + fmt.Sprint(v.Status())
			if v.Label() != "" {
				short += " " + fmt.Sprintf("%q", v.Label())
			}
			shape.WriteString(short)
			summary.WriteString(short)
			continue
		}
		summary.WriteString(fmt.Sprintf(spec, arg))
		shape.WriteString(shapeOf(verb, arg))
	}
	return fmt.Sprintf(format, a...), finish(f, shape.String(), summary.String())
}

// carryOn takes the facts of a message within another: what it judged,
// and its shape and summary in place of its text.
func carryOn(f *reports.Facts, inner reports.Facts, shape, summary *strings.Builder) {
	f.Field, f.Expected, f.Seen, f.Status, f.Label = inner.Field, inner.Expected, inner.Seen, inner.Status, inner.Label
	shape.WriteString(inner.Shape)
	summary.WriteString(inner.Summary)
}

// finish sets the facts' shape and summary to the first line of each.
func finish(f reports.Facts, shape, summary string) reports.Facts {
	f.Shape, _, _ = strings.Cut(shape, "\n")
	f.Summary, _, _ = strings.Cut(summary, "\n")
	return f
}

// shapeOf is an argument as a message's shape writes it: # for a number,
// a short word as it is (not a Seen), any other value "…".
func shapeOf(verb byte, arg any) string {
	switch v := arg.(type) {
	case Want: // what the rule asks, shaped as any other argument
		arg = string(v)
	case Seen: // what came: a value, whatever it is
		arg = nil
	}
	switch v := arg.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, time.Duration:
		return "#"
	case string:
		if word(v) {
			return fmt.Sprintf("%"+string(verb), v)
		}
	}
	if verb == 'q' {
		return `"…"`
	}
	return "…"
}

// word tells whether s is a short word, not a value that changes from
// one run to the next: ASCII letters, '_', '-' and '.', at most 40 bytes
// (a state, a header's or a field's name, a method); no digit, no space.
func word(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
