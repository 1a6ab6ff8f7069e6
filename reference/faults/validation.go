package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
)

// validationFaults are the faults' ValidationDeviations: the checks of a
// create request and their refusals.
type validationFaults struct{ *service }

var _ reference.ValidationDeviations = validationFaults{}

// Request gives a request without a title one, and reads a routing in
// any case and without spaces, under their faults.
func (s validationFaults) Request(obj map[string]json.RawMessage) {
	if s.fault(faultValidationEmailPlusRefused) || s.fault(faultValidationNameMax60) {
		var signers []map[string]any
		if json.Unmarshal(obj["signers"], &signers) == nil {
			for _, sg := range signers {
				if e, _ := sg["email"].(string); strings.Contains(e, "+") && s.fault(faultValidationEmailPlusRefused) {
					sg["email"] = "not an e-mail address"
				}
				if n, _ := sg["name"].(string); utf8.RuneCountInString(n) > 60 && s.fault(faultValidationNameMax60) {
					sg["name"] = ""
				}
			}
			obj["signers"], _ = json.Marshal(signers)
		}
	}
	if v, ok := obj["title"]; (!ok || string(v) == "null") && s.fault(faultValidationMissingTitle) {
		obj["title"], _ = json.Marshal(faultTitle)
	}
	if s.fault(faultValidationValuesTrimmed) {
		trimValues(obj)
	}
	var routing string
	if v, ok := obj["routing"]; ok && s.fault(faultValidationRoutingCaseless) && json.Unmarshal(v, &routing) == nil {
		obj["routing"], _ = json.Marshal(strings.ToLower(strings.TrimSpace(routing)))
	}
}

// trimValues trims the document names, signer keys and data keys of a
// create request, as the values-trimmed fault compares them.
func trimValues(obj map[string]json.RawMessage) {
	var docs []any
	if json.Unmarshal(obj["documents"], &docs) == nil {
		for i, d := range docs {
			if t, ok := d.(string); ok {
				docs[i] = strings.TrimSpace(t)
			}
		}
		obj["documents"], _ = json.Marshal(docs)
	}
	var signers []map[string]any
	if json.Unmarshal(obj["signers"], &signers) == nil {
		for _, sg := range signers {
			if k, ok := sg["key"].(string); ok {
				sg["key"] = strings.TrimSpace(k)
			}
		}
		obj["signers"], _ = json.Marshal(signers)
	}
	var data map[string]any
	if json.Unmarshal(obj["data"], &data) == nil && data != nil {
		trimmed := map[string]any{}
		for k, v := range data {
			trimmed[strings.TrimSpace(k)] = v
		}
		obj["data"], _ = json.Marshal(trimmed)
	}
}

// waivedBy names the fault that skips each check of a create request.
var waivedBy = map[reference.Rule]string{
	reference.RuleRouting:      faultValidationRoutingUnchecked,
	reference.RuleKnownSigner:  faultValidationUnknownSigner,
	reference.RuleSignerOnce:   faultValidationDuplicateSigner,
	reference.RuleSignerEmail:  faultValidationInvalidEmail,
	reference.RuleEverySigner:  faultValidationMissingSigner,
	reference.RuleSignerOrder:  faultEnvelopeRecipientsRequestOrder,
	reference.RuleEveryDataKey: faultValidationMissingDataKey,
	reference.RuleKnownDataKey: faultValidationUnknownDataKey,
}

// Waives tells whether the fault of a check is on.
func (s validationFaults) Waives(rule reference.Rule) bool { return s.fault(waivedBy[rule]) }

// Template makes up a template for an unknown document under its fault.
func (s validationFaults) Template(name string) *firmakit.Template {
	if !s.fault(faultValidationUnknownDocument) {
		return nil
	}
	return &firmakit.Template{Name: name, Title: name}
}

// faultTitle is the title a request without one gets when the missing
// title is accepted.
const faultTitle = "Sin título"

var rewordings = []struct{ from, to string }{
	{"title is required", "title missing"},
	{"unknown document: ", "document not found: "},
	{"missing data key: ", "data key missing: "},
	{"unknown data key: ", "data key not expected: "},
	{"missing signer: ", "signer missing: "},
	{"unknown signer: ", "signer not in the template: "},
	{"signer listed twice: ", "duplicate signer: "},
	{"invalid email for ", "email not valid for "},
	{"routing must be parallel or sequential", "routing not supported"},
}

// Refusal returns a create refusal as the validation faults change
// it: reworded, or turned into an internal error for a wrong JSON type.
func (s validationFaults) Refusal(err error) error {
	var api *reference.APIError
	if !errors.As(err, &api) {
		return err
	}
	if s.fault(faultValidationWrongType500) && errors.Is(err, reference.ErrWrongType) {
		return fmt.Errorf("decode create request: %s", api.Message) // not an *reference.APIError: answered 500
	}
	if s.fault(faultValidationMessageNoField) {
		return &reference.APIError{Status: api.Status, Message: withoutField(api.Message), Err: api.Err}
	}
	if s.fault(faultValidationMessagesReworded) {
		for _, r := range rewordings {
			if rest, ok := strings.CutPrefix(api.Message, r.from); ok {
				return &reference.APIError{Status: api.Status, Message: r.to + rest, Err: api.Err}
			}
		}
	}
	return err
}

// withoutField is a refusal message with its field and value left out.
func withoutField(msg string) string {
	switch {
	case strings.HasSuffix(msg, " is required"):
		return "a required field is missing"
	case strings.HasPrefix(msg, "invalid email for "):
		return "invalid email"
	case strings.HasPrefix(msg, "routing must be "):
		return "value must be parallel or sequential"
	}
	head, _, _ := strings.Cut(msg, ":")
	return head
}
