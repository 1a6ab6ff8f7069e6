package steps

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/google/uuid"
)

// webhookSteps binds the webhook set's sentences, English and Spanish side
// by side on the same method: firmakit plays the service and posts signed
// notifications to a merchant's endpoint.
type webhookSteps struct {
	E *Endpoint
	// Done receives the outcome of every scenario, with what was sent and
	// what came back.
	Done func(reports.ScenarioResult, observation)
	// Lag measures how late this process runs, to tell a slow endpoint
	// from a suite that could not look in time.
	Lag *LagMonitor
}

// observation is what the endpoint did in one scenario, the stuff of the
// hints that name a likely mistake (see webhookHints).
type observation struct {
	// Expect is "accept" or "refuse": what the scenario wanted of the
	// endpoint; "" when it ended before saying.
	Expect string
	// Statuses is the status of each delivery, 0 for one that got no
	// answer.
	Statuses []int
	// Unreachable tells that a delivery got no HTTP answer at all (refused
	// connection, no such host), Late that one got it after the delivery
	// timeout.
	Unreachable, Late bool
	// Errors are the transport errors met, for the hint that names them.
	Errors []string
}

// webhookKey holds a webhook scenario's state in its context.
type webhookKey struct{}

// webhookScenario is the state of one running webhook scenario.
type webhookScenario struct {
	n      firmakit.Notification
	layout string // how the body is written; "" as the profile encodes it
	// How it is signed: "webhook" (the endpoint's secret), "other" (a
	// secret the endpoint does not know), "rotation" (both, the valid one
	// at position valid), "none" (no header).
	sign        string
	valid       int
	offset      time.Duration // added to now for the signed t
	changeBody  bool          // the body is changed after signing
	malformed   string        // how the header is malformed
	shiftAfter  int64         // seconds added to t after signing
	why         string        // why the endpoint must refuse, for messages
	deliveries  []*delivery
	expect      string
	failedStep  string
	inconcl     string
	inconclStep string
}

// delivery is one post to the endpoint and what came back.
type delivery struct {
	body    []byte
	header  *string // the signature header sent; nil when left out
	sentAt  time.Time
	status  int
	answer  []byte
	latency time.Duration
	err     error
	// location is where a redirect answer pointed; not followed.
	location string
}

func getWebhook(ctx context.Context) *webhookScenario {
	return ctx.Value(webhookKey{}).(*webhookScenario)
}

