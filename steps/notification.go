package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// answerer is a receiver that can be told how to answer a contract's next
// notifications (an in-process receiver, or a remote one through its API).
type answerer interface {
	AnswerNext(ctx context.Context, channel, signatureID string, a receiver.Answer, count int) error
}

var (
	_ answerer = (*receiver.Receiver)(nil)
	_ answerer = (*receiver.Client)(nil)
)

// arrival is when the suite takes a notification to have arrived: the
// receiver's own time when it shares this clock, else the time the wait
// returned (a remote receiver's clock may differ from ours).
func (s *Steps) arrival(r *receiver.Record, waited time.Time) time.Time {
	if s.T.SharedClock {
		return r.ReceivedAt
	}
	return waited
}

// awaitFirst waits for the contract's first notification and judges when
// it came: from when the 201 was seen to when it reached the receiver.
// A notification outside the window for certain is a failure, unless this
// process ran late by at least the miss; a missing one is told apart
// from a late one by waiting missingAfter.
func (s *Steps) awaitFirst(ctx context.Context, state string, minMS, maxMS int) error {
	sc := get(ctx)
	if sc.created == "" {
		return fmt.Errorf("no contract was created")
	}
	lo, hi := time.Duration(minMS)*time.Millisecond, time.Duration(maxMS)*time.Millisecond
	if s.Ledger != nil {
		s.Ledger.Timed(sc.created)
	}
	wctx, cancel := context.WithDeadline(ctx, sc.answered.Add(missingAfter))
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{SignatureID: sc.created})
	waited := time.Now()
	if errors.Is(err, receiver.ErrTimeout) {
		r, err = s.storedLate(ctx, receiver.Filter{SignatureID: sc.created}, sc.answered.Add(missingAfter))
	}
	if errors.Is(err, receiver.ErrTimeout) {
		if lag := s.Lag.Max(sc.sentAt, waited); s.excused(lag, missingAfter-hi) {
			return s.inconclusive(ctx, "no %s notification within %s of the 201, but this process ran up to %s ms late meanwhile", state, missingAfter, engine.Millis(lag))
		}
		return engine.BreaksAs(reports.FailureNotificationMissing, "§6.2 paragraph 1", "expected a %s notification for signature_id %s %d–%d ms after the 201; none arrived within %s",
			state, sc.created, minMS, maxMS, missingAfter)
	}
	if err != nil {
		return err
	}
	at := s.arrival(r, waited)
	sc.note, sc.noteAt = r, at
	afterSent, after201, rtt := at.Sub(sc.sentAt), at.Sub(sc.answered), sc.answered.Sub(sc.sentAt)
	NoteTiming(ctx, r.State, after201)
	NoteEventID(ctx, r.EventID)
	switch {
	case afterSent < lo:
		return engine.Breaks(refDemo, "expected the %s notification %d–%d ms after the 201; it arrived %s ms after the request was sent (the 201 came after %s ms): too early",
			state, minMS, maxMS, engine.Millis(afterSent), engine.Millis(rtt))
	case after201 > hi:
		lag := s.Lag.Max(sc.sentAt, at)
		if s.excused(lag, after201-hi) {
			return s.inconclusive(ctx, "the %s notification arrived %s ms after the 201, outside %d–%d ms, but this process ran up to %s ms late meanwhile",
				state, engine.Millis(after201), minMS, maxMS, engine.Millis(lag))
		}
		if at, ok := s.eventTimeInWindow(r, sc.answered, hi); ok {
			return s.inconclusive(ctx, "the %s notification arrived %s ms after the 201, outside %d–%d ms, but it says the event was %s ms after it: the rest of the way ran in this process, sender and receiver alike, which a starved machine slows without a late wake-up to show it",
				state, engine.Millis(after201), minMS, maxMS, engine.Millis(at))
		}
		return engine.BreaksAs(reports.FailureNotificationLate, refDemo, "expected the %s notification %d–%d ms after the 201; it arrived %s ms after the 201, outside %d–%d ms (this process ran at most %s ms late meanwhile)",
			state, minMS, maxMS, engine.Millis(after201), minMS, maxMS, engine.Millis(lag))
	case (after201 < lo || afterSent > hi) && rtt > ambiguity:
		// The contract was made somewhere between the request and the
		// 201; when that span straddles a bound the delay cannot be told,
		// unless the 201 was held: see heldAnswer.
		if err := s.heldAnswer(ctx, state, after201, rtt, lo, hi); err != nil {
			return err
		}
		lag := s.Lag.Max(sc.sentAt, sc.answered)
		return s.inconclusive(ctx, "the %s notification arrived %s–%s ms after the contract was made, across the %d–%d ms window: the target's 201 took %s ms to come back (this process ran at most %s ms late meanwhile)",
			state, engine.Millis(after201), engine.Millis(afterSent), minMS, maxMS, engine.Millis(rtt), engine.Millis(lag))
	}
	if r.State != state {
		return engine.Breaks("§6.2 "+demoPrefixOf(state), "expected a %s notification for signature_id %s, the first one is %q: %s", engine.Want(state), sc.created, engine.Seen(clip(r.State, 60)), clip(string(r.Body), 500))
	}
	return nil
}

// heldAnswer judges a notification that came before, or too soon after,
// a 201 that took at least the window's low bound to come back. When this
// is the scenario's run alone, after a first run that saw the same, the
// target is measured: a few signed check requests. If they come back in
// a few milliseconds, the network and this machine account for no more
// than that, and this process's lateness for no more than LagHops times
// the lag it measured, so the 201 left the target at most that long
// before it arrived: the notification arrived after201 plus that after the 201 was
// sent, and below the window that is a failure (the service held its 201
// until it had sent the notification). Otherwise it returns nil, and the
// caller calls the timing inconclusive.
func (s *Steps) heldAnswer(ctx context.Context, state string, after201, rtt, lo, hi time.Duration) error {
	if !s.Alone || rtt < lo {
		return nil
	}
	sc := get(ctx)
	slowest := time.Duration(0)
	for range heldProbes {
		v := newScenario(s.T.Credential)
		v.endpoint, v.body = "check", s.checkBody()
		if err := s.send(v.context(ctx), v); err != nil || v.inconclusive != "" || v.status != http.StatusOK {
			return nil
		}
		slowest = max(slowest, v.answered.Sub(v.sentAt))
	}
	// The 201 reached this process at most slowest after it left the
	// target, plus what this process's lateness added on the way: each
	// goroutine the answer passes (and, the target's sender running here,
	// its own) may wait about the lag measured (engine.LagHops). Under
	// load a 201 was once read 343 ms after the bundled reference wrote
	// it, while the lag measured was 88 ms.
	lag := s.Lag.Max(sc.sentAt, time.Now())
	bound := slowest + lag*engine.LagHops(s.T.SenderInProcess)
	if slowest >= ambiguity || after201+bound >= lo {
		return nil
	}
	return engine.Breaks(refDemo, "expected the %s notification %d–%d ms after the 201 was sent; it arrived %s ms after the 201 reached this process (before it, when negative), on the first run and again alone. The 201 took %s ms where the target answers a check in %s ms or less (this process ran at most %s ms late, each goroutine on the way counted): the 201 left the target at most %s ms before it arrived, so the notification came at most %s ms after it. The service holds its 201 until it has sent the notification",
		state, lo.Milliseconds(), hi.Milliseconds(), engine.Millis(after201), engine.Millis(rtt), engine.Millis(slowest), engine.Millis(lag), engine.Millis(bound), engine.Millis(after201+bound))
}

