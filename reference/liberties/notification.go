package liberties

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
)

// notificationLiberties are the liberties' NotificationDeviations: the
// demo delay and the notification's payload.
type notificationLiberties struct {
	reference.NopNotificationDeviations
	*service
}

var _ reference.NotificationDeviations = notificationLiberties{}

// DemoDelay is the configured delay of its liberty.
func (s notificationLiberties) DemoDelay(d time.Duration) time.Duration {
	if s.on[libDemoDelay900ms] {
		return 900 * time.Millisecond
	}
	return d
}

// otherReasons are reasons in other words than the reference's.
var otherReasons = map[firmakit.State]string{
	firmakit.StateBounced:  "No fue posible entregar el contrato: la dirección de correo rechazó el mensaje",
	firmakit.StateRejected: "La persona firmante declinó firmar el documento",
	firmakit.StateCanceled: "Solicitud anulada por el comercio",
}

// Notification writes event_id, reason, document_url and created_at
// as the liberties say.
func (s notificationLiberties) Notification(n *firmakit.Notification, _ firmakit.Envelope) {
	if s.on[libEventIDPrefixed] {
		n.EventID = "evt_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:24]
	}
	if r, ok := otherReasons[n.Status]; ok && s.on[libReasonsOwnWords] {
		n.Reason = r
	}
	if n.DocumentURL != "" && s.on[libDocumentURLQuery] {
		n.DocumentURL += "?download=1"
	}
	if t, err := time.Parse(firmakit.TimeFormat, n.CreatedAt); err == nil {
		switch {
		case s.on[libNotificationSeconds]:
			n.CreatedAt = t.UTC().Format("2006-01-02T15:04:05Z")
		case s.on[libNotificationOffset]:
			n.CreatedAt = t.In(time.FixedZone("CLT", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
		}
	}
}

// Payload adds keys to the encoded notification, or indents it.
func (s notificationLiberties) Payload(body []byte, _ firmakit.Notification) []byte {
	if s.on[libNotificationExtra] {
		body = setMember(body, "livemode", false)
		body = setMember(body, "api_version", "v1")
	}
	if s.on[libNotificationIndented] {
		var out bytes.Buffer
		if json.Indent(&out, body, "", "    ") == nil {
			body = append(out.Bytes(), '\n')
		}
	}
	return body
}

// deliveryLiberties are the liberties' DeliveryDeviations: a delivery's
// headers and the wait before a retry.
type deliveryLiberties struct {
	reference.NopDeliveryDeviations
	*service
}

var _ reference.DeliveryDeviations = deliveryLiberties{}

// Attempt adds headers to a delivery, or a charset to its content type;
// the signature header is left as signed.
func (s deliveryLiberties) Attempt(req *http.Request, _ string, _ []string) {
	if s.on[libNotificationHeaders] {
		req.Header.Set("User-Agent", "Comercio-Webhooks/2.1")
		req.Header.Set("X-Request-Id", uuid.NewString())
		req.Header.Set("X-Service-Event-Id", uuid.NewString())
	}
	if s.on[libNotificationCharset] {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
}

// RetryWait waits longer than the schedule says.
func (s deliveryLiberties) RetryWait(_ *reference.Delivery, wait time.Duration) time.Duration {
	if s.on[libRetryLater] {
		return wait + wait/4
	}
	return wait
}