// InitializeScenario registers every sentence of the webhook set.
func (w *webhookSteps) InitializeScenario(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		return context.WithValue(ctx, webhookKey{}, &webhookScenario{sign: "webhook"}), nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		ws, ok := ctx.Value(webhookKey{}).(*webhookScenario)
		switch {
		case !ok || err == nil:
		case !errors.Is(err, godog.ErrSkip) && ws.failedStep == "":
			ws.failedStep = st.Text
		case ws.inconcl != "" && ws.inconclStep == "":
			ws.inconclStep = st.Text
		}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
		if w.Done != nil {
			w.Done(w.outcome(ctx, p, err))
		}
		return ctx, nil
	})
	bind := func(en, es string, fn any) {
		sc.Step("^"+en+"$", fn)
		sc.Step("^"+es+"$", fn)
	}
	const state = `"(CREATED|BOUNCED|REJECTED|CANCELED|SIGNED)"`
	bind(`a `+state+` notification`, `una notificación `+state, w.aNotification)
	bind(`its body is written "(keys-reversed|indented|escaped-unicode|escaped-slash)"`, `su cuerpo se escribe "(keys-reversed|indented|escaped-unicode|escaped-slash)"`, w.itsBodyIsWritten)
	bind(`it is signed with the webhook secret`, `se firma con el secreto del webhook`, w.itIsSignedWithTheWebhookSecret)
	bind(`it is signed with the webhook secret and with a retired one, the valid signature being number (1|2)`,
		`se firma con el secreto del webhook y con uno retirado, siendo válida la firma número (1|2)`, w.itIsSignedWithTheWebhookSecretAndARetiredOne)
	bind(`it is signed with another secret`, `se firma con otro secreto`, w.itIsSignedWithAnotherSecret)
	bind(`it is sent without the signature header`, `se envía sin la cabecera de firma`, w.itIsSentWithoutTheSignatureHeader)
	bind(`its body is changed after signing`, `su cuerpo se cambia después de firmarlo`, w.itsBodyIsChangedAfterSigning)
	bind(`the signature header is malformed: "(no-timestamp|no-signature|empty|not-key-value|timestamp-not-a-number)"`,
		`la cabecera de firma está mal formada: "(no-timestamp|no-signature|empty|not-key-value|timestamp-not-a-number)"`, w.theSignatureHeaderIsMalformed)
	bind(`its timestamp is (\d+) seconds older than the tolerance allows`, `su marca de tiempo es (\d+) segundos más antigua de lo que permite la tolerancia`, w.itsTimestampIsOlderThanTheToleranceAllows)
	bind(`its timestamp is (\d+) seconds further ahead than the tolerance allows`, `su marca de tiempo está (\d+) segundos más adelantada de lo que permite la tolerancia`, w.itsTimestampIsFurtherAheadThanTheToleranceAllows)
	bind(`its timestamp is changed by (-?\d+) seconds after signing`, `su marca de tiempo se cambia en (-?\d+) segundos después de firmar`, w.itsTimestampIsChangedAfterSigning)
	bind(`it is posted to the endpoint`, `se envía al endpoint`, w.itIsPostedToTheEndpoint)
	bind(`the same event is delivered again after the profile's first retry delay, signed anew`,
		`el mismo evento se entrega de nuevo tras la primera espera de reintento del perfil, firmado otra vez`, w.theSameEventIsDeliveredAgain)
	bind(`the endpoint answers 2xx within the delivery timeout`, `el endpoint responde 2xx dentro del plazo de entrega`, w.theEndpointAnswers2xxWithinTheDeliveryTimeout)
	bind(`the endpoint answers 2xx to both deliveries within the delivery timeout`, `el endpoint responde 2xx a ambas entregas dentro del plazo de entrega`, w.theEndpointAnswers2xxToBothDeliveries)
	bind(`the endpoint refuses it with a status other than 2xx`, `el endpoint la rechaza con un estado distinto de 2xx`, w.theEndpointRefusesIt)
}

// sampleReasons are representative reasons, as the service writes them.
var sampleReasons = map[firmakit.State]string{
	firmakit.StateBounced:  "El correo del firmante rebotó: la casilla de destino no existe",
	firmakit.StateRejected: "El firmante rechazó el contrato: no está de acuerdo con el monto",
	firmakit.StateCanceled: "El comercio canceló la solicitud de firma antes de completarse",
}

// aNotification writes a notification of a state with every field of the
// profile's payload: document_url only for SIGNED, reason only for
// BOUNCED, REJECTED and CANCELED. The title has free text after the demo
// prefix, with accents and a dash, so that how non-ASCII text is written
// matters.
func (w *webhookSteps) aNotification(ctx context.Context, state string) error {
	ws := getWebhook(ctx)
	st := firmakit.State(state)
	id := uuid.NewString()
	ws.n = firmakit.Notification{EventID: uuid.NewString(), Type: firmakit.NotificationType, MerchantID: w.E.merchantID(),
		SignatureID: id, Title: st.DemoPrefix() + " Contrato de arriendo 42 — Ñuñoa", Status: st, Demo: true,
		CreatedAt: firmakit.FormatTime(w.E.now())}
	if st.HasDocumentURL() {
		ws.n.DocumentURL = "https://sandbox.firmakit.test/demo/documents/" + id + ".pdf"
	}
	if st.HasReason() {
		ws.n.Reason = sampleReasons[st]
	}
	return nil
}

func (w *webhookSteps) itsBodyIsWritten(ctx context.Context, layout string) error {
	getWebhook(ctx).layout = layout
	return nil
}

func (w *webhookSteps) itIsSignedWithTheWebhookSecret(ctx context.Context) error {
	getWebhook(ctx).sign = "webhook"
	return nil
}

