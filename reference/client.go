package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
)

// DemoRequest is what CreateDemo needs to create a demo contract.
type DemoRequest struct {
	URL        string // base URL of the service
	MerchantID string
	Key        string
	Secret     string
	Profile    *firmakit.Profile
	Template   firmakit.Template
	Data       map[string]string
	State      firmakit.State
	Title      string // free text after the prefix
	Client     *http.Client
}

// AnswerError is a service's answer other than the one expected.
type AnswerError struct {
	Status int
	Body   string
}

// Error quotes the status and the body of the answer.
func (e *AnswerError) Error() string {
	return fmt.Sprintf("the service answered %d: %s", e.Status, e.Body)
}

// CreateDemo creates a contract whose title asks for a demo notification
// of r.State, signing the request under r.Profile. It returns the envelope
// of the 201, an *AnswerError that quotes any other answer, or the error
// of a service that could not be reached.
func CreateDemo(ctx context.Context, r DemoRequest) (*firmakit.Envelope, error) {
	if !r.State.Valid() {
		return nil, fmt.Errorf("state %q: want one of CREATED, BOUNCED, REJECTED, CANCELED, SIGNED", r.State)
	}
	if r.Profile == nil {
		r.Profile = firmakit.BundledProfile()
	}
	if r.Client == nil {
		r.Client = &http.Client{Timeout: 10 * time.Second, Transport: peer.Transport()}
	}
	req := firmakit.NewCreateRequest(r.Template, r.Data, strings.TrimSpace(r.State.DemoPrefix()+" "+r.Title))
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	path := "/v1/signature/" + r.MerchantID
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(r.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header = r.Profile.SignedHeaders(r.Key, r.Secret, http.MethodPost, path, body, time.Now())
	hr.Header.Set("Content-Type", "application/json")
	resp, err := r.Client.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var out firmakit.APIResponse
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &out) != nil || out.Data == nil {
		return nil, &AnswerError{Status: resp.StatusCode, Body: string(bytes.TrimSpace(raw))}
	}
	return out.Data, nil
}

// CreateDemo creates a demo contract of state st for the merchant on the
// service at url, with its first enabled credential and its first
// template, filled with the template's example data; title is the text
// after the state's prefix.
func (m *Merchant) CreateDemo(ctx context.Context, url string, p *firmakit.Profile, st firmakit.State, title string) (*firmakit.Envelope, error) {
	cred, ok := m.EnabledCredential()
	if !ok || len(m.Templates) == 0 {
		return nil, fmt.Errorf("merchant %s has no enabled credential or no template", m.ID)
	}
	t := m.Templates[0]
	return CreateDemo(ctx, DemoRequest{URL: url, MerchantID: m.ID, Key: cred.KeyID, Secret: cred.Secret,
		Profile: p, Template: t.Template, Data: t.ExampleData(), State: st, Title: title})
}
