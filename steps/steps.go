package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
)

// scenarioKey holds a scenario's state in its context, so that scenarios
// run concurrently without sharing anything.
type scenarioKey struct{}

// scenario is the state of one running scenario.
type scenario struct {
	endpoint string // "check" or "signature"
	body     any    // the JSON value sent (re-encoded before sending)
	rawBody  []byte // when set, sent as is
	cred     Credential
	offset   time.Duration
	stamp    *string // a timestamp sent as is
	missing  map[string]bool
	empty    map[string]bool
	noAuth   bool
	signBody []byte
	signPath string
	signVerb string
	badSig   string

	// What was sent and what came back.
	sent      string
	sentAt    time.Time // just before the request left
	status    int
	raw       []byte
	resp      map[string]any
	answered  time.Time
	previous  map[string]any
	created   string // signature_id of the created contract
	titleSent string
	note      *receiver.Record

	// Outcome.
	notRun     string // why the scenario could not run
	failedStep string
}

// Steps binds sentences to a target.
type Steps struct {
	T *Target
	// Skipped collects why scenarios were not run.
	Skipped func(reason string)
	// Done receives the outcome of every scenario.
	Done func(reports.ScenarioResult)
}

func get(ctx context.Context) *scenario { return ctx.Value(scenarioKey{}).(*scenario) }

