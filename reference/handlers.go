package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/firmakit/firmakit/internal/textclip"
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

func (s *Server) handleCheck(c echo.Context) error {
	if err := s.faultBody(c); err != nil {
		return err
	}
	if _, err := jsonObject(c); err != nil {
		if err = s.faultCheckBody(c, err); err != nil {
			return err
		}
	}
	if s.faultCheckOK(c) {
		return nil
	}
	return c.JSON(http.StatusOK, firmakit.APIResponse{StatusCode: http.StatusOK, Message: "Authenticated"})
}

// jsonObject is check 5 of defaults.md A: the body, already authenticated,
// must be a JSON object sent as JSON. It returns the object's raw bytes.
// A Content-Type that is not JSON is one of the body's problems, so it is a
// 400 of check 5 like the others (never a 415 before authentication); no
// Content-Type at all is taken as JSON.
func jsonObject(c echo.Context) (json.RawMessage, error) {
	if ct := c.Request().Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, &APIError{Status: http.StatusBadRequest, Err: errNotJSONContentType,
				Message: fmt.Sprintf("Content-Type %q is not JSON: send the body as application/json", textclip.Runes(ct, 80))}
		}
	}
	body := RequestBody(c)
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, bad("Body is empty: send a JSON object, such as {}")
	}
	// One pass validates the value; only a create request decodes further.
	var raw json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil {
		return nil, bad("Body is not valid JSON: " + jsonErrorText(err))
	}
	// One value and nothing after it but white space: {}{} or {} ] is
	// not a JSON text (dec.More would let a closing bracket through).
	if rest := body[dec.InputOffset():]; len(bytes.TrimSpace(rest)) > 0 {
		return nil, bad(fmt.Sprintf("Body is not valid JSON: unexpected data after the value at byte %d", dec.InputOffset()))
	}
	if trimmed[0] != '{' {
		return nil, bad("Body must be a JSON object, got " + jsonKind(trimmed[0]))
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
	if err.Error() == "EOF" || err.Error() == "unexpected EOF" {
		return "the body ends before the JSON value does"
	}
	return err.Error()
}

func bad(msg string) *APIError { return &APIError{Status: http.StatusBadRequest, Message: msg} }

// errNotJSONContentType is the cause of a refusal for a Content-Type that
// is not JSON.
var errNotJSONContentType = errors.New("content type is not JSON")

// errWrongType is the cause of a refusal for a field of the wrong JSON type.
var errWrongType = errors.New("field of the wrong JSON type")

func badType(msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Message: msg, Err: errWrongType}
}

func (s *Server) handleCreateSignature(c echo.Context) error {
	if err := s.faultBody(c); err != nil {
		return err
	}
	raw, err := jsonObject(c)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return bad("Body is not valid JSON: " + jsonErrorText(err))
	}
	m := s.Config.Merchant(c.Param("merchant_id"))
	if m == nil { // authentication passed, so the key's merchant exists; defensive
		return &APIError{Status: http.StatusNotFound, Message: "Unknown merchant"}
	}
	req, tmpls, err := validateCreate(obj, m, s.faultOn)
	if err != nil {
		return s.faultValidation(err)
	}
	now := s.Now()
	env := firmakit.Envelope{
		SignatureID: uuid.NewString(),
		Status:      firmakit.EnvelopePending,
		Title:       req.Title,
		Routing:     req.Routing,
		Sender:      m.Sender,
		CreatedAt:   firmakit.FormatTime(now),
	}
	s.faultSignatureID(&env)
	for i, t := range tmpls {
		env.Documents = append(env.Documents, firmakit.Document{Key: "document_" + strconv.Itoa(i), Title: t.Title})
	}
	for _, sg := range req.Signers {
		env.Recipients = append(env.Recipients, firmakit.Recipient{Key: sg.Key, Name: sg.Name, Email: sg.Email, Status: firmakit.RecipientPending})
	}
	s.signatures.put(m.ID, env)
	if faulty, ferr := s.faultCreated(c, env, req); faulty {
		err = ferr
	} else {
		err = c.JSON(http.StatusCreated, firmakit.APIResponse{StatusCode: http.StatusCreated, Message: "Signature request created", Data: &env})
	}
	state, demo := s.demoState(req.Title)
	if demo && err == nil {
		// The delay runs from the 201 on the wire, not from the handler.
		c.Response().Flush()
	}
	if s.OnCreated != nil && err == nil {
		// Before the notification is scheduled, so that whoever is told
		// knows the contract when its notification arrives.
		s.OnCreated(m.ID, env.SignatureID, env.CreatedAt)
	}
	if demo && err == nil {
		s.deliveries.scheduleDemo(m, env, state)
		if s.fault(faultNotificationTwice) {
			s.deliveries.scheduleDemo(m, env, state)
		}
	}
	return err
}

