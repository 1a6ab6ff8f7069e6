package webhook

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/firmakit/firmakit/reports"
)

// hintFacts is what a webhook run's results say, by requirement.
type hintFacts struct {
	results  []reports.ScenarioResult
	observed []observation
}

// judged tells whether a result says something about the endpoint: it
// ran to its end, passed or failed.
func judged(r reports.ScenarioResult) bool {
	return r.Status == reports.Passed || r.Status == reports.Failed
}

// failedRows returns the rows (or "" for a plain scenario) of req that
// failed with an answer, not for want of one.
func (f hintFacts) failedRows(req string) []string {
	var rows []string
	for i, r := range f.results {
		if r.Requirement == req && r.Status == reports.Failed && !f.observed[i].Unreachable && !slices.Contains(rows, r.Row) {
			rows = append(rows, r.Row)
		}
	}
	sort.Strings(rows)
	return rows
}

// rowPassed tells whether the row of req passed.
func (f hintFacts) rowPassed(req, row string) bool {
	for _, r := range f.results {
		if r.Requirement == req && r.Row == row && r.Status == reports.Passed {
			return true
		}
	}
	return false
}

// passed tells whether every judged scenario of req passed, and at least
// one was judged.
func (f hintFacts) passed(req string) bool {
	n := 0
	for _, r := range f.results {
		if r.Requirement != req || !judged(r) {
			continue
		}
		if r.Status != reports.Passed {
			return false
		}
		n++
	}
	return n > 0
}

// tally counts the judged scenarios that wanted expect, and those of them
// that failed with an answer.
func (f hintFacts) tally(expect string) (total, failed int, statuses []int) {
	for i, r := range f.results {
		o := f.observed[i]
		if !judged(r) || o.Expect != expect {
			continue
		}
		total++
		// A lenient delivery accepted with a warning was accepted all the
		// same: for the pattern of answers it counts as not refused.
		if (r.Status == reports.Failed || (o.Lenient && len(r.Warnings) > 0)) && !o.Unreachable {
			failed++
			for _, s := range o.Statuses {
				if s != 0 && !slices.Contains(statuses, s) {
					statuses = append(statuses, s)
				}
			}
		}
	}
	sort.Ints(statuses)
	return total, failed, statuses
}

// answered says the statuses of a hint's "(answered …)": a list of
// numbers, or a word of the report's language when there is none.
func answered(statuses []int) any {
	var s []string
	for _, st := range statuses {
		s = append(s, strconv.Itoa(st))
	}
	if len(s) == 0 {
		return reports.Hint{ID: "no-status"}
	}
	return strings.Join(s, ", ")
}