func (w *webhookSteps) itIsSignedWithTheWebhookSecretAndARetiredOne(ctx context.Context, valid int) error {
	ws := getWebhook(ctx)
	ws.sign, ws.valid = "rotation", valid
	return nil
}

func (w *webhookSteps) itIsSignedWithAnotherSecret(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.sign, ws.why = "other", "it was signed with another secret than the endpoint's"
	return nil
}

func (w *webhookSteps) itIsSentWithoutTheSignatureHeader(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.sign, ws.why = "none", "it carried no "+w.E.profile().Webhook.SignatureHeader+" header"
	return nil
}

func (w *webhookSteps) itsBodyIsChangedAfterSigning(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.changeBody, ws.why = true, "its body was changed after signing (the title's 42 became 43)"
	return nil
}

func (w *webhookSteps) theSignatureHeaderIsMalformed(ctx context.Context, form string) error {
	ws := getWebhook(ctx)
	ws.malformed, ws.why = form, "its signature header was malformed ("+form+")"
	return nil
}

func (w *webhookSteps) itsTimestampIsOlderThanTheToleranceAllows(ctx context.Context, seconds int) error {
	ws := getWebhook(ctx)
	tol := w.E.profile().Webhook.Tolerance
	ws.offset = -(tol + time.Duration(seconds)*time.Second)
	ws.why = fmt.Sprintf("its t was %d s old, past the tolerance of %d s", int64(-ws.offset/time.Second), int64(tol/time.Second))
	return nil
}

func (w *webhookSteps) itsTimestampIsFurtherAheadThanTheToleranceAllows(ctx context.Context, seconds int) error {
	ws := getWebhook(ctx)
	tol := w.E.profile().Webhook.Tolerance
	ws.offset = tol + time.Duration(seconds)*time.Second
	ws.why = fmt.Sprintf("its t was %d s ahead, past the tolerance of %d s", int64(ws.offset/time.Second), int64(tol/time.Second))
	return nil
}

func (w *webhookSteps) itsTimestampIsChangedAfterSigning(ctx context.Context, seconds int64) error {
	ws := getWebhook(ctx)
	ws.shiftAfter = seconds
	ws.why = fmt.Sprintf("its t was changed by %d s after signing, the signature kept", seconds)
	return nil
}

// body writes the notification as the scenario says: as the profile
// encodes it, or laid out unlike any JSON encoder would, the same values
// either way.
func (w *webhookSteps) body(n firmakit.Notification, layout string) ([]byte, error) {
	b, err := w.E.profile().EncodeNotification(n)
	if err != nil || layout == "" {
		return b, err
	}
	return writtenAs(b, layout)
}

