// Package liberties is the reference server's deliberate liberties: each
// one departs from the reference's own choices in a way the two documents
// allow, or leave open, as real implementations do (the standard
// library's 404, 405 and redirects, a lenient parser of a form no client
// sends, refusals in other words, extra keys, another JSON layout, a
// configured delay or schedule), through the server's Deviations, the
// seam of the faults. They are the faults' twins: a named fault must fail
// the conformance suite, a named liberty must pass it (with warnings at
// most), so that the suite's precision is measured as its power is. Each
// cites why it is allowed.
package liberties

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/google/uuid"
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
func New(names []string) (reference.Deviations, error) {
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
	return s, nil
}

// service is a server's Deviations with the named liberties taken.
type service struct {
	reference.NopDeviations
	srv *reference.Server
	on  map[string]bool
}

func (s *service) Open(srv *reference.Server) error {
	s.srv = srv
	if s.on[libDemoDelay900ms] {
		srv.DemoDelay = 900 * time.Millisecond
	}
	return nil
}

// ---- answers ----

// ErrorHandler rewrites the correct error answers as the liberties say:
// keys added, indented, another charset, or the standard library's plain
// 404, 405 and redirects.
func (s *service) ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	if !s.any(libErrorBodyExtraKeys, libAnswersIndented, libAnswersCharset, libMethod405Text, libNotFoundText, libCleanPathRedirect) {
		return correct
	}
	return func(err error, c echo.Context) {
		res := c.Response()
		if res.Committed || c.Request().Method == http.MethodHead {
			correct(err, c)
			return
		}
		p := c.Request().URL.EscapedPath()
		if clean := path.Clean(p); s.on[libCleanPathRedirect] && clean != p && clean+"/" != p {
			http.Redirect(res, c.Request(), clean, http.StatusMovedPermanently)
			return
		}
		w := res.Writer
		buf := &bufferWriter{header: http.Header{}}
		res.Writer = buf
		correct(err, c)
		res.Writer = w
		status := res.Status
		res.Committed, res.Status, res.Size = false, 0, 0
		for k, v := range buf.header {
			res.Header()[k] = v
		}
		switch {
		case status == http.StatusMethodNotAllowed && s.on[libMethod405Text]:
			res.Header().Set(echo.HeaderAllow, http.MethodPost)
			http.Error(res, "Method Not Allowed", status)
			return
		case status == http.StatusNotFound && s.on[libNotFoundText]:
			http.Error(res, "404 page not found", status)
			return
		}
		body := buf.body.Bytes()
		if s.on[libErrorBodyExtraKeys] {
			body = setMember(body, "error", strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_"))
			body = setMember(body, "request_id", uuid.NewString())
		}
		s.writeJSON(res, status, body)
	}
}

// CheckAnswered writes the check's 200 with keys added.
func (s *service) CheckAnswered(c echo.Context) bool {
	if !s.any(libCheckAnswerExtraKeys, libAnswersIndented, libAnswersCharset) {
		return false
	}
	b, _ := json.Marshal(firmakit.APIResponse{StatusCode: http.StatusOK, Message: "Authenticated"})
	if s.on[libCheckAnswerExtraKeys] {
		b = setMember(b, "merchant_id", c.Param("merchant_id"))
		b = setMember(b, "request_id", uuid.NewString())
	}
	s.writeJSON(c.Response(), http.StatusOK, b)
	return true
}

// Created writes the 201 with a key added, indented or in another charset.
func (s *service) Created(c echo.Context, env firmakit.Envelope, _ firmakit.CreateSignatureRequest) (bool, error) {
	if !s.any(libCreateAnswerExtraKey, libAnswersIndented, libAnswersCharset) {
		return false, nil
	}
	b, err := json.Marshal(firmakit.APIResponse{StatusCode: http.StatusCreated, Message: "Signature request created", Data: &env})
	if err != nil {
		return true, err
	}
	if s.on[libCreateAnswerExtraKey] {
		b = setMember(b, "request_id", uuid.NewString())
	}
	s.writeJSON(c.Response(), http.StatusCreated, b)
	return true, nil
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

// ---- authentication ----

// Auth wraps the correct authentication: headers added to every answer,
// the body limit before the headers, and a timestamp with a plus sign
// read as its digits.
func (s *service) Auth(correct echo.MiddlewareFunc) echo.MiddlewareFunc {
	if !s.any(libResponseHeaders, libTimestampPlusSign, libBodyLimitFirst) {
		return correct
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		inner := correct(next)
		return func(c echo.Context) error {
			r := c.Request()
			if s.on[libResponseHeaders] {
				h := c.Response().Header()
				h.Set("X-Request-Id", uuid.NewString())
				h.Set("Cache-Control", "no-store")
				h.Set("Connection", "close")
			}
			if s.on[libBodyLimitFirst] && r.ContentLength > s.srv.MaxBody {
				return &reference.APIError{Status: http.StatusRequestEntityTooLarge,
					Message: fmt.Sprintf("Request body too large: the limit is %d bytes", s.srv.MaxBody)}
			}
			if s.on[libTimestampPlusSign] {
				s.plusSign(r)
			}
			return inner(c)
		}
	}
}

// plusSign reads a timestamp written +<digits> as strconv.ParseInt does:
// when the signature is valid over the header as sent, the request goes
// on to the correct checks with the digits, signed anew, so that the
// window and the credentials are checked as for any other request.
func (s *service) plusSign(r *http.Request) {
	p := s.srv.Profile
	ts := r.Header.Get(p.Request.TimestampHeader)
	digits := strings.TrimPrefix(ts, "+")
	if digits == ts || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return
	}
	cred, ok := s.srv.Config.Credential(r.Header.Get(p.Request.KeyHeader))
	if !ok {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.srv.MaxBody+1))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil || int64(len(body)) > s.srv.MaxBody {
		return
	}
	parts := firmakit.RequestParts{Timestamp: ts, Method: r.Method, RequestTarget: firmakit.RequestTarget(r),
		KeyID: cred.KeyID, Body: body}
	want, err1 := p.DecodeRequestSignature(p.RequestSignature(cred.Secret, parts))
	got, err2 := p.DecodeRequestSignature(r.Header.Get(p.Request.SignatureHeader))
	if err1 != nil || err2 != nil || !hmac.Equal(want, got) {
		return
	}
	parts.Timestamp = digits
	r.Header.Set(p.Request.TimestampHeader, digits)
	r.Header.Set(p.Request.SignatureHeader, p.RequestSignature(cred.Secret, parts))
}

