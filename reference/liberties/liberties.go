package liberties

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/firmakit/firmakit/reference"
	"github.com/labstack/echo/v4"
)

// Classes of the liberties, named after what they vary.
const (
	ClassRouting  = "routing"  // answers to requests no endpoint takes
	ClassLenient  = "lenient"  // lenient reading of a form no client sends
	ClassEmpty    = "empty"    // optional values sent empty
	ClassWording  = "wording"  // refusals in other words
	ClassExtra    = "extra"    // keys or headers beyond the documents'
	ClassFormat   = "format"   // formats the documents show only by example
	ClassSchedule = "schedule" // values the documents call configurable
)

// ErrUnknownLiberty is returned by New for a name that List does not list.
var ErrUnknownLiberty = errors.New("unknown liberty")

// Areas of the service a liberty shows in, named as the faults' areas
// are (the feature whose scenarios it could trip); AreaAll: every one.
const (
	AreaAuth         = "auth"
	AreaEnvelope     = "envelope"
	AreaNotification = "notification"
	AreaAll          = "all"
)

// Liberty is a deliberate, conforming variation of the reference server.
type Liberty struct {
	Name        string // what New and 'firmakit serve --liberty' take
	Class       string // one of the Class constants
	Area        string // where it shows: one of the Area constants
	Why         string // why the documents allow it, cited
	Description string // what the server does instead of its own choice
}

// Names of the liberties. The table below documents each one.
const (
	libErrorBodyExtraKeys   = "error-body-extra-keys"
	libCheckAnswerExtraKeys = "check-answer-extra-keys"
	libCreateAnswerExtraKey = "create-answer-extra-key"
	libAnswersIndented      = "answers-indented"
	libAnswersCharset       = "answers-json-charset"
	libResponseHeaders      = "response-extra-headers"
	libMethod405Text        = "stdlib-405-text"
	libNotFoundText         = "stdlib-404-text"
	libCleanPathRedirect    = "stdlib-clean-path-redirect"
	libTimestampPlusSign    = "timestamp-plus-sign"
	libRoutingEmptyDefault  = "routing-empty-default"
	libRefusalsSpanish      = "refusals-in-spanish"
	libRefusalsFieldFirst   = "refusals-field-first"
	libMissingListPerItem   = "missing-list-names-first-item"
	libSignatureIDUpper     = "signature-id-uppercase"
	libSignatureIDv7        = "signature-id-uuid-v7"
	libEventIDPrefixed      = "event-id-prefixed"
	libNotificationExtra    = "notification-extra-keys"
	libNotificationSeconds  = "notification-created-at-seconds"
	libNotificationOffset   = "notification-created-at-offset"
	libNotificationIndented = "notification-indented"
	libNotificationHeaders  = "notification-extra-headers"
	libNotificationCharset  = "notification-json-charset"
	libReasonsOwnWords      = "reasons-own-words"
	libDocumentURLQuery     = "document-url-query"
	libDemoDelay900ms       = "demo-delay-900ms"
	libRetryLater           = "retry-later-than-schedule"
	libBodyLimitFirst       = "body-limit-before-auth"
)

