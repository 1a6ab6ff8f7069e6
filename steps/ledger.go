package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Ledger keeps every contract a run created, so that at the end of the
// run every notification received can be held against them: one event
// per demo contract and none for any other, no duplicate delivery after a
// 2xx, none late, none stray.
type Ledger struct {
	mu        sync.Mutex
	start     time.Time
	contracts map[string]*ledgerEntry
	last      time.Time
	// unsure are the titles of create requests that may have reached the
	// target without their answer coming back (see Unsure), by title.
	unsure map[string]int
	// down are the times the suite took its receiver down (see Down).
	down []downWindow
}

// downWindow is a time the suite's receiver refused connections.
type downWindow struct{ from, until time.Time }

type ledgerEntry struct {
	title          string
	sent, answered time.Time
	timed          bool // a scenario judged when its notification came
	// answeredLate tells that the suite's receiver answered the
	// contract's notifications only after the profile's delivery timeout:
	// a 2xx the sender no longer waited for, so a delivery again after it
	// is a retry, not a duplicate.
	answeredLate bool
}

// NewLedger starts a ledger for a run that begins at start.
func NewLedger(start time.Time) *Ledger {
	return &Ledger{start: start, contracts: map[string]*ledgerEntry{}}
}

// Created records a contract the target answered 201 for.
func (l *Ledger) Created(signatureID, title string, sent, answered time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.contracts[signatureID] = &ledgerEntry{title: title, sent: sent, answered: answered}
	if answered.After(l.last) {
		l.last = answered
	}
}

// Unsure records a create request with title that may have created a
// contract whose answer was lost (a gateway's 502, a broken connection):
// a notification of a contract the run does not know, with that title,
// is then not a stray. Each such request excuses one contract.
func (l *Ledger) Unsure(title string, at time.Time) {
	if title == "" {
		return // nothing to tell its notification by
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unsure == nil {
		l.unsure = map[string]int{}
	}
	l.unsure[title]++
	if at.After(l.last) {
		l.last = at
	}
}

// Down records that the suite took its receiver down from from until
// until: a notification of another contract due meanwhile met it down
// too, and came on a retry, late through no fault of the target's.
func (l *Ledger) Down(from, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = append(l.down, downWindow{from, until})
}

// downSlack is how near a down window a delivery counts as met by it: the
// refusal begins and ends a little after the step that asks for it.
const downSlack = time.Second

// downWhile returns a window the receiver was down in that meets
// [from, until], and whether there is one.
func (l *Ledger) downWhile(from, until time.Time) (downWindow, bool) {
	for _, w := range l.down {
		if w.from.Before(until) && w.until.After(from) {
			return w, true
		}
	}
	return downWindow{}, false
}

// AnsweredLate records that the suite's receiver was told to answer the
// contract's notifications only after the profile's delivery timeout.
func (l *Ledger) AnsweredLate(signatureID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.contracts[signatureID]; e != nil {
		e.answeredLate = true
	}
}

// Timed records that a scenario judged when the contract's notification
// came: its verdict (or its rerun alone) stands, and the ledger does not
// judge that again.
func (l *Ledger) Timed(signatureID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.contracts[signatureID]; e != nil {
		e.timed = true
	}
}

// Len returns how many contracts the run created.
func (l *Ledger) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.contracts)
}

// LedgerRequirement is the requirement tag of the ledger's result.
const LedgerRequirement = "RUN-LEDGER"

