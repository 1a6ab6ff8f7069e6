package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
)

// Names of the security schemes of the request headers.
const (
	schemeKey       = "MerchantKey"
	schemeTimestamp = "RequestTimestamp"
	schemeSignature = "RequestSignature"
	// schemeNotification is the signature header of the notifications
	// the service sends, which the merchant's endpoint verifies.
	schemeNotification = "NotificationSignature"
)

// The fixed values of the examples: the test vectors' time and ids of
// defaults.md, so that an example and a vector are the same bytes.
const (
	vectorTime        = 1763805600
	exampleEventID    = "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed"
	exampleSignature  = "0f8fad5b-d9cb-469f-a165-70867728950e"
	exampleCreatedAt  = "2026-11-22T10:00:00.000Z"
	exampleNotifiedAt = "2026-11-22T10:00:00.512Z"
	exampleTitle      = "Contrato de arriendo 42"
)

// vectorBody is the notification of the webhook test vector (defaults.md B).
const vectorBody = `{"event_id":"` + exampleEventID + `","status":"SIGNED"}`

const jsonType = "application/json"

func (b *builder) security() []map[string][]string {
	return []map[string][]string{{schemeKey: {}, schemeTimestamp: {}, schemeSignature: {}}}
}

func (b *builder) merchantParam() *Parameter {
	s := &Schema{Type: "string", MinLength: intp(1), Pattern: "^[^/]+$"}
	desc := "The merchant's identifier; the key of the request must be one of its credentials. " +
		"It is one path segment: an encoded slash (%2F) makes the path no endpoint (404)."
	if b.o.Merchant != "" {
		s.Enum = enum([]string{b.merchant.ID})
	}
	return &Parameter{Name: "merchant_id", In: "path", Required: true, Description: desc, Schema: s, Example: b.merchantID()}
}

// notAnEndpoint is the reference's answer to a POST to path, which is no
// endpoint: the path as decoded, a%2Fb read as a/b.
func (b *builder) notAnEndpoint(path string) *Example {
	return errorExample("A merchant_id holding an encoded slash", http.StatusNotFound, reference.NotFoundMessage(http.MethodPost, path))
}

func jsonBody(s *Schema, examples map[string]*Example) map[string]*MediaType {
	return map[string]*MediaType{jsonType: {Schema: s, Examples: examples}}
}

// errorExample is an example error body.
func errorExample(summary string, status int, message string) *Example {
	return &Example{Summary: summary, Value: firmakit.APIResponse{StatusCode: status, Message: message}}
}

// unauthorized is the 401 of the authentication refusals answered 401
// (firmakit.Refusals), each with its words, an example and its sentences.
func (b *builder) unauthorized() *Response {
	var says []string
	examples := map[string]*Example{}
	var items []item
	for _, r := range firmakit.Refusals {
		if r.Status != http.StatusUnauthorized {
			continue
		}
		says = append(says, "`"+r.Label()+"` ("+r.Says(seconds(b.p.Request.Tolerance))+")")
		examples[r.Kind[strings.LastIndex(r.Kind, "-")+1:]] = errorExample(r.Label(), r.Status, r.Label())
		items = append(items, refusalItem(r))
	}
	return &Response{
		Description: "Authentication refused, by the first check that fails: " + strings.Join(says, ", ") + ".",
		Content:     jsonBody(ref(schemaUnauthorized), examples),
		Requirement: b.tags(items...)}
}

func (b *builder) tooLarge() *Response {
	return &Response{
		Description: fmt.Sprintf("The body is over %d bytes (the reference server's limit), refused before any JSON is parsed.", reference.DefaultMaxBody),
		Content: jsonBody(ref(schemaTooLarge), map[string]*Example{
			"too large": errorExample("A body over the limit", http.StatusRequestEntityTooLarge,
				fmt.Sprintf("Request body too large: the limit is %d bytes", reference.DefaultMaxBody)),
		}),
		Requirement: b.tags(itemTooLarge)}
}

