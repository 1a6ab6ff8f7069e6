package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
)

// Names of the document's schemas.
const (
	schemaError         = "Error"
	schemaBadRequest    = "BadRequest"
	schemaUnauthorized  = "Unauthorized"
	schemaNotFound      = "NotFound"
	schemaTooLarge      = "PayloadTooLarge"
	schemaAuthenticated = "Authenticated"
	schemaCreateRequest = "CreateSignatureRequest"
	schemaSignerInput   = "SignerInput"
	schemaCreated       = "SignatureCreated"
	schemaEnvelope      = "Envelope"
	schemaSender        = "Sender"
	schemaDocument      = "Document"
	schemaRecipient     = "Recipient"
	schemaNotification  = "Notification"
)

// timePattern is the interface's timestamp: UTC, three fraction digits, Z.
const timePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`

// notificationSchema names the schema of a notification of one state,
// such as NotificationSigned.
func notificationSchema(s firmakit.State) string {
	st := strings.ToLower(string(s))
	return schemaNotification + strings.ToUpper(st[:1]) + st[1:]
}

func str(description string) *Schema { return &Schema{Type: "string", Description: description} }

func email(description string) *Schema {
	return &Schema{Type: "string", Format: "email", MaxLength: intp(254), Description: description}
}

func enum[T any](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

func (b *builder) schemas() map[string]*Schema {
	s := map[string]*Schema{
		schemaError: {Type: "object", Required: []string{"status_code", "message"},
			Description: "The body of every answer other than success: `status_code` is the HTTP status, `message` says what is wrong. " +
				"Other keys may follow (`firmakit serve --explain` adds a `diagnostic` to authentication refusals).",
			Properties: map[string]*Schema{
				"status_code": {Type: "integer", Description: "The HTTP status of the answer."},
				"message":     {Type: "string", MinLength: intp(1), Description: "What is wrong, for a person."},
			},
			Requirement: b.tags(itemErrorBody)},
		schemaBadRequest: b.errorSchema(http.StatusBadRequest, nil,
			"`Missing headers` when an authentication header is absent or empty (check 1); after authentication, a message naming the body's problem (check 5) or, on create, the field and the fault."),
		schemaUnauthorized: b.errorSchema(http.StatusUnauthorized,
			[]string{firmakit.ErrExpired.Error(), firmakit.ErrInvalidCredentials.Error(), firmakit.ErrInvalidSignature.Error()},
			"Authentication refused: one of the three labels, exactly (checks 2 to 4)."),
		schemaNotFound: b.errorSchema(http.StatusNotFound, nil,
			"A version segment the service does not accept, or a path that is no endpoint."),
		schemaTooLarge: b.errorSchema(http.StatusRequestEntityTooLarge, nil,
			fmt.Sprintf("A body over %d bytes, refused before any JSON is parsed.", reference.DefaultMaxBody)),
		schemaAuthenticated: {Type: "object", Required: []string{"status_code", "message"},
			Description: "The answer to accepted headers and signature (interface §2.1).",
			Properties: map[string]*Schema{
				"status_code": {Type: "integer", Const: http.StatusOK},
				"message":     {Type: "string", Const: "Authenticated"},
			}},
		schemaCreateRequest: b.createRequestSchema(),
		schemaSignerInput:   b.signerInputSchema(),
		schemaCreated: {Type: "object", Required: []string{"status_code", "message", "data"},
			Description: "The answer to a created contract (interface §4.2, defaults.md C).",
			Properties: map[string]*Schema{
				"status_code": {Type: "integer", Const: http.StatusCreated},
				"message":     {Type: "string", MinLength: intp(1), Examples: []any{"Signature request created"}},
				"data":        ref(schemaEnvelope),
			}},
		schemaEnvelope: {Type: "object", AdditionalProperties: false,
			Required:    []string{"signature_id", "status", "title", "routing", "sender", "documents", "recipients", "created_at"},
			Description: "The signature envelope: exactly the fields of interface §2.2, none null.",
			Properties: map[string]*Schema{
				"signature_id": {Type: "string", Format: "uuid", Description: "Assigned by the service; the notifications about the contract carry it."},
				"status":       {Type: "string", Const: firmakit.EnvelopePending, Description: "The state of a newly created contract."},
				"title":        str("The request's title, echoed byte for byte."),
				"routing":      {Type: "string", Enum: enum([]string{"parallel", "sequential"}), Description: "The request's routing, `parallel` when it gave none."},
				"sender":       ref(schemaSender),
				"documents":    {Type: "array", Items: ref(schemaDocument), MinItems: intp(1), Description: "One per document of the request, in its order."},
				"recipients":   {Type: "array", Items: ref(schemaRecipient), MinItems: intp(1), Description: "One per signer, ordered signer_1, signer_2, …"},
				"created_at":   {Type: "string", Format: "date-time", Pattern: timePattern, Description: "UTC, with exactly three fraction digits and Z."},
			}},
		schemaSender: {Type: "object", AdditionalProperties: false, Required: []string{"name", "email"},
			Description: "The merchant as configured with the service.",
			Properties:  map[string]*Schema{"name": str(""), "email": email("")}},
		schemaDocument: {Type: "object", AdditionalProperties: false, Required: []string{"key", "title"},
			Properties: map[string]*Schema{
				"key":   {Type: "string", Pattern: `^document_[0-9]+$`, Description: "document_0, document_1, … in the request's order."},
				"title": str("The template's title."),
			}},
		schemaRecipient: {Type: "object", AdditionalProperties: false, Required: []string{"key", "name", "email", "status"},
			Properties: map[string]*Schema{
				"key":    {Type: "string", Pattern: `^signer_[1-9][0-9]*$`, Description: "The signer key, signer_1 first."},
				"name":   str("As the request gave it, byte for byte."),
				"email":  email("As the request gave it."),
				"status": {Type: "string", Const: firmakit.RecipientPending},
			}},
	}
	var states []*Schema
	mapping := map[string]string{}
	for _, st := range firmakit.States {
		name := notificationSchema(st)
		s[name] = b.notificationStateSchema(st)
		states = append(states, ref(name))
		mapping[string(st)] = "#/components/schemas/" + name
	}
	s[schemaNotification] = &Schema{OneOf: states,
		Discriminator: &Discriminator{PropertyName: b.p.Notification.Status, Mapping: mapping},
		Description: fmt.Sprintf("A signature status notification: its `%s` tells which of the five it is, and so which keys it carries.",
			b.p.Notification.Status)}
	return s
}

// errorSchema is the error body of one status: its status_code, and its
// message, one of labels when given.
func (b *builder) errorSchema(status int, labels []string, description string) *Schema {
	msg := &Schema{Type: "string", MinLength: intp(1)}
	if labels != nil {
		msg = &Schema{Type: "string", Enum: enum(labels)}
	}
	return &Schema{AllOf: []*Schema{ref(schemaError)}, Description: description,
		Properties: map[string]*Schema{"status_code": {Type: "integer", Const: status}, "message": msg}}
}

// createRequestSchema is the create body of defaults.md C with the limits
// the reference server enforces; narrowed to one merchant, it names that
// merchant's templates, signer keys and data keys.
func (b *builder) createRequestSchema() *Schema {
	documents := &Schema{Type: "string", MinLength: intp(1), Description: "A template name the service assigned."}
	data := &Schema{Type: "object", MaxProperties: intp(reference.MaxDataKeys),
		Description: "A value for every data key of the chosen templates, and no other key. " +
			"The values are strings, as the profile shows them (the reference server also reads a number as its text).",
		AdditionalProperties: &Schema{Type: "string", MaxLength: intp(reference.MaxDataValue)}}
	s := &Schema{Type: "object", AdditionalProperties: false, Required: []string{"title", "documents", "signers"},
		Description: "What to send: the templates, a signer for each of their signer keys, a value for each of their data keys (defaults.md C). " +
			"The service refuses a body that breaks a rule with 400 and a message naming the field and the fault; " +
			"what JSON Schema cannot say: `signers` holds exactly the signer keys of the chosen templates, each once, " +
			"and `data` every data key of the chosen templates.",
		Properties: map[string]*Schema{
			"title": {Type: "string", MinLength: intp(1), MaxLength: intp(reference.MaxTitleLength), Pattern: firmakit.NotBlankPattern(),
				Description: "The contract's title, not blank: it holds a character other than white space (" + firmakit.WhiteSpaceText() + "). A title that starts with DEMO_CREATED, DEMO_BOUNCED, DEMO_REJECTED, " +
					"DEMO_CANCELED or DEMO_SIGNED (case-sensitive, at the first character) gets one notification of that state about 500 ms after the 201."},
			"documents": {Type: "array", Items: documents, MinItems: intp(1), MaxItems: intp(reference.MaxDocuments), UniqueItems: true,
				Description: "Template names, in order; they become document_0, document_1, … in the envelope."},
			"signers": {Type: "array", Items: ref(schemaSignerInput), MaxItems: intp(reference.MaxSigners),
				Description: "One per signer key of the chosen templates (their union), each once."},
			"data":    data,
			"routing": {Type: "string", Enum: enum([]string{"parallel", "sequential"}), Default: "parallel"},
		},
		Requirement: b.tags(itemCreate)}
	if b.o.Merchant != "" {
		var names, keys []string
		for _, t := range b.merchant.Templates {
			names = append(names, t.Name)
			for _, k := range t.Data {
				if !contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		documents.Enum = enum(names)
		documents.Description = "A template of merchant " + b.merchant.ID + "."
		data.PropertyNames = &Schema{Enum: enum(keys)}
		if len(b.merchant.Templates) == 1 && len(keys) > 0 {
			data.Required = keys
			s.Required = append(s.Required, "data")
		}
	}
	return s
}

func (b *builder) signerInputSchema() *Schema {
	key := &Schema{Type: "string", MinLength: intp(1), Description: "A signer key of the chosen templates, such as signer_1."}
	if b.o.Merchant != "" {
		var keys []string
		for _, t := range b.merchant.Templates {
			for _, k := range t.Signers {
				if !contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		key.Enum = enum(keys)
	}
	return &Schema{Type: "object", Required: []string{"key", "name", "email"},
		Properties: map[string]*Schema{
			"key": key,
			"name": {Type: "string", MinLength: intp(1), MaxLength: intp(200), Pattern: firmakit.NotBlankPattern(),
				Description: "Not blank: it holds a character other than white space (" + firmakit.WhiteSpaceText() + "); echoed byte for byte in the envelope."},
			"email": email("An e-mail address, alone (no display name)."),
		}}
}

// notificationStateSchema is the payload of a notification of state st
// under the profile's field names: which keys it carries, which it never
// does (defaults.md B: absent, never null).
func (b *builder) notificationStateSchema(st firmakit.State) *Schema {
	f := b.p.Notification
	props := map[string]*Schema{}
	var required, absent []string
	add := func(key string, s *Schema, always bool) {
		if key == "" {
			return // the profile does not send it
		}
		props[key] = s
		if always {
			required = append(required, key)
		}
	}
	add(f.EventID, &Schema{Type: "string", MinLength: intp(1), Description: "Unique per event; the same on every retry of the event, so that a receiver can drop duplicates."}, true)
	add(f.Type, &Schema{Type: "string", Const: firmakit.NotificationType}, true)
	add(f.MerchantID, str("The merchant the contract is of."), true)
	add(f.SignatureID, &Schema{Type: "string", Format: "uuid", Description: "data.signature_id of the create answer."}, true)
	add(f.Title, str("The contract's title."), true)
	add(f.Status, &Schema{Type: "string", Const: string(st)}, true)
	if f.DocumentURL != "" {
		if st.HasDocumentURL() {
			add(f.DocumentURL, &Schema{Type: "string", Format: "uri", Description: "A link to the signed document (a test link in demo mode), which opens."}, true)
		} else {
			absent = append(absent, f.DocumentURL)
		}
	}
	if f.Reason != "" {
		if st.HasReason() {
			add(f.Reason, &Schema{Type: "string", MinLength: intp(1), Description: "Why, in a representative message."}, true)
		} else {
			absent = append(absent, f.Reason)
		}
	}
	add(f.Demo, &Schema{Type: "boolean", Description: "true for a demo notification."}, false)
	add(f.CreatedAt, &Schema{Type: "string", Format: "date-time", Pattern: timePattern, Description: "When the event happened."}, true)
	s := &Schema{Type: "object", Required: required, Properties: props,
		Description: fmt.Sprintf("A notification that the contract is %s (sent in demo mode for a title starting %s).", st, st.DemoPrefix()),
		Requirement: b.tags(itemState(string(st)))}
	if len(absent) > 0 {
		// Each key defined in the subschema that requires it, and anyOf
		// only for two or more: what linters ask (Redocly's
		// no-required-schema-properties-undefined and
		// no-illogical-composition-keywords).
		var never []*Schema
		for _, k := range absent {
			never = append(never, &Schema{Required: []string{k}, Properties: map[string]*Schema{k: {}}})
		}
		s.Not = never[0]
		if len(never) > 1 {
			s.Not = &Schema{AnyOf: never}
		}
		s.Description += " It never carries " + strings.Join(quoteAll(absent), " nor ") + "."
	}
	return s
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = quote(s)
	}
	return out
}

// signaturePattern is the ECMA-262 pattern of the notification signature
// header as the profile's scheme writes it.
func (b *builder) signaturePattern() string {
	w := b.p.Webhook
	if w.IsRFC9421() {
		one := `[a-z*][a-z0-9_.*-]*=:[A-Za-z0-9+/]*={0,2}:`
		return "^" + one + "( *, *" + one + ")*$"
	}
	mac := macPattern(w.Hash, w.Encoding)
	q := regexp.QuoteMeta
	if w.SignatureFormat == "entries" {
		one := q(w.SignaturePrefix) + mac
		if w.SignatureSeparator == "" {
			return "^" + one + "$"
		}
		return "^" + one + "(" + q(w.SignatureSeparator) + one + ")*$"
	}
	sig := q(w.SignatureKey) + "=" + mac
	if w.TimestampFrom == "field" {
		return "^" + q(w.TimestampKey) + "=[0-9]+(," + sig + ")+$"
	}
	return "^" + sig + "(," + sig + ")*$"
}

// macPattern is the pattern of one MAC written in an encoding.
func macPattern(hash, encoding string) string {
	n := 32
	if strings.Contains(strings.ToLower(hash), "512") || strings.EqualFold(hash, firmakit.HashEd25519) {
		n = 64 // SHA-512, or an Ed25519 signature
	}
	alphabet := "A-Za-z0-9+/"
	switch strings.ToLower(encoding) {
	case "hex":
		return fmt.Sprintf("[0-9a-f]{%d}", 2*n)
	case "base64url":
		alphabet = "A-Za-z0-9_-"
	}
	full, pad := n/3*4, ""
	switch n % 3 {
	case 1:
		full, pad = full+2, "=="
	case 2:
		full, pad = full+3, "="
	}
	return fmt.Sprintf("[%s]{%d}%s", alphabet, full, pad)
}

// value turns JSON bytes into an example value that keeps their key order.
func value(b []byte) any { return json.RawMessage(b) }
