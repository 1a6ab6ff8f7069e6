package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// Limits of a create-signature request.
const (
	MaxTitleLength = 500
	MaxDocuments   = 20
	MaxSigners     = 100
	MaxDataKeys    = 500
	MaxDataValue   = 10000
)

// Messages of the service's answers; the refusals that name a value are
// built from a prefix here and the value.
const (
	msgAuthenticated      = "Authenticated"
	msgCreated            = "Signature request created"
	msgUnknownMerchant    = "Unknown merchant"
	msgBodyEmpty          = "Body is empty: send a JSON object, such as {}"
	msgBodyNotJSON        = "Body is not valid JSON: "
	msgBodyNotObject      = "Body must be a JSON object, got "
	msgBodyEndsEarly      = "the body ends before the JSON value does"
	msgContentTypeNotJSON = "Content-Type %q is not JSON: send the body as application/json"
	msgTrailingData       = "Body is not valid JSON: unexpected data after the value at byte %d"

	msgUnknownField      = "unknown field: %s (allowed: title, documents, signers, data, routing)"
	msgTitleRequired     = "title is required"
	msgTitleType         = "title must be a string"
	msgTitleTooLong      = "title is too long: %d characters, at most %d"
	msgRouting           = "routing must be parallel or sequential"
	msgDocumentsRequired = "documents is required"
	msgDocumentsType     = "documents must be an array of template names"
	msgDocumentsEmpty    = "documents must name at least one template"
	msgTooManyDocuments  = "too many documents: %d, at most %d"
	msgUnknownDocument   = "unknown document: "
	msgDocumentTwice     = "document listed twice: "
	msgSignersRequired   = "signers is required"
	msgSignersType       = "signers must be an array of objects with key, name and email strings"
	msgTooManySigners    = "too many signers: %d, at most %d"
	msgSignerKeyRequired = "signers[%d].key is required"
	msgUnknownSigner     = "unknown signer: "
	msgSignerTwice       = "signer listed twice: "
	msgNameRequired      = "name is required for "
	msgNameTooLong       = "name is too long for %s: at most 200 characters"
	msgInvalidEmail      = "invalid email for "
	msgMissingSigner     = "missing signer: "
	msgDataType          = "data must be an object of strings"
	msgTooManyDataKeys   = "too many data keys: %d, at most %d"
	msgDataKeyType       = "data key %s must be a string"
	msgDataValueTooLong  = "data key %s is too long: at most %d characters"
	msgMissingDataKey    = "missing data key: "
	msgUnknownDataKey    = "unknown data key: "
	msgDocumentPath      = "Not found: demo documents are served as {signature_id}.pdf"
	msgNoSuchSignature   = "Not found: no signature %s on this server"
	msgOutcomeFilter     = "outcome must be %s, %s or %s"
	msgLimit             = "limit must be a whole number from 1 to %d"
	msgAfter             = "after must be the seq of a delivery (a whole number), as the next link gives it"
)

// handleCheck is POST /{api_version}/check/{merchant_id} (interface
// §4.1): an authenticated request whose body passes check 5 is answered
// 200.
func (s *Server) handleCheck(c echo.Context) error {
	body, err := s.body(c)
	if err != nil {
		return err
	}
	_, refusal := jsonObject(c.Request(), body)
	if answered, err := s.dev.Auth.Check(c, body, refusal); answered || err != nil {
		return err
	}
	return c.JSON(http.StatusOK, firmakit.APIResponse{StatusCode: http.StatusOK, Message: msgAuthenticated})
}

// body is the authenticated body of a request, as the deviations leave it
// for check 5.
func (s *Server) body(c echo.Context) ([]byte, error) {
	body, err := s.dev.Auth.Body(c, requestBody(c))
	if err != nil {
		return nil, err
	}
	c.Set(string(bodyKey), body)
	return body, nil
}

