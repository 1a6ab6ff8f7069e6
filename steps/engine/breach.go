package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/firmakit/firmakit/reports"
)

// A target fails a scenario only where a sentence of the documents states
// the rule: every failing assertion is a breach that names the item whose
// sentence it enforces (a ref of features.Items), and the report says
// which sentence was broken. What the documents leave open, or a
// departure from the profile's letter that lets nobody in, loses or
// duplicates nothing and breaks no correct peer, is a warning at most:
// the scenario passes, and the run's verdict says "passed with warnings".

// breach is a failing assertion: what was expected and what came, and
// the item of the documents that requires it.
type breach struct {
	ref string // a ref of features.Items, e.g. "defaults §A check 2"
	msg string
	// kind is the failure's kind (see reports.FailureKind): the report
	// groups and explains by it.
	kind reports.FailureKind
	// facts are what it is about, from the message's arguments
	// (Describe).
	facts reports.Facts
}

func (b *breach) Error() string { return b.msg + "\n  rule: " + reports.Cite(b.ref) }

// Breaks is a failing assertion of the rule at ref (a ref of
// features.Items); the message says what was expected and what came,
// and its arguments say it as facts (Describe: a Field, a Want and a
// Seen, an Answer). Its kind is the rule's (reports.RuleKind).
func Breaks(ref, format string, a ...any) error {
	return BreaksAs(reports.RuleKind(ref), ref, format, a...)
}

// BreaksAs is Breaks for a failure of a kind its step knows, a likely
// cause (an answer's, a notification that never came).
func BreaksAs(kind reports.FailureKind, ref, format string, a ...any) error {
	msg, facts := Describe(format, a...)
	return &breach{ref: ref, msg: msg, kind: kind, facts: facts}
}

// FactsOf are the facts of the failure err is, its breach's; nil for
// an error that is not a breach.
func FactsOf(err error) *reports.Facts {
	var b *breach
	if errors.As(err, &b) {
		f := b.facts
		return &f
	}
	return nil
}

// FailureKindOf is the kind of the failure err is, its breach's (see
// reports.FailureKind); "" when unknown.
func FailureKindOf(err error) reports.FailureKind {
	var b *breach
	if errors.As(err, &b) {
		return b.kind
	}
	return ""
}

// BreachOf is the ref an error's breach (Breaks) cites, "" for none.
func BreachOf(err error) string {
	var b *breach
	if errors.As(err, &b) {
		return b.ref
	}
	return ""
}

// Warn notes a warning on the scenario running in ctx: what was seen
// (format, a), what it rests on (basis: a ref of features.Items, or
// reports.BasisPractice) and the practice, in words that name it rather
// than blame ("a strict parser (digits only) is safer", not "your parser
// is wrong"). The step goes on: a warning never fails a scenario but
// under --strict. It goes to the list the scenario's suite set
// (WithWarnings).
func Warn(ctx context.Context, basis, practice, format string, a ...any) {
	w := reports.Warning{Message: fmt.Sprintf(format, a...), Basis: basis, Practice: practice}
	if ws, ok := ctx.Value(warningsKey{}).(*[]reports.Warning); ok {
		*ws = append(*ws, w)
	}
}

// warningsKey holds, in a running scenario's context, the list its
// warnings go to (WithWarnings).
type warningsKey struct{}

// WithWarnings is ctx with list as where the warnings of the scenario
// running in it go (Warn): each suite sets it for its scenarios.
func WithWarnings(ctx context.Context, list *[]reports.Warning) context.Context {
	return context.WithValue(ctx, warningsKey{}, list)
}
