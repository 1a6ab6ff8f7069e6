package webhook

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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/jsonform"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
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
	Lag *engine.LagMonitor
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
	// sent are the deliveries as sent, and why is why a forged one must
	// be refused: the stuff of test vectors (Vectors).
	sent []*delivery
	why  string
	// Lenient tells that accepting a delivery the scenario wanted
	// refused is only a warning (theEndpointRefusesItOrWarns).
	Lenient bool
	// Broke names the generated deliveries that broke their sentence.
	Broke []string
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
	forged      string        // how the signature is made otherwise than the profile says
	tsForm      string        // how t is written otherwise than whole seconds
	httpForm    string        // how the request is written otherwise than Go writes it
	window      bool          // a valid t away from now: judged with the suite's lateness
	why         string        // why the endpoint must refuse, for messages
	ref         string        // the item of the documents that requires the refusal
	lenient     bool          // accepting the refused delivery is a warning, not a failure
	deliveries  []*delivery
	expect      string
	failedStep  string
	inconcl     string
	inconclStep string
	// inconclFacts are inconcl's facts (engine.Describe).
	inconclFacts *reports.Facts
	warnings     []reports.Warning
	// inapplicable says why the profile's scheme cannot run the
	// scenario; "" when it can.
	inapplicable string
	// probes are the generated deliveries (operators.go), shown those
	// of them that broke their sentence.
	probes, shown []*neighbour
	// cut cuts the next delivery short halfway through its body;
	// firstFails says how the first delivery failed (generated.go).
	cut        bool
	firstFails string
}

// delivery is one post to the endpoint and what came back.
type delivery struct {
	body []byte
	// headers are the headers that sign it under the profile's scheme,
	// names as sent, the signature header first when it was sent.
	headers []sentHeader
	// signedAt is when the headers were made, t their timestamp (whole
	// seconds, as signed unless written otherwise), signed the text the
	// valid signature covers.
	signedAt    time.Time
	t           int64
	signed      string
	contentType string
	sentAt      time.Time
	status      int
	answer      []byte
	latency     time.Duration
	err         error
	// location is where a redirect answer pointed; not followed.
	location string
	// expect, when set, is what this delivery wants of the endpoint
	// where it differs from its scenario ("refuse" for a retry's failed
	// first delivery); cut tells that the service cut it short.
	expect string
	cut    bool
	// crowd is how many deliveries were in flight when it was sent, it
	// among them.
	crowd int
}

// sentHeader is one header of a delivery, its name as sent.
type sentHeader struct{ name, value string }

// signatureHeader is the signature header's value as sent, false when it
// was left out.
func (d *delivery) signatureHeader(p *firmakit.Profile) (string, bool) {
	for _, h := range d.headers {
		if strings.EqualFold(h.name, p.Webhook.SignatureHeader) {
			return h.value, true
		}
	}
	return "", false
}

func getWebhook(ctx context.Context) *webhookScenario {
	return ctx.Value(webhookKey{}).(*webhookScenario)
}

// InitializeScenario registers every sentence of the webhook set.
func (w *webhookSteps) InitializeScenario(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		ws := &webhookScenario{sign: "webhook"}
		return engine.WithWarnings(context.WithValue(ctx, webhookKey{}, ws), &ws.warnings), nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		ws, ok := ctx.Value(webhookKey{}).(*webhookScenario)
		if ok {
			for i := range ws.warnings {
				if ws.warnings[i].Step == "" {
					ws.warnings[i].Step = st.Text
				}
			}
		}
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
	w.bindSentences(sc)
}

// The items of the documents the webhook set's assertions cite (refs of
// features.Items).
const (
	refWebhookSig = "defaults §B paragraph 1"
	refReplay     = "defaults §B bullet 2"
	refRotation   = "defaults §B bullet 1"
	refDelivery   = "defaults §B bullet 6"
)

// stateParam is the parameter of a sentence that names a notification's
// state.
const stateParam = `"(CREATED|BOUNCED|REJECTED|CANCELED|SIGNED)"`

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
// matters. The contract is one the merchant named (Endpoint.SignatureIDs),
// else a new one.
func (w *webhookSteps) aNotification(ctx context.Context, state string) error {
	ws := getWebhook(ctx)
	st := firmakit.State(state)
	ws.n = w.notification(st, w.E.signatureID(), st.DemoPrefix()+" Contrato de arriendo 42 — Ñuñoa", true)
	return nil
}

// aNotificationOfARealContract writes what the service sends about a
// contract that is not a demo: no demo key, a title without a prefix, and
// of the optional keys only those its state requires.
func (w *webhookSteps) aNotificationOfARealContract(ctx context.Context, state string) error {
	ws := getWebhook(ctx)
	ws.n = w.notification(firmakit.State(state), w.E.signatureID(), "Contrato de arriendo 42 — Ñuñoa", false)
	return nil
}

// notification writes a new event of state about the contract id.
func (w *webhookSteps) notification(st firmakit.State, id, title string, demo bool) firmakit.Notification {
	n := firmakit.Notification{EventID: uuid.NewString(), Type: firmakit.NotificationType, MerchantID: w.E.merchantID(),
		SignatureID: id, Title: title, Status: st, Demo: demo, CreatedAt: firmakit.FormatTime(w.E.now())}
	if st.HasDocumentURL() {
		n.DocumentURL = "https://sandbox.firmakit.test/documents/" + id + ".pdf"
		if demo {
			n.DocumentURL = "https://sandbox.firmakit.test/demo/documents/" + id + ".pdf"
		}
	}
	if st.HasReason() {
		n.Reason = sampleReasons[st]
	}
	return n
}