var table = []Liberty{
	{libErrorBodyExtraKeys, ClassExtra, AreaAll, "defaults §A paragraph 5 shows the error body's keys without \"exactly\"; interface §7: the body is expected to carry status_code and message",
		`Every error body carries "error" (a code) and "request_id" besides status_code and message.`},
	{libCheckAnswerExtraKeys, ClassExtra, AreaAuth, "interface §4.1 Success lists status_code and message without \"exactly\"",
		`The check's 200 carries "merchant_id" and "request_id" besides status_code and message.`},
	{libCreateAnswerExtraKey, ClassExtra, AreaAll, "defaults §C paragraph 1 says \"exactly\" of the envelope only, not of the answer around it",
		`The create's 201 carries "request_id" beside status_code, message and data.`},
	{libAnswersIndented, ClassFormat, AreaAll, "interface §4: bodies are JSON; no layout is stated",
		"Every JSON answer is indented with two spaces."},
	{libAnswersCharset, ClassFormat, AreaAll, "interface §4: content type application/json, which a charset parameter does not change (RFC 8259)",
		"Every JSON answer says Content-Type: application/json; charset=utf-8."},
	{libResponseHeaders, ClassExtra, AreaAll, "no document names the answers' headers beyond the content type",
		"Every answer of a merchant endpoint carries X-Request-Id, Cache-Control: no-store and Connection: close."},
	{libMethod405Text, ClassRouting, AreaAuth, "interface §4.1 and §4.2 give POST; no document names the answer to another method",
		"Another method on a merchant path is answered as Go's ServeMux does: 405, Allow: POST, text/plain \"Method Not Allowed\"."},
	{libNotFoundText, ClassRouting, AreaAll, "defaults §F names the accepted api_version; no document names the answer to another path",
		"A path no route takes (another version segment) is answered as Go's ServeMux does: 404 text/plain \"404 page not found\"."},
	{libCleanPathRedirect, ClassRouting, AreaAll, "no document names the answer to a path with an empty segment; a redirect accepts nothing",
		"A path with an empty or dot segment (//check/…) is answered as Go's ServeMux does: 301 to the cleaned path."},
	{libTimestampPlusSign, ClassLenient, AreaAuth, "defaults §A check 2: a timestamp with a sign, signed as sent and naming now, lets nobody in (strconv.ParseInt's reading)",
		"A timestamp written +<digits> is read as <digits>, with the window and the signature over the header as sent still checked."},
	{libRoutingEmptyDefault, ClassEmpty, AreaEnvelope, "defaults §C bullet 4: routing is optional, parallel by default; an empty value taken as absent loses nothing",
		`"routing": "" is taken as absent: the contract is routed parallel.`},
	{libRefusalsSpanish, ClassWording, AreaEnvelope, "defaults §C paragraph 2: the message names the field and the fault; interface §1: the documentation is Spanish and English",
		"Refusals of a create request are worded in Spanish, naming the field in Spanish or by its JSON name and the value at fault."},
	{libRefusalsFieldFirst, ClassWording, AreaEnvelope, "defaults §C paragraph 2: the message names the field and the fault, in no set words",
		`Refusals of a create request are worded "<field>: <fault>", e.g. "signers[0].email: not an e-mail address (signer_1)".`},
	{libMissingListPerItem, ClassWording, AreaEnvelope, "defaults §C paragraph 2's own example says \"missing signer: signer_2\"; signer keys are signer_<n> from 1 (interface §2.2)",
		`A create request without signers is refused with "missing signer: signer_1", naming the first signer rather than the list.`},
	{libSignatureIDUpper, ClassFormat, AreaAll, "interface §2.2: signature_id in UUID format, which RFC 9562 reads in either case",
		"signature_id is written in upper case, in the 201 and in the notification alike."},
	{libSignatureIDv7, ClassFormat, AreaAll, "interface §2.2: signature_id in UUID format, no version stated",
		"signature_id is a version 7 UUID (time-ordered)."},
	{libEventIDPrefixed, ClassFormat, AreaNotification, "defaults §B bullet 5 asks that event_id be unique and stable on retries; the UUID is the example's form only",
		`event_id is "evt_" and 24 hexadecimal digits.`},
	{libNotificationExtra, ClassExtra, AreaNotification, "defaults §B shows the payload without \"exactly\"; keys with no value are absent, not others forbidden",
		`Each notification carries "livemode": false and "api_version": "v1" besides the profile's keys.`},
	{libNotificationSeconds, ClassFormat, AreaNotification, "defaults §B shows the notification's created_at by example only",
		"The notification's created_at has no fraction of a second: 2026-11-22T10:00:00Z."},
	{libNotificationOffset, ClassFormat, AreaNotification, "defaults §B shows the notification's created_at by example only",
		"The notification's created_at is written in Chile's offset: 2026-11-22T07:00:00.512-03:00."},
	{libNotificationIndented, ClassFormat, AreaNotification, "defaults §B signs the raw body; no layout is stated",
		"The notification's JSON is indented, signed as sent."},
	{libNotificationHeaders, ClassExtra, AreaNotification, "defaults §B names the signature header and the content type only",
		"Each delivery carries User-Agent: Comercio-Webhooks/2.1, X-Request-Id and X-Service-Event-Id."},
	{libNotificationCharset, ClassFormat, AreaNotification, "defaults §B: Content-Type application/json, which a charset parameter does not change",
		"Each delivery says Content-Type: application/json; charset=utf-8."},
	{libReasonsOwnWords, ClassWording, AreaNotification, "interface §6.2 rule 4: reason is a representative message, in no set words",
		"The reasons of BOUNCED, REJECTED and CANCELED are written in other words."},
	{libDocumentURLQuery, ClassFormat, AreaNotification, "interface §6.2 rule 3 and defaults §D bullet 4: a test link that opens; its form is shown by example only",
		"A SIGNED notification's document_url carries a query, ?download=1, and still opens the PDF."},
	{libDemoDelay900ms, ClassSchedule, AreaNotification, "defaults §D bullet 1: about 500 ms, the delay configurable, judged as 300 to 1500 ms",
		"The demo notification is sent 900 ms after the 201."},
	{libRetryLater, ClassSchedule, AreaNotification, "defaults §B bullet 6: the service retries after 1 s, 2 s, … (configurable): after, not at",
		"Each retry waits 25% longer than the schedule says."},
	{libBodyLimitFirst, ClassRouting, AreaAuth, "defaults §A paragraph 5: a body over 1 MiB is refused with 413 before any JSON is parsed; no check order is stated for it",
		"A declared body over the limit is refused with 413 before the headers are checked."},
}