// InitializeScenario registers every sentence, English and Spanish side by
// side on the same method.
func (s *Steps) InitializeScenario(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		return context.WithValue(ctx, scenarioKey{}, &scenario{cred: s.T.Credential, missing: map[string]bool{}, empty: map[string]bool{}}), nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		if sc, ok := ctx.Value(scenarioKey{}).(*scenario); ok && err != nil && !errors.Is(err, godog.ErrSkip) && sc.failedStep == "" {
			sc.failedStep = st.Text
		}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
		if s.Done != nil {
			s.Done(outcome(ctx, p, err))
		}
		return ctx, nil
	})
	bind := func(en, es string, fn any) {
		sc.Step("^"+en+"$", fn)
		sc.Step("^"+es+"$", fn)
	}
	// Requests.
	bind(`a signed request to the "(check|signature)" endpoint`, `una solicitud firmada al endpoint "(check|signature)"`, s.aSignedRequestToTheEndpoint)
	bind(`the body sent is (.+)`, `el cuerpo enviado es (.+)`, s.theBodySentIs)
	bind(`the "(key|timestamp|signature)" header is missing`, `falta la cabecera "(key|timestamp|signature)"`, s.theHeaderIsMissing)
	bind(`the "(key|timestamp|signature)" header is empty`, `la cabecera "(key|timestamp|signature)" está vacía`, s.theHeaderIsEmpty)
	bind(`no authentication header is sent`, `no se envía ninguna cabecera de autenticación`, s.noAuthenticationHeaderIsSent)
	bind(`the timestamp is (-?\d+) seconds off`, `la marca de tiempo está desfasada en (-?\d+) segundos`, s.theTimestampIsSecondsOff)
	bind(`the timestamp is "([^"]*)"`, `la marca de tiempo es "([^"]*)"`, s.theTimestampIs)
	bind(`the request is signed with the "(unknown|disabled|other-merchant)" credential`, `la solicitud se firma con la credencial "(unknown|disabled|other-merchant)"`, s.theRequestIsSignedWithTheCredential)
	bind(`the request is signed with a wrong secret`, `la solicitud se firma con un secreto incorrecto`, s.theRequestIsSignedWithAWrongSecret)
	bind(`the signature covers another body`, `la firma cubre otro cuerpo`, s.theSignatureCoversAnotherBody)
	bind(`the signature covers another path`, `la firma cubre otra ruta`, s.theSignatureCoversAnotherPath)
	bind(`the signature covers another method`, `la firma cubre otro método`, s.theSignatureCoversAnotherMethod)
	bind(`the signature is not properly encoded`, `la firma no está bien codificada`, s.theSignatureIsNotProperlyEncoded)
	bind(`the signature is replaced by a wrong one`, `la firma se reemplaza por una incorrecta`, s.theSignatureIsReplacedByAWrongOne)
	bind(`the request is sent`, `se envía la solicitud`, s.theRequestIsSent)
	bind(`the response is (\d+) "([^"]*)"`, `la respuesta es (\d+) "([^"]*)"`, s.theResponseIs)
	bind(`the response status is (\d+)`, `el estado de la respuesta es (\d+)`, s.theResponseStatusIs)

	// Create signature.
	bind(`a contract titled "([^"]*)"`, `un contrato titulado "([^"]*)"`, s.aContractTitled)
	bind(`a contract titled "([^"]*)" has been created`, `que se ha creado un contrato titulado "([^"]*)"`, s.aContractTitledHasBeenCreated)
	bind(`the body field "([^"]*)" is removed`, `se quita el campo "([^"]*)" del cuerpo`, s.theBodyFieldIsRemoved)
	bind(`the body field "([^"]*)" is set to (.+)`, `el campo "([^"]*)" del cuerpo vale (.+)`, s.theBodyFieldIsSetTo)
	bind(`the contract is created`, `se crea el contrato`, s.theContractIsCreated)
	bind(`the response is a created signature envelope`, `la respuesta es un sobre de firma creado`, s.theResponseIsACreatedSignatureEnvelope)
	bind(`signature_id is a UUID`, `signature_id es un UUID`, s.signatureIDIsAUUID)
	bind(`the envelope status is "([^"]*)"`, `el estado del sobre es "([^"]*)"`, s.theEnvelopeStatusIs)
	bind(`the envelope title is the title sent`, `el título del sobre es el título enviado`, s.theEnvelopeTitleIsTheTitleSent)
	bind(`the routing is "([^"]*)"`, `el enrutamiento es "([^"]*)"`, s.theRoutingIs)
	bind(`the sender has a name and a valid e-mail`, `el remitente tiene nombre y un e-mail válido`, s.theSenderHasANameAndAValidEmail)
	bind(`there is one document per template sent, keyed from document_0`, `hay un documento por plantilla enviada, con claves desde document_0`, s.thereIsOneDocumentPerTemplateSent)
	bind(`there is one recipient per signer, keyed from signer_1, each "([^"]*)"`, `hay un destinatario por firmante, con claves desde signer_1, cada uno "([^"]*)"`, s.thereIsOneRecipientPerSigner)
	bind(`created_at is a UTC time with milliseconds`, `created_at es una hora UTC con milisegundos`, s.createdAtIsAUTCTimeWithMilliseconds)
	bind(`the response message is "([^"]*)"`, `el mensaje de la respuesta es "([^"]*)"`, s.theResponseMessageIs)
	bind(`the sender is "([^"]*)" with e-mail "([^"]*)"`, `el remitente es "([^"]*)" con e-mail "([^"]*)"`, s.theSenderIs)
	bind(`the documents are titled "([^"]*)"`, `los documentos se titulan "([^"]*)"`, s.theDocumentsAreTitled)
	bind(`the response matches the earlier one but for signature_id, title and created_at`, `la respuesta coincide con la anterior salvo signature_id, title y created_at`, s.theResponseMatchesTheEarlierOne)

	// Notifications.
	bind(`exactly one "([A-Z]+)" notification arrives between (\d+) and (\d+) ms after the 201`, `llega exactamente una notificación "([A-Z]+)" entre (\d+) y (\d+) ms después del 201`, s.exactlyOneNotificationArrivesBetween)
	bind(`its signature is valid for the webhook secret`, `su firma es válida para el secreto del webhook`, s.itsSignatureIsValidForTheWebhookSecret)
	bind(`its signature_id is the one created`, `su signature_id es el del contrato creado`, s.itsSignatureIDIsTheOneCreated)
	bind(`it carries a document_url`, `trae un document_url`, s.itCarriesADocumentURL)
	bind(`it carries no document_url`, `no trae document_url`, s.itCarriesNoDocumentURL)
	bind(`it carries a non-empty reason`, `trae un reason no vacío`, s.itCarriesANonEmptyReason)
	bind(`it carries no reason`, `no trae reason`, s.itCarriesNoReason)
	bind(`the document_url opens a PDF`, `el document_url abre un PDF`, s.theDocumentURLOpensAPDF)
	bind(`no notification arrives within (\d+) ms`, `no llega ninguna notificación dentro de (\d+) ms`, s.noNotificationArrivesWithin)
}

// --- requests -------------------------------------------------------------

func (s *Steps) checkBody() any { return map[string]any{} }