func (b *builder) checkOperation() *Operation {
	return &Operation{
		Tags:    []string{"verification"},
		Summary: "Check that the authentication headers and signature are accepted",
		Description: "A merchant checks its headers and signature before it uses any other service (interface §4.1). " +
			"The body may be any JSON object: its content does not matter.\n\n" + b.vectorText(),
		OperationID: "checkCredentials",
		Parameters: []*Parameter{
			{Name: "api_version", In: "path", Required: true, Description: "The version segment; the service accepts these.",
				Schema: &Schema{Type: "string", Enum: enum(b.cfg.APIVersions)}, Example: b.cfg.APIVersions[0]},
			b.merchantParam(),
		},
		RequestBody: &RequestBody{Required: true, Description: "Any JSON object, signed byte for byte.",
			Content: jsonBody(&Schema{Type: "object"}, map[string]*Example{
				"vector": {Summary: "The body of the test vector", Value: value([]byte("{}"))},
			})},
		Responses: map[string]*Response{
			"200": {Description: "The headers are complete, the credentials valid and the signature right and not expired.",
				Content: jsonBody(ref(schemaAuthenticated), map[string]*Example{
					"authenticated": {Value: firmakit.APIResponse{StatusCode: http.StatusOK, Message: "Authenticated"}},
				}),
				Requirement: b.tags(itemCheckOK)},
			"400": {Description: "`Missing headers`: an authentication header is absent or empty. " +
				"After authentication, a body that is not a JSON object, or a Content-Type that is not JSON, with a message naming the problem.",
				Content: jsonBody(ref(schemaBadRequest), map[string]*Example{
					"missing headers": errorExample("An authentication header absent or empty", http.StatusBadRequest, firmakit.ErrMissingHeaders.Error()),
					"not an object":   errorExample("A body that is not a JSON object", http.StatusBadRequest, "Body must be a JSON object, got an array"),
				}),
				Requirement: b.tags(append(missingItems(), itemBody)...)},
			"401": b.unauthorized(),
			"404": {Description: "A version segment the service does not accept, or a path that is no endpoint (a `merchant_id` holding an encoded slash).",
				Content: jsonBody(ref(schemaNotFound), map[string]*Example{
					"version": errorExample("Another version", http.StatusNotFound,
						fmt.Sprintf("Unknown api version: %q (accepted: %s)", "v0", b.o.Config.APIVersions[0])),
					"not an endpoint": b.notAnEndpoint("/" + b.o.Config.APIVersions[0] + "/check/a/b"),
				}),
				Requirement: b.tags(itemVersion, itemNoEndpoint)},
			"413": b.tooLarge(),
		},
		Security:    b.security(),
		Requirement: b.tags(itemCheck, itemSigning),
		ExternalDocs: &ExternalDocs{Description: "Signing a request (firmakit sign), and why one was refused",
			URL: DocsURL + "signing.md"},
	}
}

// createExample is the create body of the examples: the template's name,
// a signer per signer key and its example data, as firmakit's demo
// clients send it.
func (b *builder) createExample(title string) firmakit.CreateSignatureRequest {
	return firmakit.NewCreateRequest(b.template.Template, b.template.ExampleData(), title)
}

// createdExample is the answer to createExample, with the fixed id and
// time of the examples.
func (b *builder) createdExample(req firmakit.CreateSignatureRequest) firmakit.APIResponse {
	env := firmakit.Envelope{SignatureID: exampleSignature, Status: firmakit.EnvelopePending, Title: req.Title,
		Routing: "parallel", Sender: b.merchant.Sender, CreatedAt: exampleCreatedAt}
	if req.Routing != "" {
		env.Routing = req.Routing
	}
	env.Documents = []firmakit.Document{{Key: "document_0", Title: b.template.Title}}
	for _, s := range req.Signers {
		env.Recipients = append(env.Recipients, firmakit.Recipient{Key: s.Key, Name: s.Name, Email: s.Email, Status: firmakit.RecipientPending})
	}
	return firmakit.APIResponse{StatusCode: http.StatusCreated, Message: "Signature request created", Data: &env}
}