// webhookHints names the known mistakes a webhook run's pattern of
// failures points at, most telling first: an endpoint that could not be
// reached, one that refuses everything (another secret, or a re-serialised
// body), one that accepts everything (no verification), and narrower ones
// (only the raw-bytes rows, the timestamp's age, a signature that does not
// cover t, only one v1 entry, a refused retry, a t that is not a number,
// a late answer). observed[i] is what the endpoint did in results[i].
// Each hint is a key of the report's language tables with its values
// (reports.Hint), so that report.html says it in its language.
func webhookHints(e *Endpoint, results []reports.ScenarioResult, observed []observation, clock clockFinding) []reports.Hint {
	p := e.profile()
	f := hintFacts{results, observed}
	header := p.Webhook.SignatureHeader
	tol := int64(p.Webhook.Tolerance.Seconds())
	var hints []reports.Hint
	hint := func(id string, args ...any) { hints = append(hints, reports.Hint{ID: id, Args: args}) }

	unreachable, late := 0, false
	var firstErr string
	for _, o := range observed {
		if o.Unreachable {
			unreachable++
			if firstErr == "" && len(o.Errors) > 0 {
				firstErr = o.Errors[0]
			}
		}
		late = late || o.Late
	}
	if unreachable > 0 {
		hint("unreachable", unreachable, firstErr, e.URL)
	}

	accTotal, accFailed, accStatuses := f.tally("accept")
	refTotal, refFailed, refStatuses := f.tally("refuse")
	allRefused := accTotal > 0 && accFailed == accTotal && refFailed == 0
	allAccepted := refTotal > 0 && refFailed == refTotal && accFailed == 0
	ids := strings.Join(e.SignatureIDs, ", ")
	switch {
	case allRefused && slices.Equal(accStatuses, []int{404}) && ids != "":
		hint("unknown-contracts", ids)
	case allRefused && slices.Equal(accStatuses, []int{404}):
		hint("unknown-contract")
	case allRefused && clock.Millis:
		hint("clock-millis", answered(accStatuses))
	case allRefused && clock.Offset != 0:
		hint("clock-off", answered(accStatuses), clock.Offset, float64(clock.Offset)/3600)
	case allRefused:
		hint("all-refused", answered(accStatuses), p.Webhook.PayloadSeparator, tol)
	case allAccepted:
		hint("all-accepted", answered(refStatuses), header)
	}

	// Valid notifications of the plainest kind refused, though not all:
	// the narrower hints below would name a symptom, not the cause.
	stateOK := f.passed("WH-STATE")
	switch {
	case allRefused || stateOK || len(f.failedRows("WH-STATE")) == 0:
	case f.rowPassed("WH-RAW-BYTES", "layout=escaped-unicode") && accTotal-accFailed == 1:
		// Only the body with no raw non-ASCII byte was accepted.
		hint("charset")
	case len(f.failedRows("WH-TIME-WINDOW")) == 4:
		hint("tolerance-tiny", tol)
	}
	if !allRefused && stateOK {
		if rows := f.failedRows("WH-RAW-BYTES"); len(rows) > 0 && f.passed("WH-STATE") {
			hint("raw-bytes", strings.Join(rows, "; "))
		}
		rot := f.failedRows("WH-ROTATION")
		switch {
		case len(rot) == 1 && rot[0] == "valid=2":
			hint("rotation-first-only", p.Webhook.SignatureKey)
		case len(rot) == 1 && rot[0] == "valid=1":
			hint("rotation-last-only", p.Webhook.SignatureKey)
		case len(rot) == 2 && f.passed("WH-STATE"):
			hint("rotation-any", p.Webhook.SignatureKey)
		}
		if f.duplicateRefused() {
			hint("duplicate-refused")
		} else if len(f.failedRows("WH-DUPLICATE-EXACT")) > 0 && f.passed("WH-DUPLICATE") {
			hint("exact-retry-refused", header)
		}
		if len(f.failedRows("WH-SAME-CONTRACT")) > 0 && f.passed("WH-STATE") {
			hint("same-contract-refused")
		}
		if rows := f.failedRows("WH-BODY-TEXT"); len(rows) > 0 && f.passed("WH-STATE") {
			hint("body-text", strings.Join(rows, "; "))
		}
		if rows := f.failedRows("WH-HTTP-FORM"); len(rows) > 0 {
			hint("http-form", strings.Join(rows, "; "), header)
		}
		if len(f.failedRows("WH-REAL-CONTRACT")) > 0 && f.passed("WH-STATE") {
			hint("real-contract")
		}
		if rows := f.failedRows("WH-BOUNDARY-BYTES"); len(rows) > 0 && f.passed("WH-BODY-TEXT") {
			hint("boundary-bytes", strings.Join(rows, "; "))
		}
		if rows := f.failedRows("WH-RETRY-AFTER-FAILURE"); len(rows) > 0 && f.passed("WH-DUPLICATE") {
			hint("retry-after-failure", strings.Join(rows, "; "))
		}
		if len(f.failedRows("WH-EVENTS-OVER-TIME")) > 0 && f.passed("WH-SAME-CONTRACT") {
			hint("same-state-refused")
		}
		if len(f.failedRows("WH-OUT-OF-ORDER")) > 0 && f.passed("WH-SAME-CONTRACT") {
			hint("out-of-order-refused")
		}
		switch rows := f.failedRows("WH-TIME-WINDOW"); {
		case len(rows) == 0:
		case !slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "-") }):
			hint("window-future", tol)
		default:
			hint("window-narrow", strings.Join(rows, "; "), tol)
		}
	}

	if !allAccepted {
		if rows := f.failedRows("WH-SIGNATURE-FORM"); len(rows) > 0 {
			hint("signature-form", p.Webhook.SignatureKey, p.Webhook.PayloadSeparator, strings.Join(rows, "; "))
		}
		if rows := f.failedRows("WH-TIMESTAMP-FORM"); len(rows) > 0 {
			hint("timestamp-form", strings.Join(rows, "; "), p.Webhook.TimestampKey)
		}
	}

	if !allAccepted && f.passed("WH-WRONG-SECRET") {
		oldRows, aheadRows := f.failedRows("WH-TIMESTAMP-OLD"), f.failedRows("WH-TIMESTAMP-AHEAD")
		old, ahead := len(oldRows) > 0, len(aheadRows) > 0
		nearOnly := func(rows []string) bool {
			return len(rows) > 0 && !slices.ContainsFunc(rows, func(r string) bool { return !strings.HasSuffix(r, "=10") })
		}
		switch {
		case (old || ahead) && (!old || nearOnly(oldRows)) && (!ahead || nearOnly(aheadRows)):
			hint("tolerance-wide", tol)
		case old && ahead:
			hint("timestamp-unchecked", tol)
		case ahead:
			hint("timestamp-ahead", tol)
		case old:
			hint("timestamp-old", tol)
		}
		if len(f.failedRows("WH-TIMESTAMP-CHANGED")) > 0 && f.passed("WH-TIMESTAMP-OLD") {
			hint("timestamp-unsigned", p.Webhook.PayloadSeparator)
		}
		if slices.Contains(f.failedRows("WH-HEADER-MALFORMED"), "form=timestamp-not-a-number") {
			hint("timestamp-nan")
		}
		if broke := f.broke("WH-HEADER-FORGED"); len(broke) > 0 && f.passed("WH-TIMESTAMP-OLD") {
			hint("header-forged", broke, p.Webhook.TimestampKey, p.Webhook.SignatureKey)
		}
		if broke := f.broke("WH-FORGERY-PATHS"); len(broke) > 0 && f.passed("WH-BODY-CHANGED") && f.passed("WH-TIMESTAMP-OLD") {
			hint("forgery-path", broke)
		}
	}

	if late {
		hint("late", p.Webhook.Timeout.String())
	}
	return hints
}

// broke names the first two generated deliveries of req that broke
// their sentence, "" when none did.
func (f hintFacts) broke(req string) string {
	var names []string
	for i, r := range f.results {
		if r.Requirement == req && r.Status == reports.Failed {
			names = append(names, f.observed[i].Broke...)
		}
	}
	if len(names) > 2 {
		names = append(names[:2], "…")
	}
	return strings.Join(names, "; ")
}

// duplicateRefused tells whether the retry of an accepted event got a
// refusal.
func (f hintFacts) duplicateRefused() bool {
	for i, r := range f.results {
		st := f.observed[i].Statuses
		if r.Requirement == "WH-DUPLICATE" && r.Status == reports.Failed && len(st) == 2 && is2xx(st[0]) && st[1] != 0 && !is2xx(st[1]) {
			return true
		}
	}
	return false
}
