package firmakit

import (
	"context"
	"fmt"
	"log/slog"
)

// SafeLogs wraps a log handler so that no text of a log line can bend it:
// the message, every key, every string value, every error's text and
// every value logged through its String method or as a structure pass
// through EscapeText first, so C0 and C1 controls (NEL included), the
// line and paragraph separators and the bidirectional controls reach the
// line escaped (\u0085, \u202e) in either format. slog's text format
// quotes what is not printable, but its JSON format writes C1 and bidi
// controls raw, and a log viewer or a terminal then shows a sender's
// channel name or event id reordered or broken. Each process's logger
// goes through it; wrapping twice changes nothing.
func SafeLogs(h slog.Handler) slog.Handler {
	if _, ok := h.(safeLogs); ok {
		return h
	}
	return safeLogs{h}
}

type safeLogs struct{ h slog.Handler }

func (s safeLogs) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s safeLogs) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, EscapeText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(safeAttr(a))
		return true
	})
	return s.h.Handle(ctx, out)
}

func (s safeLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	safe := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		safe[i] = safeAttr(a)
	}
	return safeLogs{s.h.WithAttrs(safe)}
}

func (s safeLogs) WithGroup(name string) slog.Handler {
	return safeLogs{s.h.WithGroup(EscapeText(name))}
}

// safeAttr is a with its key and text escaped; numbers, times and the
// like stay as they are.
func safeAttr(a slog.Attr) slog.Attr {
	a.Key = EscapeText(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(EscapeText(v.String()))
	case slog.KindGroup:
		group := v.Group()
		safe := make([]slog.Attr, len(group))
		for i, g := range group {
			safe[i] = safeAttr(g)
		}
		a.Value = slog.GroupValue(safe...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case nil:
			a.Value = v
		case error:
			a.Value = slog.StringValue(EscapeText(x.Error()))
		case fmt.Stringer:
			a.Value = slog.StringValue(EscapeText(x.String()))
		default:
			// A structure is written as JSON or with %+v: written so
			// here, its text is escaped whole when any of it must be.
			if s := fmt.Sprintf("%+v", x); EscapeText(s) != s {
				a.Value = slog.StringValue(EscapeText(s))
			} else {
				a.Value = v
			}
		}
	default:
		a.Value = v
	}
	return a
}