// createBody is a valid create-signature body for the target's template.
func (s *Steps) createBody(title string) map[string]any {
	signers := []any{}
	for i, k := range s.T.Template.Signers {
		signers = append(signers, map[string]any{"key": k, "name": fmt.Sprintf("Firmante %d", i+1), "email": fmt.Sprintf("firmante%d@example.com", i+1)})
	}
	data := map[string]any{}
	for k, v := range s.T.Data {
		data[k] = v
	}
	return map[string]any{"title": title, "documents": []any{s.T.Template.Name}, "signers": signers, "data": data}
}

func (s *Steps) aSignedRequestToTheEndpoint(ctx context.Context, endpoint string) error {
	sc := get(ctx)
	sc.endpoint = endpoint
	if endpoint == "check" {
		sc.body = s.checkBody()
	} else {
		sc.titleSent = "Contrato de prueba de autenticación"
		sc.body = s.createBody(sc.titleSent)
	}
	return nil
}

func (s *Steps) theBodySentIs(ctx context.Context, body string) error {
	if !json.Valid([]byte(body)) {
		return fmt.Errorf("the feature's body is not JSON: %s", body)
	}
	get(ctx).rawBody = []byte(body)
	return nil
}

func (s *Steps) headerName(which string) string {
	switch which {
	case "key":
		return s.T.Profile.Request.KeyHeader
	case "timestamp":
		return s.T.Profile.Request.TimestampHeader
	}
	return s.T.Profile.Request.SignatureHeader
}

func (s *Steps) theHeaderIsMissing(ctx context.Context, which string) error {
	get(ctx).missing[s.headerName(which)] = true
	return nil
}

func (s *Steps) theHeaderIsEmpty(ctx context.Context, which string) error {
	get(ctx).empty[s.headerName(which)] = true
	return nil
}

func (s *Steps) noAuthenticationHeaderIsSent(ctx context.Context) error {
	get(ctx).noAuth = true
	return nil
}

func (s *Steps) theTimestampIsSecondsOff(ctx context.Context, secs int) error {
	get(ctx).offset = time.Duration(secs) * time.Second
	return nil
}

func (s *Steps) theTimestampIs(ctx context.Context, ts string) error {
	get(ctx).stamp = &ts
	return nil
}

// outcome is what a scenario came to. godog counts a scenario cut short
// by ErrSkip as passed; here it is "not run", never passed.
func outcome(ctx context.Context, p *godog.Scenario, err error) reports.ScenarioResult {
	r := reports.ScenarioResult{Feature: p.Uri, Name: p.Name, Lang: strings.SplitN(p.Uri, "/", 2)[0], Status: reports.Passed}
	if len(p.AstNodeIds) > 1 { // a row of an outline: say which
		var setup []string
		for _, st := range p.Steps {
			if st.Type == messages.PickleStepType_CONTEXT {
				setup = append(setup, st.Text)
			}
		}
		r.Example = strings.Join(setup, "; ")
	}
	classifyTags(&r, p.Tags)
	sc, _ := ctx.Value(scenarioKey{}).(*scenario)
	switch {
	case err != nil && !errors.Is(err, godog.ErrSkip):
		r.Status, r.Error = reports.Failed, err.Error()
		if sc != nil {
			r.FailedStep = sc.failedStep
		}
	case errors.Is(err, godog.ErrSkip) || (sc != nil && sc.notRun != ""):
		r.Status = reports.NotRun
		if sc != nil {
			r.Error = sc.notRun
		}
	}
	return r
}

// notRun marks a scenario the target's configuration cannot run.
func (s *Steps) notRun(ctx context.Context, reason string) error {
	if sc, ok := ctx.Value(scenarioKey{}).(*scenario); ok {
		sc.notRun = reason
	}
	if s.Skipped != nil {
		s.Skipped(reason)
	}
	return godog.ErrSkip
}

func (s *Steps) theRequestIsSignedWithTheCredential(ctx context.Context, which string) error {
	sc := get(ctx)
	switch which {
	case "unknown":
		sc.cred = Credential{Key: "firmakit_unknown_key", Secret: "firmakit_unknown_secret"}
	case "disabled":
		if !s.T.Disabled.Given() {
			return s.notRun(ctx, "no disabled credential given (--disabled-key, --disabled-secret)")
		}
		sc.cred = s.T.Disabled
	case "other-merchant":
		if !s.T.Other.Given() {
			return s.notRun(ctx, "no other merchant's credential given (--other-key, --other-secret)")
		}
		sc.cred = s.T.Other
	}
	return nil
}

