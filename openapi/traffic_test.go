package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exchange is one request sent and what came back, as a transport saw it.
type exchange struct {
	method, url string
	header      http.Header
	body        []byte
	status      int // 0 when no answer came (a timeout, a reset)
	respHeader  http.Header
	respBody    []byte
}

// String names the request for a failure message.
func (e *exchange) String() string {
	return fmt.Sprintf("%s %s %s (answered %d %s)", e.method, e.url, clip(string(e.body), 300), e.status, clip(string(e.respBody), 300))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// recorder is a transport that keeps every exchange that goes through it.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []*exchange
}

func (rec *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := &exchange{method: req.Method, url: req.URL.String(), header: req.Header.Clone()}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		ex.body = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := rec.base.RoundTrip(req)
	if err == nil {
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		if rerr == nil {
			ex.status, ex.respHeader, ex.respBody = resp.StatusCode, resp.Header.Clone(), b
		}
	}
	rec.mu.Lock()
	rec.seen = append(rec.seen, ex)
	rec.mu.Unlock()
	return resp, err
}

func (rec *recorder) exchanges() []*exchange {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]*exchange(nil), rec.seen...)
}

// A whole certify run against the bundled reference, both languages
// (English only under -race: trafficLang): every request the suite sent and every answer it got conforms to the
// document, and so does every notification the reference delivered. A
// request the reference accepted (2xx) must be one the document allows;
// every answer must be one the document lists for its operation, with
// its schema; a request to no operation of the document must be refused
// with a 4xx in the error body's shape. So the document and the reference
// cannot drift apart.
func TestCertifyTrafficConformsToTheDocument(t *testing.T) {
	p := firmakit.BundledProfile()
	suiteRec := &recorder{base: http.DefaultTransport.(*http.Transport).Clone()}
	hookRec := &recorder{base: http.DefaultTransport.(*http.Transport).Clone()}

	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Profile: p}
	require.NoError(t, rv.Open())
	defer rv.Close()
	ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: reference.DemoConfig(), Logger: slog.New(slog.DiscardHandler),
		// As the reference's own client: the profile's timeout, no redirect.
		HTTPClient: &http.Client{Timeout: p.Webhook.Timeout, Transport: hookRec,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	require.NoError(t, ref.Config.SetWebhooks(rv.HookURL))
	require.NoError(t, ref.Open())
	defer ref.Close()

	target := steps.DemoTarget(ref.URL(), rv, true)
	target.Profile = p
	target.HTTPClient = &http.Client{Timeout: steps.DefaultRequestTimeout, Transport: suiteRec, CheckRedirect: steps.NoRedirect}
	suite := &steps.Suite{Target: target, RunOptions: engine.RunOptions{Lang: trafficLang, Output: io.Discard, Format: "progress"}}
	start := time.Now()
	_, err := suite.Run()
	require.NoError(t, err)
	t.Logf("the suite: %s, in %s", suite.Summary(), time.Since(start).Round(time.Second))
	if n := suite.Count(reports.Failed); n > 0 {
		var failed []string
		for _, r := range suite.Results() {
			if r.Status == reports.Failed {
				failed = append(failed, r.Lang+" @"+r.Requirement+" "+r.Example+": "+r.Error)
			}
		}
		t.Fatalf("the suite must pass against the bundled reference for its traffic to prove anything: %s\n%s", suite.VerdictLine(), strings.Join(failed, "\n"))
	}

	doc, err := openapi.Build(openapi.Options{Profile: p, ServerURL: ref.URL()})
	require.NoError(t, err)
	v, model := newValidator(t, doc)
	j := &judge{v: v, model: model, schemas: schema_validation.NewSchemaValidator()}

	checked := 0
	for _, ex := range suiteRec.exchanges() {
		if ex.status == 0 {
			continue // no answer of the reference's own to judge
		}
		checked++
		for _, problem := range j.exchange(ex) {
			t.Errorf("%s\n  %s", ex, problem)
		}
	}
	webhook := model.Webhooks.GetOrZero(openapi.WebhookName)
	require.NotNil(t, webhook, "the document has the webhook %s", openapi.WebhookName)
	states := map[string]int{}
	for _, ex := range hookRec.exchanges() {
		req := ex.request()
		if ok, errs := v.ValidateHttpRequestSyncWithPathItem(req, webhook, req.URL.Path); !ok {
			t.Errorf("notification %s %s\n  %s", ex.header.Get(p.Webhook.SignatureHeader), clip(string(ex.body), 400), describe(errs))
		}
		n, _, err := p.DecodeNotification(ex.body)
		require.NoError(t, err)
		states[string(n.Status)]++
	}
	t.Logf("%d requests and answers, %d notifications (%v) checked against the document", checked, len(hookRec.exchanges()), states)
	langs, err := engine.Paths(trafficLang)
	require.NoError(t, err)
	require.Greater(t, checked, 250*len(langs), "the suite's traffic was recorded, about 300 exchanges a language")
	for _, st := range firmakit.States {
		require.NotZero(t, states[string(st)], "a %s notification was delivered and checked", st)
	}
}

