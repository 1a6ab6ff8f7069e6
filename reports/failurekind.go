package reports

import (
	"net/http"

	"github.com/firmakit/firmakit"
)

// FailureKind is what sort of failure a scenario came to, set by the step
// that failed it from what it saw (an answer's status and label, a
// notification that never came), never read back from its message: a
// step's message can be reworded without regrouping the report. Causes
// groups the failures of one kind together and says what probably went
// wrong (the "diag." text of the kind in i18n.go, or, for an
// authentication refusal, its row of firmakit.Refusals). A failure of no known
// kind is "". An inconclusive result may have a kind too: unreachable,
// when the target answered nothing at all.
type FailureKind string

// The kinds of failure the report explains, in the order FailureKinds lists
// them.
const (
	FailureUnreachable         FailureKind = "unreachable"
	FailureInvalidSignature    FailureKind = "request-invalid-signature"
	FailureInvalidCredentials  FailureKind = "request-invalid-credentials"
	FailureExpired             FailureKind = "request-expired"
	FailureMissingHeaders      FailureKind = "request-missing-headers"
	FailureNotFound            FailureKind = "not-found"
	FailureServerError         FailureKind = "server-error"
	FailureWebhookSignature    FailureKind = "webhook-signature"
	FailureNotificationMissing FailureKind = "notification-missing"
	FailureNotificationLate    FailureKind = "notification-late"
)

// FailureKinds are the kinds of failure the report explains: the target
// unreachable, the authentication refusals (firmakit.Refusals, the last
// check first), then the others.
func FailureKinds() []FailureKind {
	kinds := []FailureKind{FailureUnreachable}
	for i := len(firmakit.Refusals) - 1; i >= 0; i-- {
		kinds = append(kinds, FailureKind(firmakit.Refusals[i].Kind))
	}
	return append(kinds, FailureNotFound, FailureServerError, FailureWebhookSignature,
		FailureNotificationMissing, FailureNotificationLate)
}

// AnswerFailure is the kind of a failure judged on an answer of the
// target: its status and the message of its body (the API's error shape;
// "" when it has none). An authentication answer (400 Missing headers, a
// 401 with its label), a 404 or a 5xx says what probably went wrong; any
// other answer is of no known kind. The steps ask it only where the answer
// is not the one expected (not of an expected answer's shape).
func AnswerFailure(status int, message string) FailureKind {
	if r, ok := firmakit.RefusalAnswered(status, message); ok {
		return FailureKind(r.Kind)
	}
	switch {
	case status == http.StatusNotFound:
		return FailureNotFound
	case status >= 500 && status <= 599:
		return FailureServerError
	}
	return ""
}