// jsonObject is check 5 of defaults.md A: the body of r, already
// authenticated, must be a JSON object sent as JSON. It returns the
// object's raw bytes. A Content-Type that is not JSON is one of the body's
// problems, so it is a 400 of check 5 like the others (never a 415 before
// authentication); no Content-Type at all is taken as JSON.
func jsonObject(r *http.Request, body []byte) (json.RawMessage, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, &APIError{Status: http.StatusBadRequest, Err: ErrNotJSONContentType,
				Message: fmt.Sprintf(msgContentTypeNotJSON, firmakit.ClipRunes(ct, 80))}
		}
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, bad(msgBodyEmpty)
	}
	// One pass validates the value; only a create request decodes further.
	var raw json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return nil, bad(msgBodyNotJSON + jsonErrorText(err))
	}
	// One value and nothing after it but white space: {}{} or {} ] is
	// not a JSON text (dec.More would let a closing bracket through).
	if rest := body[dec.InputOffset():]; len(bytes.TrimSpace(rest)) > 0 {
		return nil, bad(fmt.Sprintf(msgTrailingData, dec.InputOffset()))
	}
	if trimmed[0] != '{' {
		return nil, bad(msgBodyNotObject + jsonKind(trimmed[0]))
	}
	return raw, nil
}

// jsonKind names the kind of a valid JSON value from its first byte.
func jsonKind(first byte) string {
	switch first {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func jsonErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return msgBodyEndsEarly
	}
	return err.Error()
}

func bad(msg string) *APIError { return &APIError{Status: http.StatusBadRequest, Message: msg} }

// ErrNotJSONContentType is the cause of a refusal for a Content-Type that
// is not JSON.
var ErrNotJSONContentType = errors.New("content type is not JSON")

// ErrWrongType is the cause of a refusal for a field of the wrong JSON type.
var ErrWrongType = errors.New("field of the wrong JSON type")

func badType(msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Message: msg, Err: ErrWrongType}
}

// handleCreateSignature is POST /v1/signature/{merchant_id} (interface
// §4.2): the request is validated, the contract made and stored, its 201
// written, and a demo title's notification scheduled.
func (s *Server) handleCreateSignature(c echo.Context) error {
	m, obj, err := s.createRequest(c)
	if err != nil {
		return err
	}
	req, tmpls, err := validateCreate(obj, m, s.dev.Validation)
	if err != nil {
		return s.dev.Validation.Refusal(err)
	}
	env := s.newEnvelope(m, req, tmpls)
	s.signatures.put(m.ID, env)
	if err := s.writeCreated(c, env, req); err != nil {
		return err
	}
	st, ok := firmakit.DemoState(req.Title)
	state, demo := s.dev.Notification.DemoState(req.Title, st, ok)
	if demo {
		// The delay runs from the 201 on the wire, not from the handler.
		c.Response().Flush()
	}
	if s.OnCreated != nil {
		// Before the notification is scheduled, so that whoever is told
		// knows the contract when its notification arrives.
		s.OnCreated(m.ID, env.SignatureID, env.CreatedAt)
	}
	if demo {
		for range s.dev.Notification.DemoNotifications(1) {
			s.deliveries.scheduleDemo(m, env, state)
		}
	}
	return nil
}

// createRequest is check 5 of a create request: its merchant and the
// members of its JSON object.
func (s *Server) createRequest(c echo.Context) (*Merchant, map[string]json.RawMessage, error) {
	body, err := s.body(c)
	if err != nil {
		return nil, nil, err
	}
	raw, err := jsonObject(c.Request(), body)
	if err != nil {
		return nil, nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, nil, bad(msgBodyNotJSON + jsonErrorText(err))
	}
	m := s.Config.Merchant(c.Param("merchant_id"))
	if m == nil { // authentication passed, so the key's merchant exists; defensive
		return nil, nil, &APIError{Status: http.StatusNotFound, Message: msgUnknownMerchant}
	}
	return m, obj, nil
}

// newEnvelope makes the contract of a valid request (interface §2.2).
func (s *Server) newEnvelope(m *Merchant, req firmakit.CreateSignatureRequest, tmpls []*firmakit.Template) firmakit.Envelope {
	env := firmakit.Envelope{
		SignatureID: uuid.NewString(),
		Status:      firmakit.EnvelopePending,
		Title:       req.Title,
		Routing:     req.Routing,
		Sender:      m.Sender,
		CreatedAt:   firmakit.FormatTime(s.Clock.Now()),
	}
	s.dev.Envelope.Envelope(&env)
	for i, t := range tmpls {
		env.Documents = append(env.Documents, firmakit.Document{Key: "document_" + strconv.Itoa(i), Title: t.Title})
	}
	for _, sg := range req.Signers {
		env.Recipients = append(env.Recipients, firmakit.Recipient{Key: sg.Key, Name: sg.Name, Email: sg.Email, Status: firmakit.RecipientPending})
	}
	return env
}

