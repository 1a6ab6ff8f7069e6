package steps

import (
	"context"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit/reports"
)

// What the steps of package steps/webhook share with these: how a
// failure cites its rule and a warning its basis, how a scenario's
// result is named and tagged, how this process's lateness excuses a
// timing, and how a JSON body is rewritten. Each is the helper of this
// package, named for use outside it.

// Breaks is a failing assertion of the rule at ref (a ref of
// features.Items); the message says what was expected and what came.
func Breaks(ref, format string, a ...any) error { return breaks(ref, format, a...) }

// BreachOf is the ref an error's breach (Breaks) cites, "" for none.
func BreachOf(err error) string { return breachOf(err) }

// FailureKindOf is the kind of the failure err is (see
// reports.FailureKind), "" when unknown.
func FailureKindOf(err error) reports.FailureKind { return failureKindOf(err) }

// Warn notes a warning on the scenario running in ctx, in the list its
// suite set (WithWarnings); see warn for the words of a warning.
func Warn(ctx context.Context, basis, practice, format string, a ...any) {
	warn(ctx, basis, practice, format, a...)
}

// ClassifyTags sets a result's requirement, kind and need tags from its
// scenario's tags.
func ClassifyTags(r *reports.ScenarioResult, tags []*messages.PickleTag) { classifyTags(r, tags) }

// PickleKey names a scenario, or an outline's row, of a run: what
// Pass.Place and an Initializer's only go by.
func PickleKey(sc *godog.Scenario) string { return pickleKey(sc) }

// RowKey names the scenario or outline row of a result.
func RowKey(r reports.ScenarioResult) string { return rowKey(r) }

// ExcusedBy tells whether a timing miss may be this process's own
// lateness: lag is how late it ran meanwhile (LagMonitor.Max);
// senderHere, that the sender of what was timed runs in it too.
func ExcusedBy(lag, miss time.Duration, senderHere bool) bool {
	return excusedBy(lag, miss, senderHere)
}

// Millis writes a duration in whole milliseconds, as the steps' messages
// do.
func Millis(d time.Duration) string { return ms(d) }