// ---- create ----

// Request takes a routing sent empty as absent.
func (s *service) Request(obj map[string]json.RawMessage) {
	if v, ok := obj["routing"]; ok && s.on[libRoutingEmptyDefault] && string(bytes.TrimSpace(v)) == `""` {
		delete(obj, "routing")
	}
}

// spanish words the refusals of a create request in Spanish, by the
// prefix of the reference's own message.
var spanish = []struct{ en, es string }{
	{"title is required", "el título es obligatorio"},
	{"title must be a string", "el título debe ser un texto"},
	{"routing must be parallel or sequential", "el enrutamiento debe ser parallel o sequential"},
	{"documents is required", "faltan los documentos"},
	{"documents must", "los documentos deben ser una lista de nombres de plantilla"},
	{"unknown document: ", "documento desconocido: "},
	{"document listed twice: ", "documento repetido: "},
	{"signers is required", "faltan los firmantes"},
	{"signers must", "los firmantes deben ser una lista de objetos con key, name y email"},
	{"unknown signer: ", "firmante desconocido: "},
	{"signer listed twice: ", "firmante repetido: "},
	{"invalid email for ", "el correo no es válido para el firmante "},
	{"missing signer: ", "falta el firmante "},
	{"data must be", "los datos deben ser un objeto de textos"},
	{"missing data key: ", "falta el dato "},
	{"unknown data key: ", "dato desconocido: "},
}

// fieldFirst words the refusals "<field>: <fault>" (es holds the new
// words, as in spanish).
var fieldFirst = []struct{ en, es string }{
	{"title is required", "title: required"},
	{"title must be a string", "title: not a string"},
	{"routing must be parallel or sequential", "routing: must be one of parallel, sequential"},
	{"documents is required", "documents: required"},
	{"unknown document: ", "documents: no such template: "},
	{"signers is required", "signers: required"},
	{"unknown signer: ", "signers: not a signer of the templates: "},
	{"signer listed twice: ", "signers: duplicate key: "},
	{"invalid email for ", "signers[].email: not an e-mail address: "},
	{"missing signer: ", "signers: missing key "},
	{"missing data key: ", "data: missing key "},
	{"unknown data key: ", "data: unexpected key "},
}

// Refusal rewords the refusals of a create request.
func (s *service) Refusal(refusal error) error {
	var api *reference.APIError
	if !errors.As(refusal, &api) || api.Status != http.StatusBadRequest {
		return refusal
	}
	msg := api.Message
	switch {
	case s.on[libMissingListPerItem] && msg == "signers is required":
		msg = "missing signer: signer_1"
	case s.on[libRefusalsSpanish]:
		msg = reword(msg, spanish)
	case s.on[libRefusalsFieldFirst]:
		msg = reword(msg, fieldFirst)
	}
	out := *api
	out.Message = msg
	return &out
}

func reword(msg string, words []struct{ en, es string }) string {
	for _, w := range words {
		if rest, ok := strings.CutPrefix(msg, w.en); ok {
			if strings.HasSuffix(w.en, " ") || w.en == msg {
				return w.es + rest
			}
			return w.es
		}
	}
	return msg
}

// Envelope writes signature_id in upper case or as a UUID v7.
func (s *service) Envelope(env *firmakit.Envelope) {
	switch {
	case s.on[libSignatureIDUpper]:
		env.SignatureID = strings.ToUpper(env.SignatureID)
	case s.on[libSignatureIDv7]:
		if id, err := uuid.NewV7(); err == nil {
			env.SignatureID = id.String()
		}
	}
}

// ---- notifications ----

// otherReasons are reasons in other words than the reference's.
var otherReasons = map[firmakit.State]string{
	firmakit.StateBounced:  "No fue posible entregar el contrato: la dirección de correo rechazó el mensaje",
	firmakit.StateRejected: "La persona firmante declinó firmar el documento",
	firmakit.StateCanceled: "Solicitud anulada por el comercio",
}

func (s *service) Notification(n *firmakit.Notification, _ firmakit.Envelope) {
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

func (s *service) Payload(body []byte, _ firmakit.Notification) []byte {
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

// Attempt adds headers to a delivery, or a charset to its content type;
// the signature header is left as signed.
func (s *service) Attempt(req *http.Request, _ string, _ []string) {
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
func (s *service) RetryWait(_ *reference.Delivery, wait time.Duration) time.Duration {
	if s.on[libRetryLater] {
		return wait + wait/4
	}
	return wait
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

// bufferWriter keeps what the correct error handler writes.
type bufferWriter struct {
	header http.Header
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(int)             {}
func (b *bufferWriter) Flush()                      {}

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
