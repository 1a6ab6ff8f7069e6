package steps

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/steps/engine"
)

// The endpoint down, then up: a scenario takes the suite's receiver down
// (receiver.Refuse) so that the service's first delivery meets a refused
// connection, as during a merchant's deploy, and the delivery must come
// again once the receiver is back. The receiver is the whole run's, so
// while it is down no other scenario may expect a delivery: those
// scenarios run first, one at a time, before any other starts (downFirst),
// and the others wait only for their down windows, not for their ends.

// refuser is a receiver that can be taken down a while: the in-process
// one and a remote firmakit receive alike.
type refuser interface {
	Refuse(ctx context.Context, d time.Duration) error
	WaitUp(ctx context.Context) error
}

var (
	_ refuser = (*receiver.Receiver)(nil)
	_ refuser = (*receiver.Client)(nil)
)

// downWindows are the sentences, both languages, that take the receiver
// down, each with how long after the 201 it stays down.
func downWindows() []stepWait {
	var s Steps
	r := &waitRecorder{byMethod: map[uintptr]func([]string) time.Duration{
		funcOf(s.theWebhookIsDownUntil): func(args []string) time.Duration {
			n, _ := strconv.Atoi(args[len(args)-1])
			return time.Duration(n) * time.Millisecond
		},
	}}
	s.bindSentences(r)
	return r.list
}

// downFirst lets the scenarios that take the receiver down run first, one
// at a time, and every other start only once each of those is up again
// (or ended): the first run of a suite run with more than one scenario at
// once. Reruns go one at a time, and need none of it.
type downFirst struct {
	windows []stepWait
	one     sync.Mutex // one down scenario at a time
	mu      sync.Mutex
	pending int           // down scenarios not yet up again
	clear   chan struct{} // closed when pending is 0
}

// newDownFirst returns the order for a run of selected, or nil when no
// selected scenario takes the receiver down.
func newDownFirst(selected []*messages.Pickle) *downFirst {
	d := &downFirst{windows: downWindows(), clear: make(chan struct{})}
	for _, p := range selected {
		if scheduleWait(d.windows, p) > 0 {
			d.pending++
		}
	}
	if d.pending == 0 {
		return nil
	}
	return d
}

// enter waits for the scenario's turn, and returns what ends it (once,
// however often it is called): for a scenario that takes the receiver
// down, once it is up again; for any other, at once.
func (d *downFirst) enter(ctx context.Context, sc *godog.Scenario) (func(), error) {
	if d == nil {
		return func() {}, nil
	}
	if scheduleWait(d.windows, sc) == 0 {
		select {
		case <-d.clear:
			return func() {}, nil
		case <-ctx.Done():
			return func() {}, ctx.Err()
		}
	}
	d.one.Lock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.one.Unlock()
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.pending--; d.pending == 0 {
				close(d.clear)
			}
		})
	}, nil
}

// theWebhookIsDownUntil notes that the receiver is to refuse connections
// from the contract's 201 until ms after it: long enough that the first
// delivery, due 300–1500 ms after the 201, meets it down.
func (s *Steps) theWebhookIsDownUntil(ctx context.Context, ms int) error {
	if _, ok := s.T.Notifications.(refuser); !ok {
		return s.notRun(ctx, "the receiver cannot be taken down (use the in-process receiver or a firmakit receive)")
	}
	if ms < 1 || time.Duration(ms)*time.Millisecond > time.Minute {
		return fmt.Errorf("the receiver is down from 1 ms to 1 minute, not %d ms", ms)
	}
	get(ctx).downFor = time.Duration(ms) * time.Millisecond
	return nil
}

// goDown takes the receiver down once the contract exists, until downFor
// after its 201.
func (s *Steps) goDown(ctx context.Context, sc *scenario) error {
	r := s.T.Notifications.(refuser)
	left := time.Until(sc.answered.Add(sc.downFor))
	if left < time.Millisecond {
		return s.inconclusive(ctx, "the 201 took %s ms to be read: the receiver could not be taken down before the first delivery was due", engine.Millis(time.Since(sc.answered)))
	}
	from := time.Now()
	if err := r.Refuse(ctx, left); err != nil {
		return fmt.Errorf("taking the receiver down: %w", err)
	}
	sc.downAt = time.Now()
	if s.Ledger != nil {
		s.Ledger.Down(from, sc.downAt.Add(left))
	}
	return nil
}

