package stdservice

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Sender is the envelope's sender, taken from the merchant's configuration.
type Sender struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// EnvelopeDocument is one document of an envelope.
type EnvelopeDocument struct {
	Key   string `json:"key"`
	Title string `json:"title"`
}

// Recipient is one signer of an envelope.
type Recipient struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Status string `json:"status"`
}

// Envelope is the data of a create-signature response (interface 2.2).
type Envelope struct {
	SignatureID string             `json:"signature_id"`
	Status      string             `json:"status"`
	Title       string             `json:"title"`
	Routing     string             `json:"routing"`
	Sender      Sender             `json:"sender"`
	Documents   []EnvelopeDocument `json:"documents"`
	Recipients  []Recipient        `json:"recipients"`
	CreatedAt   string             `json:"created_at"`
}

type createResponse struct {
	StatusCode int      `json:"status_code"`
	Message    string   `json:"message"`
	Data       Envelope `json:"data"`
}

// refusal is a create body fault: the field it concerns and what is wrong.
type refusal struct {
	field string
	msg   string
}

func refuse(field, format string, args ...any) *refusal {
	return &refusal{field: field, msg: field + ": " + fmt.Sprintf(format, args...)}
}

// present reports whether an optional or required field carries a value;
// JSON null counts as absent, as it does for encoding/json.
func present(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// stringField reads a string field; ok is false when it is absent or empty.
func stringField(obj map[string]json.RawMessage, name, label string) (string, bool, *refusal) {
	raw, ok := present(obj, name)
	if !ok {
		return "", false, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, refuse(label, "must be a string")
	}
	if strings.TrimSpace(v) == "" {
		return "", false, nil
	}
	return v, true, nil
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// signerIndex orders signer_<n> keys by n; other keys sort after them.
func signerIndex(key string) int {
	if n, err := strconv.Atoi(strings.TrimPrefix(key, "signer_")); err == nil && strings.HasPrefix(key, "signer_") {
		return n
	}
	return int(^uint(0) >> 1)
}

// buildEnvelope validates a create body against the merchant's templates
// (defaults.md C) and returns the envelope it asks for.
func (s *Service) buildEnvelope(m *Merchant, obj map[string]json.RawMessage) (*Envelope, *refusal) {
	title, ok, bad := stringField(obj, "title", "title")
	if bad != nil {
		return nil, bad
	}
	if !ok {
		return nil, refuse("title", "is required and must not be empty")
	}

	// documents
	raw, ok := present(obj, "documents")
	if !ok {
		return nil, refuse("documents", "is required: list the template names to send")
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, refuse("documents", "must be an array of template names (strings)")
	}
	if len(names) == 0 {
		return nil, refuse("documents", "must list at least one template")
	}
	templates := map[string]*Template{}
	for i := range m.Templates {
		templates[m.Templates[i].Name] = &m.Templates[i]
	}
	var docs []EnvelopeDocument
	var wantSigners, wantData []string
	for i, name := range names {
		t, ok := templates[name]
		if !ok {
			return nil, refuse("documents", "unknown document %q", name)
		}
		docs = append(docs, EnvelopeDocument{Key: fmt.Sprintf("document_%d", i), Title: t.Title})
		for _, k := range t.Signers {
			if !slices.Contains(wantSigners, k) {
				wantSigners = append(wantSigners, k)
			}
		}
		for _, k := range t.DataKeys {
			if !slices.Contains(wantData, k) {
				wantData = append(wantData, k)
			}
		}
	}

	// signers
	raw, ok = present(obj, "signers")
	if !ok {
		return nil, refuse("signers", "is required: one entry per signer key (%s)", strings.Join(wantSigners, ", "))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, refuse("signers", "must be an array of objects")
	}
	var recipients []Recipient
	seen := map[string]bool{}
	for i, item := range items {
		label := fmt.Sprintf("signers[%d]", i)
		var so map[string]json.RawMessage
		if err := json.Unmarshal(item, &so); err != nil || so == nil {
			return nil, refuse(label, "must be an object with key, name and email")
		}
		key, ok, bad := stringField(so, "key", label+".key")
		if bad != nil {
			return nil, bad
		}
		if !ok {
			return nil, refuse(label+".key", "is required")
		}
		if !slices.Contains(wantSigners, key) {
			return nil, refuse("signers", "unknown signer %q (the templates ask for %s)", key, strings.Join(wantSigners, ", "))
		}
		if seen[key] {
			return nil, refuse("signers", "signer %s is listed twice", key)
		}
		seen[key] = true
		name, ok, bad := stringField(so, "name", label+".name")
		if bad != nil {
			return nil, bad
		}
		if !ok {
			return nil, refuse(label+".name", "is required for %s", key)
		}
		email, ok, bad := stringField(so, "email", label+".email")
		if bad != nil {
			return nil, bad
		}
		if !ok {
			return nil, refuse(label+".email", "is required for %s", key)
		}
		if !validEmail(email) {
			return nil, refuse(label+".email", "invalid email for %s: %q is not an e-mail address", key, email)
		}
		recipients = append(recipients, Recipient{Key: key, Name: name, Email: email, Status: "pending"})
	}
	for _, k := range wantSigners {
		if !seen[k] {
			return nil, refuse("signers", "missing signer %s", k)
		}
	}
	sort.SliceStable(recipients, func(i, j int) bool {
		a, b := signerIndex(recipients[i].Key), signerIndex(recipients[j].Key)
		if a != b {
			return a < b
		}
		return recipients[i].Key < recipients[j].Key
	})

	// data
	data := map[string]json.RawMessage{}
	if raw, ok := present(obj, "data"); ok {
		if err := json.Unmarshal(raw, &data); err != nil {
			return nil, refuse("data", "must be an object of template data keys")
		}
	}
	for _, k := range wantData {
		if _, ok := data[k]; !ok {
			return nil, refuse("data", "missing data key %s", k)
		}
	}
	var extra []string
	for k := range data {
		if !slices.Contains(wantData, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, refuse("data", "unknown data key %s (the templates use %s)", extra[0], strings.Join(wantData, ", "))
	}
	for _, k := range wantData {
		v := strings.TrimSpace(string(data[k]))
		if v == "null" || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
			return nil, refuse("data."+k, "must be a string, a number or a boolean")
		}
	}

	// routing
	routing, ok, bad := stringField(obj, "routing", "routing")
	if bad != nil {
		return nil, bad
	}
	if !ok {
		routing = "parallel"
	}
	if routing != "parallel" && routing != "sequential" {
		return nil, refuse("routing", "must be parallel or sequential, not %q", routing)
	}

	return &Envelope{
		SignatureID: newUUID(),
		Status:      "PENDIENTE",
		Title:       title,
		Routing:     routing,
		Sender:      Sender{Name: m.SenderName, Email: m.SenderEmail},
		Documents:   docs,
		Recipients:  recipients,
		CreatedAt:   s.timestamp(),
	}, nil
}

func (s *Service) handleCreate(w http.ResponseWriter, r *http.Request) {
	merchantID := r.PathValue("merchant")
	body, ok := s.authenticate(w, r, merchantID)
	if !ok {
		return
	}
	obj, msg := parseObject(body)
	if msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	m := s.merchants[merchantID]
	env, bad := s.buildEnvelope(m, obj)
	if bad != nil {
		writeJSON(w, http.StatusBadRequest, errorBody{StatusCode: http.StatusBadRequest, Message: bad.msg, Field: bad.field})
		return
	}
	writeJSON(w, http.StatusCreated, createResponse{
		StatusCode: http.StatusCreated,
		Message:    "Signature request created",
		Data:       *env,
	})
	// The demo delay counts from the moment the 201 leaves.
	_ = http.NewResponseController(w).Flush()
	if state, ok := demoState(env.Title); ok {
		s.scheduleDemo(merchantID, env, state, s.baseURL(r))
	}
}