func (s *Steps) theRequestIsSignedWithAWrongSecret(ctx context.Context) error {
	get(ctx).cred.Secret = s.T.Credential.Secret + "_wrong"
	return nil
}

func (s *Steps) theSignatureCoversAnotherBody(ctx context.Context) error {
	get(ctx).signBody = []byte(`{"firmakit":"another body"}`)
	return nil
}

func (s *Steps) theSignatureCoversAnotherPath(ctx context.Context) error {
	get(ctx).signPath = "/" + s.T.APIVersion + "/check/another_merchant_path"
	return nil
}

func (s *Steps) theSignatureCoversAnotherMethod(ctx context.Context) error {
	get(ctx).signVerb = http.MethodPut
	return nil
}

func (s *Steps) theSignatureIsNotProperlyEncoded(ctx context.Context) error {
	get(ctx).badSig = "not-an-encoding!*~"
	return nil
}

func (s *Steps) theSignatureIsReplacedByAWrongOne(ctx context.Context) error {
	// The right length and alphabet, the wrong value.
	good := s.T.Profile.RequestSignature("firmakit", firmakit.RequestParts{Timestamp: "1"})
	get(ctx).badSig = good
	return nil
}

func (s *Steps) path(sc *scenario) string {
	if sc.endpoint == "check" {
		return "/" + s.T.APIVersion + "/check/" + s.T.MerchantID
	}
	return "/v1/signature/" + s.T.MerchantID
}

