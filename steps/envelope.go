package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/steps/engine"
)

// titleSamples are titles a service must echo byte for byte.
var titleSamples = map[string]string{
	"spaces":   "  Contrato   de  arriendo  42  ",
	"tab":      "Contrato\tde arriendo\t42",
	"accents":  "Contrato de arriendo ñandú — cláusula «única», año 2026",
	"japanese": "賃貸借契約書 第42号",
	"arabic":   "عقد إيجار رقم ٤٢",
	"emoji":    "Contrato ✍️ 😀 firmado 🇨🇱",
	"long":     longTitle(250),
	"markup":   `<b>"Contrato"</b> & 'arriendo' \ / {{nombre}} %s`,
}

// longTitle is n characters of mixed one- and two-byte text.
func longTitle(n int) string {
	r := []rune(strings.Repeat("Contrato de arriendo ñ 42 · ", n/20+1))
	return string(r[:n])
}

func (s *Steps) aContractTitled(ctx context.Context, title string) error {
	sc := get(ctx)
	sc.endpoint, sc.titleSent, sc.body = "signature", title, s.createBody(title)
	return nil
}

func (s *Steps) aContractTitledWithTheSample(ctx context.Context, sample string) error {
	t, ok := titleSamples[sample]
	if !ok {
		return fmt.Errorf("the feature names an unknown title sample %q", sample)
	}
	return s.aContractTitled(ctx, t)
}