// scripts is text in several scripts, one of them outside the Basic
// Multilingual Plane: each is written in UTF-8 with two, three or four
// bytes a character.
const scripts = "Договор аренды · Σύμβαση μίσθωσης · عقد الإيجار · 租赁合同 · 賃貸借契約 · 임대 계약 · किराया अनुबंध · ✍️🖋"

// itsFreeTextIs makes the title or the reason long (several KiB: an
// endpoint that reads the first 2 KiB only, or caps the body at 4 KiB,
// misses the rest) or written in several scripts.
func (w *webhookSteps) itsFreeTextIs(ctx context.Context, text string) error {
	ws := getWebhook(ctx)
	kind, field, _ := strings.Cut(text, "-")
	add := " — " + scripts
	if kind == "long" {
		add = " — " + strings.Repeat("cláusula 7.3: el arrendatario pagará la renta el día 5 de cada mes; ", 90)
	}
	switch field {
	case "title":
		ws.n.Title += add
	case "reason":
		if ws.n.Reason == "" {
			return fmt.Errorf("a %s notification has no reason", ws.n.Status)
		}
		ws.n.Reason += add
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
	if w.E.profile().Webhook.SignatureFormat == "entries" && w.E.profile().Webhook.SignatureSeparator == "" {
		return w.notApplicable(ctx, "the "+w.E.profile().Name+" scheme carries one signature only, so a retired secret's cannot stand beside it")
	}
	ws := getWebhook(ctx)
	ws.sign, ws.valid = "rotation", valid
	return nil
}

func (w *webhookSteps) itIsSignedWithAnotherSecret(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.sign, ws.why, ws.ref = "other", "it was signed with another secret than the endpoint's", refWebhookSig
	return nil
}

func (w *webhookSteps) itIsSentWithoutTheSignatureHeader(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.sign, ws.why, ws.ref = "none", "it carried no "+w.E.profile().Webhook.SignatureHeader+" header", refWebhookSig
	return nil
}

func (w *webhookSteps) itsBodyIsChangedAfterSigning(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.changeBody, ws.why, ws.ref = true, "its body was changed after signing (the title's 42 became 43)", refWebhookSig
	return nil
}

func (w *webhookSteps) theSignatureHeaderIsMalformed(ctx context.Context, form string) error {
	switch wp := w.E.profile().Webhook; {
	case (form == "no-timestamp" || form == "timestamp-not-a-number") && !wp.HasTimestamp():
		return w.needsTimestamp(ctx)
	case form == "not-key-value" && wp.SignatureFormat == "entries" && wp.SignaturePrefix == "":
		return w.notApplicable(ctx, "the "+w.E.profile().Name+" scheme writes a signature with no key or prefix, so one without is the valid form")
	}
	ws := getWebhook(ctx)
	ws.malformed, ws.why, ws.ref = form, "its signature header was malformed ("+form+")", refWebhookSig
	return nil
}

func (w *webhookSteps) itsTimestampIsOlderThanTheToleranceAllows(ctx context.Context, seconds int) error {
	if err := w.needsTimestamp(ctx); err != nil {
		return err
	}
	ws := getWebhook(ctx)
	tol := w.E.profile().Webhook.Tolerance
	ws.offset = -(tol + time.Duration(seconds)*time.Second)
	ws.why, ws.ref = fmt.Sprintf("its t was %d s old, past the tolerance of %d s", int64(-ws.offset/time.Second), int64(tol/time.Second)), refReplay
	return nil
}

func (w *webhookSteps) itsTimestampIsFurtherAheadThanTheToleranceAllows(ctx context.Context, seconds int) error {
	if err := w.needsTimestamp(ctx); err != nil {
		return err
	}
	ws := getWebhook(ctx)
	tol := w.E.profile().Webhook.Tolerance
	ws.offset = tol + time.Duration(seconds)*time.Second
	ws.why, ws.ref = fmt.Sprintf("its t was %d s ahead, past the tolerance of %d s", int64(ws.offset/time.Second), int64(tol/time.Second)), refReplay
	return nil
}

func (w *webhookSteps) itsTimestampIsChangedAfterSigning(ctx context.Context, seconds int64) error {
	if err := w.needsTimestamp(ctx); err != nil {
		return err
	}
	ws := getWebhook(ctx)
	ws.shiftAfter = seconds
	ws.why, ws.ref = fmt.Sprintf("its t was changed by %d s after signing, the signature kept", seconds), refWebhookSig
	return nil
}

// needsTimestamp ends a scenario that a scheme without a signed
// timestamp cannot run (GitHub's, Shopify's): not applicable, neither
// passed nor failed.
func (w *webhookSteps) needsTimestamp(ctx context.Context) error {
	if p := w.E.profile(); !p.Webhook.HasTimestamp() {
		return w.notApplicable(ctx, "the "+p.Name+" scheme signs no timestamp, so an endpoint has none to check")
	}
	return nil
}

// notApplicable ends the scenario as one the profile's scheme cannot run,
// saying why.
func (w *webhookSteps) notApplicable(ctx context.Context, why string) error {
	getWebhook(ctx).inapplicable = "not applicable: " + why
	return godog.ErrSkip
}

// forgedWhy says why a header signed otherwise must be refused.
var forgedWhy = map[string]string{
	"v0-only":        "its only signature was under the key v0, not v1",
	"v2-only":        "its only signature was under the key v2, not v1",
	"v1-empty":       "its only v1 entry was empty",
	"v1-shortened":   "its v1 signature was cut to half its length",
	"v1-lengthened":  "its v1 signature was one byte longer than the hash gives (the valid one and a byte more)",
	"body-only":      "its signature covered the body alone, not \"<t>.\" + body",
	"no-dot":         "its signature covered t + body without the separator",
	"body-then-t":    "its signature covered body + \".\" + t, not \"<t>.\" + body",
	"no-t-body-only": "it had no t, and its signature covered the body alone",
}

func (w *webhookSteps) itIsSignedOtherwise(ctx context.Context, form string) error {
	switch form {
	case "body-only", "no-dot", "body-then-t", "no-t-body-only":
		if err := w.needsTimestamp(ctx); err != nil {
			return err
		}
	}
	if w.E.profile().Webhook.IsRFC9421() {
		switch form {
		case "v0-only", "v2-only":
			return w.notApplicable(ctx, "under RFC 9421 a signature's label is the sender's to choose, so a valid signature under another label is a valid signature")
		case "no-dot", "body-then-t":
			return w.notApplicable(ctx, "an RFC 9421 signature base has no separator nor order of parts to change; its components are listed in the signature's own parameters")
		}
	}
	ws := getWebhook(ctx)
	ws.forged, ws.why, ws.ref = form, forgedWhy[form], refWebhookSig
	return nil
}

func (w *webhookSteps) itsTIsWritten(ctx context.Context, form string) error {
	if err := w.needsTimestamp(ctx); err != nil {
		return err
	}
	ws := getWebhook(ctx)
	ws.tsForm, ws.why, ws.ref = form, "its t was not whole Unix seconds in base-10 digits ("+form+"), though signed as written", refWebhookSig
	return nil
}

// itsTimestampIsSecondsFromNow signs a valid notification with t away
// from now but inside the tolerance.
func (w *webhookSteps) itsTimestampIsSecondsFromNow(ctx context.Context, seconds int64) error {
	if err := w.needsTimestamp(ctx); err != nil {
		return err
	}
	ws := getWebhook(ctx)
	ws.offset, ws.window = time.Duration(seconds)*time.Second, true
	return nil
}

func (w *webhookSteps) itIsSentWith(ctx context.Context, form string) error {
	getWebhook(ctx).httpForm = form
	return nil
}

// aNotificationOfTheSameContractIsPosted posts another event (a new
// event_id) about the contract of the scenario's notification.
func (w *webhookSteps) aNotificationOfTheSameContractIsPosted(ctx context.Context, state string) error {
	ws := getWebhook(ctx)
	ws.n = w.notification(firmakit.State(state), ws.n.SignatureID, ws.n.Title, ws.n.Demo)
	return w.itIsPostedToTheEndpoint(ctx)
}

// theSameDeliveryIsRepeated posts the first delivery's bytes again with
// its very header, as a service whose client retried at once sends it.
func (w *webhookSteps) theSameDeliveryIsRepeated(ctx context.Context) error {
	ws := getWebhook(ctx)
	if len(ws.deliveries) == 0 {
		return fmt.Errorf("nothing was delivered yet")
	}
	first := ws.deliveries[0]
	d := &delivery{body: first.body, headers: first.headers, signed: first.signed, signedAt: first.signedAt, t: first.t}
	return w.post(ctx, ws, d)
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
		return jsonform.EscapeNonASCII(b), nil
	case "escaped-slash":
		// "/" only ever appears inside strings in JSON.
		return bytes.ReplaceAll(b, []byte("/"), []byte(`\/`)), nil
	case "crlf":
		// Indented with CRLF line ends, as a Windows service writes it:
		// an endpoint that normalises line ends verifies other bytes.
		b, err := writtenAs(b, "indented")
		return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")), err
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	switch layout {
	case "keys-reversed":
		return jsonform.ReversedKeys(v)
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

// timestampText writes t as the scenario says: whole seconds, or a form
// a float parser reads as nearly the same instant.
func timestampText(t int64, form string) string {
	switch form {
	case "fraction":
		return strconv.FormatInt(t, 10) + ".5"
	case "exponent":
		return strconv.FormatFloat(float64(t), 'e', -1, 64)
	case "nan":
		return "NaN"
	case "plus-sign":
		return "+" + strconv.FormatInt(t, 10)
	case "word":
		return "now"
	}
	return strconv.FormatInt(t, 10)
}

// headers makes the headers that sign a delivery of body about event id
// with timestamp t, as the scenario says, under the profile's scheme: a
// signature header of key=value fields with the timestamp inside (the
// bundled profile, Stripe's), or prefixed entries beside id and timestamp
// headers (Standard Webhooks). It also returns the text the valid
// signature covers.
func (w *webhookSteps) headers(ws *webhookScenario, id string, body []byte, t int64) ([]sentHeader, string) {
	p := w.E.profile()
	wp := p.Webhook
	if wp.IsRFC9421() {
		return w.rfc9421Headers(ws, body, t)
	}
	fields := wp.SignatureFormat != "entries"
	ts := timestampText(t, ws.tsForm)
	label := wp.SignatureKey
	if !fields {
		label = wp.SignaturePrefix
	}
	mk := func(label, v string) entry { return entry{label, v} }
	var macs []string
	switch ws.sign {
	case "none":
	case "other":
		macs = []string{p.WebhookMACText(randomSecret("whsec_other_"), id, ts, body)}
	case "rotation":
		macs = []string{p.WebhookMACText(w.E.Secret, id, ts, body), p.WebhookMACText(randomSecret("whsec_retired_"), id, ts, body)}
		if ws.valid == 2 {
			macs[0], macs[1] = macs[1], macs[0]
		}
	default:
		macs = []string{p.WebhookMACText(w.E.Secret, id, ts, body)}
	}
	entries := make([]entry, len(macs))
	for i, m := range macs {
		entries[i] = mk(label, m)
	}
	otherwise := func(change func(q *firmakit.Profile)) string {
		q := *p
		q.Webhook.SignedContent = append([]string(nil), wp.SignedContent...)
		change(&q)
		return q.WebhookMACText(w.E.Secret, id, ts, body)
	}
	noTS, noSig := false, ws.sign == "none"
	var raw *string // the signature header's whole value, when written by hand
	valid := ""
	if len(macs) > 0 {
		valid = macs[0]
	}
	switch ws.forged {
	case "v0-only":
		entries = []entry{mk(otherVersion(label, "0"), valid)}
	case "v2-only":
		entries = []entry{mk(otherVersion(label, "2"), valid)}
	case "v1-empty":
		entries = []entry{mk(label, "")}
	case "v1-shortened":
		entries = []entry{mk(label, valid[:len(valid)/2])}
	case "v1-lengthened":
		entries = []entry{mk(label, wp.LengthenSignature(valid))}
	case "body-only":
		entries = []entry{mk(label, otherwise(func(q *firmakit.Profile) { q.Webhook.SignedContent = []string{firmakit.WebhookPartBody} }))}
	case "no-dot":
		entries = []entry{mk(label, otherwise(func(q *firmakit.Profile) { q.Webhook.PayloadSeparator = "" }))}
	case "body-then-t":
		entries = []entry{mk(label, otherwise(func(q *firmakit.Profile) { slices.Reverse(q.Webhook.SignedContent) }))}
	case "no-t-body-only":
		noTS = true
		entries = []entry{mk(label, otherwise(func(q *firmakit.Profile) { q.Webhook.SignedContent = []string{firmakit.WebhookPartBody} }))}
	}
	switch ws.malformed {
	case "no-timestamp":
		noTS = true
	case "no-signature":
		entries = nil
		noSig = !fields
	case "empty":
		raw = new(string)
	case "not-key-value":
		v := ts + "," + valid
		if !fields {
			v = valid
		}
		raw = &v
	}
	if ws.shiftAfter != 0 {
		ts = strconv.FormatInt(t+ws.shiftAfter, 10)
	}
	var tss []string
	if !noTS && wp.HasTimestamp() {
		tss = []string{ts}
	}
	if !fields && wp.SignatureSeparator == "" && len(entries) > 1 {
		entries = entries[:1] // the scheme has room for one signature only
	}
	hs, _ := render(p, headerForm{ts: tss, sigs: entries}, id)
	if raw != nil {
		hs[0].value = *raw
	}
	if noSig {
		hs = hs[1:] // the signature header left out
	}
	return hs, p.WebhookSignedText(id, timestampText(t, ws.tsForm), body)
}

// otherVersion names the signature under another version than the
// scheme's ("v0" for "v1", "v2," for "v1,").
func otherVersion(label, digit string) string {
	if i := strings.LastIndex(label, "1"); i >= 0 {
		return label[:i] + digit + label[i+1:]
	}
	return "v" + digit + label
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
	t := now.Add(ws.offset).Unix()
	hs, signed := w.headers(ws, ws.n.EventID, body, t)
	if ws.changeBody {
		changed := ws.n
		changed.Title = strings.Replace(changed.Title, "42", "43", 1)
		var err error
		if body, err = w.body(changed, ws.layout); err != nil {
			return err
		}
	}
	return w.post(ctx, ws, &delivery{body: body, headers: hs, signed: signed, signedAt: time.Now(), t: t})
}

// post sends a delivery as the scenario says and notes what came back.
func (w *webhookSteps) post(ctx context.Context, ws *webhookScenario, d *delivery) error {
	ws.deliveries = append(ws.deliveries, d)
	d.cut = ws.cut
	w.send(ctx, ws.httpForm, d)
	return nil
}

// send posts a delivery, written as httpForm says, and notes what came
// back. It waits for one of the endpoint's slots (Endpoint.MaxInFlight)
// before it starts the clock of the answer.
func (w *webhookSteps) send(ctx context.Context, httpForm string, d *delivery) {
	var body io.Reader = bytes.NewReader(d.body)
	if d.cut {
		body = &cutBody{b: d.body}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.E.URL, body)
	if err != nil {
		d.err = err
		return
	}
	req.ContentLength = int64(len(d.body))
	d.contentType = "application/json"
	if httpForm == "content-type-charset" {
		d.contentType = "application/json; charset=utf-8"
	}
	req.Header.Set("Content-Type", d.contentType)
	req.Header.Set("User-Agent", "firmakit-certify-webhook/1")
	if httpForm == "lower-case-header-name" {
		for i := range d.headers {
			d.headers[i].name = strings.ToLower(d.headers[i].name)
		}
	}
	for _, h := range d.headers {
		// Set in the map directly: Header.Set would canonicalise a
		// lower-case name. A name given twice is sent twice.
		req.Header[h.name] = append(req.Header[h.name], h.value)
	}
	release, crowd, err := w.E.slot(ctx)
	if err != nil {
		d.err = err
		return
	}
	d.crowd = crowd
	defer release()
	d.sentAt = time.Now()
	resp, err := w.E.client().Do(req)
	d.latency = time.Since(d.sentAt)
	if err != nil {
		d.err = err
		return
	}
	defer resp.Body.Close()
	d.status = resp.StatusCode
	d.answer, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if d.status >= 300 && d.status < 400 {
		d.location = resp.Header.Get("Location")
	}
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
	case d.err != nil && (d.crowd > 1 || !w.E.again):
		ws.unjudged(engine.Say("%s%s", crowdedError(d, timeout), which))
		return godog.ErrSkip
	case d.err != nil && timedOut(d.err):
		return engine.Breaks(refDelivery, "expected a 2xx answer%s within the %s delivery timeout; none came within %s\n%s",
			which, timeout, timeout+DeliveryGrace, w.exchange(ws))
	case d.err != nil:
		return engine.Breaks(refDelivery, "expected a 2xx answer%s within the %s delivery timeout; the endpoint could not be reached: %s\n%s",
			which, timeout, firmakit.Excerpt(d.err.Error(), 300), w.exchange(ws))
	case !is2xx(d.status) && ws.window && w.straddles(d, true):
		ws.unjudged(engine.Say("the endpoint refused a t %+d s from now, but between signing and its answer (%s ms) t came to lie up to %d s from now, past the %s tolerance: it may have judged it outside",
			int64(ws.offset/time.Second), engine.Millis(d.sentAt.Add(d.latency).Sub(d.signedAt)), w.farthest(d), w.E.profile().Webhook.Tolerance))
		return godog.ErrSkip
	case !is2xx(d.status):
		return engine.Breaks(refRotation, "expected a 2xx answer%s within the %s delivery timeout, got %d in %s ms: the service would take this valid notification as not delivered and retry it\n%s",
			which, timeout, d.status, engine.Millis(d.latency), w.exchange(ws))
	case d.latency > timeout:
		// The answer waits for this process's scheduler as a
		// notification does on its way into the receiver (receiverHops);
		// the endpoint's own process is not this one's to excuse.
		if why := w.lateExcuse(d); why.Text != "" {
			ws.unjudged(engine.Say("the endpoint answered %d%s after %s ms, past the %s delivery timeout, but %s",
				d.status, which, engine.Millis(d.latency), timeout, why))
			return godog.ErrSkip
		}
		return engine.Breaks(refDelivery, "expected a 2xx answer%s within the %s delivery timeout; it came after %s ms: the service would have given up and retried\n%s",
			which, timeout, engine.Millis(d.latency), w.exchange(ws))
	}
	return nil
}

// lateExcuse says why an answer past the delivery timeout is no
// verdict: this process ran late meanwhile, or other deliveries were in
// flight at once, which the service never sends to one endpoint (the
// scenario runs again alone, one delivery at a time); "" when nothing
// excuses it.
func (w *webhookSteps) lateExcuse(d *delivery) engine.Said {
	timeout := w.E.timeout()
	if lag := w.Lag.Max(d.sentAt, d.sentAt.Add(d.latency)); engine.ExcusedBy(lag, d.latency-timeout, false) {
		return engine.Say("this process ran up to %s ms late meanwhile", engine.Millis(lag))
	}
	if d.crowd > 1 {
		return engine.Say("%d deliveries were in flight to the endpoint at once", d.crowd)
	}
	return engine.Said{}
}

// distances are how far t lay from the clock, in whole seconds, when
// the header was made and when the answer came: the endpoint read its
// clock somewhere between the two. One second more either way for the
// endpoint's rounding of its clock.
func (w *webhookSteps) distances(d *delivery) (near, far int64) {
	a, b := d.signedAt.Unix()-d.t, d.sentAt.Add(d.latency).Unix()-d.t
	abs := func(x int64) int64 { return max(x, -x) }
	near, far = min(abs(a), abs(b)), max(abs(a), abs(b))
	if (a < 0) != (b < 0) {
		near = 0
	}
	return max(near-1, 0), far + 1
}

func (w *webhookSteps) farthest(d *delivery) int64 { _, far := w.distances(d); return far }

// straddles tells whether the endpoint could have found t on either side
// of the tolerance, depending on when in the exchange it read its clock:
// a valid t (inside) that may have lain outside, or a t outside that may
// have lain inside. Such an answer is no verdict.
func (w *webhookSteps) straddles(d *delivery, inside bool) bool {
	tol := int64(w.E.profile().Webhook.Tolerance / time.Second)
	near, far := w.distances(d)
	if inside {
		return far > tol
	}
	return near <= tol
}

// theEndpointRefusesIt wants any status but 2xx, within the delivery
// timeout: an endpoint that never answers is not refusing, it is down.
func (w *webhookSteps) theEndpointRefusesIt(ctx context.Context) error {
	return w.refused(ctx, false)
}

// theEndpointRefusesItOrWarns is theEndpointRefusesIt for a delivery
// whose acceptance lets nobody in: a t written otherwise than the service
// writes it but naming the current time, signed as written. Accepting it
// is a warning; an endpoint that refuses it, or that never answers, is
// judged as theEndpointRefusesIt judges.
func (w *webhookSteps) theEndpointRefusesItOrWarns(ctx context.Context) error {
	getWebhook(ctx).lenient = true
	return w.refused(ctx, true)
}

func (w *webhookSteps) refused(ctx context.Context, lenient bool) error {
	ws := getWebhook(ctx)
	ws.expect = "refuse"
	if len(ws.deliveries) == 0 {
		return fmt.Errorf("nothing was posted")
	}
	ref := ws.ref
	if ref == "" {
		ref = refWebhookSig
	}
	d := ws.deliveries[len(ws.deliveries)-1]
	timeout := w.E.timeout()
	switch {
	case d.err != nil && (d.crowd > 1 || !w.E.again):
		ws.unjudged(crowdedError(d, timeout))
		return godog.ErrSkip
	case d.err != nil && timedOut(d.err):
		return engine.Breaks(refDelivery, "expected a status other than 2xx within the %s delivery timeout, since %s; none came within %s\n%s",
			timeout, engine.Name(ws.why), timeout+DeliveryGrace, w.exchange(ws))
	case d.err != nil:
		return engine.Breaks(refDelivery, "expected a status other than 2xx, since %s; the endpoint could not be reached: %s\n%s", engine.Name(ws.why), firmakit.Excerpt(d.err.Error(), 300), w.exchange(ws))
	case is2xx(d.status) && ws.offset != 0 && ws.sign == "webhook" && ws.shiftAfter == 0 && ws.forged == "" && ws.malformed == "" && w.straddles(d, false):
		ws.unjudged(engine.Say("the endpoint accepted a t %+d s from now, but between signing and its answer (%s ms) t came within the %s tolerance: it may have judged it inside",
			int64(ws.offset/time.Second), engine.Millis(d.sentAt.Add(d.latency).Sub(d.signedAt)), w.E.profile().Webhook.Tolerance))
		return godog.ErrSkip
	case is2xx(d.status) && lenient:
		engine.Warn(ctx, refWebhookSig, "the service never writes t so, and it was signed as written and names the current time, so no forgery or replay follows; a strict parser (digits only) is safer",
			"accepted a t written %q (%s), answering %d", ws.tsForm, firmakit.Excerpt(timestampText(d.t, ws.tsForm), 40), d.status)
		return nil
	case is2xx(d.status):
		return engine.Breaks(ref, "expected a status other than 2xx, since %s; got %d in %s ms: the endpoint took a notification the service did not send\n%s",
			engine.Name(ws.why), d.status, engine.Millis(d.latency), w.exchange(ws))
	}
	return nil
}

// exchange says what was sent, the signature redacted, and what came
// back, delivery by delivery; of generated deliveries, the first three
// that broke their sentence, or a tally of the answers when none did.
func (w *webhookSteps) exchange(ws *webhookScenario) string {
	var b strings.Builder
	if len(ws.probes) > 0 && len(ws.shown) == 0 {
		tally := map[string]int{}
		var keys []string
		for _, pr := range ws.probes {
			k := "no answer"
			if pr.d.err == nil {
				k = strconv.Itoa(pr.d.status)
			}
			if tally[k] == 0 {
				keys = append(keys, k)
			}
			tally[k]++
		}
		slices.Sort(keys)
		fmt.Fprintf(&b, "%d generated deliveries, answered:", len(ws.probes))
		for _, k := range keys {
			fmt.Fprintf(&b, " %s ×%d", k, tally[k])
		}
		pr := ws.probes[0]
		fmt.Fprintf(&b, "\nthe first, generated: %s\n", pr.name)
		w.writeDelivery(&b, ws, pr.d)
		return b.String()
	}
	type shown struct {
		label string
		d     *delivery
	}
	var list []shown
	for i, d := range ws.deliveries {
		label := ""
		if len(ws.deliveries) > 1 {
			label = fmt.Sprintf("delivery %d of %d", i+1, len(ws.deliveries))
		}
		list = append(list, shown{label, d})
	}
	for i, pr := range ws.shown {
		if i == 3 {
			list = append(list, shown{fmt.Sprintf("(%d more generated deliveries broke their sentence)", len(ws.shown)-i), nil})
			break
		}
		list = append(list, shown{"generated: " + pr.name, pr.d})
	}
	for i, s := range list {
		if s.label != "" {
			b.WriteString(s.label + "\n")
		}
		if s.d != nil {
			w.writeDelivery(&b, ws, s.d)
		}
		if i < len(list)-1 {
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeDelivery writes one delivery as sent, the signature redacted, and
// what came back.
func (w *webhookSteps) writeDelivery(b *strings.Builder, ws *webhookScenario, d *delivery) {
	p := w.E.profile()
	fmt.Fprintf(b, "sent: POST %s\n  Content-Type: %s\n", w.E.URL, d.contentType)
	if _, ok := d.signatureHeader(p); !ok {
		name := p.Webhook.SignatureHeader
		if ws.httpForm == "lower-case-header-name" {
			name = strings.ToLower(name)
		}
		fmt.Fprintf(b, "  (no %s header)\n", name)
	}
	for _, h := range d.headers {
		v := h.value
		if strings.EqualFold(h.name, p.Webhook.SignatureHeader) {
			v = redactWebhookSignature(p, v)
		}
		fmt.Fprintf(b, "  %s: %s\n", h.name, firmakit.EscapeText(v))
	}
	fmt.Fprintf(b, "  %s\n", excerpt(d.body, 1024))
	switch {
	case d.cut:
		fmt.Fprintf(b, "answered: nothing awaited: the service cut the delivery short after %d of its %d bytes", len(d.body)/2, len(d.body))
	case d.err != nil:
		fmt.Fprintf(b, "answered: nothing after %s ms: %s", engine.Millis(d.latency), firmakit.Excerpt(d.err.Error(), 300))
	default:
		fmt.Fprintf(b, "answered: %d in %s ms: %s", d.status, engine.Millis(d.latency), excerpt(d.answer, 512))
		if d.location != "" {
			fmt.Fprintf(b, "\n  (a redirect to %s, not followed: the service posts to the configured URL only)", firmakit.Excerpt(d.location, 300))
		}
	}
}

// redactWebhookSignature keeps the form of a webhook signature header
// and hides its signatures: "t=1763805600,v1=<redacted>". A report shows
// what was sent without handing out a valid signature.
func redactWebhookSignature(p *firmakit.Profile, header string) string {
	if header == "" {
		return `"" (empty)`
	}
	if w := p.Webhook; w.SignatureFormat == "entries" {
		items := []string{header}
		if w.SignatureSeparator != "" {
			items = strings.Split(header, w.SignatureSeparator)
		}
		for i, it := range items {
			if k, _, ok := strings.Cut(it, ","); ok {
				items[i] = k + ",<redacted>"
			} else {
				items[i] = "<redacted>"
			}
		}
		return strings.Join(items, w.SignatureSeparator)
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
		return fmt.Sprintf("%s… (%d bytes)", firmakit.EscapeText(cut), len(b))
	}
	// Escaped: what an endpoint answers must never start a line of its
	// own in firmakit's output.
	return firmakit.EscapeText(strings.TrimRight(strings.ToValidUTF8(string(b), "\uFFFD"), "\r\n"))
}

// outcome is what a webhook scenario came to, with the exchange.
func (w *webhookSteps) outcome(ctx context.Context, p *godog.Scenario, err error) (reports.ScenarioResult, observation) {
	var obs observation
	var exchange string
	ws, _ := ctx.Value(webhookKey{}).(*webhookScenario)
	if ws != nil {
		obs.Expect, obs.why, obs.Lenient = ws.expect, ws.why, ws.lenient
		obs.sent = slices.Clone(ws.deliveries)
		for _, pr := range ws.shown {
			obs.Broke = append(obs.Broke, pr.name)
		}
		for _, pr := range ws.probes {
			obs.sent = append(obs.sent, pr.d)
		}
		for _, d := range obs.sent {
			if d.cut || (d.expect != "" && d.expect != ws.expect) {
				continue // a retry's failed first delivery says nothing of the retry
			}
			obs.Statuses = append(obs.Statuses, d.status)
			switch {
			case d.err != nil && !timedOut(d.err):
				obs.Unreachable = true
				obs.Errors = append(obs.Errors, d.err.Error())
			case d.err == nil && d.latency > w.E.timeout():
				obs.Late = true
			}
		}
		if len(ws.deliveries)+len(ws.probes) > 0 {
			exchange = w.exchange(ws)
		}
	}
	var o engine.Outcome
	if ws != nil {
		o = engine.Outcome{NotRun: ws.inapplicable, Inconclusive: ws.inconcl, InconclusiveStep: ws.inconclStep, InconclusiveFacts: ws.inconclFacts,
			FailedStep: ws.failedStep, Warnings: ws.warnings}
	}
	r := engine.Result(p, err, o)
	r.Exchange = exchange
	return r, obs
}

// Sentences lists every step sentence of the webhook set, English and
// Spanish side by side, in the order they are registered (steps.Sentences
// lists the service set's). It returns an error when a method is not
// bound to exactly one sentence per language.
func Sentences() ([]engine.Sentence, error) {
	return engine.ListSentences("webhook", (&webhookSteps{}).bindSentences)
}

// bindSentences registers the sentences of the webhook set, whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (w *webhookSteps) bindSentences(sc engine.Registrar) {
	sc.Step(engine.Compiled("^"+`a `+stateParam+` notification`+"$"), w.aNotification)
	sc.Step(engine.Compiled("^"+`una notificación `+stateParam+"$"), w.aNotification)
	sc.Step(engine.Compiled("^"+`a `+stateParam+` notification of a real contract, its optional keys absent`+"$"), w.aNotificationOfARealContract)
	sc.Step(engine.Compiled("^"+`una notificación `+stateParam+` de un contrato real, sin sus claves opcionales`+"$"), w.aNotificationOfARealContract)
	sc.Step(engine.Compiled(`^its free text is "(long-title|long-reason|scripts-title|scripts-reason)"$`), w.itsFreeTextIs)
	sc.Step(engine.Compiled(`^su texto libre es "(long-title|long-reason|scripts-title|scripts-reason)"$`), w.itsFreeTextIs)
	sc.Step(engine.Compiled(`^its body is written "(keys-reversed|indented|escaped-unicode|escaped-slash|crlf)"$`), w.itsBodyIsWritten)
	sc.Step(engine.Compiled(`^su cuerpo se escribe "(keys-reversed|indented|escaped-unicode|escaped-slash|crlf)"$`), w.itsBodyIsWritten)
	sc.Step(engine.Compiled(`^its t is written "(fraction|exponent|nan|plus-sign|word)", signed as written$`), w.itsTIsWritten)
	sc.Step(engine.Compiled(`^su t se escribe "(fraction|exponent|nan|plus-sign|word)", firmada tal como se escribe$`), w.itsTIsWritten)
	sc.Step(engine.Compiled(`^its timestamp is (-?\d+) seconds from now$`), w.itsTimestampIsSecondsFromNow)
	sc.Step(engine.Compiled(`^su marca de tiempo está a (-?\d+) segundos de ahora$`), w.itsTimestampIsSecondsFromNow)
	sc.Step(engine.Compiled(`^it is sent with "(lower-case-header-name|content-type-charset)"$`), w.itIsSentWith)
	sc.Step(engine.Compiled(`^se envía con "(lower-case-header-name|content-type-charset)"$`), w.itIsSentWith)
	sc.Step(engine.Compiled("^"+`a `+stateParam+` notification of the same contract is posted to the endpoint`+"$"), w.aNotificationOfTheSameContractIsPosted)
	sc.Step(engine.Compiled("^"+`una notificación `+stateParam+` del mismo contrato se envía al endpoint`+"$"), w.aNotificationOfTheSameContractIsPosted)
	sc.Step(engine.Compiled(`^the same delivery is repeated at once, its bytes and signature header unchanged$`), w.theSameDeliveryIsRepeated)
	sc.Step(engine.Compiled(`^la misma entrega se repite enseguida, con los mismos bytes y la misma cabecera de firma$`), w.theSameDeliveryIsRepeated)
	sc.Step(engine.Compiled(`^it is signed with the webhook secret$`), w.itIsSignedWithTheWebhookSecret)
	sc.Step(engine.Compiled(`^se firma con el secreto del webhook$`), w.itIsSignedWithTheWebhookSecret)
	sc.Step(engine.Compiled(`^it is signed with another secret$`), w.itIsSignedWithAnotherSecret)
	sc.Step(engine.Compiled(`^se firma con otro secreto$`), w.itIsSignedWithAnotherSecret)
	sc.Step(engine.Compiled(`^it is sent without the signature header$`), w.itIsSentWithoutTheSignatureHeader)
	sc.Step(engine.Compiled(`^se envía sin la cabecera de firma$`), w.itIsSentWithoutTheSignatureHeader)
	sc.Step(engine.Compiled(`^its body is changed after signing$`), w.itsBodyIsChangedAfterSigning)
	sc.Step(engine.Compiled(`^su cuerpo se cambia después de firmarlo$`), w.itsBodyIsChangedAfterSigning)
	sc.Step(engine.Compiled(`^its timestamp is (\d+) seconds older than the tolerance allows$`), w.itsTimestampIsOlderThanTheToleranceAllows)
	sc.Step(engine.Compiled(`^su marca de tiempo es (\d+) segundos más antigua de lo que permite la tolerancia$`), w.itsTimestampIsOlderThanTheToleranceAllows)
	sc.Step(engine.Compiled(`^its timestamp is (\d+) seconds further ahead than the tolerance allows$`), w.itsTimestampIsFurtherAheadThanTheToleranceAllows)
	sc.Step(engine.Compiled(`^su marca de tiempo está (\d+) segundos más adelantada de lo que permite la tolerancia$`), w.itsTimestampIsFurtherAheadThanTheToleranceAllows)
	sc.Step(engine.Compiled(`^its timestamp is changed by (-?\d+) seconds after signing$`), w.itsTimestampIsChangedAfterSigning)
	sc.Step(engine.Compiled(`^su marca de tiempo se cambia en (-?\d+) segundos después de firmar$`), w.itsTimestampIsChangedAfterSigning)
	sc.Step(engine.Compiled(`^it is posted to the endpoint$`), w.itIsPostedToTheEndpoint)
	sc.Step(engine.Compiled(`^se envía al endpoint$`), w.itIsPostedToTheEndpoint)
	sc.Step(engine.Compiled(`^the endpoint answers 2xx within the delivery timeout$`), w.theEndpointAnswers2xxWithinTheDeliveryTimeout)
	sc.Step(engine.Compiled(`^el endpoint responde 2xx dentro del plazo de entrega$`), w.theEndpointAnswers2xxWithinTheDeliveryTimeout)
	sc.Step(engine.Compiled(`^the endpoint answers 2xx to both deliveries within the delivery timeout$`), w.theEndpointAnswers2xxToBothDeliveries)
	sc.Step(engine.Compiled(`^el endpoint responde 2xx a ambas entregas dentro del plazo de entrega$`), w.theEndpointAnswers2xxToBothDeliveries)
	sc.Step(engine.Compiled(`^the endpoint refuses it with a status other than 2xx$`), w.theEndpointRefusesIt)
	sc.Step(engine.Compiled(`^el endpoint la rechaza con un estado distinto de 2xx$`), w.theEndpointRefusesIt)
	sc.Step(engine.Compiled(`^the endpoint refuses it, or its acceptance is only a warning$`), w.theEndpointRefusesItOrWarns)
	sc.Step(engine.Compiled(`^el endpoint la rechaza, o su aceptación solo es una advertencia$`), w.theEndpointRefusesItOrWarns)
	sc.Step(engine.Compiled(`^it is signed otherwise: "(v0-only|v2-only|v1-empty|v1-shortened|v1-lengthened|body-only|no-dot|body-then-t|no-t-body-only)"$`), w.itIsSignedOtherwise)
	sc.Step(engine.Compiled(`^se firma de otra manera: "(v0-only|v2-only|v1-empty|v1-shortened|v1-lengthened|body-only|no-dot|body-then-t|no-t-body-only)"$`), w.itIsSignedOtherwise)
	sc.Step(engine.Compiled(`^it is signed with the webhook secret and with a retired one, the valid signature being number (1|2)$`), w.itIsSignedWithTheWebhookSecretAndARetiredOne)
	sc.Step(engine.Compiled(`^se firma con el secreto del webhook y con uno retirado, siendo válida la firma número (1|2)$`), w.itIsSignedWithTheWebhookSecretAndARetiredOne)
	sc.Step(engine.Compiled(`^the signature header is malformed: "(no-timestamp|no-signature|empty|not-key-value|timestamp-not-a-number)"$`), w.theSignatureHeaderIsMalformed)
	sc.Step(engine.Compiled(`^la cabecera de firma está mal formada: "(no-timestamp|no-signature|empty|not-key-value|timestamp-not-a-number)"$`), w.theSignatureHeaderIsMalformed)
	sc.Step(engine.Compiled(`^the same event is delivered again after the profile's first retry delay, signed anew$`), w.theSameEventIsDeliveredAgain)
	sc.Step(engine.Compiled(`^el mismo evento se entrega de nuevo tras la primera espera de reintento del perfil, firmado otra vez$`), w.theSameEventIsDeliveredAgain)
	w.bindGenerated(sc)
}

// unjudged leaves the scenario inconclusive for why.
func (ws *webhookScenario) unjudged(why engine.Said) {
	ws.inconcl, ws.inconclFacts = why.Text, &why.Facts
}