// aNotificationArrivesOnceTheWebhookIsBack waits for the receiver to
// listen again, lets the other scenarios start, and judges the delivery
// that follows: the first delivery met a refused connection, which is a
// failed delivery (defaults.md B: only a 2xx answer is success), so the
// service must deliver the event again on its retry schedule. Whichever
// retry comes once the receiver is back is the first to be recorded; it
// is due at the latest the first two retry delays after the window (the
// first delivery came before its end, the first retry may have met the
// receiver down too).
func (s *Steps) aNotificationArrivesOnceTheWebhookIsBack(ctx context.Context, state string) error {
	sc := get(ctx)
	if sc.created == "" || sc.downAt.IsZero() {
		return fmt.Errorf("no contract was created while the receiver was down")
	}
	if s.Ledger != nil {
		s.Ledger.Timed(sc.created)
	}
	upBy := sc.answered.Add(sc.downFor)
	uctx, cancel := context.WithDeadline(ctx, upBy.Add(missingAfter))
	err := s.T.Notifications.(refuser).WaitUp(uctx)
	cancel()
	if err != nil {
		return s.inconclusive(ctx, "the receiver did not listen again within %s of the end of its down window: nothing can be judged", missingAfter)
	}
	if s.leaveDown != nil {
		s.leaveDown()
	}
	retries := s.T.Profile.Webhook.Retries
	if len(retries) == 0 {
		return s.notRun(ctx, "the profile has no retries (webhook.retries)")
	}
	due := retries[0]
	if len(retries) > 1 {
		due += retries[1]
	}
	deadline := upBy.Add(due + missingAfter)
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{SignatureID: sc.created})
	waited := time.Now()
	if errors.Is(err, receiver.ErrTimeout) {
		r, err = s.storedLate(ctx, receiver.Filter{SignatureID: sc.created}, deadline)
	}
	if errors.Is(err, receiver.ErrTimeout) {
		if lag := s.Lag.Max(sc.sentAt, waited); s.excused(lag, missingAfter) {
			return s.inconclusive(ctx, "no %s notification within %s of the receiver coming back, but this process ran up to %s ms late meanwhile", state, engine.Millis(deadline.Sub(upBy)), engine.Millis(lag))
		}
		// Not FailureNotificationMissing: the first delivery may well
		// have come, and met the refusal; it is the retry that is missing.
		return engine.Breaks(refDelivery,
			"expected the %s notification for signature_id %s, whose first delivery met a refused connection (the receiver was down until %s ms after the 201), to be delivered again once the receiver was back; nothing came within %s ms of that",
			state, sc.created, engine.Millis(sc.downFor), engine.Millis(deadline.Sub(upBy)))
	}
	if err != nil {
		return err
	}
	if s.T.SharedClock && r.ReceivedAt.Before(sc.downAt) {
		return s.inconclusive(ctx, "the first delivery came before the receiver was taken down, %s ms after the 201", engine.Millis(r.ReceivedAt.Sub(sc.answered)))
	}
	// A delivery the receiver took while it was to refuse connections
	// came on a connection the refusal was closing: whether its answer
	// reached the sender, and so whether a delivery again after it is a
	// retry, nobody can tell.
	if s.T.SharedClock && r.ReceivedAt.Before(upBy.Add(-5*time.Millisecond)) {
		return s.inconclusive(ctx, "the receiver took a delivery %s ms after the 201, while it was to refuse connections until %s ms: the refusal did not hold, and nothing can be judged",
			engine.Millis(r.ReceivedAt.Sub(sc.answered)), engine.Millis(sc.downFor))
	}
	sc.note, sc.noteAt = r, s.arrival(r, waited)
	NoteEventID(ctx, r.EventID)
	if r.State != state {
		return engine.Breaks("§6.2 "+demoPrefixOf(state), "expected a %s notification for signature_id %s, the first one is %q: %s", engine.Want(state), sc.created, engine.Seen(clip(r.State, 60)), clip(string(r.Body), 500))
	}
	return nil
}

// bindDownSentences registers the sentences whose methods live in this
// file, the English and the Spanish one on the same method.
func (s *Steps) bindDownSentences(sc registrar) {
	sc.Step(engine.Compiled(`^the webhook is down, refusing connections, until (\d+) ms after the contract's 201$`), s.theWebhookIsDownUntil)
	sc.Step(engine.Compiled(`^el webhook está caído, rechazando conexiones, hasta (\d+) ms después del 201 del contrato$`), s.theWebhookIsDownUntil)
	sc.Step(engine.Compiled(`^a "([A-Z]+)" notification arrives once the webhook is back, within the profile's retry delays$`), s.aNotificationArrivesOnceTheWebhookIsBack)
	sc.Step(engine.Compiled(`^llega una notificación "([A-Z]+)" cuando el webhook vuelve, dentro de las esperas de reintento del perfil$`), s.aNotificationArrivesOnceTheWebhookIsBack)
}