func (s *Steps) aDemoContractTitledWithTheSample(ctx context.Context, prefix, sample string) error {
	t, ok := titleSamples[sample]
	if !ok {
		return fmt.Errorf("the feature names an unknown title sample %q", sample)
	}
	if !strings.HasPrefix(t, " ") {
		t = " " + t
	}
	return s.aContractTitled(ctx, prefix+t)
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

func (s *Steps) theBodyFieldIsRemoved(ctx context.Context, path string) error {
	if why := s.needs(path); why != "" {
		return s.notRun(ctx, why)
	}
	path, why := s.placeholders(path)
	if why != "" {
		return s.notRun(ctx, why)
	}
	sc := get(ctx)
	field, _, _ := strings.Cut(path, ".")
	field, _, _ = strings.Cut(field, "[")
	sc.removedFields = append(sc.removedFields, field)
	sc.removedKeys = append(sc.removedKeys, s.keysOf(sc.body, path)...)
	return edit(sc.body, path, nil, true)
}

// keysOf are the template keys a part of the body holds: the signer keys
// of a signer or of the whole list, the data keys of data, the template
// names of documents; a refusal of the part left out may name them.
func (s *Steps) keysOf(body any, path string) []string {
	b, _ := body.(map[string]any)
	var out []string
	switch {
	case path == "signers" || strings.HasPrefix(path, "signers["):
		list, _ := b["signers"].([]any)
		for i, sg := range list {
			if path == "signers" || path == fmt.Sprintf("signers[%d]", i) {
				m, _ := sg.(map[string]any)
				if k, ok := m["key"].(string); ok {
					out = append(out, k)
				}
			}
		}
	case path == "data":
		d, _ := b["data"].(map[string]any)
		for k := range d {
			out = append(out, k)
		}
	case strings.HasPrefix(path, "data."):
		out = append(out, strings.TrimPrefix(path, "data."))
	case path == "documents":
		list, _ := b["documents"].([]any)
		for _, d := range list {
			if n, ok := d.(string); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

func (s *Steps) theBodyFieldIsSetTo(ctx context.Context, path, value string) error {
	if strings.HasPrefix(path, "signers[1]") {
		if why := s.needs(path); why != "" {
			return s.notRun(ctx, why)
		}
	}
	value, why := s.placeholders(value)
	if why != "" {
		return s.notRun(ctx, why)
	}
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("the feature's value %s is not JSON", value)
	}
	return edit(get(ctx).body, path, v, false)
}

func (s *Steps) theSignersAreSentInReverseOrder(ctx context.Context) error {
	body, _ := get(ctx).body.(map[string]any)
	signers, _ := body["signers"].([]any)
	if len(signers) < 2 {
		return s.notRun(ctx, "the template has a single signer")
	}
	slices.Reverse(signers)
	return nil
}

func (s *Steps) theContractIsCreated(ctx context.Context) error {
	sc := get(ctx)
	if err := s.send(ctx, sc); err != nil {
		return err
	}
	if sc.status != http.StatusCreated {
		return sc.answerBreaks(refCreate, "expected 201 for the contract %q, %s", clip(sc.titleSent, 80), sc.got())
	}
	if sc.created == "" {
		return sc.answerBreaks("§2.2 signature_id", "expected data.signature_id in the 201, %s", sc.got())
	}
	if sc.answerCount > 0 {
		if err := s.programAnswer(ctx, sc); err != nil {
			return err
		}
	}
	if sc.downFor > 0 {
		return s.goDown(ctx, sc)
	}
	return nil
}

func envelope(sc *scenario) map[string]any {
	d, _ := sc.resp["data"].(map[string]any)
	return d
}

var envelopeKeys = []string{"signature_id", "status", "title", "routing", "sender", "documents", "recipients", "created_at"}

// theResponseIsACreatedSignatureEnvelope checks that every field of the
// interface is there with its type; extra keys are the profile's matter.
func (s *Steps) theResponseIsACreatedSignatureEnvelope(ctx context.Context) error {
	sc := get(ctx)
	if sc.status != http.StatusCreated {
		return sc.answerBreaks(refCreate, "expected 201, %s", sc.got())
	}
	if _, err := sc.apiShape(ctx, refCreate, "status_code", "message", "data"); err != nil {
		return err
	}
	env := envelope(sc)
	if env == nil {
		return sc.answerBreaks(refCreate, "expected data to be the signature envelope object, %s", sc.got())
	}
	var problems []string
	for _, k := range []string{"signature_id", "status", "title", "routing", "created_at"} {
		if _, ok := env[k].(string); !ok {
			problems = append(problems, k+" is not a string")
		}
	}
	if sender, ok := env["sender"].(map[string]any); !ok {
		problems = append(problems, "sender is not an object")
	} else {
		for _, k := range []string{"name", "email"} {
			if _, ok := sender[k].(string); !ok {
				problems = append(problems, "sender."+k+" is not a string")
			}
		}
	}
	for _, list := range []struct {
		name string
		keys []string
	}{{"documents", []string{"key", "title"}}, {"recipients", []string{"key", "name", "email", "status"}}} {
		items, ok := env[list.name].([]any)
		if !ok {
			problems = append(problems, list.name+" is not an array")
			continue
		}
		for i, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s[%d] is not an object", list.name, i))
				continue
			}
			for _, k := range list.keys {
				if _, ok := m[k].(string); !ok {
					problems = append(problems, fmt.Sprintf("%s[%d].%s is not a string", list.name, i, k))
				}
			}
		}
	}
	if len(problems) > 0 {
		return sc.answerBreaks(refCreate, "expected the envelope of the interface: %s; %s", strings.Join(problems, ", "), sc.got())
	}
	return nil
}

// theAnswerAndItsEnvelopeHoldExactlyTheFields checks the exact JSON shape
// of a 201: nothing missing, nothing extra, nothing null, at every level.
func (s *Steps) theAnswerAndItsEnvelopeHoldExactlyTheFields(ctx context.Context) error {
	sc := get(ctx)
	if sc.status != http.StatusCreated {
		return sc.answerBreaks(refCreate, "expected 201, %s", sc.got())
	}
	if _, err := sc.apiShape(ctx, refCreateBody, "status_code", "message", "data"); err != nil {
		return err
	}
	top, _ := object(sc.raw)
	env, err := object(top["data"])
	if err != nil {
		return sc.answerBreaks(refCreateBody, "expected data to be an object, %s", sc.got())
	}
	if err := exactKeys("data", env, envelopeKeys); err != nil {
		return sc.answerBreaks(refCreateBody, "%v; %s", err, sc.got())
	}
	sender, err := object(env["sender"])
	if err != nil {
		return sc.answerBreaks(refCreateBody, "expected data.sender to be an object, %s", sc.got())
	}
	if err := exactKeys("data.sender", sender, []string{"name", "email"}); err != nil {
		return sc.answerBreaks(refCreateBody, "%v; %s", err, sc.got())
	}
	for _, list := range []struct {
		name string
		keys []string
	}{{"documents", []string{"key", "title"}}, {"recipients", []string{"key", "name", "email", "status"}}} {
		var items []json.RawMessage
		if err := json.Unmarshal(env[list.name], &items); err != nil || items == nil {
			return sc.answerBreaks(refCreateBody, "expected data.%s to be an array, %s", list.name, sc.got())
		}
		for i, it := range items {
			m, err := object(it)
			if err != nil {
				return sc.answerBreaks(refCreateBody, "expected data.%s[%d] to be an object, %s", list.name, i, sc.got())
			}
			if err := exactKeys(fmt.Sprintf("data.%s[%d]", list.name, i), m, list.keys); err != nil {
				return sc.answerBreaks(refCreateBody, "%v; %s", err, sc.got())
			}
		}
	}
	return nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (s *Steps) field(sc *scenario, name string) (string, error) {
	v, ok := envelope(sc)[name].(string)
	if !ok {
		return "", sc.answerBreaks("§2.2 "+name, "expected data.%s to be a string, %s", name, sc.got())
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
		return engine.Breaks("§2.2 signature_id", "expected %s to be a UUID, got %q", engine.Field("signature_id"), engine.Seen(clip(v, 100)))
	}
	return nil
}

func (s *Steps) itsSignatureIDDiffersFromTheEarlierContracts(ctx context.Context) error {
	sc := get(ctx)
	d, _ := sc.previous["data"].(map[string]any)
	earlier, _ := d["signature_id"].(string)
	if earlier == "" || sc.created == "" {
		return engine.Breaks("§2.2 signature_id", "expected two created contracts, got %q and %q", clip(earlier, 100), clip(sc.created, 100))
	}
	if earlier == sc.created {
		return engine.Breaks(refCreateBody, "expected a new signature_id for the second contract, both got %q", clip(sc.created, 100))
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
		return engine.Breaks(fieldRef(name), "expected data.%s %q, got %q", engine.Field(name), engine.Want(clip(want, 200)), engine.Seen(clip(v, 200)))
	}
	return nil
}

// fieldRef is the item of interface §2.2 that states an envelope field.
func fieldRef(name string) string { return "§2.2 " + name }

// foreign renders a value that came from the target for a message, on one
// line, clipped, its control characters escaped (see clip).
func foreign(v any) string { return clip(fmt.Sprint(v), 300) }

func (s *Steps) theEnvelopeStatusIs(ctx context.Context, want string) error {
	return s.fieldIs(ctx, "status", want)
}

func (s *Steps) theEnvelopeTitleIsTheTitleSent(ctx context.Context) error {
	return s.fieldIs(ctx, "title", get(ctx).titleSent)
}

func (s *Steps) theRoutingIs(ctx context.Context, want string) error {
	return s.fieldIs(ctx, "routing", want)
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@")+1:], ".")
}

func (s *Steps) theSenderHasANameAndAValidEmail(ctx context.Context) error {
	sc := get(ctx)
	sender, _ := envelope(sc)["sender"].(map[string]any)
	name, _ := sender["name"].(string)
	email, _ := sender["email"].(string)
	if strings.TrimSpace(name) == "" {
		return sc.answerBreaks("§2.2 sender", "expected data.sender.name, %s", sc.got())
	}
	if !validEmail(email) {
		return engine.Breaks("§2.2 sender", "expected data.%s to be an e-mail address, got %q", engine.Field("sender.email"), engine.Seen(clip(email, 100)))
	}
	return nil
}

func (s *Steps) thereIsOneDocumentPerTemplateSent(ctx context.Context) error {
	sc := get(ctx)
	docs, _ := envelope(sc)["documents"].([]any)
	body, _ := sc.body.(map[string]any)
	sent, _ := body["documents"].([]any)
	if len(docs) != len(sent) {
		return sc.answerBreaks("§2.2 documents", "expected %d documents, got %d: %s", len(sent), len(docs), sc.got())
	}
	for i, d := range docs {
		doc, _ := d.(map[string]any)
		key, _ := doc["key"].(string)
		title, _ := doc["title"].(string)
		if key != "document_"+strconv.Itoa(i) || strings.TrimSpace(title) == "" {
			return engine.Breaks("§2.2 documents", "expected documents[%d] to have key document_%d and a title, got %s", i, i, foreign(d))
		}
	}
	return nil
}

func (s *Steps) eachDocumentCarriesTheTitleOfItsTemplate(ctx context.Context) error {
	want := s.T.Template.Title
	if want == "" {
		return s.notRun(ctx, "the template's title was not given (--template-title)")
	}
	return s.theDocumentsAreTitled(ctx, want)
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
		return sc.answerBreaks("§2.2 recipients", "expected %d recipients, got %d: %s", len(signers), len(recs), sc.got())
	}
	for i, r := range recs {
		rec, _ := r.(map[string]any)
		want := "signer_" + strconv.Itoa(i+1)
		sg := byKey[want]
		if rec["key"] != want || sg == nil || rec["name"] != sg["name"] || rec["email"] != sg["email"] || rec["status"] != status {
			ref := "§2.2 recipients"
			if rec["key"] != want {
				ref = refCreateBody // ordered signer_1, signer_2, …
			}
			return engine.Breaks(ref, "expected recipients[%d] to be %s with the name and e-mail sent and status %q, got %s", i, want, status, foreign(r))
		}
	}
	return nil
}

var millisUTC = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// plausible parses a UTC time with milliseconds and checks it lies within
// the clock allowance of [from, to] on the suite's clock.
func (s *Steps) plausible(what, v string, from, to time.Time) error {
	t, err := time.Parse(time.RFC3339Nano, v)
	if !millisUTC.MatchString(v) || err != nil {
		return engine.Breaks("§2.2 created_at", "expected %s to be UTC with milliseconds, like 2026-11-22T10:00:00.512Z, got %q", engine.Field(what), engine.Seen(clip(v, 100)))
	}
	allow := s.T.clockAllowance()
	if t.Before(from.Add(-allow)) || t.After(to.Add(allow)) {
		return engine.Breaks("§2.2 created_at", "expected %s between %s and %s (the suite's clock, ±%s), got %q",
			what, from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), allow, clip(v, 100))
	}
	return nil
}