// writeCreated writes the 201 of a created contract.
func (s *Server) writeCreated(c echo.Context, env firmakit.Envelope, req firmakit.CreateSignatureRequest) error {
	if written, err := s.dev.Envelope.Created(c, env, req); written {
		return err
	}
	return c.JSON(http.StatusCreated, firmakit.APIResponse{StatusCode: http.StatusCreated, Message: msgCreated, Data: &env})
}

// createValidation is the state of one create request's validation: the
// request as read so far, and what its templates ask for.
type createValidation struct {
	obj map[string]json.RawMessage
	m   *Merchant
	dev ValidationDeviations
	req firmakit.CreateSignatureRequest

	tmpls                 []*firmakit.Template
	wantSigners, wantData []string
	signerSet, dataSet    map[string]bool
}

// validateCreate checks a create-signature body against defaults.md C and
// the merchant's templates, in the order of its checks. Every refusal
// names the field and what is wrong with it.
func validateCreate(obj map[string]json.RawMessage, m *Merchant, dev ValidationDeviations) (firmakit.CreateSignatureRequest, []*firmakit.Template, error) {
	v := &createValidation{obj: obj, m: m, dev: dev, signerSet: map[string]bool{}, dataSet: map[string]bool{}}
	for _, step := range []func() error{v.fields, v.title, v.routing, v.documents, v.signers, v.data} {
		if err := step(); err != nil {
			return v.req, nil, err
		}
	}
	return v.req, v.tmpls, nil
}

func (v *createValidation) present(k string) bool {
	raw, ok := v.obj[k]
	return ok && string(raw) != "null"
}

// fields refuses a member the request does not have.
func (v *createValidation) fields() error {
	allowed := map[string]bool{"title": true, "documents": true, "signers": true, "data": true, "routing": true}
	var unknown []string
	for k := range v.obj {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return bad(fmt.Sprintf(msgUnknownField, firmakit.ClipRunes(unknown[0], 80)))
	}
	v.dev.Request(v.obj)
	return nil
}

// title: a non-blank string of at most MaxTitleLength characters.
func (v *createValidation) title() error {
	if !v.present("title") {
		return bad(msgTitleRequired)
	}
	if json.Unmarshal(v.obj["title"], &v.req.Title) != nil {
		return badType(msgTitleType)
	}
	if firmakit.IsBlank(v.req.Title) {
		return bad(msgTitleRequired)
	}
	if n := utf8.RuneCountInString(v.req.Title); n > MaxTitleLength {
		return bad(fmt.Sprintf(msgTitleTooLong, n, MaxTitleLength))
	}
	return nil
}

// routing: parallel (the default) or sequential.
func (v *createValidation) routing() error {
	v.req.Routing = "parallel"
	// Optional, but when sent, one of the two values: null is neither.
	if _, sent := v.obj["routing"]; !sent {
		return nil
	}
	v.req.Routing = ""
	err := json.Unmarshal(v.obj["routing"], &v.req.Routing)
	if err != nil || (v.req.Routing != "parallel" && v.req.Routing != "sequential" && !v.dev.Waives(RuleRouting)) {
		return bad(msgRouting)
	}
	return nil
}

// documents: one to MaxDocuments of the merchant's templates, each once;
// they tell which signers and data keys the request must give.
func (v *createValidation) documents() error {
	if !v.present("documents") {
		return bad(msgDocumentsRequired)
	}
	if json.Unmarshal(v.obj["documents"], &v.req.Documents) != nil {
		return badType(msgDocumentsType)
	}
	if len(v.req.Documents) == 0 {
		return bad(msgDocumentsEmpty)
	}
	if len(v.req.Documents) > MaxDocuments {
		return bad(fmt.Sprintf(msgTooManyDocuments, len(v.req.Documents), MaxDocuments))
	}
	seen := map[string]bool{}
	for _, d := range v.req.Documents {
		t := v.m.Template(d)
		if t == nil {
			t = v.dev.Template(d)
		}
		if t == nil {
			return bad(msgUnknownDocument + firmakit.ClipRunes(d, 80))
		}
		if seen[d] {
			return bad(msgDocumentTwice + d)
		}
		seen[d] = true
		v.tmpls = append(v.tmpls, t)
		for _, k := range t.Signers {
			if !v.signerSet[k] {
				v.signerSet[k] = true
				v.wantSigners = append(v.wantSigners, k)
			}
		}
		for _, k := range t.Data {
			if !v.dataSet[k] {
				v.dataSet[k] = true
				v.wantData = append(v.wantData, k)
			}
		}
	}
	return nil
}

