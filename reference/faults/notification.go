package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
)

// notificationFaults are the faults' NotificationDeviations: whether and
// when a demo title gets a notification, and its payload.
type notificationFaults struct{ *service }

var _ reference.NotificationDeviations = notificationFaults{}

// Values the notification faults put where a correct server puts
// something else.
const (
	faultyLateDelay = 2 * time.Second
	// reusedEventID is the example event_id of defaults.md B, handed out
	// for every notification.
	reusedEventID = "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed"
)

// DemoState is firmakit.DemoState with the faults on how a title is read.
func (s notificationFaults) DemoState(title string, st firmakit.State, ok bool) (firmakit.State, bool) {
	for _, x := range firmakit.States {
		p := x.DemoPrefix()
		switch {
		case ok:
		case s.fault(faultNotificationPrefixCaseless) && len(title) >= len(p) && strings.EqualFold(title[:len(p)], p),
			s.fault(faultNotificationPrefixAnywhere) && strings.Contains(title, p),
			s.fault(faultNotificationPrefixAfterInvisible) && strings.HasPrefix(strings.TrimLeft(title, "\ufeff\u200b\u00a0"), p):
			st, ok = x, true
		}
	}
	if !ok && s.fault(faultNotificationNonDemoTitle) {
		st, ok = firmakit.StateCreated, true
	}
	if ok && st == firmakit.StateBounced && s.fault(faultNotificationWrongState) {
		st = firmakit.StateRejected
	}
	return st, ok
}

// DemoNotifications is how many notifications a demo title gets.
func (s notificationFaults) DemoNotifications(n int) int {
	switch {
	case s.fault(faultNotificationNever):
		return 0
	case s.fault(faultNotificationTwice):
		return 2 * n
	}
	return n
}

// DemoDelay returns the wait before a demo notification.
func (s notificationFaults) DemoDelay(d time.Duration) time.Duration {
	switch {
	case s.fault(faultNotificationImmediate):
		return 0
	case s.fault(faultNotificationLate):
		return faultyLateDelay
	}
	return d
}

// Notification changes the fields of a demo notification before it
// is encoded (and so before it is signed).
func (s notificationFaults) Notification(n *firmakit.Notification, env firmakit.Envelope) {
	if s.fault(faultNotificationWrongMerchantID) {
		n.MerchantID = "other_" + n.MerchantID
	}
	if s.fault(faultNotificationWrongType) {
		n.Type = "signature.updated"
	}
	if s.fault(faultNotificationTitleCollapsed) {
		n.Title = strings.Join(strings.Fields(n.Title), " ")
	}
	switch {
	case s.fault(faultNotificationEventIDReused):
		n.EventID = reusedEventID
	case s.fault(faultNotificationEventIDEmpty):
		n.EventID = ""
	}
	if s.fault(faultNotificationSignatureIDMismatch) {
		n.SignatureID = uuid.NewString()
	}
	if s.fault(faultNotificationCrossedContracts) {
		// One slot shared by every notification being built: every
		// second one finds the one before it still there.
		s.last.Lock()
		id, title := s.last.id, s.last.title
		s.last.n++
		if s.last.n%2 == 1 {
			s.last.id, s.last.title = n.SignatureID, n.Title
		}
		second := s.last.n%2 == 0
		s.last.Unlock()
		if second && id != "" {
			n.SignatureID, n.Title = id, title
		}
	}
	switch {
	case s.fault(faultNotificationDocumentURLAlways) && n.DocumentURL == "":
		n.DocumentURL = s.seam.DocumentURL(env.SignatureID)
	case s.fault(faultNotificationDocumentURLMissing):
		n.DocumentURL = ""
	case s.fault(faultNotificationDocumentURL404):
		n.DocumentURL = strings.TrimSuffix(n.DocumentURL, ".pdf")
	}
	switch {
	case s.fault(faultNotificationReasonMissing):
		n.Reason = ""
	case s.fault(faultNotificationReasonOnSigned) && n.Status == firmakit.StateSigned:
		n.Reason = "Todos los firmantes firmaron el contrato (demo)"
	}
}

// Payload changes an encoded notification where the Notification
// type cannot: null keys, demo false, an extra field.
func (s notificationFaults) Payload(body []byte, n firmakit.Notification) []byte {
	f := s.seam.Profile().Notification
	if s.fault(faultNotificationNullKeys) {
		if f.DocumentURL != "" && n.DocumentURL == "" {
			body = setMember(body, f.DocumentURL, nil)
		}
		if f.Reason != "" && n.Reason == "" {
			body = setMember(body, f.Reason, nil)
		}
	}
	if s.fault(faultNotificationDemoFalse) && f.Demo != "" {
		body = setMember(body, f.Demo, false)
	}
	return body
}

// deliveryFaults are the faults' DeliveryDeviations: the signature and
// headers of a delivery, what counts as delivered, the retries.
type deliveryFaults struct{ *service }

var _ reference.DeliveryDeviations = deliveryFaults{}

// Values the delivery faults put where a correct server puts something
// else.
const (
	faultyRedelivery = 2 * time.Second
	// faultyDeliveryTimeout is how long a delivery waits for its answer
	// when a late 2xx counts: far past the profile's 10 s.
	faultyDeliveryTimeout = time.Minute
	faultyStaleSignature  = 250 * time.Second
	faultySecret          = "whsec_not_the_merchants_secret"
)

// Timeout returns how long an attempt waits for its answer.
func (s deliveryFaults) Timeout(d time.Duration) time.Duration {
	if s.fault(faultNotificationLate2xxCounts) {
		return faultyDeliveryTimeout
	}
	return d
}