// judgeExchange returns what is wrong with one exchange of the suite's
// against the document, nothing when it conforms.
// numberPastDouble tells a validator's refusal that is its own limit,
// not the document's: it decodes JSON numbers into float64, so a body
// holding 1e400 or a 400-digit integer (valid JSON, an object the check
// endpoint takes: @AUTH-BODY-OPEN) cannot be read by it at all.
func numberPastDouble(problem string) bool {
	return strings.Contains(problem, "cannot unmarshal number") && strings.Contains(problem, "into Go value of type float64")
}

func (j *judge) exchange(ex *exchange) []string {
	v := j.v
	req := ex.request()
	reqOK, reqErrs := v.ValidateHttpRequestSync(req)
	if outside(reqErrs) {
		if strings.HasPrefix(req.URL.Path, "/demo/documents/") && req.Method == http.MethodGet {
			return nil // the link of a SIGNED notification: not an endpoint of the interface
		}
		if ex.status < 400 || ex.status > 499 {
			return []string{fmt.Sprintf("a request to no operation of the document was answered %d, not a 4xx", ex.status)}
		}
		if ok, errs := j.validateError(ex); !ok {
			return []string{"the answer to a request to no operation is not the error body: " + describe(errs)}
		}
		return nil
	}
	var out []string
	if ex.status >= 200 && ex.status <= 299 && !reqOK && !numberPastDouble(describe(reqErrs)) {
		out = append(out, "the reference accepted a request that the document refuses: "+describe(reqErrs))
	}
	if ok, errs := v.ValidateHttpResponse(req, ex.response()); !ok {
		out = append(out, "the answer is not one the document gives: "+describe(errs))
	}
	return out
}

// outside tells whether the validator found no operation for a request.
func outside(errs []*liberrors.ValidationError) bool {
	for _, e := range errs {
		if e.ValidationType == helpers.PathValidation &&
			(e.ValidationSubType == helpers.ValidationMissing || e.ValidationSubType == helpers.ValidationMissingOperation) {
			return true
		}
	}
	return false
}

// judge holds what an exchange is judged with: the document's validator,
// its model and a validator of its schemas.
type judge struct {
	v       validator.Validator
	model   *v3.Document
	schemas schema_validation.SchemaValidator
}

// validateError checks an answer's body against the document's Error
// schema, and its status_code against the HTTP status.
func (j *judge) validateError(ex *exchange) (bool, []*liberrors.ValidationError) {
	s := j.model.Components.Schemas.GetOrZero("Error")
	ok, errs := j.schemas.ValidateSchemaBytes(s.Schema(), ex.respBody)
	var body struct {
		StatusCode int `json:"status_code"`
	}
	if ok && (json.Unmarshal(ex.respBody, &body) != nil || body.StatusCode != ex.status) {
		return false, []*liberrors.ValidationError{{Message: "status_code is not the HTTP status",
			Reason: fmt.Sprintf("status_code %d, HTTP status %d", body.StatusCode, ex.status), SpecPath: "#/components/schemas/Error"}}
	}
	return ok, errs
}

// request is the exchange's request as a server reads it: header names
// are case-insensitive on the wire, so the suite's "x-service-key" is
// X-Service-Key.
func (e *exchange) request() *http.Request {
	r := httptest.NewRequest(e.method, e.url, bytes.NewReader(e.body))
	for name, values := range e.header {
		for _, v := range values {
			r.Header.Add(name, v)
		}
	}
	return r.WithContext(context.Background())
}

func (e *exchange) response() *http.Response {
	return &http.Response{StatusCode: e.status, Header: e.respHeader.Clone(), Body: io.NopCloser(bytes.NewReader(e.respBody))}
}

// describe says each validation error with the schema path it broke.
func describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s: %s", e.Message, e.Reason)
		if e.SpecPath != "" {
			fmt.Fprintf(&b, " [document %s]", e.SpecPath)
		}
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "; %s at %s (schema %s)", f.Reason, f.FieldPath, f.KeywordLocation)
		}
		b.WriteString("\n  ")
	}
	return strings.TrimSpace(b.String())
}

// newValidator parses the document's JSON with libopenapi and returns a
// validator of requests and answers, and the document's model.
func newValidator(t *testing.T, doc *openapi.Document) (validator.Validator, *v3.Document) {
	t.Helper()
	j, err := doc.JSON()
	require.NoError(t, err)
	d, err := libopenapi.NewDocument(j)
	require.NoError(t, err)
	m, err := d.BuildV3Model()
	require.NoError(t, err)
	v, errs := validator.NewValidator(d)
	require.Empty(t, errs)
	return v, &m.Model
}