func (b *builder) createOperation() *Operation {
	op := &Operation{
		Tags:    []string{"signature"},
		Summary: "Create a digital contract signature request from templates",
		Description: "The service sends the contract, built from the merchant's templates, to the signers, and later notifies the merchant's " +
			"`signature_webhook` of its progress (see the webhook `" + WebhookName + "`). The endpoint is marked as in development in the interface (§1). " +
			"Templates are delivered to the service out of band; it assigns each a name (for `documents`), signer keys and data keys.",
		OperationID: "createSignature",
		Parameters:  []*Parameter{b.merchantParam()},
		RequestBody: &RequestBody{Required: true, Content: jsonBody(ref(schemaCreateRequest), nil)},
		Responses: map[string]*Response{
			"201": {Description: "The contract was created; a demo title's answer is the same as any other.",
				Content:     jsonBody(ref(schemaCreated), nil),
				Requirement: b.tags(itemCreated)},
			"400": {Description: "`Missing headers`: an authentication header is absent or empty. After authentication, a body that is not a JSON object, " +
				"or one that breaks a rule of the create body, with a message naming the field and the fault.",
				Content: jsonBody(ref(schemaBadRequest), map[string]*Example{
					"missing headers": errorExample("An authentication header absent or empty", http.StatusBadRequest, firmakit.ErrMissingHeaders.Error()),
					"title":           errorExample("No title", http.StatusBadRequest, "title is required"),
					"document":        errorExample("A template the merchant does not have", http.StatusBadRequest, "unknown document: x"),
				}),
				Requirement: b.tags(append(missingItems(), itemBody, itemRefused)...)},
			"401": b.unauthorized(),
			"404": {Description: "A path that is no endpoint: a `merchant_id` holding an encoded slash.",
				Content: jsonBody(ref(schemaNotFound), map[string]*Example{
					"not an endpoint": b.notAnEndpoint("/v1/signature/a/b"),
				}),
				Requirement: b.tags(itemNoEndpoint)},
			"413": b.tooLarge(),
		},
		Security:    b.security(),
		Requirement: b.tags(itemCreate, itemSigning),
	}
	if b.template == nil {
		return op // no template to write an example from
	}
	plain := b.createExample(exampleTitle)
	demo := b.createExample(firmakit.StateSigned.DemoPrefix() + " " + exampleTitle)
	op.RequestBody.Content[jsonType].Examples = map[string]*Example{
		"contract": {Summary: "A contract from template " + b.template.Name, Value: plain},
		"demo":     {Summary: "A demo contract: its SIGNED notification comes about 500 ms after the 201", Value: demo},
	}
	op.Responses["201"].Content[jsonType].Examples = map[string]*Example{
		"contract": {Summary: "The answer to the contract example", Value: b.createdExample(plain)},
	}
	refusals := op.Responses["400"].Content[jsonType].Examples
	if t := b.template.Data; len(t) > 0 {
		refusals["data"] = errorExample("A data key left out", http.StatusBadRequest, "missing data key: "+t[len(t)-1])
	}
	if t := b.template.Signers; len(t) > 0 {
		refusals["signer"] = errorExample("A signer left out", http.StatusBadRequest, "missing signer: "+t[len(t)-1])
	}
	return op
}

// notificationExample is a notification of state st as the reference
// server sends it, under the profile's field names.
func (b *builder) notificationExample(st firmakit.State) []byte {
	n := firmakit.Notification{EventID: exampleEventID, Type: firmakit.NotificationType, MerchantID: b.merchantID(),
		SignatureID: exampleSignature, Title: st.DemoPrefix() + " " + exampleTitle, Status: st, Demo: true, CreatedAt: exampleNotifiedAt}
	if st.HasDocumentURL() {
		n.DocumentURL = b.o.ServerURL + "/demo/documents/" + exampleSignature + ".pdf"
	}
	if st.HasReason() {
		n.Reason = reference.DemoReason(st)
	}
	body, err := b.p.EncodeNotification(n)
	if err != nil && b.err == nil {
		b.err = err
	}
	return body
}

