package steps

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
	// kind is the failure's kind when the step knows it (see
	// reports.FailureKind): the report groups and explains by it.
	kind reports.FailureKind
}

func (b *breach) Error() string { return b.msg + "\n  rule: " + reports.Cite(b.ref) }

// breaks is a failing assertion of the rule at ref (a ref of
// features.Items); the message says what was expected and what came.
func breaks(ref, format string, a ...any) error {
	return &breach{ref: ref, msg: fmt.Sprintf(format, a...)}
}

// breaksAs is breaks for a failure of a known kind.
func breaksAs(kind reports.FailureKind, ref, format string, a ...any) error {
	return &breach{ref: ref, msg: fmt.Sprintf(format, a...), kind: kind}
}

// answerBreaks is breaks for an assertion judged on the scenario's
// answer (its message says so, with sc.got()): the failure is of the
// answer's kind (reports.AnswerFailure), so that a 401 "Invalid
// signature" where a 200 was expected is explained as a signing mistake,
// whatever the step's wording.
func (sc *scenario) answerBreaks(ref, format string, a ...any) error {
	return breaksAs(reports.AnswerFailure(sc.status, sc.answerMessage()), ref, format, a...)
}

// failureKindOf is the kind of the failure err is, its breach's; "" when
// unknown.
func failureKindOf(err error) reports.FailureKind {
	var b *breach
	if errors.As(err, &b) {
		return b.kind
	}
	return ""
}

// breachOf is the ref an error's breach cites, "" for none.
func breachOf(err error) string {
	var b *breach
	if errors.As(err, &b) {
		return b.ref
	}
	return ""
}

// The refs the steps cite most, named once.
const (
	refCheck1      = "defaults §A check 1"
	refCheck2      = "defaults §A check 2"
	refCheck3      = "defaults §A check 3"
	refCheck4      = "defaults §A check 4"
	refCheck5      = "defaults §A check 5"
	refErrorBody   = "defaults §A paragraph 5"
	refCheckOK     = "§4.1 rule 1"
	refCheckFails  = "§4.1 rule 2"
	refCheckBody   = "§2.1 status_code"
	refCreate      = "§4.2 Success"
	refCreateBody  = "defaults §C paragraph 1"
	refRefusal     = "defaults §C paragraph 2"
	refRouting     = "defaults §C bullet 4"
	refJSON        = "§4 paragraph 1"
	refPayload     = "defaults §B paragraph 2"
	refPayloadKeys = "defaults §B bullet 4"
	refEventID     = "defaults §B bullet 5"
	refDelivery    = "defaults §B bullet 6"
	refWebhookSig  = "defaults §B paragraph 1"
	refDemo        = "defaults §D bullet 1"
	refNotDemo     = "defaults §D bullet 2"
	refDemoSame    = "defaults §D bullet 3"
	refDemoURL     = "defaults §D bullet 4"
)

// warn notes a warning on the scenario running in ctx: what was seen
// (format, a), what it rests on (basis: a ref of features.Items, or
// reports.BasisPractice) and the practice, in words that name it rather
// than blame ("a strict parser (digits only) is safer", not "your parser
// is wrong"). The step goes on: a warning never fails a scenario but
// under --strict.
func warn(ctx context.Context, basis, practice, format string, a ...any) {
	w := reports.Warning{Message: fmt.Sprintf(format, a...), Basis: basis, Practice: practice}
	if ws, ok := ctx.Value(warningsKey{}).(*[]reports.Warning); ok {
		*ws = append(*ws, w)
	}
}

// warningsKey holds, in a running scenario's context, the list its
// warnings go to (WithWarnings).
type warningsKey struct{}

// WithWarnings is ctx with list as where the warnings of the scenario
// running in it go (warn, Warn): each suite sets it for its scenarios.
func WithWarnings(ctx context.Context, list *[]reports.Warning) context.Context {
	return context.WithValue(ctx, warningsKey{}, list)
}