// send signs and sends the scenario's request and keeps the answer.
func (s *Steps) send(ctx context.Context, sc *scenario) error {
	body := sc.rawBody
	if body == nil {
		var err error
		if body, err = json.Marshal(sc.body); err != nil {
			return err
		}
	}
	path := s.path(sc)
	ts := strconv.FormatInt(stampOff(time.Now(), sc.offset), 10)
	if sc.stamp != nil {
		ts = *sc.stamp
	}
	parts := firmakit.RequestParts{Timestamp: ts, Method: http.MethodPost, Target: path, KeyID: sc.cred.Key, Body: body}
	if sc.signBody != nil {
		parts.Body = sc.signBody
	}
	if sc.signPath != "" {
		parts.Target = sc.signPath
	}
	if sc.signVerb != "" {
		parts.Method = sc.signVerb
	}
	p := s.T.Profile
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(p.Request.KeyHeader, sc.cred.Key)
	h.Set(p.Request.TimestampHeader, ts)
	h.Set(p.Request.SignatureHeader, p.RequestSignature(sc.cred.Secret, parts))
	if sc.badSig != "" {
		h.Set(p.Request.SignatureHeader, sc.badSig)
	}
	for name := range sc.missing {
		h.Del(name)
	}
	for name := range sc.empty {
		h[http.CanonicalHeaderKey(name)] = []string{""}
	}
	if sc.noAuth {
		h.Del(p.Request.KeyHeader)
		h.Del(p.Request.TimestampHeader)
		h.Del(p.Request.SignatureHeader)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(s.T.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = h
	sc.sent = describe(req, body, p)
	sc.sentAt = time.Now()
	resp, err := s.T.client().Do(req)
	if err != nil {
		return fmt.Errorf("sent %s: %w", sc.sent, err)
	}
	defer resp.Body.Close()
	sc.answered = time.Now()
	sc.status = resp.StatusCode
	sc.raw, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	sc.resp = nil
	_ = json.Unmarshal(sc.raw, &sc.resp)
	return nil
}

// describe renders a request for a failure message. Signatures and keys
// are shown (they are what a merchant debugs); secrets never reach here.
func describe(r *http.Request, body []byte, p *firmakit.Profile) string {
	var hs []string
	for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		if v, ok := r.Header[http.CanonicalHeaderKey(name)]; ok {
			hs = append(hs, fmt.Sprintf("%s: %q", name, strings.Join(v, ",")))
		} else {
			hs = append(hs, name+" (absent)")
		}
	}
	return fmt.Sprintf("%s %s [%s] body %s", r.Method, r.URL.RequestURI(), strings.Join(hs, "; "), clip(string(body), 300))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func (sc *scenario) got() string {
	return fmt.Sprintf("got %d %s\n  sent: %s", sc.status, clip(strings.TrimSpace(string(sc.raw)), 500), sc.sent)
}

// stampOff returns now shifted by off in whole seconds, rounded away from
// now: a timestamp "301 s ahead" must stay at least 301 s ahead even when
// the server reads its clock just after a second ticks over.
func stampOff(now time.Time, off time.Duration) int64 {
	sec := now.Unix()
	if off > 0 && now.Nanosecond() > 0 {
		sec++
	}
	return sec + int64(off/time.Second)
}

func (s *Steps) theRequestIsSent(ctx context.Context) error { return s.send(ctx, get(ctx)) }

func (s *Steps) theResponseIs(ctx context.Context, status int, message string) error {
	sc := get(ctx)
	code, _ := sc.resp["status_code"].(float64)
	msg, _ := sc.resp["message"].(string)
	if sc.status != status || int(code) != status || msg != message {
		return fmt.Errorf("expected %d with status_code %d and message %q, %s", status, status, message, sc.got())
	}
	return nil
}

func (s *Steps) theResponseStatusIs(ctx context.Context, status int) error {
	sc := get(ctx)
	if code, _ := sc.resp["status_code"].(float64); sc.status != status || int(code) != status {
		return fmt.Errorf("expected status %d, %s", status, sc.got())
	}
	return nil
}

// --- create signature -----------------------------------------------------

func (s *Steps) aContractTitled(ctx context.Context, title string) error {
	sc := get(ctx)
	sc.endpoint, sc.titleSent, sc.body = "signature", title, s.createBody(title)
	return nil
}

func (s *Steps) aContractTitledHasBeenCreated(ctx context.Context, title string) error {
	if err := s.aContractTitled(ctx, title); err != nil {
		return err
	}
	if err := s.theContractIsCreated(ctx); err != nil {
		return err
	}
	sc := get(ctx)
	sc.previous = sc.resp
	return nil
}

// pathStep is one step of a body path such as signers[1].email.
var pathStep = regexp.MustCompile(`^([A-Za-z0-9_]+)(?:\[(\d+)\])?$`)

// edit removes (value nil, remove true) or sets the value at path.
func edit(root any, path string, value any, remove bool) error {
	parts := strings.Split(path, ".")
	cur := root
	for i, part := range parts {
		m := pathStep.FindStringSubmatch(part)
		if m == nil {
			return fmt.Errorf("bad body path %q", path)
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("body path %q: %s is not an object", path, part)
		}
		last := i == len(parts)-1
		if m[2] == "" {
			if last {
				if remove {
					delete(obj, m[1])
				} else {
					obj[m[1]] = value
				}
				return nil
			}
			cur = obj[m[1]]
			continue
		}
		idx, _ := strconv.Atoi(m[2])
		arr, ok := obj[m[1]].([]any)
		if !ok || idx >= len(arr) {
			return fmt.Errorf("body path %q: no element %d", path, idx)
		}
		if last {
			if remove {
				obj[m[1]] = append(arr[:idx:idx], arr[idx+1:]...)
			} else {
				arr[idx] = value
			}
			return nil
		}
		cur = arr[idx]
	}
	return nil
}

func (s *Steps) theBodyFieldIsRemoved(ctx context.Context, path string) error {
	return edit(get(ctx).body, path, nil, true)
}

func (s *Steps) theBodyFieldIsSetTo(ctx context.Context, path, value string) error {
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("the feature's value %s is not JSON", value)
	}
	return edit(get(ctx).body, path, v, false)
}

func (s *Steps) theContractIsCreated(ctx context.Context) error {
	sc := get(ctx)
	if err := s.send(ctx, sc); err != nil {
		return err
	}
	if sc.status != http.StatusCreated {
		return fmt.Errorf("expected 201 for the contract %q, %s", sc.titleSent, sc.got())
	}
	if id, ok := envelope(sc)["signature_id"].(string); ok {
		sc.created = id
		// A receiver that keeps contracts shows the delay since creation.
		if n, ok := s.T.Notifications.(interface {
			NoteContract(context.Context, string, string) error
		}); ok {
			created, _ := envelope(sc)["created_at"].(string)
			_ = n.NoteContract(ctx, id, created)
		}
	}
	return nil
}

func envelope(sc *scenario) map[string]any {
	d, _ := sc.resp["data"].(map[string]any)
	return d
}

func (s *Steps) theResponseIsACreatedSignatureEnvelope(ctx context.Context) error {
	sc := get(ctx)
	code, _ := sc.resp["status_code"].(float64)
	msg, _ := sc.resp["message"].(string)
	if sc.status != 201 || code != 201 || msg == "" || envelope(sc) == nil {
		return fmt.Errorf("expected 201 with status_code 201, a message and a data envelope, %s", sc.got())
	}
	return nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (s *Steps) field(sc *scenario, name string) (string, error) {
	v, ok := envelope(sc)[name].(string)
	if !ok {
		return "", fmt.Errorf("expected data.%s to be a string, %s", name, sc.got())
	}
	return v, nil
}

func (s *Steps) signatureIDIsAUUID(ctx context.Context) error {
	sc := get(ctx)
	v, err := s.field(sc, "signature_id")
	if err != nil {
		return err
	}
	if !uuidPattern.MatchString(v) {
		return fmt.Errorf("expected signature_id to be a UUID, got %q", v)
	}
	return nil
}

func (s *Steps) fieldIs(ctx context.Context, name, want string) error {
	sc := get(ctx)
	v, err := s.field(sc, name)
	if err != nil {
		return err
	}
	if v != want {
		return fmt.Errorf("expected data.%s %q, got %q", name, want, v)
	}
	return nil
}

func (s *Steps) theEnvelopeStatusIs(ctx context.Context, want string) error {
	return s.fieldIs(ctx, "status", want)
}

func (s *Steps) theEnvelopeTitleIsTheTitleSent(ctx context.Context) error {
	return s.fieldIs(ctx, "title", get(ctx).titleSent)
}

func (s *Steps) theRoutingIs(ctx context.Context, want string) error {
	return s.fieldIs(ctx, "routing", want)
}

func (s *Steps) theSenderHasANameAndAValidEmail(ctx context.Context) error {
	sc := get(ctx)
	sender, _ := envelope(sc)["sender"].(map[string]any)
	name, _ := sender["name"].(string)
	email, _ := sender["email"].(string)
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("expected data.sender.name, %s", sc.got())
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return fmt.Errorf("expected data.sender.email to be an e-mail address, got %q", email)
	}
	return nil
}

func (s *Steps) thereIsOneDocumentPerTemplateSent(ctx context.Context) error {
	sc := get(ctx)
	docs, _ := envelope(sc)["documents"].([]any)
	body, _ := sc.body.(map[string]any)
	sent, _ := body["documents"].([]any)
	if len(docs) != len(sent) {
		return fmt.Errorf("expected %d documents, got %d: %s", len(sent), len(docs), sc.got())
	}
	for i, d := range docs {
		doc, _ := d.(map[string]any)
		key, _ := doc["key"].(string)
		_, ok := doc["title"].(string)
		if key != "document_"+strconv.Itoa(i) || !ok {
			return fmt.Errorf("expected documents[%d] to have key document_%d and a title, got %v", i, i, d)
		}
	}
	return nil
}

func (s *Steps) thereIsOneRecipientPerSigner(ctx context.Context, status string) error {
	sc := get(ctx)
	recs, _ := envelope(sc)["recipients"].([]any)
	body, _ := sc.body.(map[string]any)
	signers, _ := body["signers"].([]any)
	byKey := map[string]map[string]any{}
	for _, sg := range signers {
		m, _ := sg.(map[string]any)
		k, _ := m["key"].(string)
		byKey[k] = m
	}
	if len(recs) != len(signers) {
		return fmt.Errorf("expected %d recipients, got %d: %s", len(signers), len(recs), sc.got())
	}
	for i, r := range recs {
		rec, _ := r.(map[string]any)
		want := "signer_" + strconv.Itoa(i+1)
		sg := byKey[want]
		if rec["key"] != want || sg == nil || rec["name"] != sg["name"] || rec["email"] != sg["email"] || rec["status"] != status {
			return fmt.Errorf("expected recipients[%d] to be %s with the name and e-mail sent and status %q, got %v", i, want, status, r)
		}
	}
	return nil
}

var millisUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func (s *Steps) createdAtIsAUTCTimeWithMilliseconds(ctx context.Context) error {
	sc := get(ctx)
	v, err := s.field(sc, "created_at")
	if err != nil {
		return err
	}
	t, perr := time.Parse(time.RFC3339Nano, v)
	if !millisUTC.MatchString(v) || perr != nil {
		return fmt.Errorf("expected created_at like 2026-11-22T10:00:00.512Z, got %q", v)
	}
	if d := time.Since(t); d > 10*time.Minute || d < -10*time.Minute {
		return fmt.Errorf("expected created_at near now, got %q", v)
	}
	return nil
}

func (s *Steps) theResponseMessageIs(ctx context.Context, want string) error {
	sc := get(ctx)
	if msg, _ := sc.resp["message"].(string); msg != want {
		return fmt.Errorf("expected message %q, %s", want, sc.got())
	}
	return nil
}

func (s *Steps) theSenderIs(ctx context.Context, name, email string) error {
	sc := get(ctx)
	sender, _ := envelope(sc)["sender"].(map[string]any)
	if sender["name"] != name || sender["email"] != email {
		return fmt.Errorf("expected sender %q <%s>, got %v", name, email, sender)
	}
	return nil
}

func (s *Steps) theDocumentsAreTitled(ctx context.Context, title string) error {
	sc := get(ctx)
	docs, _ := envelope(sc)["documents"].([]any)
	if len(docs) == 0 {
		return fmt.Errorf("expected documents, %s", sc.got())
	}
	for _, d := range docs {
		if doc, _ := d.(map[string]any); doc["title"] != title {
			return fmt.Errorf("expected every document titled %q, got %v", title, d)
		}
	}
	return nil
}

func (s *Steps) theResponseMatchesTheEarlierOne(ctx context.Context) error {
	sc := get(ctx)
	strip := func(resp map[string]any) string {
		b, _ := json.Marshal(resp)
		var c map[string]any
		_ = json.Unmarshal(b, &c)
		if d, ok := c["data"].(map[string]any); ok {
			delete(d, "signature_id")
			delete(d, "title")
			delete(d, "created_at")
		}
		out, _ := json.Marshal(c)
		return string(out)
	}
	if a, b := strip(sc.previous), strip(sc.resp); a != b || sc.previous == nil {
		return fmt.Errorf("expected the same response but for signature_id, title and created_at:\n  earlier: %s\n  now:     %s", a, b)
	}
	return nil
}

// --- notifications --------------------------------------------------------

// arrival is when the suite takes a notification to have arrived: the
// receiver's own time when it shares this clock, else the time the wait
// returned (a remote receiver's clock may differ from ours).
func (s *Steps) arrival(r *receiver.Record, waited time.Time) time.Time {
	if s.T.SharedClock {
		return r.ReceivedAt
	}
	return waited
}

func (s *Steps) exactlyOneNotificationArrivesBetween(ctx context.Context, state string, minMS, maxMS int) error {
	sc := get(ctx)
	if sc.created == "" {
		return fmt.Errorf("no contract was created")
	}
	lo, hi := time.Duration(minMS)*time.Millisecond, time.Duration(maxMS)*time.Millisecond
	wctx, cancel := context.WithDeadline(ctx, sc.answered.Add(hi))
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{SignatureID: sc.created})
	waited := time.Now()
	if errors.Is(err, receiver.ErrTimeout) {
		return fmt.Errorf("expected a %s notification for signature_id %s within %d ms of the 201, none arrived", state, sc.created, maxMS)
	}
	if err != nil {
		return err
	}
	sc.note = r
	if r.State != state {
		return fmt.Errorf("expected a %s notification for signature_id %s, the first one is %q: %s", state, sc.created, r.State, clip(string(r.Body), 500))
	}
	// The contract was created between the moment the request left and
	// the moment the 201 came back: on a loaded machine the suite may see
	// the 201 late. Fail only when the delay is outside the window for
	// certain, and say both bounds.
	at := s.arrival(r, waited)
	longest, shortest := at.Sub(sc.sentAt), at.Sub(sc.answered)
	if longest < lo || shortest > hi {
		return fmt.Errorf("expected the %s notification %d to %d ms after the 201, it came %d to %d ms after it (request sent to 201 seen: %d ms)",
			state, minMS, maxMS, shortest.Milliseconds(), longest.Milliseconds(), sc.answered.Sub(sc.sentAt).Milliseconds())
	}
	// Exactly one: nothing else for this contract until the window closes.
	time.Sleep(time.Until(sc.answered.Add(hi)))
	all, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Limit: 10})
	if err != nil {
		return err
	}
	if len(all) != 1 {
		return fmt.Errorf("expected exactly one notification for signature_id %s, got %d", sc.created, len(all))
	}
	return nil
}