// writtenAs rewrites a compact JSON object: keys in reverse order with
// spaces, indented, every non-ASCII character escaped, or every "/"
// escaped (as PHP writes it). A verifier that re-encodes the body instead
// of taking the bytes received fails on at least one of them.
func writtenAs(b []byte, layout string) ([]byte, error) {
	switch layout {
	case "escaped-unicode":
		return escapeNonASCII(b), nil
	case "escaped-slash":
		// "/" only ever appears inside strings in JSON.
		return bytes.ReplaceAll(b, []byte("/"), []byte(`\/`)), nil
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	switch layout {
	case "keys-reversed":
		return reversedKeys(v)
	case "indented":
		out, err := json.MarshalIndent(v, "", "    ")
		return append(out, '\n'), err
	}
	return nil, fmt.Errorf("unknown layout %q", layout)
}

// randomSecret is a secret the endpoint cannot know.
func randomSecret(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// header makes the signature header of a delivery at now, as the
// scenario says; nil when it is left out.
func (w *webhookSteps) header(ws *webhookScenario, body []byte, now time.Time) (*string, error) {
	p := w.E.profile()
	t := now.Add(ws.offset)
	var h string
	switch ws.sign {
	case "none":
		return nil, nil
	case "other":
		h = p.WebhookSignature([]string{randomSecret("whsec_other_")}, t, body)
	case "rotation":
		secrets := []string{w.E.Secret, randomSecret("whsec_retired_")}
		if ws.valid == 2 {
			secrets[0], secrets[1] = secrets[1], secrets[0]
		}
		h = p.WebhookSignature(secrets, t, body)
	default:
		h = p.WebhookSignature([]string{w.E.Secret}, t, body)
	}
	parsed, err := p.ParseWebhookHeader(h)
	if err != nil {
		return nil, err
	}
	tk, sk := p.Webhook.TimestampKey, p.Webhook.SignatureKey
	switch ws.malformed {
	case "no-timestamp":
		h = sk + "=" + parsed.Signatures[0]
	case "no-signature":
		h = tk + "=" + parsed.Timestamp
	case "empty":
		h = ""
	case "not-key-value":
		h = parsed.Timestamp + "," + parsed.Signatures[0]
	case "timestamp-not-a-number":
		// Signed over that very text: only its form is wrong. An
		// endpoint that reads it as a number gets NaN, which passes
		// every comparison of an age check written as "refuse when
		// older than".
		h = p.WebhookSignatureAt([]string{w.E.Secret}, "now", body)
	}
	if ws.shiftAfter != 0 {
		sec, _ := strconv.ParseInt(parsed.Timestamp, 10, 64)
		h = tk + "=" + strconv.FormatInt(sec+ws.shiftAfter, 10)
		for _, s := range parsed.Signatures {
			h += "," + sk + "=" + s
		}
	}
	return &h, nil
}

// itIsPostedToTheEndpoint signs the notification now and posts it.
func (w *webhookSteps) itIsPostedToTheEndpoint(ctx context.Context) error {
	ws := getWebhook(ctx)
	body, err := w.body(ws.n, ws.layout)
	if err != nil {
		return err
	}
	return w.deliver(ctx, ws, body)
}

// theSameEventIsDeliveredAgain waits the profile's first retry delay and
// posts the same bytes again, signed at the new time, as the service
// retries an event.
func (w *webhookSteps) theSameEventIsDeliveredAgain(ctx context.Context) error {
	ws := getWebhook(ctx)
	if len(ws.deliveries) == 0 {
		return fmt.Errorf("nothing was delivered yet")
	}
	wait := time.Second
	if r := w.E.profile().Webhook.Retries; len(r) > 0 {
		wait = r[0]
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return ctx.Err()
	}
	return w.deliver(ctx, ws, ws.deliveries[0].body)
}

// deliver signs body as the scenario says and posts it. Only what the
// request itself could not do is an error here; what the endpoint
// answered is judged by the Then steps.
func (w *webhookSteps) deliver(ctx context.Context, ws *webhookScenario, body []byte) error {
	now := w.E.now()
	h, err := w.header(ws, body, now)
	if err != nil {
		return err
	}
	if ws.changeBody {
		changed := ws.n
		changed.Title = strings.Replace(changed.Title, "42", "43", 1)
		if body, err = w.body(changed, ws.layout); err != nil {
			return err
		}
	}
	d := &delivery{body: body, header: h}
	ws.deliveries = append(ws.deliveries, d)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.E.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "firmakit-certify-webhook/1")
	if h != nil {
		req.Header[w.E.profile().Webhook.SignatureHeader] = []string{*h}
	}
	d.sentAt = time.Now()
	resp, err := w.E.client().Do(req)
	d.latency = time.Since(d.sentAt)
	if err != nil {
		d.err = err
		return nil
	}
	defer resp.Body.Close()
	d.status = resp.StatusCode
	d.answer, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if d.status >= 300 && d.status < 400 {
		d.location = resp.Header.Get("Location")
	}
	return nil
}

func is2xx(status int) bool { return status >= 200 && status <= 299 }

// timedOut tells whether a delivery got no answer before the client gave up.
func timedOut(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &te) && te.Timeout())
}

func (w *webhookSteps) theEndpointAnswers2xxWithinTheDeliveryTimeout(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.expect = "accept"
	if len(ws.deliveries) == 0 {
		return fmt.Errorf("nothing was posted")
	}
	for i, d := range ws.deliveries {
		if err := w.judgeAccepted(ctx, ws, i, d); err != nil {
			return err
		}
	}
	return nil
}