// validateCreate checks a create-signature body against defaults.md C and
// the merchant's templates. Every refusal names the field and the fault.
// f holds the deliberate faults switched on, nil for a correct server.
func validateCreate(obj map[string]json.RawMessage, m *Merchant, f faultSet) (firmakit.CreateSignatureRequest, []*firmakit.Template, error) {
	var req firmakit.CreateSignatureRequest
	allowed := map[string]bool{"title": true, "documents": true, "signers": true, "data": true, "routing": true}
	var unknown []string
	for k := range obj {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return req, nil, bad(fmt.Sprintf("unknown field: %s (allowed: title, documents, signers, data, routing)", textclip.Runes(unknown[0], 80)))
	}
	present := func(k string) bool { v, ok := obj[k]; return ok && string(v) != "null" }
	if !present("title") && f.has(faultValidationMissingTitle) {
		obj["title"], _ = json.Marshal(faultTitle)
	}

	if !present("title") {
		return req, nil, bad("title is required")
	}
	if json.Unmarshal(obj["title"], &req.Title) != nil {
		return req, nil, badType("title must be a string")
	}
	if strings.TrimSpace(req.Title) == "" {
		return req, nil, bad("title is required")
	}
	if n := utf8.RuneCountInString(req.Title); n > MaxTitleLength {
		return req, nil, bad(fmt.Sprintf("title is too long: %d characters, at most %d", n, MaxTitleLength))
	}
	req.Routing = "parallel"
	if present("routing") {
		err := json.Unmarshal(obj["routing"], &req.Routing)
		if err == nil && f.has(faultValidationRoutingCaseless) {
			req.Routing = strings.ToLower(strings.TrimSpace(req.Routing))
		}
		if err != nil || (req.Routing != "parallel" && req.Routing != "sequential" && !f.has(faultValidationRoutingUnchecked)) {
			return req, nil, bad("routing must be parallel or sequential")
		}
	}

	if !present("documents") {
		return req, nil, bad("documents is required")
	}
	if json.Unmarshal(obj["documents"], &req.Documents) != nil {
		return req, nil, badType("documents must be an array of template names")
	}
	if len(req.Documents) == 0 {
		return req, nil, bad("documents must name at least one template")
	}
	if len(req.Documents) > MaxDocuments {
		return req, nil, bad(fmt.Sprintf("too many documents: %d, at most %d", len(req.Documents), MaxDocuments))
	}
	var tmpls []*firmakit.Template
	signerSet := map[string]bool{}
	var wantSigners, wantData []string
	dataSet := map[string]bool{}
	seenDoc := map[string]bool{}
	for _, d := range req.Documents {
		t := m.Template(d)
		if t == nil && f.has(faultValidationUnknownDocument) {
			t = &firmakit.Template{Name: d, Title: d}
		}
		if t == nil {
			return req, nil, bad("unknown document: " + textclip.Runes(d, 80))
		}
		if seenDoc[d] {
			return req, nil, bad("document listed twice: " + d)
		}
		seenDoc[d] = true
		tmpls = append(tmpls, t)
		for _, k := range t.Signers {
			if !signerSet[k] {
				signerSet[k] = true
				wantSigners = append(wantSigners, k)
			}
		}
		for _, k := range t.Data {
			if !dataSet[k] {
				dataSet[k] = true
				wantData = append(wantData, k)
			}
		}
	}

	if !present("signers") {
		return req, nil, bad("signers is required")
	}
	if json.Unmarshal(obj["signers"], &req.Signers) != nil {
		return req, nil, badType("signers must be an array of objects with key, name and email strings")
	}
	if len(req.Signers) > MaxSigners {
		return req, nil, bad(fmt.Sprintf("too many signers: %d, at most %d", len(req.Signers), MaxSigners))
	}
	given := map[string]bool{}
	for i, sg := range req.Signers {
		if sg.Key == "" {
			return req, nil, bad(fmt.Sprintf("signers[%d].key is required", i))
		}
		if !signerSet[sg.Key] && !f.has(faultValidationUnknownSigner) {
			return req, nil, bad("unknown signer: " + textclip.Runes(sg.Key, 80))
		}
		if given[sg.Key] && !f.has(faultValidationDuplicateSigner) {
			return req, nil, bad("signer listed twice: " + sg.Key)
		}
		given[sg.Key] = true
		if strings.TrimSpace(sg.Name) == "" {
			return req, nil, bad("name is required for " + sg.Key)
		}
		if utf8.RuneCountInString(sg.Name) > 200 {
			return req, nil, bad("name is too long for " + sg.Key + ": at most 200 characters")
		}
		if !validEmail(sg.Email) && !f.has(faultValidationInvalidEmail) {
			return req, nil, bad("invalid email for " + sg.Key)
		}
	}
	for _, k := range wantSigners {
		if !given[k] && !f.has(faultValidationMissingSigner) {
			return req, nil, bad("missing signer: " + k)
		}
	}
	if !f.has(faultEnvelopeRecipientsRequestOrder) {
		sort.SliceStable(req.Signers, func(i, j int) bool { return signerOrder(req.Signers[i].Key) < signerOrder(req.Signers[j].Key) })
	}

	req.Data = map[string]string{}
	if present("data") {
		var raw map[string]json.RawMessage
		if json.Unmarshal(obj["data"], &raw) != nil {
			return req, nil, badType("data must be an object of strings")
		}
		if len(raw) > MaxDataKeys {
			return req, nil, bad(fmt.Sprintf("too many data keys: %d, at most %d", len(raw), MaxDataKeys))
		}
		for k, v := range raw {
			var sv string
			var num json.Number
			switch {
			case json.Unmarshal(v, &sv) == nil:
			case json.Unmarshal(v, &num) == nil:
				sv = num.String()
			default:
				return req, nil, badType(fmt.Sprintf("data key %s must be a string", textclip.Runes(k, 80)))
			}
			if utf8.RuneCountInString(sv) > MaxDataValue {
				return req, nil, bad(fmt.Sprintf("data key %s is too long: at most %d characters", textclip.Runes(k, 80), MaxDataValue))
			}
			req.Data[k] = sv
		}
	}
	for _, k := range wantData {
		if _, ok := req.Data[k]; !ok && !f.has(faultValidationMissingDataKey) {
			return req, nil, bad("missing data key: " + k)
		}
	}
	var extra []string
	for k := range req.Data {
		if !dataSet[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 && !f.has(faultValidationUnknownDataKey) {
		sort.Strings(extra)
		return req, nil, bad("unknown data key: " + textclip.Runes(extra[0], 80))
	}
	return req, tmpls, nil
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
		return &APIError{Status: http.StatusNotFound, Message: "Not found: demo documents are served as {signature_id}.pdf"}
	}
	env, ok := s.signatures.get(id)
	if !ok {
		return &APIError{Status: http.StatusNotFound, Message: "Not found: no signature " + textclip.Runes(id, 60) + " on this server"}
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
		return bad(fmt.Sprintf("outcome must be %s, %s or %s", OutcomePending, OutcomeDelivered, OutcomeFailed))
	}
	limit := DefaultDeliveriesPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxDeliveriesPage {
			return bad(fmt.Sprintf("limit must be a whole number from 1 to %d", MaxDeliveriesPage))
		}
		limit = n
	}
	var after int64
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return bad("after must be the seq of a delivery (a whole number), as the next link gives it")
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