// heldProbes is how many check requests heldAnswer measures the target
// with.
const heldProbes = 3

// eventTimeInWindow tells, for a sender that runs in this process (the
// bundled reference), whether the notification's own created_at puts the
// event within hi of the 201: then what made it arrive later was the way
// from the sender's timer to the receiver's store, all of it in this
// process, whose slowness on a starved machine (the race detector, CPU
// hogs) need not show as a late wake-up. Such a miss is no verdict. A
// sender elsewhere is judged by the arrival alone: its way is its own.
func (s *Steps) eventTimeInWindow(r *receiver.Record, answered time.Time, hi time.Duration) (time.Duration, bool) {
	if !s.T.SenderInProcess || !s.T.SharedClock {
		return 0, false
	}
	n, _, err := s.T.Profile.DecodeNotification(r.Body)
	if err != nil {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, n.CreatedAt)
	if err != nil {
		return 0, false
	}
	after := t.Sub(answered)
	return after, after <= hi && !t.After(r.ReceivedAt)
}

// settler is an in-process receiver that can wait until every
// notification whose request has come in is stored (*receiver.Receiver).
type settler interface {
	Settle(ctx context.Context) error
}

// settleWait bounds how long the suite waits for its in-process receiver
// to store what it has received.
const settleWait = 30 * time.Second

// storedLate looks, once a wait for f ran out, for a notification that
// the in-process receiver received by deadline but had not yet stored: on
// a busy machine storing can lag seconds behind receiving, and that lag
// is the suite's, not the target's. It returns receiver.ErrTimeout when
// there is none, or when the receiver cannot tell (a remote one).
func (s *Steps) storedLate(ctx context.Context, f receiver.Filter, deadline time.Time) (*receiver.Record, error) {
	st, ok := s.T.Notifications.(settler)
	if !ok || !s.T.SharedClock {
		return nil, receiver.ErrTimeout
	}
	sctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	if err := st.Settle(sctx); err != nil {
		return nil, receiver.ErrTimeout
	}
	f.Limit, f.Newest = 1, false
	found, err := s.T.Notifications.List(ctx, f)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 || found[0].ReceivedAt.After(deadline) {
		return nil, receiver.ErrTimeout
	}
	return found[0], nil
}

// retrySlack is how much earlier than the profile's first retry delay a
// delivery again may be measured: timers and clocks are not exact.
const retrySlack = 100 * time.Millisecond

// ambiguity is how long a request may take before the moment the
// contract was made is too uncertain to judge a delay near a bound.
const ambiguity = 100 * time.Millisecond

func (s *Steps) exactlyOneNotificationArrivesBetween(ctx context.Context, state string, minMS, maxMS int) error {
	if err := s.awaitFirst(ctx, state, minMS, maxMS); err != nil {
		return err
	}
	sc := get(ctx)
	// Exactly one: nothing else for this contract until the quiet window
	// closes.
	if err := engine.SleepUntil(ctx, sc.answered.Add(quietAfter)); err != nil {
		return err
	}
	all, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Limit: 20})
	if err != nil {
		return err
	}
	if within := inQuietWindow(all); len(within) != 1 {
		return engine.Breaks(refDemo, "expected exactly one notification for signature_id %s until %s after the 201, got %d: %s",
			sc.created, quietAfter, len(within), s.listing(sc, within))
	}
	return nil
}

// inQuietWindow are the notifications that arrived within quietAfter of
// the first, by the receiver's clock. One that came later is not this
// window's to judge, whenever this process got to read the receiver (a
// busy machine wakes it late): a delivery again after the delivery
// timeout is the profile's retry of an answer the sender did not see in
// time, which the run's ledger judges, and a second notification is in
// the window, as it comes at once.
func inQuietWindow(recs []*receiver.Record) []*receiver.Record {
	if len(recs) == 0 {
		return recs
	}
	first := recs[0].ReceivedAt
	for _, r := range recs[1:] {
		if r.ReceivedAt.Before(first) {
			first = r.ReceivedAt
		}
	}
	var within []*receiver.Record
	for _, r := range recs {
		if !r.ReceivedAt.After(first.Add(quietAfter)) {
			within = append(within, r)
		}
	}
	return within
}