func (w *webhookSteps) theEndpointAnswers2xxToBothDeliveries(ctx context.Context) error {
	if n := len(getWebhook(ctx).deliveries); n != 2 {
		return fmt.Errorf("expected two deliveries of the event, made %d", n)
	}
	return w.theEndpointAnswers2xxWithinTheDeliveryTimeout(ctx)
}

// judgeAccepted wants a 2xx within the delivery timeout; an answer late
// by no more than this process's own lateness is no verdict.
func (w *webhookSteps) judgeAccepted(ctx context.Context, ws *webhookScenario, i int, d *delivery) error {
	timeout := w.E.timeout()
	which := ""
	if len(ws.deliveries) > 1 {
		which = fmt.Sprintf(" to delivery %d of %d", i+1, len(ws.deliveries))
	}
	switch {
	case d.err != nil && timedOut(d.err):
		return fmt.Errorf("expected a 2xx answer%s within the %s delivery timeout; none came within %s\n%s",
			which, timeout, timeout+DeliveryGrace, w.exchange(ws))
	case d.err != nil:
		return fmt.Errorf("expected a 2xx answer%s within the %s delivery timeout; the endpoint could not be reached: %v\n%s",
			which, timeout, d.err, w.exchange(ws))
	case !is2xx(d.status):
		return fmt.Errorf("expected a 2xx answer%s within the %s delivery timeout, got %d in %s ms: the service would take this valid notification as not delivered and retry it\n%s",
			which, timeout, d.status, ms(d.latency), w.exchange(ws))
	case d.latency > timeout:
		// The answer waits for this process's scheduler as a
		// notification does on its way into the receiver (receiverHops);
		// the endpoint's own process is not this one's to excuse.
		if lag := w.Lag.Max(d.sentAt, d.sentAt.Add(d.latency)); excusedBy(lag, d.latency-timeout, false) {
			ws.inconcl = fmt.Sprintf("the endpoint answered %d%s after %s ms, past the %s delivery timeout, but this process ran up to %s ms late meanwhile",
				d.status, which, ms(d.latency), timeout, ms(lag))
			return godog.ErrSkip
		}
		return fmt.Errorf("expected a 2xx answer%s within the %s delivery timeout; it came after %s ms: the service would have given up and retried\n%s",
			which, timeout, ms(d.latency), w.exchange(ws))
	}
	return nil
}

// theEndpointRefusesIt wants any status but 2xx, within the delivery
// timeout: an endpoint that never answers is not refusing, it is down.
func (w *webhookSteps) theEndpointRefusesIt(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.expect = "refuse"
	if len(ws.deliveries) == 0 {
		return fmt.Errorf("nothing was posted")
	}
	d := ws.deliveries[len(ws.deliveries)-1]
	timeout := w.E.timeout()
	switch {
	case d.err != nil && timedOut(d.err):
		return fmt.Errorf("expected a status other than 2xx within the %s delivery timeout, since %s; none came within %s\n%s",
			timeout, ws.why, timeout+DeliveryGrace, w.exchange(ws))
	case d.err != nil:
		return fmt.Errorf("expected a status other than 2xx, since %s; the endpoint could not be reached: %v\n%s", ws.why, d.err, w.exchange(ws))
	case is2xx(d.status):
		return fmt.Errorf("expected a status other than 2xx, since %s; got %d in %s ms: the endpoint took a notification the service did not send\n%s",
			ws.why, d.status, ms(d.latency), w.exchange(ws))
	}
	return nil
}

