package firmakit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// State is a digital contract's state as named in notifications.
type State string

// The states of section 6.1 of the interface.
const (
	StateCreated  State = "CREATED"
	StateBounced  State = "BOUNCED"
	StateRejected State = "REJECTED"
	StateCanceled State = "CANCELED"
	StateSigned   State = "SIGNED"
)

// States lists every notification state in the interface's order.
var States = []State{StateCreated, StateBounced, StateRejected, StateCanceled, StateSigned}

// Initial states shown in a create response.
const (
	EnvelopePending  = "PENDIENTE"
	RecipientPending = "pending"
)

// NotificationType is the type of a signature status notification.
const NotificationType = "signature.status"

// HasReason tells whether notifications of s carry a reason.
func (s State) HasReason() bool {
	return s == StateBounced || s == StateRejected || s == StateCanceled
}

// HasDocumentURL tells whether notifications of s carry a document URL.
func (s State) HasDocumentURL() bool { return s == StateSigned }

// Valid tells whether s is one of the five named states.
func (s State) Valid() bool {
	for _, v := range States {
		if s == v {
			return true
		}
	}
	return false
}

// DemoPrefix returns the reserved title prefix that triggers a demo
// notification of s, such as "DEMO_SIGNED".
func (s State) DemoPrefix() string { return "DEMO_" + string(s) }

// DemoState returns the state a title's demo prefix asks for. The match is
// case-sensitive and at the very first character; ok is false for any other
// title.
func DemoState(title string) (s State, ok bool) {
	for _, st := range States {
		if strings.HasPrefix(title, st.DemoPrefix()) {
			return st, true
		}
	}
	return "", false
}

// TimeFormat is the timestamp format of the interface: UTC with exactly
// three fraction digits and Z.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime formats t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// Sender is the merchant that sends a contract.
type Sender struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Document is one template document of an envelope.
type Document struct {
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
	SignatureID string      `json:"signature_id"`
	Status      string      `json:"status"`
	Title       string      `json:"title"`
	Routing     string      `json:"routing"`
	Sender      Sender      `json:"sender"`
	Documents   []Document  `json:"documents"`
	Recipients  []Recipient `json:"recipients"`
	CreatedAt   string      `json:"created_at"`
}

// APIResponse is the body of every answer of the service: success and
// failure carry status_code and message; data only on create.
type APIResponse struct {
	StatusCode int       `json:"status_code"`
	Message    string    `json:"message"`
	Data       *Envelope `json:"data,omitempty"`
}

// SignerInput is one signer of a create-signature request.
type SignerInput struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// CreateSignatureRequest is the body of a create-signature request
// (defaults.md C).
type CreateSignatureRequest struct {
	Title     string            `json:"title"`
	Documents []string          `json:"documents"`
	Signers   []SignerInput     `json:"signers"`
	Data      map[string]string `json:"data"`
	Routing   string            `json:"routing,omitempty"`
}

// exampleSignerNames are the names NewCreateRequest gives the signers, in
// turn: accents, an eñe, a hyphen, an apostrophe and a diaeresis, which a
// service must echo byte for byte in the envelope's recipients.
var exampleSignerNames = []string{"Ana Pérez Ñuñez", "Luis Soto-Ávila", "María José O'Connor", "Zoë Müller"}

// NewCreateRequest returns a valid create-signature body (defaults.md C)
// for one template: its name as the only document; one signer per signer
// key of the template, in order, named from a fixed list of example names,
// with the e-mail firmante<N>@example.com; and a copy of data, never nil,
// so that the body always carries "data". Routing is left to the
// service's default.
func NewCreateRequest(t Template, data map[string]string, title string) CreateSignatureRequest {
	req := CreateSignatureRequest{Title: title, Documents: []string{t.Name},
		Signers: make([]SignerInput, 0, len(t.Signers)), Data: make(map[string]string, len(data))}
	for i, k := range t.Signers {
		req.Signers = append(req.Signers, SignerInput{Key: k, Name: exampleSignerNames[i%len(exampleSignerNames)],
			Email: "firmante" + strconv.Itoa(i+1) + "@example.com"})
	}
	for k, v := range data {
		req.Data[k] = v
	}
	return req
}