// listing describes notifications for a failure message.
func (s *Steps) listing(sc *scenario, recs []*receiver.Record) string {
	var parts []string
	for _, r := range recs {
		p := fmt.Sprintf("%s event %s", r.State, r.EventID)
		if s.T.SharedClock {
			p += " at " + engine.Millis(r.ReceivedAt.Sub(sc.answered)) + " ms"
		}
		if r.Status != 0 {
			p += fmt.Sprintf(" (answered %d)", r.Status)
		} else {
			p += " (hung up on)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

func (s *Steps) aNotificationArrivesBetween(ctx context.Context, state string, minMS, maxMS int) error {
	if err := s.awaitFirst(ctx, state, minMS, maxMS); err != nil {
		return err
	}
	sc := get(ctx)
	if sc.answerCount == 0 {
		return nil
	}
	if want := recorded(sc.answer); sc.note.Status != want {
		return s.inconclusive(ctx, "the receiver was to answer the first delivery %s but %s: it was told after the delivery came",
			answerText(sc.answer), answerText(receiver.Answer{Status: sc.note.Status, HangUp: sc.note.Status == 0}))
	}
	if s.T.SharedClock && sc.note.ReceivedAt.Before(sc.programmedAt) {
		return s.inconclusive(ctx, "the first delivery came before the receiver was told to answer it %s", answerText(sc.answer))
	}
	return nil
}

// recorded is the status a receiver's record keeps for an answer.
func recorded(a receiver.Answer) int {
	if a.HangUp {
		return 0
	}
	return a.Status
}

// answerText says how a delivery was answered, for messages.
func answerText(a receiver.Answer) string {
	switch {
	case a.HangUp && a.Reset:
		return "with no answer (the connection reset)"
	case a.HangUp:
		return "with no answer (the connection closed)"
	case a.Delay > 0:
		return fmt.Sprintf("%d after %s", a.Status, a.Delay)
	}
	return strconv.Itoa(a.Status)
}

// heldPast is how much longer than the profile's delivery timeout the
// receiver holds a late answer: more than timers and transit blur.
const heldPast = 2 * time.Second

func (s *Steps) theWebhookAnswersToTheFirstNotification(ctx context.Context, status int) error {
	return s.answerFirst(ctx, receiver.Answer{Status: status}, 1)
}

func (s *Steps) theWebhookAnswersToTheFirstNotifications(ctx context.Context, status, count int) error {
	return s.answerFirst(ctx, receiver.Answer{Status: status}, count)
}

// theWebhookAnswersToEveryNotification has the receiver answer status to
// every delivery of the contract's notification: the first, one per
// retry of the profile, and more than a sender that keeps retrying
// would make while the scenario watches.
func (s *Steps) theWebhookAnswersToEveryNotification(ctx context.Context, status int) error {
	retries := s.T.Profile.Webhook.Retries
	var whole, longest time.Duration
	for _, r := range retries {
		whole, longest = whole+r, max(longest, r)
	}
	if whole+longest > maxScheduleWatch {
		return s.notRun(ctx, fmt.Sprintf("the profile's retry schedule (webhook.retries) lasts %s, and watching past its end %s more: longer than the %s a scenario waits (leave it out with --tags '~@DEMO-RETRY-EXHAUSTED')", whole, longest, maxScheduleWatch))
	}
	return s.answerFirst(ctx, receiver.Answer{Status: status}, len(retries)+3)
}

// maxScheduleWatch bounds how long a scenario waits out a profile's
// whole retry schedule; a longer schedule is not run.
const maxScheduleWatch = 10 * time.Minute

func (s *Steps) theWebhookAnswersOnlyAfterTheDeliveryTimeout(ctx context.Context, status int) error {
	timeout := s.T.Profile.Webhook.Timeout
	switch {
	case timeout <= 0:
		return s.notRun(ctx, "the profile has no delivery timeout (webhook.timeout)")
	case timeout+heldPast > time.Minute:
		return s.notRun(ctx, fmt.Sprintf("the profile's delivery timeout %s is longer than a receiver holds an answer (1m less %s)", timeout, heldPast))
	}
	return s.answerFirst(ctx, receiver.Answer{Status: status, Delay: timeout + heldPast}, 1)
}

// theWebhookHangsUpOnTheFirstNotification has the receiver end the first
// delivery's connection without an answer: closed (a FIN, the sender
// reads an EOF) or reset (a TCP RST, "connection reset by peer"), the two
// ways an endpoint that crashes or restarts, or a proxy before it, drops
// a request. Either is a delivery that was not answered 2xx.
func (s *Steps) theWebhookHangsUpOnTheFirstNotification(ctx context.Context, how string) error {
	return s.answerFirst(ctx, receiver.Answer{HangUp: true, Reset: how == "RST"}, 1)
}

// answerFirst notes how the receiver is to answer the contract's first
// count notifications; programAnswer tells it once the contract exists.
func (s *Steps) answerFirst(ctx context.Context, a receiver.Answer, count int) error {
	if _, ok := s.T.Notifications.(answerer); !ok {
		return s.notRun(ctx, "the receiver cannot be told how to answer (use the in-process receiver or a firmakit receive)")
	}
	sc := get(ctx)
	sc.answer, sc.answerCount = a, count
	return nil
}

// programAnswer tells the receiver how to answer the contract's first
// notifications, as soon as its signature_id is known.
func (s *Steps) programAnswer(ctx context.Context, sc *scenario) error {
	f, _ := s.T.Notifications.(answerer)
	at := time.Now()
	if err := f.AnswerNext(ctx, s.T.channel(), sc.created, sc.answer, sc.answerCount); err != nil {
		return fmt.Errorf("telling the receiver to answer %s: %w", answerText(sc.answer), err)
	}
	sc.programmedAt = at
	if s.Ledger != nil && sc.answer.Delay > s.T.Profile.Webhook.Timeout {
		s.Ledger.AnsweredLate(sc.created)
	}
	return nil
}

func (s *Steps) itIsDeliveredAgainWithTheSameEventID(ctx context.Context) error {
	return s.awaitRetry(ctx, get(ctx))
}

// itIsDeliveredMoreTimes waits for n deliveries again, each judged as
// awaitRetry does. A retry that came but whose gap this process's
// lateness leaves unjudged does not end the wait: a later gap, longer
// against the schedule, may still be judged (a schedule of 1 s waits
// where it says 1, 2, 4, 8 and 16 s misses by 1 s first, then by 3, 7 and
// 15 s). A failure of a later one fails the step; else the first unjudged
// one leaves it inconclusive.
func (s *Steps) itIsDeliveredMoreTimes(ctx context.Context, n int) error {
	sc := get(ctx)
	var unjudged string
	var facts *reports.Facts
	for i := 0; i < n; i++ {
		before := len(sc.retries)
		err := s.awaitRetry(ctx, sc)
		switch {
		case err == nil:
			continue
		case errors.Is(err, godog.ErrSkip) && sc.inconclusive != "" && len(sc.retries) > before:
			if unjudged == "" {
				unjudged, facts = sc.inconclusive, sc.inconclusiveFacts
			}
			sc.inconclusive, sc.inconclusiveFacts = "", nil
			continue
		}
		return err
	}
	if unjudged != "" {
		sc.inconclusive, sc.inconclusiveFacts = unjudged, facts
		return godog.ErrSkip
	}
	return nil
}

// itIsDeliveredAfterEachRetryDelay waits for one delivery again per
// retry of the profile's schedule, each judged as awaitRetry does.
func (s *Steps) itIsDeliveredAfterEachRetryDelay(ctx context.Context) error {
	return s.itIsDeliveredMoreTimes(ctx, len(s.T.Profile.Webhook.Retries))
}

// noDeliveryFollowsTheLastRetry checks that once the profile's retries
// are spent, none answered 2xx, the event is not delivered again: the
// service records it as failed. It watches for the longest wait of the
// schedule after the last delivery, and the quiet window: a sender that
// goes on retrying at any wait of its schedule is seen.
func (s *Steps) noDeliveryFollowsTheLastRetry(ctx context.Context) error {
	sc := get(ctx)
	retries := s.T.Profile.Webhook.Retries
	if sc.note == nil || len(sc.retries) != len(retries) {
		return fmt.Errorf("the profile's %d retries were not all seen (%d)", len(retries), len(sc.retries))
	}
	last, longest := sc.noteAt, time.Duration(0)
	if n := len(sc.retryAt); n > 0 {
		last = sc.retryAt[n-1]
	}
	for _, r := range retries {
		longest = max(longest, r)
	}
	watch := longest + quietAfter
	if err := engine.SleepUntil(ctx, last.Add(watch)); err != nil {
		return err
	}
	all, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Limit: len(retries) + 5})
	if err != nil {
		return err
	}
	if want := 1 + len(retries); len(all) != want {
		return engine.Breaks(refDelivery, "expected %d deliveries (the first and the profile's %d retries, each answered %s), then none: the event is recorded as failed; got %d within %s of the last retry: %s",
			want, len(retries), answerText(sc.answer), len(all), watch, s.listing(sc, all))
	}
	return nil
}

// awaitRetry waits for the next delivery again of the contract's first
// event and judges it: not sooner than the profile's retry delay after
// the delivery before (plus the delivery timeout when that one was
// answered only after it), the same event.
func (s *Steps) awaitRetry(ctx context.Context, sc *scenario) error {
	if sc.note == nil {
		return fmt.Errorf("no first notification")
	}
	retries := s.T.Profile.Webhook.Retries
	k := len(sc.retries)
	if k >= len(retries) {
		return s.notRun(ctx, fmt.Sprintf("the profile has %d retries (webhook.retries), the scenario waits for %d", len(retries), k+1))
	}
	prev, prevAt := sc.note, sc.noteAt
	if k > 0 {
		prev, prevAt = sc.retries[k-1], sc.retryAt[k-1]
	}
	answered := receiver.Answer{Status: prev.Status, HangUp: prev.Status == 0}
	if k < sc.answerCount && sc.answer.HangUp && answered.HangUp {
		answered = sc.answer // closed or reset: the record keeps 0 for both
	}
	delay, what := retries[k], fmt.Sprintf("the profile's retry delay %s", retries[k])
	if timeout := s.T.Profile.Webhook.Timeout; k < sc.answerCount && sc.answer.Delay > timeout {
		// The sender gives up waiting at its timeout, then waits its
		// retry delay. When it gave up cannot be seen to better than
		// this process's lateness on the first delivery's way in, which
		// is most of a second under load: only the timeout is judged
		// (the retry delays are, after the other answers).
		answered = sc.answer
		delay = timeout
		what = fmt.Sprintf("the profile's delivery timeout %s", timeout)
	}
	// After a late answer the sender retries at its timeout plus its
	// retry delay: only the timeout is judged, but the wait covers both.
	wait := delay + missingAfter
	if delay != retries[k] {
		wait += retries[k]
	} else if timeout := s.T.Profile.Webhook.Timeout; timeout > 0 {
		// The sender starts its retry delay when it has read the answer,
		// which may be as late as its timeout after it sent: a loaded
		// sender, or a slow way back, is no missing retry.
		wait += timeout
	}
	wctx, cancel := context.WithDeadline(ctx, prevAt.Add(wait))
	defer cancel()
	again := receiver.Filter{SignatureID: sc.created, AfterID: prev.ID}
	r, err := s.T.Notifications.Wait(wctx, again)
	waited := time.Now()
	if errors.Is(err, receiver.ErrTimeout) {
		r, err = s.storedLate(ctx, again, prevAt.Add(wait))
	}
	if errors.Is(err, receiver.ErrTimeout) {
		if lag := s.Lag.Max(prevAt, waited); s.excused(lag, missingAfter) {
			return s.inconclusive(ctx, "the notification answered %s was not delivered again within %s, but this process ran up to %s ms late meanwhile", answerText(answered), wait, engine.Millis(lag))
		}
		return engine.Breaks(refDelivery, "expected the notification answered %s to be delivered again after %s (%d of the first event's deliveries so far); nothing came within %s",
			answerText(answered), what, k+1, wait)
	}
	if err != nil {
		return err
	}
	at := s.arrival(r, waited)
	sc.again = r
	sc.retries, sc.retryAt = append(sc.retries, r), append(sc.retryAt, at)
	gap := at.Sub(prevAt)
	// A retry is judged against the retry schedule, not the demo window:
	// it is left off the report's timeline.
	NoteEventID(ctx, r.EventID)
	// Both deliveries are measured the same way, so their gap is the
	// retry's wait give or take how much later the first one reached the
	// receiver than the second: at most what this process's lag explains.
	// Only lateness around the two arrivals can bend their gap: a stall
	// that held back the first one's record woke at or after it. The
	// lateness since the create (a loaded run's start) bends nothing here.
	lag := s.Lag.Max(prevAt.Add(-time.Second), at)
	switch {
	case !s.excused(lag, delay-gap-retrySlack) && gap < delay-retrySlack:
		return engine.Breaks(refDelivery, "expected the delivery again after %s following the one answered %s; it came after %s ms: too early (this process ran at most %s ms late meanwhile)",
			what, answerText(answered), engine.Millis(gap), engine.Millis(lag))
	case gap < delay-retrySlack:
		return s.inconclusive(ctx, "the delivery again came %s ms after the one before, sooner than %s, but this process ran up to %s ms late meanwhile", engine.Millis(gap), what, engine.Millis(lag))
	}
	// "Retries after 1 s" is judged as not sooner; a later retry, within
	// missingAfter, is still the retry: a sender's queue on a loaded
	// machine may hold it back, and the rule checked here is the event_id.
	first, _, err1 := s.T.Profile.DecodeNotification(sc.note.Body)
	second, _, err2 := s.T.Profile.DecodeNotification(r.Body)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if first.EventID == "" || second.EventID != first.EventID {
		return engine.Breaks(refEventID, "expected the delivery again to carry the same %s %q, got %q", engine.Field(s.T.Profile.Notification.EventID), engine.Want(clip(first.EventID, 100)), engine.Seen(clip(second.EventID, 100)))
	}
	if second.SignatureID != first.SignatureID || second.Status != first.Status {
		return engine.Breaks(refDelivery, "expected the delivery again to be the same event, got %s", clip(string(r.Body), 500))
	}
	return nil
}

func (s *Steps) theDeliveryAgainHasAValidSignature(ctx context.Context) error {
	sc := get(ctx)
	if len(sc.retries) == 0 {
		return fmt.Errorf("no delivery again")
	}
	for _, r := range sc.retries {
		if err := s.signatureValid(r); err != nil {
			return err
		}
	}
	return nil
}

func (s *Steps) noFurtherDeliveryFollows(ctx context.Context) error {
	sc := get(ctx)
	if sc.again == nil {
		return fmt.Errorf("no delivery again")
	}
	if sc.again.Status < 200 || sc.again.Status > 299 {
		return fmt.Errorf("expected the receiver to answer the delivery again with a 2xx, it answered %d", sc.again.Status)
	}
	if err := engine.SleepUntil(ctx, sc.retryAt[len(sc.retryAt)-1].Add(quietAfter)); err != nil {
		return err
	}
	all, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Limit: 20})
	if err != nil {
		return err
	}
	if want := 1 + len(sc.retries); len(all) != want {
		if len(all) > want && !s.Alone {
			return s.againAfter2xx(ctx, sc.again.Status, len(all)-want)
		}
		return engine.Breaks(refDelivery, "expected %d deliveries (%d answered %s, then one answered 2xx) and no more within %s, got %d: %s",
			want, want-1, answerText(sc.answer), quietAfter, len(all), s.listing(sc, all))
	}
	return nil
}

