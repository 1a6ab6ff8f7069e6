package reference

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/google/uuid"
)

// Delivery outcomes.
const (
	OutcomePending   = "pending"
	OutcomeDelivered = "delivered"
	OutcomeFailed    = "failed"
)

// Defaults of the delivery limits; each is a field of Server.
const (
	// DefaultMaxDeliveries is how many notifications are sent at once; the
	// others wait in a queue.
	DefaultMaxDeliveries = 256
	// DefaultMaxKeptDeliveries is how many delivery records are kept for
	// GET /_sandbox/deliveries.
	DefaultMaxKeptDeliveries = 10000
	// DefaultMaxPending is how many notifications may wait at once
	// (scheduled, queued or being sent); past it a new one is refused.
	DefaultMaxPending = 100000
)

// Delivery is one notification event and every attempt to deliver it.
type Delivery struct {
	// Seq numbers the deliveries in the order they were made; the listing's
	// after= cursor is a Seq.
	Seq         int64          `json:"seq"`
	EventID     string         `json:"event_id"`
	MerchantID  string         `json:"merchant_id"`
	SignatureID string         `json:"signature_id"`
	State       firmakit.State `json:"state"`
	URL         string         `json:"url"`
	Outcome     string         `json:"outcome"`
	// ScheduledAt is when the next attempt is due (the last one's, once the
	// delivery has ended).
	ScheduledAt time.Time `json:"scheduled_at"`
	Attempts    []Attempt `json:"attempts"`
	Body        string    `json:"body"`
}

// Attempt is one try at delivering a notification.
type Attempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code,omitempty"`
	Error      string    `json:"error,omitempty"`
	LatencyMS  float64   `json:"latency_ms"`
	// QueuedMS is how long the attempt waited, once due, for a free sender
	// (see Server.MaxDeliveries): it was sent that much later than due.
	QueuedMS float64 `json:"queued_ms"`
}

// DeliveryStats tells where the server's notifications stand.
type DeliveryStats struct {
	// Scheduled wait for their time: the demo delay or a retry's wait.
	Scheduled int `json:"scheduled"`
	// Queued are due and wait for one of the MaxDeliveries senders;
	// OldestQueuedMS is how long the first of them has waited.
	Queued         int     `json:"queued"`
	OldestQueuedMS float64 `json:"oldest_queued_ms"`
	Sending        int     `json:"sending"`
	MaxDeliveries  int     `json:"max_deliveries"`
	// Pending counts the three above, at most MaxPending; Refused counts
	// notifications not sent because MaxPending were already pending.
	Pending    int   `json:"pending"`
	MaxPending int   `json:"max_pending"`
	Refused    int64 `json:"refused"`
	// Kept records are listed, at most MaxKeptDeliveries. Dropped counts
	// the records dropped to stay within it; DroppedPending those of
	// them that were still pending: those notifications are sent all the
	// same, without a record.
	Kept              int   `json:"kept"`
	MaxKeptDeliveries int   `json:"max_kept_deliveries"`
	Dropped           int64 `json:"dropped"`
	DroppedPending    int64 `json:"dropped_pending"`
}