func (s *Steps) itsSignatureIsValidForTheWebhookSecret(ctx context.Context) error {
	r := get(ctx).note
	h := r.Header.Get(s.T.Profile.Webhook.SignatureHeader)
	if err := s.T.Profile.VerifyWebhook(h, r.Body, s.T.WebhookSecrets, r.ReceivedAt); err != nil {
		return fmt.Errorf("expected a valid %s header for the webhook secret, got %q: %v", s.T.Profile.Webhook.SignatureHeader, h, err)
	}
	return nil
}

func (s *Steps) notification(ctx context.Context) (firmakit.Notification, map[string]json.RawMessage, error) {
	r := get(ctx).note
	n, raw, err := s.T.Profile.DecodeNotification(r.Body)
	if err != nil {
		return n, raw, fmt.Errorf("the notification body: %w: %s", err, clip(string(r.Body), 500))
	}
	return n, raw, nil
}

func (s *Steps) itsSignatureIDIsTheOneCreated(ctx context.Context) error {
	n, _, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if want := get(ctx).created; n.SignatureID != want {
		return fmt.Errorf("expected %s %q, got %q", s.T.Profile.Notification.SignatureID, want, n.SignatureID)
	}
	return nil
}

func (s *Steps) itCarriesADocumentURL(ctx context.Context) error {
	n, _, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(n.DocumentURL, "http://") && !strings.HasPrefix(n.DocumentURL, "https://") {
		return fmt.Errorf("expected %s to be an http(s) URL, got %q", s.T.Profile.Notification.DocumentURL, n.DocumentURL)
	}
	return nil
}