// itIsNotDeliveredAgain checks that a delivery answered with a 2xx at
// once, a success, is not sent again: nothing more comes until the
// profile's first retry delay and the quiet window have passed.
func (s *Steps) itIsNotDeliveredAgain(ctx context.Context) error {
	sc := get(ctx)
	if sc.note.Status < 200 || sc.note.Status > 299 {
		return fmt.Errorf("expected the receiver to answer the notification with a 2xx, it answered %s", answerText(receiver.Answer{Status: sc.note.Status, HangUp: sc.note.Status == 0}))
	}
	wait := quietAfter
	if retries := s.T.Profile.Webhook.Retries; len(retries) > 0 {
		wait += retries[0]
	}
	if err := engine.SleepUntil(ctx, sc.noteAt.Add(wait)); err != nil {
		return err
	}
	all, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Limit: 20})
	if err != nil {
		return err
	}
	if len(all) != 1 {
		if len(all) > 1 && !s.Alone {
			return s.againAfter2xx(ctx, sc.note.Status, len(all)-1)
		}
		return engine.Breaks(refDelivery, "expected no delivery again of the notification answered %d, a success, within %s; got %d deliveries: %s",
			sc.note.Status, wait, len(all), s.listing(sc, all))
	}
	return nil
}

// againAfter2xx leaves a row inconclusive on its first run when a
// notification came again after the receiver answered it 2xx: a sender
// that read that answer late, past its timeout, or lost it on the way (a
// loaded machine, a dropped connection) rightly delivers it again, and no
// receiver can tell that from a sender that delivers again after a 2xx.
// Only a reproducible answer is a verdict: the row runs again alone, where
// a service at fault does it again and fails.
func (s *Steps) againAfter2xx(ctx context.Context, status, extra int) error {
	return s.inconclusive(ctx, "%d delivery(ies) again after the answer %d, a success: the sender may have read that answer late or lost it (a loaded machine), which a receiver cannot tell from a fault; run again alone to tell", extra, status)
}

func (s *Steps) signatureValid(r *receiver.Record) error {
	h := r.Header.Get(s.T.Profile.Webhook.SignatureHeader)
	if err := s.T.Profile.VerifyWebhook(h, r.Body, s.T.WebhookSecrets, r.ReceivedAt); err != nil {
		return engine.BreaksAs(reports.FailureWebhookSignature, refWebhookSig, "expected a valid %s header for the webhook secret, got %q: %v", s.T.Profile.Webhook.SignatureHeader, clip(h, 300), err)
	}
	return nil
}

