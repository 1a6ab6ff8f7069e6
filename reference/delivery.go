package reference

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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

// Delivery is one notification event and every attempt to deliver it.
type Delivery struct {
	EventID     string         `json:"event_id"`
	MerchantID  string         `json:"merchant_id"`
	SignatureID string         `json:"signature_id"`
	State       firmakit.State `json:"state"`
	URL         string         `json:"url"`
	Outcome     string         `json:"outcome"`
	ScheduledAt time.Time      `json:"scheduled_at"`
	Attempts    []Attempt      `json:"attempts"`
	Body        string         `json:"body"`
}

// Attempt is one try at delivering a notification.
type Attempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code,omitempty"`
	Error      string    `json:"error,omitempty"`
	LatencyMS  float64   `json:"latency_ms"`
}

type deliveryFilter struct{ SignatureID, EventID, Outcome string }

// dispatcher sends notifications and retries them on the schedule.
type dispatcher struct {
	s       *Server
	mu      sync.Mutex
	byID    map[string]*delivery
	order   []*delivery
	closing bool
	wg      sync.WaitGroup
}

type delivery struct {
	Delivery
	body    []byte
	secrets []string
	timer   *time.Timer
	sending bool
	// redelivered marks an event a deliberate fault delivers again (faults.go).
	redelivered bool
}

const maxKeptDeliveries = 10000

func newDispatcher(s *Server) *dispatcher {
	return &dispatcher{s: s, byID: map[string]*delivery{}}
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
	if s.fault(faultNotificationNever) {
		return
	}
	delay := s.faultDemoDelay(s.DemoDelay)
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
		n.DocumentURL = s.PublicURL + "/demo/documents/" + env.SignatureID + ".pdf"
	}
	if state.HasReason() {
		n.Reason = demoReasons[state]
	}
	// created_at is the time the event happens, DemoDelay after now.
	n.CreatedAt = firmakit.FormatTime(s.Now().Add(delay))
	s.faultNotification(&n, env)
	body, err := s.Profile.EncodeNotification(n)
	if err != nil {
		s.Logger.Error("demo notification not encoded", "signature_id", env.SignatureID, "err", err)
		return
	}
	body = s.faultPayload(body, n)
	dl := &delivery{Delivery: Delivery{
		EventID: n.EventID, MerchantID: m.ID, SignatureID: env.SignatureID, State: state,
		URL: m.SignatureWebhook, Outcome: OutcomePending, ScheduledAt: time.Now().Add(delay).UTC(),
		Body: string(body),
	}, body: body, secrets: m.WebhookSecrets}

	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		s.Logger.Warn("server closing: demo notification not scheduled", "event_id", n.EventID, "signature_id", env.SignatureID)
		return
	}
	d.keep(dl)
	if dl.URL == "" {
		dl.Outcome = OutcomeFailed
		dl.Attempts = append(dl.Attempts, Attempt{At: time.Now().UTC(), Error: "no signature_webhook configured for merchant " + m.ID})
		s.Logger.Warn("demo notification not sent: the merchant has no signature_webhook", "merchant_id", m.ID, "event_id", n.EventID)
		return
	}
	d.wg.Add(1)
	dl.timer = time.AfterFunc(delay, func() { d.attempt(dl, 0) })
}

func (d *dispatcher) keep(dl *delivery) {
	d.byID[dl.EventID] = dl
	d.order = append(d.order, dl)
	if len(d.order) > maxKeptDeliveries {
		for i, old := range d.order {
			if old.Outcome != OutcomePending {
				delete(d.byID, old.EventID)
				d.order = append(d.order[:i], d.order[i+1:]...)
				break
			}
		}
	}
}

// attempt sends dl once; try counts earlier attempts. The wait group holds
// one count per pending delivery, released when it ends either way.
func (d *dispatcher) attempt(dl *delivery, try int) {
	s := d.s
	d.mu.Lock()
	dl.sending, dl.timer = true, nil
	d.mu.Unlock()

	start := time.Now()
	req, err := http.NewRequest(http.MethodPost, dl.URL, bytes.NewReader(dl.body))
	var status int
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "firmakit-reference/1")
		req.Header.Set(s.Profile.Webhook.SignatureHeader, s.Profile.WebhookSignature(dl.secrets, s.Now(), dl.body))
		s.faultDelivery(req, dl)
		ctx, cancel := context.WithTimeout(context.Background(), s.DeliveryTimeout)
		var resp *http.Response
		resp, err = s.HTTPClient.Do(req.WithContext(ctx))
		if err == nil {
			status = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		cancel()
	}
	at := Attempt{At: start.UTC(), StatusCode: status, LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		at.Error = err.Error()
	} else if status < 200 || status > 299 {
		at.Error = fmt.Sprintf("answered %d", status)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	dl.sending = false
	dl.Attempts = append(dl.Attempts, at)
	log := s.Logger.With("event_id", dl.EventID, "signature_id", dl.SignatureID, "state", dl.State, "attempt", try+1)
	switch {
	case at.Error == "":
		dl.Outcome = OutcomeDelivered
		log.Info("notification delivered", "status", status, "latency_ms", at.LatencyMS)
		if s.faultRedeliver(d, dl) {
			return
		}
		d.wg.Done()
	case try < len(s.RetrySchedule) && !d.closing && !s.fault(faultNotificationNoRetry):
		wait := s.faultRetry(dl, s.RetrySchedule[try])
		log.Warn("notification not delivered, will retry", "err", at.Error, "retry_in", wait)
		dl.timer = time.AfterFunc(wait, func() { d.attempt(dl, try+1) })
	default:
		dl.Outcome = OutcomeFailed
		log.Error("notification failed", "err", at.Error, "attempts", len(dl.Attempts))
		d.wg.Done()
	}
}

// close sends every notification still waiting for its timer at once,
// without retries, waits for them until ctx ends, and logs each one it
// could not finish.
func (d *dispatcher) close(ctx context.Context) {
	d.mu.Lock()
	d.closing = true
	for _, dl := range d.order {
		if dl.Outcome == OutcomePending && dl.timer != nil && dl.timer.Stop() {
			dl.timer = nil
			go d.attempt(dl, len(d.s.RetrySchedule))
		}
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		d.mu.Lock()
		for _, dl := range d.order {
			if dl.Outcome == OutcomePending {
				d.s.Logger.Error("notification abandoned at shutdown", "event_id", dl.EventID,
					"signature_id", dl.SignatureID, "state", dl.State, "url", dl.URL, "attempts", len(dl.Attempts))
			}
		}
		d.mu.Unlock()
	}
}

func (d *dispatcher) list(f deliveryFilter) []Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := []Delivery{}
	for _, dl := range d.order {
		if (f.SignatureID != "" && dl.SignatureID != f.SignatureID) || (f.EventID != "" && dl.EventID != f.EventID) ||
			(f.Outcome != "" && !strings.EqualFold(dl.Outcome, f.Outcome)) {
			continue
		}
		c := dl.Delivery
		c.Attempts = append([]Attempt(nil), dl.Attempts...)
		out = append(out, c)
	}
	return out
}