// signers: exactly the templates' signer keys, each once, with a name and
// an e-mail address; then ordered signer_1, signer_2, …
func (v *createValidation) signers() error {
	if !v.present("signers") {
		return bad(msgSignersRequired)
	}
	if json.Unmarshal(v.obj["signers"], &v.req.Signers) != nil {
		return badType(msgSignersType)
	}
	if len(v.req.Signers) > MaxSigners {
		return bad(fmt.Sprintf(msgTooManySigners, len(v.req.Signers), MaxSigners))
	}
	given := map[string]bool{}
	for i, sg := range v.req.Signers {
		if sg.Key == "" {
			return bad(fmt.Sprintf(msgSignerKeyRequired, i))
		}
		if !v.signerSet[sg.Key] && !v.dev.Waives(RuleKnownSigner) {
			return bad(msgUnknownSigner + firmakit.ClipRunes(sg.Key, 80))
		}
		if given[sg.Key] && !v.dev.Waives(RuleSignerOnce) {
			return bad(msgSignerTwice + sg.Key)
		}
		given[sg.Key] = true
		if firmakit.IsBlank(sg.Name) {
			return bad(msgNameRequired + sg.Key)
		}
		if utf8.RuneCountInString(sg.Name) > 200 {
			return bad(fmt.Sprintf(msgNameTooLong, sg.Key))
		}
		if !validEmail(sg.Email) && !v.dev.Waives(RuleSignerEmail) {
			return bad(msgInvalidEmail + sg.Key)
		}
	}
	for _, k := range v.wantSigners {
		if !given[k] && !v.dev.Waives(RuleEverySigner) {
			return bad(msgMissingSigner + k)
		}
	}
	if !v.dev.Waives(RuleSignerOrder) {
		sort.SliceStable(v.req.Signers, func(i, j int) bool {
			return signerOrder(v.req.Signers[i].Key) < signerOrder(v.req.Signers[j].Key)
		})
	}
	return nil
}

// data: strings (or numbers, read as their text) for exactly the
// templates' data keys.
func (v *createValidation) data() error {
	v.req.Data = map[string]string{}
	if v.present("data") {
		var raw map[string]json.RawMessage
		if json.Unmarshal(v.obj["data"], &raw) != nil {
			return badType(msgDataType)
		}
		if len(raw) > MaxDataKeys {
			return bad(fmt.Sprintf(msgTooManyDataKeys, len(raw), MaxDataKeys))
		}
		for k, val := range raw {
			var sv string
			var num json.Number
			switch {
			case json.Unmarshal(val, &sv) == nil:
			case json.Unmarshal(val, &num) == nil:
				sv = num.String()
			default:
				return badType(fmt.Sprintf(msgDataKeyType, firmakit.ClipRunes(k, 80)))
			}
			if utf8.RuneCountInString(sv) > MaxDataValue {
				return bad(fmt.Sprintf(msgDataValueTooLong, firmakit.ClipRunes(k, 80), MaxDataValue))
			}
			v.req.Data[k] = sv
		}
	}
	for _, k := range v.wantData {
		if _, ok := v.req.Data[k]; !ok && !v.dev.Waives(RuleEveryDataKey) {
			return bad(msgMissingDataKey + k)
		}
	}
	var extra []string
	for k := range v.req.Data {
		if !v.dataSet[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 && !v.dev.Waives(RuleKnownDataKey) {
		sort.Strings(extra)
		return bad(msgUnknownDataKey + firmakit.ClipRunes(extra[0], 80))
	}
	return nil
}

// signerOrder sorts signer_1, signer_2, … by number; other keys last.
func signerOrder(k string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(k, "signer_"))
	if err != nil || !strings.HasPrefix(k, "signer_") {
		return 1 << 30
	}
	return n
}

func validEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>\"") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	_, domain, _ := strings.Cut(s, "@")
	return strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".")
}