func (s *Steps) itsSignatureIsValidForTheWebhookSecret(ctx context.Context) error {
	return s.signatureValid(get(ctx).note)
}

func (s *Steps) notification(ctx context.Context) (firmakit.Notification, map[string]json.RawMessage, error) {
	r := get(ctx).note
	n, raw, err := s.T.Profile.DecodeNotification(r.Body)
	if err != nil {
		return n, raw, engine.Breaks(refPayload, "expected the notification body to be the profile's payload: %v: %s", err, clip(string(r.Body), 500))
	}
	return n, raw, nil
}

func (s *Steps) itsSignatureIDIsTheOneCreated(ctx context.Context) error {
	n, _, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if want := get(ctx).created; n.SignatureID != want {
		return engine.Breaks(refPayloadKeys, "expected %s %q, got %q", engine.Field(s.T.Profile.Notification.SignatureID), engine.Want(want), engine.Seen(clip(n.SignatureID, 100)))
	}
	return nil
}

// itHoldsExactlyTheFieldsOfANotification checks the payload's shape
// under the profile's field names: every field of the state, the
// document_url and reason only with their states, nothing null, strings
// but for the demo flag. A key the profile does not name is a warning:
// the profile shows the payload but does not say "exactly".
func (s *Steps) itHoldsExactlyTheFieldsOfANotification(ctx context.Context, state string) error {
	body := get(ctx).note.Body
	obj, err := object(body)
	if err != nil {
		return engine.Breaks(refPayload, "expected the notification to be a JSON object, got %s", clip(string(body), 500))
	}
	f := s.T.Profile.Notification
	var want []string
	for _, k := range []string{f.EventID, f.Type, f.MerchantID, f.SignatureID, f.Title, f.Status, f.Demo, f.CreatedAt} {
		if k != "" {
			want = append(want, k)
		}
	}
	st := firmakit.State(state)
	switch {
	case st.HasDocumentURL() && f.DocumentURL != "":
		want = append(want, f.DocumentURL)
	case st.HasReason() && f.Reason != "":
		want = append(want, f.Reason)
	}
	for _, k := range []string{f.DocumentURL, f.Reason} {
		if _, ok := obj[k]; ok && k != "" && !slices.Contains(want, k) {
			return engine.Breaks(refPayloadKeys, "expected no %s in a %s notification: %s", engine.Field(k), state, clip(string(body), 500))
		}
	}
	var extra []string
	for k := range obj {
		if !slices.Contains(want, k) {
			extra = append(extra, k)
		}
	}
	if err := exactKeys("the notification", obj, want, extra...); err != nil {
		return engine.Breaks(refPayload, "%v: %s", err, clip(string(body), 500))
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		for i := range extra {
			extra[i] = clip(extra[i], 60)
		}
		engine.Warn(ctx, refPayload, "the profile shows the payload without saying \"exactly\", so more keys are allowed; a receiver should ignore keys it does not know, but a strict one may refuse them",
			"the notification holds keys the profile does not name: %s", strings.Join(extra, ", "))
	}
	for k, v := range obj {
		var str string
		if k == f.Demo {
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return engine.Breaks(refPayload, "expected %s to be a boolean, got %s", engine.Field(k), engine.Seen(clip(string(v), 100)))
			}
		} else if slices.Contains(want, k) && json.Unmarshal(v, &str) != nil {
			return engine.Breaks(refPayload, "expected %s to be a string, got %s", engine.Field(clip(k, 60)), engine.Seen(clip(string(v), 100)))
		}
	}
	return nil
}

// stringField returns a notification field that must be a string.
func (s *Steps) stringField(ctx context.Context, name string) (string, error) {
	_, raw, err := s.notification(ctx)
	if err != nil {
		return "", err
	}
	v, ok := raw[name]
	var str string
	if !ok || json.Unmarshal(v, &str) != nil {
		return "", engine.Breaks(refPayload, "expected the notification's %s to be a string, got %s", engine.Field(name), engine.Seen(clip(string(v), 100)))
	}
	return str, nil
}

func (s *Steps) fieldEquals(ctx context.Context, name, want string) error {
	v, err := s.stringField(ctx, name)
	if err != nil {
		return err
	}
	if v != want {
		return engine.Breaks(refPayload, "expected the notification's %s %q, got %q", engine.Field(name), engine.Want(clip(want, 200)), engine.Seen(clip(v, 200)))
	}
	return nil
}

func (s *Steps) itsTypeIs(ctx context.Context, want string) error {
	return s.fieldEquals(ctx, s.T.Profile.Notification.Type, want)
}

func (s *Steps) itsMerchantIDIsTheMerchants(ctx context.Context) error {
	return s.fieldEquals(ctx, s.T.Profile.Notification.MerchantID, s.T.MerchantID)
}

func (s *Steps) itsTitleIsTheTitleSent(ctx context.Context) error {
	return s.fieldEquals(ctx, s.T.Profile.Notification.Title, get(ctx).titleSent)
}

func (s *Steps) itIsMarkedAsADemo(ctx context.Context) error {
	_, raw, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if v := strings.TrimSpace(string(raw[s.T.Profile.Notification.Demo])); v != "true" {
		return engine.Breaks(refPayload, "expected the notification's %s to be %s, got %q", engine.Field(s.T.Profile.Notification.Demo), engine.Want("true"), engine.Seen(clip(v, 100)))
	}
	return nil
}

func (s *Steps) itsEventIDIsANonEmptyString(ctx context.Context) error {
	v, err := s.stringField(ctx, s.T.Profile.Notification.EventID)
	if err != nil {
		return err
	}
	if strings.TrimSpace(v) == "" {
		return engine.Breaks(refEventID, "expected a non-empty %s", engine.Field(s.T.Profile.Notification.EventID))
	}
	return nil
}

func (s *Steps) itsEventIDDiffersFromTheEarlierNotifications(ctx context.Context) error {
	sc := get(ctx)
	if sc.earlierNote == nil {
		return fmt.Errorf("no earlier notification")
	}
	a, _, err1 := s.T.Profile.DecodeNotification(sc.earlierNote.Body)
	b, _, err2 := s.T.Profile.DecodeNotification(sc.note.Body)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if a.EventID == b.EventID {
		return engine.Breaks(refEventID, "expected two events to carry different %s, both carry %q", engine.Field(s.T.Profile.Notification.EventID), engine.Seen(clip(a.EventID, 100)))
	}
	return nil
}

func (s *Steps) aContractTitledHasBeenCreatedAndNotified(ctx context.Context, title string) error {
	st, ok := firmakit.DemoState(title)
	if !ok {
		return fmt.Errorf("the feature's title %q is not a demo title", title)
	}
	if err := s.aContractTitled(ctx, title); err != nil {
		return err
	}
	if err := s.theContractIsCreated(ctx); err != nil {
		return err
	}
	if err := s.awaitFirst(ctx, string(st), 300, 1500); err != nil {
		return err
	}
	sc := get(ctx)
	sc.earlierNote, sc.previous = sc.note, sc.resp
	return nil
}