func (s *Steps) absent(ctx context.Context, key string) error {
	_, raw, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if v, ok := raw[key]; ok {
		return fmt.Errorf("expected no %s in the notification, got %s", key, v)
	}
	return nil
}

func (s *Steps) itCarriesNoDocumentURL(ctx context.Context) error {
	return s.absent(ctx, s.T.Profile.Notification.DocumentURL)
}

func (s *Steps) itCarriesNoReason(ctx context.Context) error {
	return s.absent(ctx, s.T.Profile.Notification.Reason)
}

func (s *Steps) itCarriesANonEmptyReason(ctx context.Context) error {
	n, raw, err := s.notification(ctx)
	if err != nil {
		return err
	}
	if strings.TrimSpace(n.Reason) == "" {
		return fmt.Errorf("expected a non-empty %s string, got %s", s.T.Profile.Notification.Reason, raw[s.T.Profile.Notification.Reason])
	}
	return nil
}

func (s *Steps) theDocumentURLOpensAPDF(ctx context.Context) error {
	n, _, err := s.notification(ctx)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.DocumentURL, nil)
	if err != nil {
		return fmt.Errorf("document_url %q: %w", n.DocumentURL, err)
	}
	resp, err := s.T.client().Do(req)
	if err != nil {
		return fmt.Errorf("document_url %q does not open: %w", n.DocumentURL, err)
	}
	defer resp.Body.Close()
	head := make([]byte, 5)
	_, _ = io.ReadFull(resp.Body, head)
	if resp.StatusCode != 200 || string(head) != "%PDF-" {
		return fmt.Errorf("expected document_url %q to answer 200 with a PDF, got %d %q (%s)", n.DocumentURL, resp.StatusCode, head, resp.Header.Get("Content-Type"))
	}
	return nil
}

func (s *Steps) noNotificationArrivesWithin(ctx context.Context, ms int) error {
	sc := get(ctx)
	wctx, cancel := context.WithDeadline(ctx, sc.answered.Add(time.Duration(ms)*time.Millisecond))
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{SignatureID: sc.created})
	if errors.Is(err, receiver.ErrTimeout) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("expected no notification for %q within %d ms, got a %q one: %s", sc.titleSent, ms, r.State, clip(string(r.Body), 300))
}