// exchange says what was sent, the signature redacted, and what came
// back, delivery by delivery.
func (w *webhookSteps) exchange(ws *webhookScenario) string {
	var b strings.Builder
	p := w.E.profile()
	for i, d := range ws.deliveries {
		if len(ws.deliveries) > 1 {
			fmt.Fprintf(&b, "delivery %d of %d\n", i+1, len(ws.deliveries))
		}
		fmt.Fprintf(&b, "sent: POST %s\n  Content-Type: application/json\n", w.E.URL)
		if d.header == nil {
			fmt.Fprintf(&b, "  (no %s header)\n", p.Webhook.SignatureHeader)
		} else {
			fmt.Fprintf(&b, "  %s: %s\n", p.Webhook.SignatureHeader, redactWebhookSignature(p, *d.header))
		}
		fmt.Fprintf(&b, "  %s\n", excerpt(d.body, 1024))
		switch {
		case d.err != nil:
			fmt.Fprintf(&b, "answered: nothing after %s ms: %v", ms(d.latency), d.err)
		default:
			fmt.Fprintf(&b, "answered: %d in %s ms: %s", d.status, ms(d.latency), excerpt(d.answer, 512))
			if d.location != "" {
				fmt.Fprintf(&b, "\n  (a redirect to %s, not followed: the service posts to the configured URL only)", d.location)
			}
		}
		if i < len(ws.deliveries)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// redactWebhookSignature keeps the form of a webhook signature header
// and hides its signatures: "t=1763805600,v1=<redacted>". A report shows
// what was sent without handing out a valid signature.
func redactWebhookSignature(p *firmakit.Profile, header string) string {
	if header == "" {
		return `"" (empty)`
	}
	items := strings.Split(header, ",")
	for i, it := range items {
		k, _, ok := strings.Cut(strings.TrimSpace(it), "=")
		switch {
		case ok && k == p.Webhook.TimestampKey:
		case ok:
			items[i] = k + "=<redacted>"
		case strings.Trim(it, "0123456789") == "":
			// a bare timestamp
		default:
			items[i] = "<redacted>"
		}
	}
	return strings.Join(items, ",")
}

// excerpt shows at most n bytes of b as text.
func excerpt(b []byte, n int) string {
	if len(b) == 0 {
		return "(empty body)"
	}
	if len(b) > n {
		cut := strings.ToValidUTF8(string(b[:n]), "")
		return fmt.Sprintf("%s… (%d bytes)", cut, len(b))
	}
	return strings.TrimRight(strings.ToValidUTF8(string(b), "\uFFFD"), "\r\n")
}

// outcome is what a webhook scenario came to, with the exchange.
func (w *webhookSteps) outcome(ctx context.Context, p *godog.Scenario, err error) (reports.ScenarioResult, observation) {
	uri, _, _ := strings.Cut(p.Uri, ":")
	r := reports.ScenarioResult{Feature: uri, Name: p.Name, Lang: strings.SplitN(uri, "/", 2)[0], Status: reports.Passed}
	if len(p.AstNodeIds) > 1 {
		var setup []string
		for _, st := range p.Steps {
			if st.Type == messages.PickleStepType_CONTEXT {
				setup = append(setup, st.Text)
			}
		}
		r.Example = strings.Join(setup, "; ")
	}
	classifyTags(&r, p.Tags)
	var obs observation
	ws, _ := ctx.Value(webhookKey{}).(*webhookScenario)
	if ws != nil {
		obs.Expect = ws.expect
		for _, d := range ws.deliveries {
			obs.Statuses = append(obs.Statuses, d.status)
			switch {
			case d.err != nil && !timedOut(d.err):
				obs.Unreachable = true
				obs.Errors = append(obs.Errors, d.err.Error())
			case d.err == nil && d.latency > w.E.timeout():
				obs.Late = true
			}
		}
		if len(ws.deliveries) > 0 {
			r.Exchange = w.exchange(ws)
		}
	}
	switch {
	case ws != nil && ws.inconcl != "" && (err == nil || errors.Is(err, godog.ErrSkip)):
		r.Status, r.Error, r.FailedStep = reports.Inconclusive, ws.inconcl, ws.inconclStep
	case err != nil && !errors.Is(err, godog.ErrSkip):
		r.Status, r.Error = reports.Failed, err.Error()
		if ws != nil {
			r.FailedStep = ws.failedStep
		}
	case errors.Is(err, godog.ErrSkip):
		r.Status = reports.NotRun
	}
	return r, obs
}