func (s *Steps) itsCreatedAtIsAUTCTimeWithMilliseconds(ctx context.Context) error {
	v, err := s.stringField(ctx, s.T.Profile.Notification.CreatedAt)
	if err != nil {
		return err
	}
	sc := get(ctx)
	err = s.plausible("the notification's "+s.T.Profile.Notification.CreatedAt, v, sc.sentAt, sc.noteAt)
	if err != nil {
		// The interface states created_at's form for the envelope only;
		// the notification's is shown by the profile's example alone.
		engine.Warn(ctx, refPayload, "the profile shows the notification's created_at only by example (UTC with milliseconds, the time of the event); the envelope's form, the same here, is what a receiver expects",
			"%s", strings.TrimPrefix(strings.SplitN(err.Error(), "\n", 2)[0], "expected "))
	}
	return nil
}

// demoPrefixOf is the demo prefix of a state, as the interface's table
// of §6.2 names its rows: "DEMO_SIGNED" for SIGNED.
func demoPrefixOf(state string) string { return "DEMO_" + state }

func (s *Steps) itWasPostedWithAJSONContentType(ctx context.Context) error {
	r := get(ctx).note
	if ct := r.Header.Get("Content-Type"); !jsonContentType(ct) {
		return engine.Breaks(refWebhookSig, "expected the notification posted as %s, its %s is %q", engine.Want("application/json"), engine.Field("Content-Type"), engine.Seen(clip(ct, 100)))
	}
	if r.Method != http.MethodPost {
		return engine.Breaks(refWebhookSig, "expected the notification to be a %s, got %s", engine.Want("POST"), engine.Seen(clip(r.Method, 20)))
	}
	return nil
}

// itsSignatureHeaderHasTheProfilesForm checks the header's form (one
// timestamp, signatures in the profile's encoding and size) and that its
// time is now, not merely within the receiver's replay tolerance.
func (s *Steps) itsSignatureHeaderHasTheProfilesForm(ctx context.Context) error {
	sc := get(ctx)
	p := s.T.Profile
	v := sc.note.Header.Get(p.Webhook.SignatureHeader)
	h, err := p.ParseWebhookHeader(v)
	if err != nil {
		return engine.Breaks(refWebhookSig, "expected a %s header like %s=<unix seconds>,%s=<signature>, got %q: %v", engine.Field(p.Webhook.SignatureHeader), engine.Name(p.Webhook.TimestampKey), engine.Name(p.Webhook.SignatureKey), engine.Seen(clip(v, 300)), err)
	}
	if !integerLiteral.MatchString(h.Timestamp) {
		return engine.Breaks(refWebhookSig, "expected %s= to be Unix seconds in base-10 digits, got %q", engine.Field(p.Webhook.TimestampKey), engine.Seen(clip(h.Timestamp, 60)))
	}
	t, _ := strconv.ParseInt(h.Timestamp, 10, 64)
	allow := s.T.clockAllowance()
	if sent := time.Unix(t, 0); sent.Before(sc.sentAt.Add(-allow-time.Second)) || sent.After(sc.noteAt.Add(allow)) {
		return engine.Breaks(refWebhookSig, "expected %s= to be the time it was sent (the suite's clock ±%s), got %s (%s)", engine.Field(p.Webhook.TimestampKey), allow, engine.Seen(clip(h.Timestamp, 60)), sent.UTC().Format(time.RFC3339))
	}
	for _, sig := range h.Signatures {
		if err := p.CheckWebhookSignatureForm(sig); err != nil {
			return engine.Breaks(refWebhookSig, "expected each %s= entry %s, got %q", engine.Field(p.Webhook.SignatureKey), err, engine.Seen(clip(sig, 200)))
		}
	}
	return s.exactHeaderLayout(ctx, v, h)
}

// exactHeaderLayout judges a signature header of key=value fields by the
// profile's exact form, "t=<seconds>,v1=<signature>[,v1=…]": what a
// service sends is judged as strictly as the strictest receiver reads it
// (one that splits at "," and takes "v1=" as a prefix), not as leniently
// as firmakit's own receiver reads it. A key the profile does not name
// (a "v0=" beside the v1 ones) is a warning: the form shows none, and a
// strict receiver skips it.
func (s *Steps) exactHeaderLayout(ctx context.Context, v string, h firmakit.WebhookHeader) error {
	w := s.T.Profile.Webhook
	if w.SignatureFormat != "fields" || w.TimestampFrom != "field" {
		return nil
	}
	want := w.TimestampKey + "=" + h.Timestamp
	var others []string
	for i, item := range strings.Split(v, ",") {
		k, _, _ := strings.Cut(item, "=")
		switch {
		case i == 0 && k != w.TimestampKey:
			return engine.Breaks(refWebhookSig, "expected %s to start with %s=, as the profile writes it, got %q", engine.Field(w.SignatureHeader), engine.Name(w.TimestampKey), engine.Seen(clip(v, 300)))
		case k == w.SignatureKey || k == w.TimestampKey:
		default:
			others = append(others, clip(item, 40))
		}
	}
	for _, sig := range h.Signatures {
		want += "," + w.SignatureKey + "=" + sig
	}
	got := v
	for _, o := range others {
		got = strings.Replace(got, ","+o, "", 1)
	}
	if got != want {
		return engine.Breaks(refWebhookSig, "expected %s in the profile's exact form %s, with no spaces: a receiver that splits at \",\" reads %q otherwise; got %q",
			w.SignatureHeader, w.TimestampKey+"=<seconds>,"+w.SignatureKey+"=<signature>", clip(want, 120), clip(v, 300))
	}
	if len(others) > 0 {
		engine.Warn(ctx, refWebhookSig, "the profile's form names "+w.TimestampKey+" and "+w.SignatureKey+" entries only; a receiver skips a key it does not know, but one that takes every entry as a signature would not",
			"%s carries entries the profile does not name: %s", w.SignatureHeader, strings.Join(others, ", "))
	}
	return nil
}

func (s *Steps) itCarriesADocumentURL(ctx context.Context) error {
	n, _, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(n.DocumentURL, "http://") && !strings.HasPrefix(n.DocumentURL, "https://") {
		return engine.Breaks("§6.2 rule 3", "expected %s to be an http(s) URL, got %q", engine.Field(s.T.Profile.Notification.DocumentURL), engine.Seen(clip(n.DocumentURL, 200)))
	}
	return nil
}

func (s *Steps) absent(ctx context.Context, key string) error {
	_, raw, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if v, ok := raw[key]; ok {
		return engine.Breaks(refPayloadKeys, "expected no %s in the notification, got %s", engine.Field(key), engine.Seen(clip(string(v), 200)))
	}
	return nil
}

func (s *Steps) itCarriesNoDocumentURL(ctx context.Context) error {
	return s.absent(ctx, s.T.Profile.Notification.DocumentURL)
}

func (s *Steps) itCarriesNoReason(ctx context.Context) error {
	return s.absent(ctx, s.T.Profile.Notification.Reason)
}

func (s *Steps) itCarriesANonEmptyReason(ctx context.Context) error {
	n, raw, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if strings.TrimSpace(n.Reason) == "" {
		return engine.Breaks("§6.2 rule 4", "expected a non-empty %s string, got %s", engine.Field(s.T.Profile.Notification.Reason), engine.Seen(clip(string(raw[s.T.Profile.Notification.Reason]), 200)))
	}
	return nil
}

