package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/google/uuid"
)

// The sentences of the generated rows (operators.go): each posts the
// neighbours an operator derives and judges every one by the sentence it
// falls under.

// refRetry is the item that makes a retry a delivery like the first:
// the same event_id on every retry of the event.
const refRetry = "defaults §B bullet 5"

// probesPerScenario bounds the probes of one scenario in flight at once;
// Endpoint.MaxInFlight bounds the whole run's.
const probesPerScenario = 32

// theValidNeighboursOfItsSignatureHeaderArePosted posts the notification
// under every header whose valid signature is one of several entries, at
// every position.
func (w *webhookSteps) theValidNeighboursOfItsSignatureHeaderArePosted(ctx context.Context) error {
	ws := getWebhook(ctx)
	if wp := w.E.profile().Webhook; wp.SignatureFormat == "entries" && wp.SignatureSeparator == "" {
		return w.notApplicable(ctx, "the "+w.E.profile().Name+" scheme carries one signature only, so no header holds several")
	}
	return w.postNeighbours(ctx, ws, func(s *signer) []*neighbour { return s.validNeighbours() })
}

// theForgedNeighboursOfItsSignatureHeaderArePosted posts the notification
// under every header the layout operators write from every forged
// material.
func (w *webhookSteps) theForgedNeighboursOfItsSignatureHeaderArePosted(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.why = "no entry of its header was a valid signature over a fresh t"
	return w.postNeighbours(ctx, ws, func(s *signer) []*neighbour { return s.forgedNeighbours() })
}

// postNeighbours makes each neighbour a new event of the scenario's
// notification, so that no answer depends on another, and posts them.
func (w *webhookSteps) postNeighbours(ctx context.Context, ws *webhookScenario, gen func(*signer) []*neighbour) error {
	// The neighbours are made for one event, then each is made again for
	// an event of its own: the generator gives the same neighbours, in
	// the same order, for every event.
	first, err := w.neighboursOf(ws, gen)
	if err != nil {
		return err
	}
	probes := make([]*neighbour, len(first))
	for i := range first {
		all, err := w.neighboursOf(ws, func(s *signer) []*neighbour { return gen(s)[i : i+1] })
		if err != nil {
			return err
		}
		probes[i] = all[0]
	}
	return w.postProbes(ctx, ws, probes)
}

// neighboursOf makes gen's neighbours of a new event of the scenario's
// notification, each carrying the event's body.
func (w *webhookSteps) neighboursOf(ws *webhookScenario, gen func(*signer) []*neighbour) ([]*neighbour, error) {
	n := ws.n
	n.EventID = newEventID()
	body, err := w.body(n, ws.layout)
	if err != nil {
		return nil, err
	}
	all := gen(newSigner(w.E, n.EventID, body, w.E.now()))
	for _, pr := range all {
		pr.d.body = body
	}
	return all, nil
}

// everyForgeryOfItIsPosted posts every forgery of the scenario's state
// at every body size, about a demo contract and about a real one: the
// paths an endpoint may take for a state, a size or a kind of contract.
func (w *webhookSteps) everyForgeryOfItIsPosted(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.why = "it was forged"
	p := w.E.profile()
	var probes []*neighbour
	for _, demo := range []bool{true, false} {
		title := "Contrato de arriendo 42 — Ñuñoa"
		if demo {
			title = ws.n.Status.DemoPrefix() + " " + title
		}
		for _, size := range bodySizes {
			n := w.notification(ws.n.Status, ws.n.SignatureID, title, demo)
			body, n, err := sized(p, n, size)
			if err != nil {
				return err
			}
			path := fmt.Sprintf("a %s notification of a %s contract, %d bytes", n.Status, map[bool]string{true: "demo", false: "real"}[demo], len(body))
			s := newSigner(w.E, n.EventID, body, w.E.now())
			for _, m := range s.forgedMaterial() {
				if strings.HasPrefix(m.name, "t twice") || strings.HasPrefix(m.name, "the valid signature under") {
					continue // the header's own neighbours: theForgedNeighbours…
				}
				hs, _ := s.render(headerForm{ts: m.ts, sigs: m.sigs})
				probes = append(probes, &neighbour{name: path + ", " + m.name, expect: "refuse", why: m.why, ref: m.ref,
					d: &delivery{body: body, headers: hs}})
			}
			// The body changed at its end after signing: past any prefix
			// an endpoint may verify alone.
			changed, err := p.EncodeNotification(lastChanged(n))
			if err != nil {
				return err
			}
			hs, _ := s.render(headerForm{ts: s.timestamps(s.fresh), sigs: []entry{{s.label, s.valid()}}})
			probes = append(probes, &neighbour{name: path + ", its last character changed after signing", expect: "refuse",
				why: "its body was changed after signing", ref: refWebhookSig, d: &delivery{body: changed, headers: hs}})
		}
	}
	return w.postProbes(ctx, ws, probes)
}