func (s *Server) handleDemoDocument(c echo.Context) error {
	id, ok := strings.CutSuffix(c.Param("file"), ".pdf")
	if !ok {
		return &APIError{Status: http.StatusNotFound, Message: msgDocumentPath}
	}
	env, ok := s.signatures.get(id)
	if !ok {
		return &APIError{Status: http.StatusNotFound, Message: fmt.Sprintf(msgNoSuchSignature, firmakit.ClipRunes(id, 60))}
	}
	var signers []string
	for _, r := range env.Recipients {
		signers = append(signers, fmt.Sprintf("%s: %s <%s>", r.Key, r.Name, r.Email))
	}
	c.Response().Header().Set("Content-Disposition", `inline; filename="`+env.SignatureID+`.pdf"`)
	return c.Blob(http.StatusOK, "application/pdf", DemoPDF(env.Title, env.SignatureID, env.CreatedAt, signers))
}

// Paging of GET /_sandbox/deliveries.
const (
	DefaultDeliveriesPage = 100
	MaxDeliveriesPage     = 1000
)

// handleDeliveries lists the kept delivery records, oldest first, a page
// at a time: ?limit= (default 100, at most 1000), ?after=<seq> to go on
// from a page's last record (the next link says it), and the filters
// signature_id, event_id and outcome. The page is written record by
// record, never encoded whole in memory.
func (s *Server) handleDeliveries(c echo.Context) error {
	q := c.QueryParams()
	f := deliveryFilter{SignatureID: q.Get("signature_id"), EventID: q.Get("event_id"), Outcome: q.Get("outcome")}
	switch strings.ToLower(f.Outcome) {
	case "", OutcomePending, OutcomeDelivered, OutcomeFailed:
	default:
		return bad(fmt.Sprintf(msgOutcomeFilter, OutcomePending, OutcomeDelivered, OutcomeFailed))
	}
	limit := DefaultDeliveriesPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxDeliveriesPage {
			return bad(fmt.Sprintf(msgLimit, MaxDeliveriesPage))
		}
		limit = n
	}
	var after int64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return bad(msgAfter)
		}
		after = n
	}
	page, more := s.deliveries.page(f, after, limit)
	stats := s.deliveries.stats()
	var last int64
	if len(page) > 0 {
		last = page[len(page)-1].Seq
	}

	w := c.Response()
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(http.StatusOK)
	buf := bytes.NewBufferString(`{"deliveries":[`)
	for i := range page {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := json.Marshal(&page[i])
		if err != nil {
			return err
		}
		buf.Write(b)
		page[i] = Delivery{} // written: let it go
		if buf.Len() >= 32<<10 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return nil // the client went away
			}
			buf.Reset()
		}
	}
	tail := map[string]any{"count": len(page), "queue": stats}
	if more {
		next := url.Values{}
		for _, k := range []string{"signature_id", "event_id", "outcome"} {
			if v := q.Get(k); v != "" {
				next.Set(k, v)
			}
		}
		next.Set("limit", strconv.Itoa(limit))
		next.Set("after", strconv.FormatInt(last, 10))
		tail["next"] = "/_sandbox/deliveries?" + next.Encode()
	}
	tb, err := json.Marshal(tail)
	if err != nil {
		return err
	}
	buf.WriteString("],")
	buf.Write(tb[1:])
	buf.WriteByte('\n')
	_, _ = w.Write(buf.Bytes())
	return nil
}

// signatureStore keeps the last n envelopes, for the demo documents.
type signatureStore struct {
	mu    sync.Mutex
	n     int
	order []string
	byID  map[string]firmakit.Envelope
}

func newSignatureStore(n int) *signatureStore {
	return &signatureStore{n: n, byID: map[string]firmakit.Envelope{}}
}

func (st *signatureStore) put(_ string, env firmakit.Envelope) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.byID[env.SignatureID] = env
	st.order = append(st.order, env.SignatureID)
	if len(st.order) > st.n {
		delete(st.byID, st.order[0])
		st.order = st.order[1:]
	}
}

func (st *signatureStore) get(id string) (firmakit.Envelope, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	env, ok := st.byID[id]
	return env, ok
}