func (s *Steps) theDocumentURLOpensAPDF(ctx context.Context) error {
	n, _, err := s.notification(ctx)
	if err != nil {
		return err
	}
	u, err := url.ParseRequestURI(n.DocumentURL)
	if err != nil {
		return engine.Breaks("§6.2 rule 3", "expected document_url to be a URL, got %q: %v", clip(n.DocumentURL, 200), err)
	}
	// The suite opens links on the target's own host, or on the host the
	// run names as the target's document host, and no others.
	if target, _ := url.Parse(s.T.URL); target == nil || !strings.EqualFold(u.Host, target.Host) {
		switch {
		case s.T.DocumentHost == "":
			return s.notRun(ctx, "the document_url is on another host than the target's (--document-host)")
		case !strings.EqualFold(u.Host, s.T.DocumentHost) && !strings.EqualFold(u.Hostname(), s.T.DocumentHost):
			return engine.Breaks(refDemoURL, "expected document_url %q on the target's host or the document host %s", clip(n.DocumentURL, 200), s.T.DocumentHost)
		}
	}
	ex, err := s.T.do(ctx, func(int) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, n.DocumentURL, nil)
	}, nil)
	var rt *retryable
	switch {
	case errors.As(err, &rt):
		return s.inconclusive(ctx, "document_url %q: %v", n.DocumentURL, rt)
	case err != nil:
		return engine.Breaks(refDemoURL, "expected document_url %q to open, it does not: %v", clip(n.DocumentURL, 200), err)
	}
	head := ex.body[:min(5, len(ex.body))]
	if ex.status != 200 {
		kind := reports.RuleKind(refDemoURL)
		if ex.status >= 500 {
			kind = reports.FailureServerError
		}
		return engine.BreaksAs(kind, refDemoURL, "expected document_url %q to open (200), got %d %q (%s)", clip(n.DocumentURL, 200), ex.status, clip(string(head), 10), clip(ex.header.Get("Content-Type"), 60))
	}
	if string(head) != "%PDF-" {
		engine.Warn(ctx, refDemoURL, "the link opens, which is what the profile requires; the profile's example links a .pdf, and a signed contract is normally a PDF",
			"document_url %q opened (200) but is not a PDF: %q (%s)", clip(n.DocumentURL, 200), clip(string(head), 10), clip(ex.header.Get("Content-Type"), 60))
	}
	return nil
}

func (s *Steps) noNotificationArrivesWithin(ctx context.Context, msWindow int) error {
	sc := get(ctx)
	if sc.created == "" {
		return fmt.Errorf("no contract was created")
	}
	wctx, cancel := context.WithDeadline(ctx, sc.answered.Add(time.Duration(msWindow)*time.Millisecond))
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{SignatureID: sc.created})
	if errors.Is(err, receiver.ErrTimeout) {
		return nil
	}
	if err != nil {
		return err
	}
	return engine.Breaks(refNotDemo, "expected no notification for %q, got a %q one: %s", clip(sc.titleSent, 80), engine.Seen(clip(r.State, 60)), clip(string(r.Body), 300))
}

// noNotificationCarryingTheTitleSentArrivesWithin checks that no
// notification whose body holds the title sent, as a JSON string, arrives
// within the window after the answer: for a request the target refused,
// which leaves no signature_id to look for. The title must be plain ASCII
// (any encoder writes it alike) and used by no other scenario.
func (s *Steps) noNotificationCarryingTheTitleSentArrivesWithin(ctx context.Context, msWindow int) error {
	sc := get(ctx)
	for _, r := range sc.titleSent {
		if r < ' ' || r > '~' || strings.ContainsRune(`"\<>&`, r) {
			return fmt.Errorf("the feature's title %q must be plain ASCII to be found in a notification", sc.titleSent)
		}
	}
	wctx, cancel := context.WithDeadline(ctx, sc.answered.Add(time.Duration(msWindow)*time.Millisecond))
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{Text: `"` + sc.titleSent + `"`, Since: sc.sentAt})
	if errors.Is(err, receiver.ErrTimeout) {
		return nil
	}
	if err != nil {
		return err
	}
	return engine.Breaks("§9 bullet 2", "expected no notification for %q, which was not created, got a %q one: %s", sc.titleSent, clip(r.State, 60), clip(string(r.Body), 300))
}

