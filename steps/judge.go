package steps

import (
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// answerBreaks is engine.Breaks for an assertion judged on the scenario's
// answer (its message says so, with sc.got()): the failure is of the
// answer's kind (reports.AnswerFailure), so that a 401 "Invalid
// signature" where a 200 was expected is explained as a signing mistake,
// whatever the step's wording; an answer of no known kind leaves the
// rule's (reports.RuleKind).
func (sc *scenario) answerBreaks(ref, format string, a ...any) error {
	kind := reports.AnswerFailure(sc.status, sc.answerMessage())
	if kind == "" {
		kind = reports.RuleKind(ref)
	}
	return engine.BreaksAs(kind, ref, format, a...)
}

// The refs the steps cite most, named once.
const (
	refCheck1      = "defaults §A check 1"
	refCheck2      = "defaults §A check 2"
	refCheck3      = "defaults §A check 3"
	refCheck4      = "defaults §A check 4"
	refCheck5      = "defaults §A check 5"
	refErrorBody   = "defaults §A paragraph 5"
	refCheckOK     = "§4.1 rule 1"
	refCheckFails  = "§4.1 rule 2"
	refCheckBody   = "§2.1 status_code"
	refCreate      = "§4.2 Success"
	refCreateBody  = "defaults §C paragraph 1"
	refRefusal     = "defaults §C paragraph 2"
	refRouting     = "defaults §C bullet 4"
	refJSON        = "§4 paragraph 1"
	refPayload     = "defaults §B paragraph 2"
	refPayloadKeys = "defaults §B bullet 4"
	refEventID     = "defaults §B bullet 5"
	refDelivery    = "defaults §B bullet 6"
	refWebhookSig  = "defaults §B paragraph 1"
	refDemo        = "defaults §D bullet 1"
	refNotDemo     = "defaults §D bullet 2"
	refDemoSame    = "defaults §D bullet 3"
	refDemoURL     = "defaults §D bullet 4"
)