func (s *Steps) createdAtIsAUTCTimeWithMilliseconds(ctx context.Context) error {
	sc := get(ctx)
	v, err := s.field(sc, "created_at")
	if err != nil {
		return err
	}
	return s.plausible("data.created_at", v, sc.sentAt, sc.answered)
}

func (s *Steps) theSenderIs(ctx context.Context, name, email string) error {
	sc := get(ctx)
	sender, _ := envelope(sc)["sender"].(map[string]any)
	if sender["name"] != name || sender["email"] != email {
		return engine.Breaks(refCreateBody, "expected %s %q <%s>, got %s", engine.Field("sender"), name, email, engine.Seen(foreign(sender)))
	}
	return nil
}

// theSenderIsTheMerchantsConfiguredOne checks the sender against the
// name and e-mail the target's merchant is configured with (defaults.md
// C), given to the suite with --sender-name and --sender-email.
func (s *Steps) theSenderIsTheMerchantsConfiguredOne(ctx context.Context) error {
	if s.T.Sender.Name == "" || s.T.Sender.Email == "" {
		return s.notRun(ctx, "the merchant's sender was not given (--sender-name, --sender-email)")
	}
	return s.theSenderIs(ctx, s.T.Sender.Name, s.T.Sender.Email)
}

func (s *Steps) theDocumentsAreTitled(ctx context.Context, title string) error {
	sc := get(ctx)
	docs, _ := envelope(sc)["documents"].([]any)
	if len(docs) == 0 {
		return sc.answerBreaks("§2.2 documents", "expected documents, %s", sc.got())
	}
	for _, d := range docs {
		if doc, _ := d.(map[string]any); doc["title"] != title {
			return engine.Breaks("defaults §C bullet 1", "expected every document titled %q, got %s", engine.Want(title), engine.Seen(foreign(d)))
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
		// A key the documents do not name (a request id, say) may vary
		// from answer to answer like signature_id; that it is there is
		// compared, not its value.
		for k := range c {
			if k != "status_code" && k != "message" && k != "data" {
				c[k] = "(present)"
			}
		}
		out, _ := json.Marshal(c)
		return string(out)
	}
	if a, b := strip(sc.previous), strip(sc.resp); a != b || sc.previous == nil {
		return engine.Breaks(refDemoSame, "expected the same response but for signature_id, title and created_at:\n  earlier: %s\n  now:     %s", clip(a, 600), clip(b, 600))
	}
	return nil
}

// bindEnvelopeSentences registers the sentences whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (s *Steps) bindEnvelopeSentences(sc registrar) {
	sc.Step(engine.Compiled(`^a contract titled "([^"]*)"$`), s.aContractTitled)
	sc.Step(engine.Compiled(`^un contrato titulado "([^"]*)"$`), s.aContractTitled)
	sc.Step(engine.Compiled(`^a contract titled with the sample "([a-z]+)"$`), s.aContractTitledWithTheSample)
	sc.Step(engine.Compiled(`^un contrato titulado con la muestra "([a-z]+)"$`), s.aContractTitledWithTheSample)
	sc.Step(engine.Compiled(`^a "(DEMO_[A-Z]+)" contract titled with the sample "([a-z]+)"$`), s.aDemoContractTitledWithTheSample)
	sc.Step(engine.Compiled(`^un contrato "(DEMO_[A-Z]+)" titulado con la muestra "([a-z]+)"$`), s.aDemoContractTitledWithTheSample)
	sc.Step(engine.Compiled(`^a contract titled "([^"]*)" has been created$`), s.aContractTitledHasBeenCreated)
	sc.Step(engine.Compiled(`^que se ha creado un contrato titulado "([^"]*)"$`), s.aContractTitledHasBeenCreated)
	sc.Step(engine.Compiled(`^the body field "([^"]*)" is removed$`), s.theBodyFieldIsRemoved)
	sc.Step(engine.Compiled(`^se quita el campo "([^"]*)" del cuerpo$`), s.theBodyFieldIsRemoved)
	sc.Step(engine.Compiled(`^the body field "([^"]*)" is set to (.+)$`), s.theBodyFieldIsSetTo)
	sc.Step(engine.Compiled(`^el campo "([^"]*)" del cuerpo vale (.+)$`), s.theBodyFieldIsSetTo)
	sc.Step(engine.Compiled(`^the signers are sent in reverse order$`), s.theSignersAreSentInReverseOrder)
	sc.Step(engine.Compiled(`^los firmantes se envían en orden inverso$`), s.theSignersAreSentInReverseOrder)
	sc.Step(engine.Compiled(`^the contract is created$`), s.theContractIsCreated)
	sc.Step(engine.Compiled(`^se crea el contrato$`), s.theContractIsCreated)
	sc.Step(engine.Compiled(`^the response is a created signature envelope$`), s.theResponseIsACreatedSignatureEnvelope)
	sc.Step(engine.Compiled(`^la respuesta es un sobre de firma creado$`), s.theResponseIsACreatedSignatureEnvelope)
	sc.Step(engine.Compiled(`^the answer and its envelope hold exactly the fields of the interface, none null$`), s.theAnswerAndItsEnvelopeHoldExactlyTheFields)
	sc.Step(engine.Compiled(`^la respuesta y su sobre traen exactamente los campos de la interfaz, ninguno null$`), s.theAnswerAndItsEnvelopeHoldExactlyTheFields)
	sc.Step(engine.Compiled(`^signature_id is a UUID$`), s.signatureIDIsAUUID)
	sc.Step(engine.Compiled(`^signature_id es un UUID$`), s.signatureIDIsAUUID)
	sc.Step(engine.Compiled(`^its signature_id differs from the earlier contract's$`), s.itsSignatureIDDiffersFromTheEarlierContracts)
	sc.Step(engine.Compiled(`^su signature_id difiere del del contrato anterior$`), s.itsSignatureIDDiffersFromTheEarlierContracts)
	sc.Step(engine.Compiled(`^the envelope status is "([^"]*)"$`), s.theEnvelopeStatusIs)
	sc.Step(engine.Compiled(`^el estado del sobre es "([^"]*)"$`), s.theEnvelopeStatusIs)
	sc.Step(engine.Compiled(`^the envelope title is the title sent$`), s.theEnvelopeTitleIsTheTitleSent)
	sc.Step(engine.Compiled(`^el título del sobre es el título enviado$`), s.theEnvelopeTitleIsTheTitleSent)
	sc.Step(engine.Compiled(`^the routing is "([^"]*)"$`), s.theRoutingIs)
	sc.Step(engine.Compiled(`^el enrutamiento es "([^"]*)"$`), s.theRoutingIs)
	sc.Step(engine.Compiled(`^the sender has a name and a valid e-mail$`), s.theSenderHasANameAndAValidEmail)
	sc.Step(engine.Compiled(`^el remitente tiene nombre y un e-mail válido$`), s.theSenderHasANameAndAValidEmail)
	sc.Step(engine.Compiled(`^there is one document per template sent, keyed from document_0$`), s.thereIsOneDocumentPerTemplateSent)
	sc.Step(engine.Compiled(`^hay un documento por plantilla enviada, con claves desde document_0$`), s.thereIsOneDocumentPerTemplateSent)
	sc.Step(engine.Compiled(`^each document carries the title of its template$`), s.eachDocumentCarriesTheTitleOfItsTemplate)
	sc.Step(engine.Compiled(`^cada documento lleva el título de su plantilla$`), s.eachDocumentCarriesTheTitleOfItsTemplate)
	sc.Step(engine.Compiled(`^there is one recipient per signer, keyed from signer_1, each "([^"]*)"$`), s.thereIsOneRecipientPerSigner)
	sc.Step(engine.Compiled(`^hay un destinatario por firmante, con claves desde signer_1, cada uno "([^"]*)"$`), s.thereIsOneRecipientPerSigner)
	sc.Step(engine.Compiled(`^created_at is a UTC time with milliseconds, within the clock allowance$`), s.createdAtIsAUTCTimeWithMilliseconds)
	sc.Step(engine.Compiled(`^created_at es una hora UTC con milisegundos, dentro del margen de reloj$`), s.createdAtIsAUTCTimeWithMilliseconds)
	sc.Step(engine.Compiled(`^the sender is "([^"]*)" with e-mail "([^"]*)"$`), s.theSenderIs)
	sc.Step(engine.Compiled(`^el remitente es "([^"]*)" con e-mail "([^"]*)"$`), s.theSenderIs)
	sc.Step(engine.Compiled(`^the sender is the merchant's configured name and e-mail$`), s.theSenderIsTheMerchantsConfiguredOne)
	sc.Step(engine.Compiled(`^el remitente es el nombre y el e-mail configurados del comercio$`), s.theSenderIsTheMerchantsConfiguredOne)
	sc.Step(engine.Compiled(`^the documents are titled "([^"]*)"$`), s.theDocumentsAreTitled)
	sc.Step(engine.Compiled(`^los documentos se titulan "([^"]*)"$`), s.theDocumentsAreTitled)
	sc.Step(engine.Compiled(`^the response matches the earlier one but for signature_id, title and created_at$`), s.theResponseMatchesTheEarlierOne)
	sc.Step(engine.Compiled(`^la respuesta coincide con la anterior salvo signature_id, title y created_at$`), s.theResponseMatchesTheEarlierOne)
}