// The judge of the traffic test fails each kind of drift: an answer that
// breaks its schema or has a status the document does not list, a
// request the reference accepted that the document refuses, a 2xx to a
// request to no operation, and a notification that lacks a key of its
// state.
func TestJudgeCatchesDrift(t *testing.T) {
	p := firmakit.BundledProfile()
	doc, err := openapi.Build(openapi.Options{})
	require.NoError(t, err)
	v, model := newValidator(t, doc)
	j := &judge{v: v, model: model, schemas: schema_validation.NewSchemaValidator()}
	demo := firmakit.Demo()
	signed := func(method, path, body string) *exchange {
		h := p.SignedHeaders(demo.Credential.KeyID, demo.Credential.Secret, method, path, []byte(body), time.Now())
		h.Set("Content-Type", "application/json")
		return &exchange{method: method, url: "http://127.0.0.1:8080" + path, header: h, body: []byte(body),
			respHeader: http.Header{"Content-Type": {"application/json"}}}
	}
	answered := func(ex *exchange, status int, body string) *exchange {
		ex.status, ex.respBody = status, []byte(body)
		return ex
	}
	create, err := json.Marshal(firmakit.NewCreateRequest(demo.Template, demo.Data, "x"))
	require.NoError(t, err)
	withColour := strings.Replace(string(create), `{"title"`, `{"colour":"red","title"`, 1)
	cases := []struct {
		name string
		ex   *exchange
		want string // "" when it conforms
	}{
		{"a conforming check", answered(signed("POST", "/v1/check/merchant_demo", "{}"), 200, `{"status_code":200,"message":"Authenticated"}`), ""},
		{"a 200 without its message", answered(signed("POST", "/v1/check/merchant_demo", "{}"), 200, `{"status_code":200}`), "the answer is not one the document gives"},
		{"a status the document does not list", answered(signed("POST", "/v1/check/merchant_demo", "{}"), 418, `{"status_code":418,"message":"teapot"}`), "the answer is not one the document gives"},
		{"a 401 with another label", answered(signed("POST", "/v1/check/merchant_demo", "{}"), 401, `{"status_code":401,"message":"Unauthorized"}`), "the answer is not one the document gives"},
		{"an unknown field accepted", answered(signed("POST", "/v1/signature/merchant_demo", withColour), 201, `{}`), "the reference accepted a request that the document refuses"},
		{"a refusal of a request the document refuses", answered(signed("POST", "/v1/signature/merchant_demo", withColour), 400, `{"status_code":400,"message":"unknown field: colour"}`), ""},
		{"another method refused", answered(signed("GET", "/v1/check/merchant_demo", ""), 405, `{"status_code":405,"message":"Method not allowed"}`), ""},
		{"another method accepted", answered(signed("GET", "/v1/check/merchant_demo", ""), 200, `{"status_code":200,"message":"Authenticated"}`), "a request to no operation of the document was answered 200"},
		{"another method refused in another shape", answered(signed("GET", "/v1/check/merchant_demo", ""), 405, `{"error":"no"}`), "is not the error body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems := j.exchange(c.ex)
			if c.want == "" {
				assert.Empty(t, problems)
				return
			}
			require.NotEmpty(t, problems)
			assert.Contains(t, strings.Join(problems, "\n"), c.want)
		})
	}

	webhook := model.Webhooks.GetOrZero(openapi.WebhookName)
	notify := func(n firmakit.Notification) (bool, string) {
		body, err := p.EncodeNotification(n)
		require.NoError(t, err)
		req := httptest.NewRequest(http.MethodPost, "/hooks/merchant_demo", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		p.SignWebhook(req.Header, n.EventID, demo.WebhookSecrets, time.Now(), body)
		ok, errs := v.ValidateHttpRequestSyncWithPathItem(req, webhook, req.URL.Path)
		return ok, describe(errs)
	}
	n := firmakit.Notification{EventID: "e1", Type: firmakit.NotificationType, MerchantID: demo.MerchantID,
		SignatureID: "0f8fad5b-d9cb-469f-a165-70867728950e", Title: "DEMO_SIGNED x", Status: firmakit.StateSigned,
		DocumentURL: "http://127.0.0.1:8080/demo/documents/0f8fad5b-d9cb-469f-a165-70867728950e.pdf", Demo: true, CreatedAt: "2026-11-22T10:00:00.512Z"}
	ok, why := notify(n)
	assert.True(t, ok, why)
	noURL := n
	noURL.DocumentURL = ""
	ok, why = notify(noURL)
	assert.False(t, ok, "a SIGNED notification without its document_url")
	assert.Contains(t, why, "document_url")
	reason := n
	reason.Status, reason.DocumentURL, reason.Reason = firmakit.StateCreated, "", "why"
	ok, _ = notify(reason)
	assert.False(t, ok, "a CREATED notification with a reason")
}