// Attempt changes one delivery attempt: its headers, its signature,
// the bytes it sends. req is signed correctly when it is called.
func (s deliveryFaults) Attempt(req *http.Request, body string, secrets []string) {
	w := s.seam.Profile().Webhook
	if s.fault(faultNotificationContentTypeText) {
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	}
	if ms := s.seam.Config().Merchants; s.fault(faultNotificationFirstMerchantWebhook) && len(ms) > 0 && ms[0].SignatureWebhook != "" {
		if u, err := url.Parse(ms[0].SignatureWebhook); err == nil {
			req.URL, req.Host = u, u.Host
		}
	}
	now, resign := s.seam.Now(), false
	if s.fault(faultNotificationTimestampStale) {
		now, resign = now.Add(-faultyStaleSignature), true
	}
	if s.fault(faultNotificationTimestampMillis) {
		// WebhookSignature writes t in seconds; a time of ms seconds writes ms.
		now, resign = time.Unix(now.UnixMilli(), 0), true
	}
	if s.fault(faultNotificationWrongSecret) {
		secrets, resign = []string{faultySecret}, true
	}
	if resign {
		req.Header.Set(w.SignatureHeader, s.seam.Profile().WebhookSignature(secrets, now, []byte(body)))
	}
	if s.fault(faultNotificationSignatureHeaderSpaced) {
		req.Header.Set(w.SignatureHeader, strings.ReplaceAll(req.Header.Get(w.SignatureHeader), ",", ", "))
	}
	if s.fault(faultNotificationSignatureUppercase) {
		items := strings.Split(req.Header.Get(w.SignatureHeader), ",")
		for i, item := range items {
			if k, v, _ := strings.Cut(item, "="); k == w.SignatureKey {
				items[i] = k + "=" + strings.ToUpper(v)
			}
		}
		req.Header.Set(w.SignatureHeader, strings.Join(items, ","))
	}
	if s.fault(faultNotificationSignedBodyDiffers) {
		var b bytes.Buffer
		if json.Indent(&b, []byte(body), "", "  ") == nil {
			sent := b.Bytes()
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(sent)), int64(len(sent))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(sent)), nil }
		}
	}
	if s.fault(faultNotificationSignatureHeaderName) {
		other := "X-Webhook-Signature"
		if strings.EqualFold(other, w.SignatureHeader) {
			other = "X-Signature"
		}
		v := req.Header.Get(w.SignatureHeader)
		req.Header.Del(w.SignatureHeader)
		req.Header.Set(other, v)
	}
}

// Delivered tells whether an attempt answered status counts as
// delivered, given what the profile says (ok).
func (s deliveryFaults) Delivered(status int, ok bool) bool {
	switch {
	case s.fault(faultNotificationRetryAfter204):
		return status == http.StatusOK
	case s.fault(faultNotification3xxDelivered):
		return ok || (status >= 300 && status <= 399)
	}
	return ok
}

// givenUpAfter is how many retries a notification gets under
// notification-retry-gives-up-early; cappedAt the schedule's wait at
// which notification-retry-backoff-capped's waits stop growing.
const (
	givenUpAfter = 2
	cappedAt     = 2
)

// Retried tells whether an attempt that was not delivered (answered
// status, or failed with err) is retried: under a fault, not even when
// the correct server would (ok).
func (s deliveryFaults) Retried(dl *reference.Delivery, status int, err error, ok bool) bool {
	var ne net.Error
	retries := len(dl.Attempts) - 1 // retries made so far
	switch {
	case s.fault(faultNotificationRetryGivesUpEarly) && retries >= givenUpAfter:
		return false
	case s.fault(faultNotificationRetryBeyondSchedule) && !ok && retries == len(s.seam.RetrySchedule()):
		return true // the dispatcher waits the schedule's last delay
	case s.fault(faultNotificationNoRetry),
		s.fault(faultNotificationNoRetryAfter4xx) && status >= 400 && status <= 499,
		s.fault(faultNotificationNoRetryAfterClose) && err != nil && !(errors.As(err, &ne) && ne.Timeout()),
		s.fault(faultNotificationNoRetryAfterReset) && errors.Is(err, syscall.ECONNRESET),
		s.fault(faultNotificationNoRetryAfterRefused) && errors.Is(err, syscall.ECONNREFUSED):
		return false
	}
	return ok
}

// RetryWait returns the wait before a retry, and gives the event a new
// event_id under the retry fault. The dispatcher's lock is held.
func (s deliveryFaults) RetryWait(dl *reference.Delivery, wait time.Duration) time.Duration {
	if s.fault(faultNotificationRetryNewEventID) && dl.EventID != "" {
		fresh := uuid.NewString()
		dl.Body = strings.Replace(dl.Body, `"`+dl.EventID+`"`, `"`+fresh+`"`, 1)
		dl.EventID = fresh
	}
	if s.fault(faultNotificationRetryImmediate) {
		return 0
	}
	if schedule := s.seam.RetrySchedule(); s.fault(faultNotificationRetryScheduleFlat) && len(schedule) > 0 {
		return schedule[0]
	}
	if schedule := s.seam.RetrySchedule(); s.fault(faultNotificationRetryBackoffCapped) && len(schedule) > cappedAt {
		return min(wait, schedule[cappedAt])
	}
	return wait
}

// Redelivery delivers an event answered 2xx once more, 2 s later, under
// its fault.
func (s deliveryFaults) Redelivery() (time.Duration, bool) {
	return faultyRedelivery, s.fault(faultNotificationRedelivered)
}