// List returns every liberty, sorted by class, then name.
func List() []Liberty {
	out := append([]Liberty(nil), table...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Class != out[j].Class {
			return out[i].Class < out[j].Class
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// New returns the deviations of the named liberties, for
// Server.Deviations; names may be blank or padded. It returns
// ErrUnknownLiberty for a name that List does not list, and nil when none
// is named (the reference's own choices).
func New(names []string) (*reference.Deviations, error) {
	known := map[string]bool{}
	for _, l := range table {
		known[l.Name] = true
	}
	s := &service{on: map[string]bool{}}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !known[name] {
			return nil, fmt.Errorf("reference server: %w %q", ErrUnknownLiberty, name)
		}
		s.on[name] = true
	}
	if len(s.on) == 0 {
		return nil, nil
	}
	return &reference.Deviations{Auth: authLiberties{service: s}, Validation: validationLiberties{service: s},
		Envelope: envelopeLiberties{s}, Notification: notificationLiberties{service: s}, Delivery: deliveryLiberties{service: s},
		Open: s.open}, nil
}

// service is the state the liberties' deviations share: the liberties
// taken and the seam of the server they vary. Each area's hooks are a
// type of their own over it, in the file of that area.
type service struct {
	seam reference.Seam
	on   map[string]bool
}

// open takes the seam of the server the liberties vary.
func (s *service) open(seam reference.Seam) error {
	s.seam = seam
	return nil
}

// any tells whether any of the named liberties is taken.
func (s *service) any(names ...string) bool {
	for _, n := range names {
		if s.on[n] {
			return true
		}
	}
	return false
}

// writeJSON writes a JSON answer, indented and with a charset when the
// liberties say so.
func (s *service) writeJSON(w http.ResponseWriter, status int, body []byte) {
	if s.on[libAnswersIndented] {
		var out bytes.Buffer
		if json.Indent(&out, body, "", "  ") == nil {
			body = out.Bytes()
		}
	}
	ct := echo.MIMEApplicationJSON
	if s.on[libAnswersCharset] {
		ct += "; charset=utf-8"
	}
	w.Header().Set(echo.HeaderContentType, ct)
	w.WriteHeader(status)
	_, _ = w.Write(append(bytes.TrimRight(body, "\n"), '\n'))
}

// setMember sets key in a JSON object to v, keeping the other members
// and their order.
func setMember(obj []byte, key string, v any) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return obj
	}
	val, err := json.Marshal(v)
	if err != nil {
		return obj
	}
	trimmed := bytes.TrimSpace(obj)
	trimmed = append([]byte(nil), trimmed[:len(trimmed)-1]...) // the object's closing brace
	if _, ok := m[key]; ok {
		m[key] = val
		out, _ := json.Marshal(m)
		return out
	}
	k, _ := json.Marshal(key)
	sep := []byte(",")
	if len(m) == 0 {
		sep = nil
	}
	return append(append(append(append(append(trimmed, sep...), k...), ':'), val...), '}')
}