// Check waits until the last contract's quiet window has passed, then
// reads every notification received since the run began and returns the
// ledger's result. strays tells whether notifications for contracts the
// run did not create count against the target (an in-process receiver
// sees only this run's traffic; a shared one may not).
func (l *Ledger) Check(ctx context.Context, t *Target, lag *engine.LagMonitor, strays bool) reports.ScenarioResult {
	res := reports.ScenarioResult{Feature: "ledger", Lang: "all", Kind: "profile", Requirement: LedgerRequirement, Status: reports.Passed,
		Name: "the run's ledger: one notification per demo contract, none for any other title, no duplicate, late or stray notification"}
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	if err := engine.SleepUntil(ctx, last.Add(quietAfter)); err != nil {
		res.Status, res.Error = reports.Failed, err.Error()
		return res
	}
	recs, err := l.received(ctx, t)
	if err != nil {
		res.Status, res.Error = reports.Failed, "reading the receiver: "+err.Error()
		return res
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listRun(&res, recs)
	var f ledgerFindings
	byContract := l.group(&f, t, recs, strays)
	for _, id := range res.SignatureIDs {
		l.judgeContract(&f, t, lag, id, byContract[id])
	}
	switch n := len(f.againAfter2xx); {
	case n >= 2:
		for _, a := range f.againAfter2xx {
			f.problem(refDelivery, "%s", a)
		}
	case n == 1 && len(f.problems) == 0:
		res.Status = reports.Inconclusive
		res.Error = fmt.Sprintf("%d contract(s), %d notification(s) received: %s, once in the run: the sender may have read the 2xx late or not at all (a loaded machine, an answer lost on the way), "+
			"which a receiver cannot tell from a sender that delivers again after a 2xx; a service that does, does so again, and fails", len(l.contracts), len(recs), f.againAfter2xx[0])
	}
	// A lateness this process's own lag explains is no verdict either way;
	// the scenario that waited for it judged it (and ran again alone).
	if len(f.problems) > 0 {
		rest := ""
		for _, p := range f.problems[1:] {
			rest += "; " + p.Text
		}
		msg, facts := engine.Describe("%d contract(s), %d notification(s) received: %s%s", len(l.contracts), len(recs), f.problems[0], rest)
		res.Status, res.Breaks, res.FailureKind, res.Error, res.Facts = reports.Failed, f.breaks, f.kind(), msg, &facts
		if len(f.notJudged) > 0 {
			res.Error += "; not judged: " + strings.Join(f.notJudged, "; ")
		}
		if len(f.unknown) > 0 {
			res.Error += "; not judged, as a create request's answer was lost on the way: " + strings.Join(f.unknown, ", ")
		}
	}
	return res
}

// ledgerFindings are what the ledger's check found: problems fail it;
// lateness this process's lag explains, and notifications of contracts a
// lost answer may have created, are said but not judged.
type ledgerFindings struct {
	problems           []engine.Said
	notJudged, unknown []string
	// againAfter2xx are the events delivered again after a 2xx sooner
	// than the sender's timeout: a verdict when the run saw it twice or
	// more, since one alone may be a 2xx the sender read late (a loaded
	// machine, a lost answer), which no receiver can tell from a fault.
	againAfter2xx []string
	// breaks is the item of the documents the first problem breaks.
	breaks string
	// kinds are the kinds of failure of the problems, one each.
	kinds []reports.FailureKind
}

// problem notes a problem that breaks the item at ref, of the rule's
// kind (reports.RuleKind).
func (f *ledgerFindings) problem(ref, format string, a ...any) {
	f.problemAs(reports.RuleKind(ref), ref, format, a...)
}

// problemAs is problem for a failure of a known kind.
func (f *ledgerFindings) problemAs(kind reports.FailureKind, ref, format string, a ...any) {
	if f.breaks == "" {
		f.breaks = ref
	}
	f.problems = append(f.problems, engine.Say(format, a...))
	f.kinds = append(f.kinds, kind)
}

// kind is the kind of failure the problems share, reports.FailureRule
// when they are of several kinds ("" for none).
func (f *ledgerFindings) kind() reports.FailureKind {
	if len(f.kinds) == 0 {
		return ""
	}
	for _, k := range f.kinds[1:] {
		if k != f.kinds[0] {
			return reports.FailureRule
		}
	}
	return f.kinds[0]
}

// ledgerEvent is one event of a contract, with each of its deliveries.
type ledgerEvent struct{ deliveries []*receiver.Record }

// received reads every notification the receiver got since the run
// began, a page at a time.
func (l *Ledger) received(ctx context.Context, t *Target) ([]*receiver.Record, error) {
	var recs []*receiver.Record
	var after int64
	for {
		page, err := t.Notifications.List(ctx, receiver.Filter{Since: l.start, AfterID: after, Limit: 1000})
		if err != nil {
			return nil, err
		}
		recs = append(recs, page...)
		if len(page) < 1000 {
			return recs, nil
		}
		after = page[len(page)-1].ID
	}
}

// listRun puts every contract and event of the run in the result, for
// the certificate.
func (l *Ledger) listRun(res *reports.ScenarioResult, recs []*receiver.Record) {
	for id := range l.contracts {
		res.SignatureIDs = append(res.SignatureIDs, id)
	}
	sort.Strings(res.SignatureIDs)
	for _, r := range recs {
		if r.EventID != "" && !slices.Contains(res.EventIDs, r.EventID) {
			res.EventIDs = append(res.EventIDs, r.EventID)
		}
	}
	sort.Strings(res.EventIDs)
}

// group sorts the notifications by contract and event. One for a contract
// the run did not create is excused when a create request of its title
// lost its answer (once per such request), else a stray when strays
// count; an event_id two contracts use is a problem.
func (l *Ledger) group(f *ledgerFindings, t *Target, recs []*receiver.Record, strays bool) map[string]map[string]*ledgerEvent {
	excused := map[string]bool{}
	left := map[string]int{}
	for title, n := range l.unsure {
		left[title] = n
	}
	byContract := map[string]map[string]*ledgerEvent{}
	eventOwner := map[string]string{}
	for _, r := range recs {
		if _, ok := l.contracts[r.SignatureID]; !ok {
			if title := notificationTitle(t.Profile, r.Body); title != "" && !excused[r.SignatureID] && left[title] > 0 {
				excused[r.SignatureID] = true
				left[title]--
				f.unknown = append(f.unknown, fmt.Sprintf("%s %q", r.SignatureID, clip(title, 60)))
			}
			if !excused[r.SignatureID] && strays {
				f.problem(refNotDemo, "stray notification #%d (%s, event %q, signature_id %q): no contract of this run", r.ID, clip(r.State, 60), clip(r.EventID, 100), clip(r.SignatureID, 100))
			}
			continue
		}
		if owner, ok := eventOwner[r.EventID]; ok && owner != r.SignatureID {
			f.problem(refEventID, "event_id %q is used by two contracts, %s and %s", clip(r.EventID, 100), clip(owner, 100), clip(r.SignatureID, 100))
		}
		eventOwner[r.EventID] = r.SignatureID
		if byContract[r.SignatureID] == nil {
			byContract[r.SignatureID] = map[string]*ledgerEvent{}
		}
		ev := byContract[r.SignatureID][r.EventID]
		if ev == nil {
			ev = &ledgerEvent{}
			byContract[r.SignatureID][r.EventID] = ev
		}
		ev.deliveries = append(ev.deliveries, r)
	}
	return byContract
}

// judgeContract judges one contract's events: none for a title that is
// not a demo one; else exactly one, of the title's state, not delivered
// again after a 2xx answered in time, and (with a shared clock) arrived
// no sooner than 300 ms after the request was sent and within 1500 ms of
// the 201.
func (l *Ledger) judgeContract(f *ledgerFindings, t *Target, lag *engine.LagMonitor, id string, events map[string]*ledgerEvent) {
	entry := l.contracts[id]
	title := clip(entry.title, 60)
	state, demo := firmakit.DemoState(entry.title)
	if !demo {
		if len(events) > 0 {
			f.problem(refNotDemo, "contract %s %q is not a demo title but got %d notification event(s)", clip(id, 100), title, len(events))
		}
		return
	}
	switch len(events) {
	case 0:
		f.problemAs(reports.FailureNotificationMissing, refDemo, "contract %s %q expected exactly one %s event, got 0", clip(id, 100), title, state)
	case 1:
	default:
		f.problem(refDemo, "contract %s %q expected exactly one %s event, got %d", clip(id, 100), title, state, len(events))
	}
	for eid, ev := range events {
		first := ev.deliveries[0]
		if first.State != string(state) {
			f.problem(refDemo, "contract %s %q: event %q is %q, expected %s", clip(id, 100), title, clip(eid, 100), clip(first.State, 60), state)
		}
		for i := 1; i < len(ev.deliveries); i++ {
			prev, next := ev.deliveries[i-1], ev.deliveries[i]
			if prev.Status < 200 || prev.Status > 299 || entry.answeredLate {
				continue
			}
			// A sender that did not see the 2xx within its timeout
			// rightly sends again. Only a delivery again sooner than that
			// after the first, which this process's lateness cannot
			// explain, is a duplicate (with a shared clock).
			if timeout := t.Profile.Webhook.Timeout; t.SharedClock {
				gap := next.ReceivedAt.Sub(prev.ReceivedAt)
				if gap >= timeout || engine.ExcusedBy(lag.Max(prev.ReceivedAt, next.ReceivedAt), timeout-gap, t.SenderInProcess) {
					continue
				}
			}
			// A 2xx the receiver wrote as the suite had it refuse
			// connections may never have reached the sender: the refusal
			// closes the connections it holds.
			if w, down := l.downWhile(prev.ReceivedAt.Add(-downSlack), prev.ReceivedAt.Add(downSlack)); down {
				f.notJudged = append(f.notJudged, fmt.Sprintf("contract %s event %q delivered again (#%d) after a %d answer (#%d) the receiver wrote as the suite had it refuse connections for %s ms",
					clip(id, 100), clip(eid, 100), next.ID, prev.Status, prev.ID, engine.Millis(w.until.Sub(w.from))))
				continue
			}
			f.againAfter2xx = append(f.againAfter2xx, fmt.Sprintf("contract %s %q: event %q delivered again (#%d) after a %d answer (#%d)", clip(id, 100), title, clip(eid, 100), next.ID, prev.Status, prev.ID))
		}
		if !t.SharedClock || entry.timed {
			continue
		}
		// Certainly early: the service cannot have answered the create
		// before the request was sent, so a notification that arrived
		// less than 300 ms after it was sent came before "about 500 ms"
		// after the 201 could begin, whatever the network did. No lag of
		// this process can make an arrival look earlier than it was.
		if early := first.ReceivedAt.Sub(entry.sent); early < 300*time.Millisecond {
			f.problemAs(reports.FailureNotificationLate, refDemo, "contract %s %q: its %s notification arrived %s ms after the create request was sent, before the 300–1500 ms after the 201 could begin", clip(id, 100), title, state, engine.Millis(early))
			continue
		}
		if late := first.ReceivedAt.Sub(entry.answered); late > 1500*time.Millisecond {
			if w, down := l.downWhile(entry.answered, entry.answered.Add(1500*time.Millisecond)); down {
				f.notJudged = append(f.notJudged, fmt.Sprintf("contract %s arrived %s ms after the 201, after the suite had its receiver refuse connections for %s ms while its first delivery was due",
					clip(id, 100), engine.Millis(late), engine.Millis(w.until.Sub(w.from))))
			} else if lg := lag.Max(entry.sent, first.ReceivedAt); engine.ExcusedBy(lg, late-1500*time.Millisecond, t.SenderInProcess) {
				f.notJudged = append(f.notJudged, fmt.Sprintf("contract %s arrived %s ms after the 201 while this process ran %s ms late", clip(id, 100), engine.Millis(late), engine.Millis(lg)))
			} else {
				f.problemAs(reports.FailureNotificationLate, refDemo, "contract %s %q: its %s notification arrived %s ms after the 201, outside 300–1500 ms", clip(id, 100), title, state, engine.Millis(late))
			}
		}
	}
}

// notificationTitle reads the title of a notification's body ("" when it
// has none).
func notificationTitle(p *firmakit.Profile, body []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	var title string
	_ = json.Unmarshal(m[p.Notification.Title], &title)
	return title
}