// bindNotificationSentences registers the sentences whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (s *Steps) bindNotificationSentences(sc registrar) {
	sc.Step(engine.Compiled(`^a contract titled "([^"]*)" has been created and notified$`), s.aContractTitledHasBeenCreatedAndNotified)
	sc.Step(engine.Compiled(`^que se ha creado y notificado un contrato titulado "([^"]*)"$`), s.aContractTitledHasBeenCreatedAndNotified)
	sc.Step(engine.Compiled(`^the webhook answers (\d+) to the contract's first notification$`), s.theWebhookAnswersToTheFirstNotification)
	sc.Step(engine.Compiled(`^el webhook responde (\d+) a la primera notificación del contrato$`), s.theWebhookAnswersToTheFirstNotification)
	sc.Step(engine.Compiled(`^exactly one "([A-Z]+)" notification arrives between (\d+) and (\d+) ms after the 201$`), s.exactlyOneNotificationArrivesBetween)
	sc.Step(engine.Compiled(`^llega exactamente una notificación "([A-Z]+)" entre (\d+) y (\d+) ms después del 201$`), s.exactlyOneNotificationArrivesBetween)
	sc.Step(engine.Compiled(`^a "([A-Z]+)" notification arrives between (\d+) and (\d+) ms after the 201$`), s.aNotificationArrivesBetween)
	sc.Step(engine.Compiled(`^llega una notificación "([A-Z]+)" entre (\d+) y (\d+) ms después del 201$`), s.aNotificationArrivesBetween)
	sc.Step(engine.Compiled(`^the webhook answers (\d+) to the contract's first (\d+) notifications$`), s.theWebhookAnswersToTheFirstNotifications)
	sc.Step(engine.Compiled(`^el webhook responde (\d+) a las primeras (\d+) notificaciones del contrato$`), s.theWebhookAnswersToTheFirstNotifications)
	sc.Step(engine.Compiled(`^the webhook answers (\d+) to the contract's first notification only after the profile's delivery timeout$`), s.theWebhookAnswersOnlyAfterTheDeliveryTimeout)
	sc.Step(engine.Compiled(`^el webhook responde (\d+) a la primera notificación del contrato solo pasado el plazo de entrega del perfil$`), s.theWebhookAnswersOnlyAfterTheDeliveryTimeout)
	sc.Step(engine.Compiled(`^the webhook ends the connection of the contract's first notification with a TCP (FIN|RST), without answering$`), s.theWebhookHangsUpOnTheFirstNotification)
	sc.Step(engine.Compiled(`^el webhook termina la conexión de la primera notificación del contrato con un (FIN|RST) TCP, sin responder$`), s.theWebhookHangsUpOnTheFirstNotification)
	sc.Step(engine.Compiled(`^it is delivered again after the profile's first retry delay, with the same event_id$`), s.itIsDeliveredAgainWithTheSameEventID)
	sc.Step(engine.Compiled(`^se entrega de nuevo tras la primera espera de reintento del perfil, con el mismo event_id$`), s.itIsDeliveredAgainWithTheSameEventID)
	sc.Step(engine.Compiled(`^it is delivered again, not sooner than the profile's delivery timeout, with the same event_id$`), s.itIsDeliveredAgainWithTheSameEventID)
	sc.Step(engine.Compiled(`^se entrega de nuevo, no antes del plazo de entrega del perfil, con el mismo event_id$`), s.itIsDeliveredAgainWithTheSameEventID)
	sc.Step(engine.Compiled(`^it is delivered (\d+) more times, each after the profile's next retry delay, with the same event_id$`), s.itIsDeliveredMoreTimes)
	sc.Step(engine.Compiled(`^se entrega (\d+) veces más, cada una tras la siguiente espera de reintento del perfil, con el mismo event_id$`), s.itIsDeliveredMoreTimes)
	sc.Step(engine.Compiled(`^the webhook answers (\d+) to every notification of the contract$`), s.theWebhookAnswersToEveryNotification)
	sc.Step(engine.Compiled(`^el webhook responde (\d+) a todas las notificaciones del contrato$`), s.theWebhookAnswersToEveryNotification)
	sc.Step(engine.Compiled(`^it is delivered again after each retry delay of the profile, with the same event_id$`), s.itIsDeliveredAfterEachRetryDelay)
	sc.Step(engine.Compiled(`^se entrega de nuevo tras cada espera de reintento del perfil, con el mismo event_id$`), s.itIsDeliveredAfterEachRetryDelay)
	sc.Step(engine.Compiled(`^no delivery follows the last retry, the event being recorded as failed$`), s.noDeliveryFollowsTheLastRetry)
	sc.Step(engine.Compiled(`^no sigue ninguna entrega al último reintento, el evento queda registrado como fallido$`), s.noDeliveryFollowsTheLastRetry)
	sc.Step(engine.Compiled(`^it is not delivered again$`), s.itIsNotDeliveredAgain)
	sc.Step(engine.Compiled(`^no se entrega de nuevo$`), s.itIsNotDeliveredAgain)
	sc.Step(engine.Compiled(`^the delivery again has a valid signature for the webhook secret$`), s.theDeliveryAgainHasAValidSignature)
	sc.Step(engine.Compiled(`^la nueva entrega tiene una firma válida para el secreto del webhook$`), s.theDeliveryAgainHasAValidSignature)
	sc.Step(engine.Compiled(`^each delivery again has a valid signature for the webhook secret$`), s.theDeliveryAgainHasAValidSignature)
	sc.Step(engine.Compiled(`^cada nueva entrega tiene una firma válida para el secreto del webhook$`), s.theDeliveryAgainHasAValidSignature)
	sc.Step(engine.Compiled(`^no further delivery follows the one answered 2xx$`), s.noFurtherDeliveryFollows)
	sc.Step(engine.Compiled(`^no sigue ninguna otra entrega a la respondida con 2xx$`), s.noFurtherDeliveryFollows)
	sc.Step(engine.Compiled(`^its signature is valid for the webhook secret$`), s.itsSignatureIsValidForTheWebhookSecret)
	sc.Step(engine.Compiled(`^su firma es válida para el secreto del webhook$`), s.itsSignatureIsValidForTheWebhookSecret)
	sc.Step(engine.Compiled(`^its signature_id is the one created$`), s.itsSignatureIDIsTheOneCreated)
	sc.Step(engine.Compiled(`^su signature_id es el del contrato creado$`), s.itsSignatureIDIsTheOneCreated)
	sc.Step(engine.Compiled(`^it holds exactly the fields of a "([A-Z]+)" notification, none null$`), s.itHoldsExactlyTheFieldsOfANotification)
	sc.Step(engine.Compiled(`^trae exactamente los campos de una notificación "([A-Z]+)", ninguno null$`), s.itHoldsExactlyTheFieldsOfANotification)
	sc.Step(engine.Compiled(`^its type is "([^"]*)"$`), s.itsTypeIs)
	sc.Step(engine.Compiled(`^su tipo es "([^"]*)"$`), s.itsTypeIs)
	sc.Step(engine.Compiled(`^its merchant_id is the merchant's$`), s.itsMerchantIDIsTheMerchants)
	sc.Step(engine.Compiled(`^su merchant_id es el del comercio$`), s.itsMerchantIDIsTheMerchants)
	sc.Step(engine.Compiled(`^its title is the title sent$`), s.itsTitleIsTheTitleSent)
	sc.Step(engine.Compiled(`^su título es el título enviado$`), s.itsTitleIsTheTitleSent)
	sc.Step(engine.Compiled(`^it is marked as a demo$`), s.itIsMarkedAsADemo)
	sc.Step(engine.Compiled(`^está marcada como demostración$`), s.itIsMarkedAsADemo)
	sc.Step(engine.Compiled(`^its event_id is a non-empty string$`), s.itsEventIDIsANonEmptyString)
	sc.Step(engine.Compiled(`^su event_id es un texto no vacío$`), s.itsEventIDIsANonEmptyString)
	sc.Step(engine.Compiled(`^its event_id differs from the earlier notification's$`), s.itsEventIDDiffersFromTheEarlierNotifications)
	sc.Step(engine.Compiled(`^su event_id difiere del de la notificación anterior$`), s.itsEventIDDiffersFromTheEarlierNotifications)
	sc.Step(engine.Compiled(`^its created_at is a UTC time with milliseconds, within the clock allowance$`), s.itsCreatedAtIsAUTCTimeWithMilliseconds)
	sc.Step(engine.Compiled(`^su created_at es una hora UTC con milisegundos, dentro del margen de reloj$`), s.itsCreatedAtIsAUTCTimeWithMilliseconds)
	sc.Step(engine.Compiled(`^it was posted with a JSON content type$`), s.itWasPostedWithAJSONContentType)
	sc.Step(engine.Compiled(`^se envió con un tipo de contenido JSON$`), s.itWasPostedWithAJSONContentType)
	sc.Step(engine.Compiled(`^its signature header has the profile's form, with a time within the clock allowance$`), s.itsSignatureHeaderHasTheProfilesForm)
	sc.Step(engine.Compiled(`^su cabecera de firma tiene la forma del perfil, con una hora dentro del margen de reloj$`), s.itsSignatureHeaderHasTheProfilesForm)
	sc.Step(engine.Compiled(`^it carries a document_url$`), s.itCarriesADocumentURL)
	sc.Step(engine.Compiled(`^trae un document_url$`), s.itCarriesADocumentURL)
	sc.Step(engine.Compiled(`^it carries no document_url$`), s.itCarriesNoDocumentURL)
	sc.Step(engine.Compiled(`^no trae document_url$`), s.itCarriesNoDocumentURL)
	sc.Step(engine.Compiled(`^it carries a non-empty reason$`), s.itCarriesANonEmptyReason)
	sc.Step(engine.Compiled(`^trae un reason no vacío$`), s.itCarriesANonEmptyReason)
	sc.Step(engine.Compiled(`^it carries no reason$`), s.itCarriesNoReason)
	sc.Step(engine.Compiled(`^no trae reason$`), s.itCarriesNoReason)
	sc.Step(engine.Compiled(`^the document_url opens a PDF$`), s.theDocumentURLOpensAPDF)
	sc.Step(engine.Compiled(`^el document_url abre un PDF$`), s.theDocumentURLOpensAPDF)
	sc.Step(engine.Compiled(`^no notification arrives within (\d+) ms of the 201$`), s.noNotificationArrivesWithin)
	sc.Step(engine.Compiled(`^no llega ninguna notificación dentro de (\d+) ms después del 201$`), s.noNotificationArrivesWithin)
	sc.Step(engine.Compiled(`^no notification carrying the title sent arrives within (\d+) ms of the answer$`), s.noNotificationCarryingTheTitleSentArrivesWithin)
	sc.Step(engine.Compiled(`^no llega ninguna notificación con el título enviado dentro de (\d+) ms después de la respuesta$`), s.noNotificationCarryingTheTitleSentArrivesWithin)
}