// Notification is a signature status notification. Empty optional fields
// (document URL, reason) are left out of the JSON, never null.
type Notification struct {
	EventID     string
	Type        string
	MerchantID  string
	SignatureID string
	Title       string
	Status      State
	DocumentURL string
	Reason      string
	Demo        bool
	CreatedAt   string
}

// EncodeNotification renders n as JSON with the profile's field names, in
// the order of defaults.md B.
func (p *Profile) EncodeNotification(n Notification) ([]byte, error) {
	f := p.Notification
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	add := func(key string, v any, keep bool) error {
		if key == "" || !keep {
			return nil
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		val, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(val)
		return nil
	}
	for _, e := range []struct {
		key  string
		v    any
		keep bool
	}{
		{f.EventID, n.EventID, true},
		{f.Type, n.Type, n.Type != ""},
		{f.MerchantID, n.MerchantID, n.MerchantID != ""},
		{f.SignatureID, n.SignatureID, true},
		{f.Title, n.Title, true},
		{f.Status, n.Status, true},
		{f.DocumentURL, n.DocumentURL, n.DocumentURL != ""},
		{f.Reason, n.Reason, n.Reason != ""},
		{f.Demo, n.Demo, n.Demo},
		{f.CreatedAt, n.CreatedAt, n.CreatedAt != ""},
	} {
		if err := add(e.key, e.v, e.keep); err != nil {
			return nil, fmt.Errorf("encode notification: %w", err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// DecodeNotification reads a notification body under the profile's field
// names. It fails when the body is not a JSON object; fields of another
// type than expected are reported, not guessed. Raw holds every field, so a
// caller can tell an absent key from an empty one.
func (p *Profile) DecodeNotification(body []byte) (Notification, map[string]json.RawMessage, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return Notification{}, nil, fmt.Errorf("notification is not a JSON object: %w", err)
	}
	if raw == nil {
		return Notification{}, nil, fmt.Errorf("notification is not a JSON object: null")
	}
	f := p.Notification
	var n Notification
	var status string
	for _, e := range []struct {
		key string
		dst any
	}{
		{f.EventID, &n.EventID}, {f.Type, &n.Type}, {f.MerchantID, &n.MerchantID},
		{f.SignatureID, &n.SignatureID}, {f.Title, &n.Title}, {f.Status, &status},
		{f.DocumentURL, &n.DocumentURL}, {f.Reason, &n.Reason}, {f.Demo, &n.Demo},
		{f.CreatedAt, &n.CreatedAt},
	} {
		v, ok := raw[e.key]
		if e.key == "" || !ok {
			continue
		}
		if err := json.Unmarshal(v, e.dst); err != nil {
			return n, raw, fmt.Errorf("notification field %q has the wrong type: %s", e.key, ClipBytes(string(v), 40))
		}
	}
	n.Status = State(status)
	return n, raw, nil
}

// Template is a contract template as the service assigns it: the name used
// in a request's documents, its title, its signer keys and its data keys.
type Template struct {
	Name    string   `yaml:"name" json:"name"`
	Title   string   `yaml:"title" json:"title"`
	Signers []string `yaml:"signers" json:"signers"`
	Data    []string `yaml:"data" json:"data"`
}

// ErrNotHTTPURL is returned, wrapped, by ParseHTTPURL.
var ErrNotHTTPURL = errors.New("not an absolute http(s) URL")

// ParseHTTPURL parses s as an absolute http or https URL with a host: the
// one check of the tree for a URL firmakit will send to or show as a
// place to send to. It returns an error wrapping ErrNotHTTPURL otherwise.
func ParseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q", ErrNotHTTPURL, ClipBytes(s, 200))
	}
	return u, nil
}
