package reports

import (
	"net/http"
	"strings"

	"github.com/firmakit/firmakit"
)

// FailureKind is what sort of failure a scenario came to, set by the step
// that failed it from what it saw (an answer's status and label, a
// notification that never came), never read back from its message: a
// step's message can be reworded without regrouping the report. Every
// breach has one: when its step names no likely cause, the kind of the
// rule it breaks (RuleKind). Causes groups the failures of a likely
// cause together whatever they say, those of a rule's kind by their facts
// (Facts), and says what probably went wrong (the "diag." text of the
// kind in i18n.go, or, for an authentication refusal, its row of
// firmakit.Refusals). A result of no known kind (a step's plain error, a
// result file of an earlier version) is "". An inconclusive result may
// have a kind too: unreachable, when the target answered nothing at all.
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

// The kinds of the rules a breach may break, when its step names no
// likely cause (RuleKind): which part of the documents it breaks.
const (
	FailureAnswerForm       FailureKind = "answer-form"
	FailureAuthentication   FailureKind = "authentication"
	FailureEnvelope         FailureKind = "envelope"
	FailureCreateRequest    FailureKind = "create-request"
	FailureNotificationForm FailureKind = "notification-form"
	FailureDelivery         FailureKind = "delivery"
	FailureDemo             FailureKind = "demo"
	FailureRule             FailureKind = "rule"
)

// ruleKinds are the kinds of the documents' items by the start of their
// ref (features.Items), the longest start first where two overlap.
var ruleKinds = []struct {
	prefix string
	kind   FailureKind
}{
	{"§2.1 ", FailureAnswerForm},
	{"§4 paragraph ", FailureAnswerForm},
	{"defaults §A paragraph ", FailureAnswerForm},
	{"defaults §A check ", FailureAuthentication},
	{"§4.1 ", FailureAuthentication},
	{"§7 ", FailureAuthentication},
	{"defaults §F ", FailureAuthentication},
	{"§2.2 ", FailureEnvelope},
	{"§4.2 ", FailureEnvelope},
	{"defaults §C paragraph 1", FailureEnvelope},
	{"defaults §C ", FailureCreateRequest},
	{"defaults §B bullet 1", FailureDelivery}, // several v1= entries: rotation
	{"defaults §B bullet 2", FailureDelivery}, // replay
	{"defaults §B bullet 5", FailureDelivery}, // event_id on every retry
	{"defaults §B bullet 6", FailureDelivery},
	{"defaults §B ", FailureNotificationForm},
	{"§6.2 rule ", FailureNotificationForm},
	{"§6.2 paragraph ", FailureNotificationForm},
	{"§6.2 ", FailureDemo}, // a state's demo prefix
	{"defaults §D ", FailureDemo},
	{"§9 ", FailureDemo},
}

// RuleKind is the kind of a breach of the rule at ref (a ref of
// features.Items) whose step names no likely cause: the part of the
// documents it breaks; FailureRule for a ref of no part listed.
func RuleKind(ref string) FailureKind {
	for _, r := range ruleKinds {
		if strings.HasPrefix(ref, r.prefix) {
			return r.kind
		}
	}
	return FailureRule
}

// ByFacts tells whether the failures of kind are told apart by their
// facts (a rule's kind: what broke it varies) rather than grouped whole
// (a likely cause, which its failures share whatever they say).
func (k FailureKind) ByFacts() bool {
	switch k {
	case FailureAnswerForm, FailureAuthentication, FailureEnvelope, FailureCreateRequest,
		FailureNotificationForm, FailureDelivery, FailureDemo, FailureRule:
		return true
	}
	return false
}

// FailureKinds are the kinds of failure the report explains: the target
// unreachable, the authentication refusals (firmakit.Refusals, the last
// check first), the other likely causes, then the rules' kinds.
func FailureKinds() []FailureKind {
	kinds := []FailureKind{FailureUnreachable}
	for i := len(firmakit.Refusals) - 1; i >= 0; i-- {
		kinds = append(kinds, FailureKind(firmakit.Refusals[i].Kind))
	}
	return append(kinds, FailureNotFound, FailureServerError, FailureWebhookSignature,
		FailureNotificationMissing, FailureNotificationLate,
		FailureAnswerForm, FailureAuthentication, FailureEnvelope, FailureCreateRequest,
		FailureNotificationForm, FailureDelivery, FailureDemo, FailureRule)
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
