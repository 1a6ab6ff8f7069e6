package steps

import (
	"fmt"
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
		if r.Status == reports.Failed && !o.Unreachable {
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

func answered(statuses []int) string {
	var s []string
	for _, st := range statuses {
		s = append(s, strconv.Itoa(st))
	}
	if len(s) == 0 {
		return "no status"
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
func webhookHints(e *Endpoint, results []reports.ScenarioResult, observed []observation) []string {
	p := e.profile()
	f := hintFacts{results, observed}
	header := p.Webhook.SignatureHeader
	tol := int64(p.Webhook.Tolerance.Seconds())
	var hints []string

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
		hints = append(hints, fmt.Sprintf("%d scenario(s) got no answer at all (%s): check that the endpoint runs at %s and that this machine can reach it.",
			unreachable, firstErr, e.URL))
	}

	accTotal, accFailed, accStatuses := f.tally("accept")
	refTotal, refFailed, refStatuses := f.tally("refuse")
	allRefused := accTotal > 0 && accFailed == accTotal && refFailed == 0
	allAccepted := refTotal > 0 && refFailed == refTotal && accFailed == 0
	switch {
	case allRefused:
		hints = append(hints, fmt.Sprintf("Everything was refused, the valid notifications too (answered %s): the endpoint verifies with another secret "+
			"than the one given (--webhook-secret), or computes the signature over a re-serialised body instead of the raw bytes it received "+
			"(read the body as bytes before any JSON parsing, and sign \"<t>%s\" + those bytes), or its clock is more than %d s off.",
			answered(accStatuses), p.Webhook.PayloadSeparator, tol))
	case allAccepted:
		hints = append(hints, fmt.Sprintf("Everything was accepted, the forged notifications too (answered %s): the endpoint does not verify the %s header "+
			"at all, so anyone who knows its URL can make it act. Verify the signature, and the age of t, before acting on a notification.",
			answered(refStatuses), header))
	}

	if !allRefused {
		if rows := f.failedRows("WH-RAW-BYTES"); len(rows) > 0 && f.passed("WH-STATE") {
			hints = append(hints, fmt.Sprintf("Notifications written as firmakit's encoder writes them were accepted, the same ones written otherwise "+
				"were refused (%s): the endpoint verifies a re-serialised or re-formatted body, not the raw bytes it received.", strings.Join(rows, "; ")))
		}
		rot := f.failedRows("WH-ROTATION")
		switch {
		case len(rot) == 1 && rot[0] == "valid=2":
			hints = append(hints, fmt.Sprintf("A header whose valid signature came second was refused: the endpoint checks only the first %s= entry. "+
				"During a secret rotation the service sends one entry per active secret; accept the notification when any entry matches.", p.Webhook.SignatureKey))
		case len(rot) == 1 && rot[0] == "valid=1":
			hints = append(hints, fmt.Sprintf("A header whose valid signature came first was refused: the endpoint checks only the last %s= entry; "+
				"accept the notification when any entry matches.", p.Webhook.SignatureKey))
		case len(rot) == 2 && f.passed("WH-STATE"):
			hints = append(hints, fmt.Sprintf("A header with two %s= entries was refused though one was valid: during a secret rotation the service "+
				"sends one entry per active secret; accept the notification when any entry matches.", p.Webhook.SignatureKey))
		}
		if f.duplicateRefused() {
			hints = append(hints, "The retry of an event the endpoint had accepted was refused: answer 2xx again to an event_id already handled "+
				"(and do nothing more), or the service retries it until it gives up.")
		}
	}

	if !allAccepted && f.passed("WH-WRONG-SECRET") {
		old, ahead := len(f.failedRows("WH-TIMESTAMP-OLD")) > 0, len(f.failedRows("WH-TIMESTAMP-AHEAD")) > 0
		switch {
		case old && ahead:
			hints = append(hints, fmt.Sprintf("The endpoint checks the signature but not the age of t: a notification captured once can be "+
				"replayed at any time. Refuse a t more than %d s from the endpoint's clock, either way.", tol))
		case ahead:
			hints = append(hints, fmt.Sprintf("The endpoint refuses an old t but not one ahead of its clock: refuse a t more than %d s away either way "+
				"(compare the absolute difference).", tol))
		case old:
			hints = append(hints, fmt.Sprintf("The endpoint refuses a t ahead of its clock but not an old one: refuse a t more than %d s away either way.", tol))
		}
		if len(f.failedRows("WH-TIMESTAMP-CHANGED")) > 0 && f.passed("WH-TIMESTAMP-OLD") {
			hints = append(hints, fmt.Sprintf("A signature was accepted with another t than the one it was made for: the endpoint's signature does "+
				"not cover t, so a replay with a fresh t passes its age check. The signed text is \"<t>%s\" + the raw body.", p.Webhook.PayloadSeparator))
		}
		if slices.Contains(f.failedRows("WH-HEADER-MALFORMED"), "form=timestamp-not-a-number") {
			hints = append(hints, "A t that is not a number was accepted: read as a number it is NaN, and an age check that compares a NaN "+
				"always passes. Refuse a t that is not base-10 digits.")
		}
	}

	if late {
		hints = append(hints, fmt.Sprintf("The endpoint answered after the %s delivery timeout: the service counts that as a failure and "+
			"retries. Answer 2xx first, do the work afterwards.", p.Webhook.Timeout))
	}
	return hints
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