// Clock paces notification deliveries: the demo delay, the waits between
// retries and the times recorded for attempts. Server.Clock is the real
// clock by default; a test gives a fake one to step through deliveries
// without sleeping.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a call that a Clock will make.
type Timer interface {
	// Stop prevents the call and tells whether it did; false means the
	// call has been made or is being made.
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time                            { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

type deliveryFilter struct{ SignatureID, EventID, Outcome string }

// dispatcher sends notifications and retries them on the schedule. At most
// MaxDeliveries are sent at once, by senders that take due deliveries from
// a queue in order; at most MaxKeptDeliveries records are kept.
type dispatcher struct {
	s     *Server
	clock Clock
	// ctx ends in-flight sends when Close gives up waiting for them.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // one count per pending delivery

	mu sync.Mutex
	// records are the deliveries made, by Seq; those no longer kept stay
	// until the slice is compacted. ended holds kept records that ended,
	// in the order they ended, from endedHead on: the first to go.
	records   []*delivery
	kept      int
	ended     []*delivery
	endedHead int
	seq       int64
	dropped   int64
	// droppedPending counts records dropped while their delivery was
	// pending; refused counts notifications over MaxPending.
	droppedPending, refused int64
	lastDropLog             time.Time
	// pending holds every delivery scheduled, queued or being sent,
	// whether its record is kept or not.
	pending   map[*delivery]struct{}
	queue     []*delivery
	queueHead int
	senders   int // goroutines taking from the queue
	sending   int // of them, sending right now
	closing   bool
}

type delivery struct {
	Delivery
	secrets []string
	timer   Timer
	// dueAt is when the delivery last became due and entered the queue.
	dueAt time.Time
	// final: no retry after the next attempt (at shutdown, or a delivery
	// made again by the deviations).
	final bool
	kept  bool
	// redelivered marks an event the deviations deliver again.
	redelivered bool
}

func newDispatcher(s *Server) *dispatcher {
	ctx, cancel := context.WithCancel(context.Background())
	return &dispatcher{s: s, clock: s.Clock, ctx: ctx, cancel: cancel, pending: map[*delivery]struct{}{}}
}

var demoReasons = map[firmakit.State]string{
	firmakit.StateBounced:  "El correo del firmante rebotó: la casilla de destino no existe (demo)",
	firmakit.StateRejected: "El firmante rechazó el contrato: no está de acuerdo con el monto (demo)",
	firmakit.StateCanceled: "El comercio canceló la solicitud de firma antes de completarse (demo)",
}

// scheduleDemo queues the demo notification of a newly created contract,
// sent DemoDelay after now.
func (d *dispatcher) scheduleDemo(m *Merchant, env firmakit.Envelope, state firmakit.State) {
	s := d.s
	delay := s.DemoDelay
	n := firmakit.Notification{
		EventID:     uuid.NewString(),
		Type:        firmakit.NotificationType,
		MerchantID:  m.ID,
		SignatureID: env.SignatureID,
		Title:       env.Title,
		Status:      state,
		Demo:        true,
	}
	if state.HasDocumentURL() {
		n.DocumentURL = s.documentURL(env.SignatureID)
	}
	if state.HasReason() {
		n.Reason = demoReasons[state]
	}
	// created_at is the time the event happens, DemoDelay after now.
	n.CreatedAt = firmakit.FormatTime(d.clock.Now().Add(delay))
	s.dev.Notification.Notification(&n, env)
	body, err := s.Profile.EncodeNotification(n)
	if err != nil {
		s.Logger.Error("demo notification not encoded", "signature_id", env.SignatureID, "err", err)
		return
	}
	body = s.dev.Notification.Payload(body, n)
	now := d.clock.Now()
	dl := &delivery{Delivery: Delivery{
		EventID: n.EventID, MerchantID: m.ID, SignatureID: env.SignatureID, State: state,
		URL: m.SignatureWebhook, Outcome: OutcomePending, ScheduledAt: now.Add(delay).UTC(),
		Body: string(body),
	}, secrets: m.WebhookSecrets}

	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		s.Logger.Warn("server closing: demo notification not scheduled", "event_id", n.EventID, "signature_id", env.SignatureID)
		return
	}
	switch {
	case dl.URL == "":
		dl.Outcome = OutcomeFailed
		dl.Attempts = append(dl.Attempts, Attempt{At: now.UTC(), Error: "no signature_webhook configured for merchant " + m.ID})
		s.Logger.Warn("demo notification not sent: the merchant has no signature_webhook", "merchant_id", m.ID, "event_id", n.EventID)
		d.keep(dl)
	case len(d.pending) >= s.MaxPending:
		d.refused++
		dl.Outcome = OutcomeFailed
		dl.Attempts = append(dl.Attempts, Attempt{At: now.UTC(), Error: fmt.Sprintf(
			"not sent: %d notifications were already waiting, the server's limit", s.MaxPending)})
		s.Logger.Error("demo notification not sent: too many notifications waiting", "event_id", n.EventID,
			"signature_id", env.SignatureID, "pending", len(d.pending), "max_pending", s.MaxPending)
		d.keep(dl)
	default:
		d.keep(dl)
		d.pending[dl] = struct{}{}
		d.wg.Add(1)
		dl.timer = d.clock.AfterFunc(delay, func() { d.due(dl) })
	}
	snap := d.snapshot(dl)
	d.mu.Unlock()
	d.observe(snap)
}

// keep records dl, making room when MaxKeptDeliveries are kept: the
// record that ended first goes. When every kept record is pending, dl's
// own record is dropped instead; its notification is sent all the same.
// d.mu is held.
func (d *dispatcher) keep(dl *delivery) {
	d.seq++
	dl.Seq = d.seq
	max := d.s.MaxKeptDeliveries
	if d.kept >= max {
		if old := d.oldestEnded(); old != nil {
			old.kept = false
			d.kept--
			d.dropped++
		} else {
			d.dropped++
			if dl.Outcome == OutcomePending {
				d.droppedPending++
			}
			d.logDrop()
			return
		}
		d.logDrop()
	}
	dl.kept = true
	d.kept++
	d.records = append(d.records, dl)
	if dl.Outcome != OutcomePending { // refused before any send
		d.ended = append(d.ended, dl)
	}
	if len(d.records) >= 2*d.kept+64 {
		d.compact()
	}
}

// oldestEnded takes the kept record that ended first, or nil when every
// kept record is pending. d.mu is held.
func (d *dispatcher) oldestEnded() *delivery {
	for d.endedHead < len(d.ended) {
		old := d.ended[d.endedHead]
		d.ended[d.endedHead] = nil
		d.endedHead++
		if old.kept && old.Outcome != OutcomePending {
			if d.endedHead > 1024 && d.endedHead*2 > len(d.ended) {
				d.ended = append([]*delivery(nil), d.ended[d.endedHead:]...)
				d.endedHead = 0
			}
			return old
		}
	}
	d.ended, d.endedHead = d.ended[:0], 0
	return nil
}

// compact drops the records no longer kept from d.records. d.mu is held.
func (d *dispatcher) compact() {
	out := make([]*delivery, 0, d.kept+d.kept/2)
	for _, r := range d.records {
		if r.kept {
			out = append(out, r)
		}
	}
	d.records = out
}

// logDrop says, at most every 10 s, that records are being dropped.
// d.mu is held.
func (d *dispatcher) logDrop() {
	now := d.clock.Now()
	if now.Sub(d.lastDropLog) < 10*time.Second {
		return
	}
	d.lastDropLog = now
	d.s.Logger.Warn("delivery records dropped to stay within the limit; pending notifications whose record is dropped are still sent",
		"max_kept", d.s.MaxKeptDeliveries, "dropped", d.dropped, "dropped_pending", d.droppedPending)
}

// due puts dl in the queue: its time has come. It is a timer's call.
func (d *dispatcher) due(dl *delivery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.enqueue(dl)
}

// enqueue puts dl at the end of the queue and starts a sender when fewer
// than MaxDeliveries run. d.mu is held.
func (d *dispatcher) enqueue(dl *delivery) {
	dl.timer = nil
	dl.dueAt = d.clock.Now()
	if d.closing {
		dl.final = true
	}
	d.queue = append(d.queue, dl)
	if d.senders < d.s.MaxDeliveries {
		d.senders++
		go d.send()
	}
}

// send takes due deliveries from the queue, one at a time, until it is
// empty or the dispatcher is stopped.
func (d *dispatcher) send() {
	for {
		d.mu.Lock()
		if d.queueHead == len(d.queue) || d.ctx.Err() != nil {
			d.senders--
			d.mu.Unlock()
			return
		}
		dl := d.queue[d.queueHead]
		d.queue[d.queueHead] = nil
		d.queueHead++
		if d.queueHead == len(d.queue) {
			d.queue, d.queueHead = d.queue[:0], 0
		} else if d.queueHead > 1024 && d.queueHead*2 > len(d.queue) {
			d.queue = append([]*delivery(nil), d.queue[d.queueHead:]...)
			d.queueHead = 0
		}
		d.sending++
		d.mu.Unlock()
		d.attempt(dl)
	}
}

// attempt sends dl once, then records the outcome: delivered, a retry
// after the schedule's next wait, or failed.
func (d *dispatcher) attempt(dl *delivery) {
	s := d.s
	d.mu.Lock()
	url, body, secrets, dueAt, eventID := dl.URL, dl.Body, dl.secrets, dl.dueAt, dl.EventID
	d.mu.Unlock()

	at := Attempt{At: d.clock.Now().UTC()}
	at.QueuedMS = msOf(at.At.Sub(dueAt))
	start := time.Now()
	ctx, cancel := context.WithTimeout(d.ctx, s.DeliveryTimeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "firmakit-reference/1")
		s.Profile.SignWebhookRequest(req, eventID, secrets, d.clock.Now(), []byte(body))
		s.dev.Delivery.Attempt(req, body, secrets)
		var resp *http.Response
		resp, err = s.HTTPClient.Do(req)
		if err == nil {
			at.StatusCode = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
	}
	cancel()
	at.LatencyMS = msOf(time.Since(start))
	// Delivered: a 2xx within the timeout (the request's context); anything
	// else is retried on the schedule.
	if err != nil {
		at.Error = err.Error()
	} else if !s.dev.Delivery.Delivered(at.StatusCode, at.StatusCode >= 200 && at.StatusCode <= 299) {
		at.Error = fmt.Sprintf("answered %d", at.StatusCode)
	}

	d.mu.Lock()
	d.sending--
	dl.Attempts = append(dl.Attempts, at)
	try := len(dl.Attempts) - 1
	log := s.Logger.With("event_id", dl.EventID, "signature_id", dl.SignatureID, "state", dl.State, "attempt", try+1)
	if at.QueuedMS >= 1000 {
		log = log.With("queued_ms", at.QueuedMS)
	}
	switch {
	case at.Error == "":
		dl.Outcome = OutcomeDelivered
		log.Info("notification delivered", "status", at.StatusCode, "latency_ms", at.LatencyMS)
		if !d.deliverAgain(dl) {
			d.end(dl)
		}
	case s.dev.Delivery.Retried(&dl.Delivery, at.StatusCode, err, !dl.final && try < len(s.RetrySchedule) && !d.closing) &&
		!dl.final && !d.closing && len(s.RetrySchedule) > 0:
		wait := s.dev.Delivery.RetryWait(&dl.Delivery, s.RetrySchedule[min(try, len(s.RetrySchedule)-1)])
		log.Warn("notification not delivered, will retry", "err", at.Error, "retry_in", wait)
		d.retryAfter(dl, wait, false)
	default:
		dl.Outcome = OutcomeFailed
		log.Error("notification failed", "err", at.Error, "attempts", len(dl.Attempts))
		d.end(dl)
	}
	snap := d.snapshot(dl)
	d.mu.Unlock()
	d.observe(snap)
}

// deliverAgain schedules one more delivery of an event that was just
// delivered, when the deviations ask for it, and tells whether it did; the
// delivery then stays pending (and holds the wait group) until that
// attempt ends. d.mu is held.
func (d *dispatcher) deliverAgain(dl *delivery) bool {
	wait, ok := d.s.dev.Delivery.Redelivery()
	if !ok || dl.redelivered || d.closing {
		return false
	}
	dl.redelivered, dl.Outcome = true, OutcomePending
	d.retryAfter(dl, wait, true)
	return true
}

// retryAfter schedules dl's next attempt after wait; final tells that no
// retry follows it. d.mu is held.
func (d *dispatcher) retryAfter(dl *delivery, wait time.Duration, final bool) {
	dl.final = dl.final || final
	dl.ScheduledAt = d.clock.Now().Add(wait).UTC()
	dl.timer = d.clock.AfterFunc(wait, func() { d.due(dl) })
}

// end takes dl out of the pending deliveries. d.mu is held.
func (d *dispatcher) end(dl *delivery) {
	delete(d.pending, dl)
	if dl.kept {
		d.ended = append(d.ended, dl)
	}
	d.wg.Done()
}

// snapshot copies dl's record for OnDelivery, or returns nil when nobody
// observes. d.mu is held.
func (d *dispatcher) snapshot(dl *delivery) *Delivery {
	if d.s.OnDelivery == nil {
		return nil
	}
	c := dl.Delivery
	c.Attempts = append([]Attempt(nil), dl.Attempts...)
	return &c
}

func (d *dispatcher) observe(snap *Delivery) {
	if snap != nil {
		d.s.OnDelivery(*snap)
	}
}

func msOf(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }

// close sends every notification still waiting for its time at once,
// without retries, waits for them until ctx ends, then stops the sends
// still in flight and logs each notification it could not finish.
func (d *dispatcher) close(ctx context.Context) {
	defer d.cancel()
	d.mu.Lock()
	d.closing = true
	var waiting []*delivery
	for dl := range d.pending {
		dl.final = true
		if dl.timer != nil && dl.timer.Stop() {
			waiting = append(waiting, dl)
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return waiting[i].Seq < waiting[j].Seq })
	for _, dl := range waiting {
		d.enqueue(dl)
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	d.cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	left := make([]*delivery, 0, len(d.pending))
	for dl := range d.pending {
		left = append(left, dl)
	}
	sort.Slice(left, func(i, j int) bool { return left[i].Seq < left[j].Seq })
	const logged = 1000
	for i, dl := range left {
		if i == logged {
			d.s.Logger.Error("notifications abandoned at shutdown, not logged one by one", "more", len(left)-logged)
			break
		}
		d.s.Logger.Error("notification abandoned at shutdown", "event_id", dl.EventID,
			"signature_id", dl.SignatureID, "state", dl.State, "url", dl.URL, "attempts", len(dl.Attempts))
	}
}

// page returns up to limit kept records after the cursor that match f,
// oldest first, and whether more follow.
func (d *dispatcher) page(f deliveryFilter, after int64, limit int) ([]Delivery, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	i := sort.Search(len(d.records), func(i int) bool { return d.records[i].Seq > after })
	out := make([]Delivery, 0, min(limit, d.kept))
	for ; i < len(d.records); i++ {
		dl := d.records[i]
		if !dl.kept || (f.SignatureID != "" && dl.SignatureID != f.SignatureID) || (f.EventID != "" && dl.EventID != f.EventID) ||
			(f.Outcome != "" && !strings.EqualFold(dl.Outcome, f.Outcome)) {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		c := dl.Delivery
		c.Attempts = append([]Attempt(nil), dl.Attempts...)
		out = append(out, c)
	}
	return out, false
}

// stats counts where the notifications stand.
func (d *dispatcher) stats() DeliveryStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	queued := len(d.queue) - d.queueHead
	st := DeliveryStats{
		Queued: queued, Sending: d.sending, MaxDeliveries: d.s.MaxDeliveries,
		Pending: len(d.pending), MaxPending: d.s.MaxPending, Refused: d.refused,
		Kept: d.kept, MaxKeptDeliveries: d.s.MaxKeptDeliveries, Dropped: d.dropped, DroppedPending: d.droppedPending,
	}
	st.Scheduled = st.Pending - queued - d.sending
	if queued > 0 {
		st.OldestQueuedMS = msOf(d.clock.Now().Sub(d.queue[d.queueHead].dueAt))
	}
	return st
}