// itIsPostedWithCharactersAcrossEveryBoundary posts the notification
// with characters of class cut by every power-of-two offset of a 64 KiB
// body, one body per place a character can be cut.
func (w *webhookSteps) itIsPostedWithCharactersAcrossEveryBoundary(ctx context.Context, class string) error {
	ws := getWebhook(ctx)
	p := w.E.profile()
	var ids []string
	bodies, names, err := boundaryBodies(p, ws.n, class, func() string { ids = append(ids, newEventID()); return ids[len(ids)-1] })
	if err != nil {
		return err
	}
	var probes []*neighbour
	for i, body := range bodies {
		s := newSigner(w.E, ids[i], body, w.E.now())
		hs, _ := s.render(headerForm{ts: s.timestamps(s.fresh), sigs: []entry{{s.label, s.valid()}}})
		probes = append(probes, &neighbour{name: names[i], expect: "accept", ref: refWebhookSig, d: &delivery{body: body, headers: hs}})
	}
	return w.postProbes(ctx, ws, probes)
}

// postProbes posts the probes, a few at a time, and keeps them for the
// Then step. Each was signed when it was made: the wait for its turn is
// seconds, well inside the tolerance, and a forged t lies a minute
// outside it.
func (w *webhookSteps) postProbes(ctx context.Context, ws *webhookScenario, probes []*neighbour) error {
	ws.probes = append(ws.probes, probes...)
	slots := make(chan struct{}, probesPerScenario)
	var wg sync.WaitGroup
	for _, pr := range probes {
		pr.d.signedAt, pr.d.expect = time.Now(), pr.expect
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			w.send(ctx, ws.httpForm, pr.d)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// theEndpointAnswers2xxToEveryOne wants each probe accepted within the
// delivery timeout.
func (w *webhookSteps) theEndpointAnswers2xxToEveryOne(ctx context.Context) error {
	getWebhook(ctx).expect = "accept"
	return w.judgeProbes(ctx)
}

// theEndpointRefusesEveryOne wants each probe refused.
func (w *webhookSteps) theEndpointRefusesEveryOne(ctx context.Context) error {
	getWebhook(ctx).expect = "refuse"
	return w.judgeProbes(ctx)
}

// judgeProbes judges every probe and fails on the first that breaks its
// sentence, listing every one that does; a probe whose answer only this
// process's lateness could have made late is no verdict.
func (w *webhookSteps) judgeProbes(ctx context.Context) error {
	ws := getWebhook(ctx)
	if len(ws.probes) == 0 {
		return fmt.Errorf("nothing was posted")
	}
	var failed []*neighbour
	var first error
	var inconcl engine.Said
	answered := false // the endpoint answered at least one probe
	for _, pr := range ws.probes {
		answered = answered || pr.d.err == nil
	}
	for _, pr := range ws.probes {
		err, why := w.judgeProbe(pr, answered)
		switch {
		case err != nil:
			pr.failed = err.Error()
			failed = append(failed, pr)
			if first == nil {
				first = err
			}
		case why.Text != "" && inconcl.Text == "":
			inconcl = engine.Say("%s: %s", engine.Name(pr.name), why)
		}
	}
	if first != nil {
		ws.shown = failed
		var b strings.Builder
		for i, pr := range failed {
			if i == 8 {
				fmt.Fprintf(&b, "\n- … and %d more", len(failed)-i)
				break
			}
			fmt.Fprintf(&b, "\n- %s: %s", pr.name, firstLine(pr.failed))
		}
		fmt.Fprintf(&b, "\n%s", w.exchange(ws))
		return engine.BreaksAs(engine.FailureKindOf(first), engine.BreachOf(first),
			"%d of %d generated deliveries broke their sentence:%s", len(failed), len(ws.probes), b.String())
	}
	if inconcl.Text != "" {
		ws.unjudged(inconcl)
		return godog.ErrSkip
	}
	return nil
}

// judgeProbe is one probe's verdict: a breach of its sentence, or why
// its answer is no verdict. answered tells that the endpoint answered
// another probe of the scenario: a connection it then closed on a forged
// one without a word is a refusal, not an endpoint down.
func (w *webhookSteps) judgeProbe(pr *neighbour, answered bool) (error, engine.Said) {
	d, timeout := pr.d, w.E.timeout()
	if d.err != nil && (pr.expect == "accept" || timedOut(d.err)) && (d.crowd > 1 || !w.E.again) {
		return nil, crowdedError(d, timeout)
	}
	if pr.expect == "refuse" {
		switch {
		case d.err != nil && timedOut(d.err):
			return engine.Breaks(refDelivery, "expected a status other than 2xx within the %s delivery timeout, since %s; none came within %s",
				timeout, engine.Name(pr.why), timeout+DeliveryGrace), engine.Said{}
		case d.err != nil && !answered:
			return engine.Breaks(refDelivery, "expected a status other than 2xx, since %s; the endpoint could not be reached: %s",
				engine.Name(pr.why), firmakit.Excerpt(d.err.Error(), 300)), engine.Said{}
		case d.err == nil && is2xx(d.status):
			return engine.Breaks(pr.ref, "expected a status other than 2xx, since %s; got %d in %s ms: the endpoint took a notification the service did not send",
				engine.Name(pr.why), d.status, engine.Millis(d.latency)), engine.Said{}
		}
		// Any other answer, or a connection closed with none, is no 2xx:
		// the service would not count it delivered.
		return nil, engine.Said{}
	}
	switch {
	case d.err != nil && timedOut(d.err):
		return engine.Breaks(refDelivery, "expected a 2xx answer within the %s delivery timeout; none came within %s", timeout, timeout+DeliveryGrace), engine.Said{}
	case d.err != nil:
		return engine.Breaks(refDelivery, "expected a 2xx answer within the %s delivery timeout; the endpoint could not be reached: %s",
			timeout, firmakit.Excerpt(d.err.Error(), 300)), engine.Said{}
	case !is2xx(d.status):
		return engine.Breaks(pr.ref, "expected a 2xx answer within the %s delivery timeout, got %d in %s ms: the service would take this valid notification as not delivered and retry it",
			timeout, d.status, engine.Millis(d.latency)), engine.Said{}
	case d.latency > timeout:
		if why := w.lateExcuse(d); why.Text != "" {
			return nil, engine.Say("the endpoint answered %d after %s ms, past the %s delivery timeout, but %s",
				d.status, engine.Millis(d.latency), timeout, why)
		}
		return engine.Breaks(refDelivery, "expected a 2xx answer within the %s delivery timeout; it came after %s ms: the service would have given up and retried",
			timeout, engine.Millis(d.latency)), engine.Said{}
	}
	return nil, engine.Said{}
}

// crowdedError says why a delivery that got no answer is no verdict
// yet: others were in flight (an endpoint with a short listen queue,
// such as Python's http.server with its 5, resets connections past it,
// which the service, sending one notification at a time, never meets),
// or it is the first try; the scenario runs again alone, and only what
// happens then is judged.
func crowdedError(d *delivery, timeout time.Duration) engine.Said {
	what := engine.Say("no answer came within %s", timeout+DeliveryGrace)
	if !timedOut(d.err) {
		what = engine.Say("the endpoint could not be reached (%s)", firmakit.Excerpt(d.err.Error(), 200))
	}
	if d.crowd > 1 {
		return engine.Say("%s, but %d deliveries were in flight to the endpoint at once", what, d.crowd)
	}
	return engine.Say("%s, once: the scenario runs again alone", what)
}

// newEventID is a new event's id.
func newEventID() string { return uuid.NewString() }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// firstFailures are the ways a first delivery of an event can fail that
// the retry must not inherit.
var firstFailures = map[string]string{
	"another-secret": "was signed with another secret",
	"no-header":      "carried no signature header",
	"stale-t":        "was signed over a stale t",
	"cut-short":      "was cut short by the service halfway through its body",
}

// itsFirstDeliveryFails makes the scenario's first delivery one that
// fails: refused by a correct endpoint, or cut short on the way.
func (w *webhookSteps) itsFirstDeliveryFails(ctx context.Context, how string) error {
	ws := getWebhook(ctx)
	switch how {
	case "another-secret":
		ws.sign = "other"
	case "no-header":
		ws.sign = "none"
	case "stale-t":
		if err := w.needsTimestamp(ctx); err != nil {
			return err
		}
		ws.offset = -(w.E.profile().Webhook.Tolerance + time.Minute)
	case "cut-short":
		ws.cut = true
	}
	ws.firstFails = how
	return nil
}

// theSameEventIsDeliveredAgainCorrectlySigned waits the profile's first
// retry delay and delivers the event again, its bytes as the service
// writes them, correctly signed now: the retry of a delivery that failed.
func (w *webhookSteps) theSameEventIsDeliveredAgainCorrectlySigned(ctx context.Context) error {
	ws := getWebhook(ctx)
	if len(ws.deliveries) == 0 {
		return fmt.Errorf("nothing was delivered yet")
	}
	if ws.firstFails != "" && !ws.deliveries[0].cut {
		ws.deliveries[0].expect = "refuse"
	}
	ws.sign, ws.offset, ws.cut = "webhook", 0, false
	if err := w.retryWait(ctx); err != nil {
		return err
	}
	body, err := w.body(ws.n, ws.layout)
	if err != nil {
		return err
	}
	return w.deliver(ctx, ws, body)
}

// retryWait waits the profile's first retry delay.
func (w *webhookSteps) retryWait(ctx context.Context) error {
	wait := time.Second
	if r := w.E.profile().Webhook.Retries; len(r) > 0 {
		wait = r[0]
	}
	select {
	case <-time.After(wait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// theEndpointAnswers2xxToTheRetry judges the last delivery alone: what a
// correct endpoint answered to the failed first one is the refusal
// scenarios' to judge.
func (w *webhookSteps) theEndpointAnswers2xxToTheRetry(ctx context.Context) error {
	ws := getWebhook(ctx)
	ws.expect = "accept"
	if len(ws.deliveries) < 2 {
		return fmt.Errorf("expected a delivery and its retry, made %d", len(ws.deliveries))
	}
	d := ws.deliveries[len(ws.deliveries)-1]
	pr := &neighbour{name: "the retry", expect: "accept", ref: refRetry, d: d}
	err, why := w.judgeProbe(pr, true)
	switch {
	case err != nil:
		return engine.BreaksAs(engine.FailureKindOf(err), engine.BreachOf(err), "%s, though its first delivery %s and the retry is the same event (the same event_id), correctly signed\n%s",
			err, engine.Name(firstFailures[ws.firstFails]), w.exchange(ws))
	case why.Text != "":
		ws.unjudged(why)
		return godog.ErrSkip
	}
	return nil
}

// everyOtherStateOfTheSameContractFollows posts, after the scenario's
// notification, every other state of its contract in turn, one of them
// twice as it is for two signers: each a new event.
func (w *webhookSteps) everyOtherStateOfTheSameContractFollows(ctx context.Context) error {
	ws := getWebhook(ctx)
	first := ws.n
	var seq []firmakit.State
	for _, st := range firmakit.States {
		if st != first.Status {
			seq = append(seq, st)
		}
		if st == firmakit.StateBounced {
			seq = append(seq, st) // the second signer's mail bounced too
		}
	}
	for i, st := range seq {
		ws.n = w.notification(st, first.SignatureID, first.Title, first.Demo)
		if i > 0 && seq[i-1] == st && ws.n.Reason != "" {
			ws.n.Reason = "signer_2: " + ws.n.Reason
		}
		if err := w.itIsPostedToTheEndpoint(ctx); err != nil {
			return err
		}
	}
	return nil
}

// cutBody is a request body that ends halfway with an error: the
// client closes the connection there, as a service whose process
// stopped mid-delivery does.
type cutBody struct {
	b []byte
	n int
}

var errCut = errors.New("the delivery was cut short halfway through its body")

func (c *cutBody) Read(p []byte) (int, error) {
	half := len(c.b) / 2
	if c.n >= half {
		return 0, errCut
	}
	n := copy(p, c.b[c.n:half])
	c.n += n
	return n, nil
}

var _ io.Reader = (*cutBody)(nil)

// bindGenerated registers the sentences of the generated rows, whose
// methods live in this file.
func (w *webhookSteps) bindGenerated(sc engine.Registrar) {
	sc.Step(engine.Compiled(`^every neighbour of its signature header whose valid signature is one of several entries is posted to the endpoint$`), w.theValidNeighboursOfItsSignatureHeaderArePosted)
	sc.Step(engine.Compiled(`^se envía al endpoint cada vecina de su cabecera de firma cuya firma válida es una de varias entradas$`), w.theValidNeighboursOfItsSignatureHeaderArePosted)
	sc.Step(engine.Compiled(`^every forged neighbour of its signature header is posted to the endpoint$`), w.theForgedNeighboursOfItsSignatureHeaderArePosted)
	sc.Step(engine.Compiled(`^se envía al endpoint cada vecina falsificada de su cabecera de firma$`), w.theForgedNeighboursOfItsSignatureHeaderArePosted)
	sc.Step(engine.Compiled(`^every forgery of it is posted to the endpoint, at every body size, about a demo and a real contract$`), w.everyForgeryOfItIsPosted)
	sc.Step(engine.Compiled(`^se envía al endpoint cada falsificación de ella, con cada tamaño de cuerpo, sobre un contrato demo y uno real$`), w.everyForgeryOfItIsPosted)
	sc.Step(engine.Compiled(`^it is posted to the endpoint with "(2-byte|3-byte|4-byte|combining)" characters cut by every power-of-two offset of its body$`), w.itIsPostedWithCharactersAcrossEveryBoundary)
	sc.Step(engine.Compiled(`^se envía al endpoint con caracteres "(2-byte|3-byte|4-byte|combining)" cortados por cada posición potencia de dos de su cuerpo$`), w.itIsPostedWithCharactersAcrossEveryBoundary)
	sc.Step(engine.Compiled(`^the endpoint answers 2xx to every one within the delivery timeout$`), w.theEndpointAnswers2xxToEveryOne)
	sc.Step(engine.Compiled(`^el endpoint responde 2xx a cada una dentro del plazo de entrega$`), w.theEndpointAnswers2xxToEveryOne)
	sc.Step(engine.Compiled(`^the endpoint refuses every one with a status other than 2xx$`), w.theEndpointRefusesEveryOne)
	sc.Step(engine.Compiled(`^el endpoint rechaza cada una con un estado distinto de 2xx$`), w.theEndpointRefusesEveryOne)
	sc.Step(engine.Compiled(`^its first delivery fails: "(another-secret|no-header|stale-t|cut-short)"$`), w.itsFirstDeliveryFails)
	sc.Step(engine.Compiled(`^su primera entrega falla: "(another-secret|no-header|stale-t|cut-short)"$`), w.itsFirstDeliveryFails)
	sc.Step(engine.Compiled(`^the same event is delivered again after the profile's first retry delay, correctly signed$`), w.theSameEventIsDeliveredAgainCorrectlySigned)
	sc.Step(engine.Compiled(`^el mismo evento se entrega de nuevo tras la primera espera de reintento del perfil, bien firmado$`), w.theSameEventIsDeliveredAgainCorrectlySigned)
	sc.Step(engine.Compiled(`^the endpoint answers 2xx to the retry within the delivery timeout$`), w.theEndpointAnswers2xxToTheRetry)
	sc.Step(engine.Compiled(`^el endpoint responde 2xx al reintento dentro del plazo de entrega$`), w.theEndpointAnswers2xxToTheRetry)
	sc.Step(engine.Compiled(`^every other state of the same contract follows in turn, one of them twice for two signers$`), w.everyOtherStateOfTheSameContractFollows)
	sc.Step(engine.Compiled(`^le siguen por turno los demás estados del mismo contrato, uno de ellos dos veces por dos firmantes$`), w.everyOtherStateOfTheSameContractFollows)
}