func (b *builder) notificationOperation() *Operation {
	w := b.p.Webhook
	examples := map[string]*Example{}
	for _, st := range firmakit.States {
		examples[string(st)] = &Example{Summary: "A demo " + string(st) + " notification", Value: value(b.notificationExample(st))}
	}
	// The headers of the SIGNED example, signed with the demo merchant's
	// webhook secret at the vectors' time.
	signed := b.signedExample(b.notificationExample(firmakit.StateSigned))
	params := []*Parameter{{Name: w.SignatureHeader, In: "header", Required: true,
		Description: b.webhookSignatureText(),
		Schema:      &Schema{Type: "string", Pattern: b.signaturePattern()},
		Example:     signed.Get(w.SignatureHeader)}}
	if w.IsRFC9421() {
		params = append(params, &Parameter{Name: w.SignatureInputHeader, In: "header", Required: true,
			Description: "The covered components and parameters of each signature (RFC 9421 §4.1), by label.",
			Schema:      &Schema{Type: "string", MinLength: intp(1)}, Example: signed.Get(w.SignatureInputHeader)},
			&Parameter{Name: "Content-Digest", In: "header", Required: true,
				Description: "The digest of the raw body (RFC 9530), which the signatures cover.",
				Schema:      &Schema{Type: "string", Pattern: `^.*sha-(256|512)=:[A-Za-z0-9+/]+={0,2}:.*$`}, Example: signed.Get("Content-Digest")})
	}
	if w.TimestampFrom == "header" {
		params = append(params, &Parameter{Name: w.TimestampHeader, In: "header", Required: true,
			Description: "The time of sending, Unix seconds; signed with the body.",
			Schema:      &Schema{Type: "string", Pattern: `^[0-9]+$`}, Example: signed.Get(w.TimestampHeader)})
	}
	if w.HasID() {
		params = append(params, &Parameter{Name: w.IDHeader, In: "header", Required: true,
			Description: "The message id, the notification's event id; signed with the body.",
			Schema:      &Schema{Type: "string", MinLength: intp(1)}, Example: signed.Get(w.IDHeader)})
	}
	return &Operation{
		Summary:     "A signature status notification, sent to the merchant's signature_webhook",
		Description: b.deliveryText(),
		OperationID: "signatureStatus",
		Parameters:  params,
		RequestBody: &RequestBody{Required: true, Description: "The notification, JSON; its signature covers these bytes exactly.",
			Content: jsonBody(ref(schemaNotification), examples)},
		Responses: map[string]*Response{
			"2XX": {Description: fmt.Sprintf("Delivered: any 2xx within %s. The merchant's endpoint answers 2xx only to a notification whose signature it verified.",
				seconds(b.timeout())),
				Requirement: b.tags(itemDelivered)},
			"default": {Description: "Not delivered: any other answer, or none within " + seconds(b.timeout()) + ". The service sends the same event again " +
				b.retryText() + ". The merchant's endpoint answers so a notification whose signature header is absent, malformed, stale or does not match.",
				Requirement: b.tags(itemRetried)},
		},
		Security:    []map[string][]string{{schemeNotification: {}}},
		Requirement: b.tags(itemNotification),
	}
}

func (b *builder) timeout() time.Duration {
	if b.p.Webhook.Timeout > 0 {
		return b.p.Webhook.Timeout
	}
	return 10 * time.Second
}

func (b *builder) retries() []time.Duration {
	if len(b.p.Webhook.Retries) > 0 {
		return b.p.Webhook.Retries
	}
	return reference.DefaultRetrySchedule
}

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	}
	return d.String()
}

// jsonText is v as compact JSON, for a description.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
