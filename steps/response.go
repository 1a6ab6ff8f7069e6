package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps/engine"
)

// A response is judged by its whole shape first: a JSON content type, a
// JSON object with exactly the keys the documents name, none null, of the
// right types; then by its values.

// jsonContentType tells whether a Content-Type names JSON.
func jsonContentType(v string) bool {
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && mt == "application/json"
}

// object decodes a JSON object keeping each value's raw text.
func object(raw []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return obj, nil
}

// exactKeys reports keys missing from obj, keys it has beyond want and
// keys whose value is null; optional keys may be absent but never null.
func exactKeys(what string, obj map[string]json.RawMessage, want []string, optional ...string) error {
	allowed := map[string]bool{}
	var problems []string
	for _, k := range want {
		allowed[k] = true
		if _, ok := obj[k]; !ok {
			problems = append(problems, "no "+k)
		}
	}
	for _, k := range optional {
		allowed[k] = true
	}
	var extra []string
	for k, v := range obj {
		if !allowed[k] {
			extra = append(extra, k)
		} else if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			problems = append(problems, k+" is null")
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		problems = append(problems, "unexpected key "+k)
	}
	if len(problems) > 0 {
		sort.Strings(problems[:len(problems)-len(extra)])
		return fmt.Errorf("%s: %s (expected exactly %s)", what, strings.Join(problems, ", "), strings.Join(append(append([]string(nil), want...), optional...), ", "))
	}
	return nil
}

var integerLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// apiShape checks an answer's content type and that its body is the
// API's {"status_code": <the HTTP status>, "message": <string>}, plus
// "data" for a created contract (keys), and returns the message. What it
// checks is what ref states (the error body of defaults §A, the check's
// answer of §2.1, the 201 of defaults §C); keys beyond keys are a warning,
// since none of them says "exactly" of the answer's own keys.
func (sc *scenario) apiShape(ctx context.Context, ref string, keys ...string) (string, error) {
	if ct := sc.header.Get("Content-Type"); !jsonContentType(ct) {
		return "", engine.Breaks(refJSON, "expected a JSON answer (Content-Type application/json), the %s is %q; %s", engine.Field("Content-Type"), engine.Seen(clip(ct, 100)), sc.got())
	}
	obj, err := object(sc.raw)
	if err != nil {
		return "", engine.Breaks(ref, "expected a JSON object, %s", sc.got())
	}
	var extra []string
	for k := range obj {
		if !slices.Contains(keys, k) {
			extra = append(extra, k)
		}
	}
	if err := exactKeys("the answer", obj, keys, extra...); err != nil {
		return "", engine.Breaks(ref, "%v; %s", err, sc.got())
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		for i := range extra {
			extra[i] = clip(extra[i], 60)
		}
		engine.Warn(ctx, ref, "the documents show this answer with "+strings.Join(keys, ", ")+" and do not say \"exactly\", so more keys are allowed; a client that decodes strictly may refuse them",
			"the answer holds keys beyond %s: %s", strings.Join(keys, ", "), strings.Join(extra, ", "))
	}
	code := string(bytes.TrimSpace(obj["status_code"]))
	if !integerLiteral.MatchString(code) || code != fmt.Sprint(sc.status) {
		return "", engine.Breaks(ref, "expected %s to be the integer %d, the HTTP status; %s", engine.Field("status_code"), sc.status, sc.got())
	}
	var msg string
	if err := json.Unmarshal(obj["message"], &msg); err != nil {
		return "", engine.Breaks(ref, "expected %s to be a string; %s", engine.Field("message"), sc.got())
	}
	return msg, nil
}

var apiKeys = []string{"status_code", "message"}

// labelRef is the item of the documents that requires an answer's label:
// the check of defaults §A for its four labels, else the refusals of
// defaults §C (whose examples the reference's exact messages are).
func labelRef(label string) string {
	if r, ok := firmakit.RefusalLabeled(label); ok {
		return r.Ref
	}
	return refRefusal
}

func (s *Steps) theResponseIs(ctx context.Context, status int, message string) error {
	sc := get(ctx)
	ref := labelRef(message)
	if why, ok := s.stampAmbiguous(sc); ok && sc.status != status {
		return s.inconclusive(ctx, "expected %d %q, got %d: %s", status, message, sc.status, why)
	}
	if sc.status != status {
		return sc.answerBreaks(ref, "expected %s, %s", engine.Want(fmt.Sprintf("%d %q", status, message)), sc.got())
	}
	msg, err := sc.apiShape(ctx, refErrorBody, apiKeys...)
	if err != nil {
		return err
	}
	if msg != message {
		return sc.answerBreaks(ref, "expected %s %q, %s", engine.Field("message"), engine.Want(message), sc.got())
	}
	return nil
}

// theResponseIsOrAWarnedAcceptance is theResponseIs, but for an answer
// that accepts the request (the endpoint's success) with a warning
// instead of a failure: for a timestamp that is not in the profile's
// digits but names the current time and was signed as sent, whose
// acceptance lets nobody in.
func (s *Steps) theResponseIsOrAWarnedAcceptance(ctx context.Context, status int, message string) error {
	sc := get(ctx)
	if ok := sc.status == s.success(sc); !ok {
		return s.theResponseIs(ctx, status, message)
	}
	if _, err := sc.apiShape(ctx, s.successRef(sc), s.successKeys(sc)...); err != nil {
		return err
	}
	engine.Warn(ctx, labelRef(message), "it names the current time and was signed as sent, so no forgery or replay follows; but the header is base-10 ASCII digits, and a strict parser (digits only) is safer",
		"accepted the timestamp %q with %d instead of %d %q", clip(sc.stampText, 40), sc.status, status, message)
	return nil
}

// success is the status of an accepted request on the scenario's
// endpoint.
func (s *Steps) success(sc *scenario) int {
	if sc.endpoint == "signature" {
		return http.StatusCreated
	}
	return http.StatusOK
}

// successRef is the item that states the endpoint's success answer.
func (s *Steps) successRef(sc *scenario) string {
	if sc.endpoint == "signature" {
		return refCreateBody
	}
	return refCheckBody
}

// successKeys are the keys of the endpoint's success answer.
func (s *Steps) successKeys(sc *scenario) []string {
	if sc.endpoint == "signature" {
		return []string{"status_code", "message", "data"}
	}
	return apiKeys
}

// theResponseStatusIs checks the status and the answer's shape; a check
// answered 200 must also say "Authenticated".
func (s *Steps) theResponseStatusIs(ctx context.Context, status int) error {
	sc := get(ctx)
	ref := refCheckFails
	switch {
	case status == s.success(sc):
		ref = refCheckOK
		if sc.endpoint == "signature" {
			ref = refCreate
		}
	case status == http.StatusRequestEntityTooLarge:
		ref = refErrorBody
	}
	if why, ok := s.stampAmbiguous(sc); ok && sc.status != status {
		return s.inconclusive(ctx, "expected %d, got %d: %s", status, sc.status, why)
	}
	if sc.status != status {
		return sc.answerBreaks(ref, "expected status %s, %s", engine.Want(strconv.Itoa(status)), sc.got())
	}
	shape, keys := refErrorBody, apiKeys
	if status == s.success(sc) {
		shape, keys = s.successRef(sc), s.successKeys(sc)
	}
	msg, err := sc.apiShape(ctx, shape, keys...)
	if err != nil {
		return err
	}
	if status == http.StatusOK && sc.endpoint == "check" && msg != "Authenticated" {
		return sc.answerBreaks("§2.1 message", "expected message %q, %s", "Authenticated", sc.got())
	}
	if status >= 400 && strings.TrimSpace(msg) == "" {
		return sc.answerBreaks(refErrorBody, "expected a message saying what is wrong, %s", sc.got())
	}
	return nil
}

// authLabels are the answers of checks 1 to 4, which a refusal of the
// body must not borrow.
func authLabels() []string {
	var out []string
	for _, r := range firmakit.Refusals {
		out = append(out, r.Label())
	}
	return out
}

// bodyRef is the item that states the refusal of the scenario's body:
// check 5 of defaults §A for the check endpoint, the refusals of
// defaults §C for a create request.
func bodyRef(sc *scenario) string {
	if sc.endpoint == "check" || sc.rawBody != nil {
		return refCheck5
	}
	return refRefusal
}

func (s *Steps) theResponseIsA400NamingTheProblem(ctx context.Context) error {
	sc := get(ctx)
	ref := bodyRef(sc)
	if sc.status != http.StatusBadRequest {
		return sc.answerBreaks(ref, "expected 400, %s", sc.got())
	}
	msg, err := sc.apiShape(ctx, refErrorBody, apiKeys...)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return sc.answerBreaks(ref, "expected a message naming the problem, %s", sc.got())
	}
	for _, l := range authLabels() {
		if msg == l {
			return sc.answerBreaks(ref, "expected a message naming the problem with the body, got the authentication label %q; %s", msg, sc.got())
		}
	}
	return nil
}

func (s *Steps) theResponseMessageIs(ctx context.Context, want string) error {
	sc := get(ctx)
	if msg, _ := sc.resp["message"].(string); msg != want {
		return sc.answerBreaks(refCreateBody, "expected %s %q, %s", engine.Field("message"), engine.Want(want), sc.got())
	}
	return nil
}

// theRequestIsRefused judges the answer to a request the documents do
// not accept without naming its answer (another method, another version
// segment): a 2xx accepts it, which the path or method of the interface
// does not allow, and a 5xx is never an answer to client input (defaults
// §A). Any 4xx refuses it; in the API's error shape is the practice, a
// warning otherwise, and so is a redirect, which accepts nothing.
func (s *Steps) theRequestIsRefused(ctx context.Context) error {
	sc := get(ctx)
	ref := s.routeRef(sc)
	switch {
	case sc.status >= 200 && sc.status <= 299:
		return sc.answerBreaks(ref, "expected the request to be refused, a 4xx, %s", sc.got())
	case sc.status >= 500 || sc.status < 200:
		return sc.answerBreaks(refErrorBody, "expected a refusal, a 4xx: no client input may produce a 5xx, %s", sc.got())
	case sc.status >= 300 && sc.status <= 399:
		engine.Warn(ctx, ref, "nothing was accepted, and the documents name no answer for this request; a 4xx in the API's error shape would tell a client what is wrong",
			"answered %d (a redirect to %q) instead of a 4xx", sc.status, clip(sc.header.Get("Location"), 120))
		return nil
	}
	if ct := sc.header.Get("Content-Type"); !jsonContentType(ct) {
		engine.Warn(ctx, refErrorBody, "the documents describe the error bodies of the merchant endpoints; the same JSON body here would let a client read every refusal alike",
			"refused with %d and a body that is not JSON (Content-Type %q): %s", sc.status, clip(ct, 60), clip(strings.TrimSpace(string(sc.raw)), 120))
		return nil
	}
	obj, err := object(sc.raw)
	if err != nil || obj["status_code"] == nil || obj["message"] == nil {
		engine.Warn(ctx, refErrorBody, "the documents describe the error bodies of the merchant endpoints; the same JSON body here would let a client read every refusal alike",
			"refused with %d and a body that is not the API's error shape: %s", sc.status, clip(strings.TrimSpace(string(sc.raw)), 120))
		return nil
	}
	msg, err := sc.apiShape(ctx, refErrorBody, apiKeys...)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return sc.answerBreaks(refErrorBody, "expected a message saying what is wrong, %s", sc.got())
	}
	return nil
}

// routeRef is the item that states where the scenario's request may go:
// the method or the path of its endpoint.
func (s *Steps) routeRef(sc *scenario) string {
	switch {
	case sc.verb != "" && sc.endpoint == "check":
		return "§4.1 Method"
	case sc.verb != "":
		return "§4.2 Method"
	case sc.merchant != nil:
		return "defaults §A check 3"
	case sc.endpoint == "check":
		return "defaults §F api_version accepted on the check path"
	}
	return "§9 bullet 2"
}

// fieldNames are, for each field of the create body, the words a refusal
// may name it by: the field, its singular (the profile's own examples say
// "missing signer: signer_2"), and its Spanish names, the documentation
// being in both languages (interface §1).
var fieldNames = map[string][]string{
	"title":     {"title", "título", "titulo"},
	"documents": {"documents", "document", "documento", "plantilla", "template"},
	"signers":   {"signers", "signer", "firmante"},
	"data":      {"data", "dato"},
	"routing":   {"routing", "enrutamiento", "ruteo"},
	"email":     {"email", "e-mail", "correo"},
}

// names tells whether a refusal's message names w: the word itself, in
// any case, or another name of the same field (fieldNames), or, for a
// part that was left out, one of the keys it held.
func (sc *scenario) names(msg, w string) bool {
	msg = strings.ToLower(msg)
	words := append([]string{w}, fieldNames[w]...)
	if slices.Contains(sc.removedFields, w) {
		words = append(words, sc.removedKeys...)
	}
	for _, n := range words {
		if strings.Contains(msg, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

// theResponseIsA400WhoseMessageNames is a 400 naming the problem whose
// message names each comma-separated word, as names says: the field and
// the value at fault ({data-key}, {signer-N} and {template} are the
// target's).
func (s *Steps) theResponseIsA400WhoseMessageNames(ctx context.Context, words string) error {
	if err := s.theResponseIsA400NamingTheProblem(ctx); err != nil {
		return err
	}
	sc := get(ctx)
	msg, _ := sc.resp["message"].(string)
	for _, w := range strings.Split(words, ",") {
		w, why := s.placeholders(strings.TrimSpace(w))
		if why != "" {
			return s.notRun(ctx, why)
		}
		if !sc.names(msg, w) {
			return sc.answerBreaks(refRefusal, "expected a message naming %q (the message names the field and the fault), %s", w, sc.got())
		}
	}
	return nil
}

// theResponseIsA400NamingTheField is a 400 naming the problem whose
// message names the field too (defaults.md C), as names says.
func (s *Steps) theResponseIsA400NamingTheField(ctx context.Context, field string) error {
	if err := s.theResponseIsA400NamingTheProblem(ctx); err != nil {
		return err
	}
	sc := get(ctx)
	if msg, _ := sc.resp["message"].(string); !sc.names(msg, field) {
		return sc.answerBreaks(refRefusal, "expected a message naming the field %s, %s", field, sc.got())
	}
	return nil
}

// theResponseIsA400NamingTheFieldOrADefault is a 400 naming the field,
// or, for an optional value sent empty or null, a contract created with
// the field's default: taking it as absent loses nothing and lets nobody
// in, so it is a warning for an empty value, and nothing for null, which
// JSON readers commonly take for absent.
func (s *Steps) theResponseIsA400NamingTheFieldOrADefault(ctx context.Context, field, def string) error {
	sc := get(ctx)
	if sc.status != http.StatusCreated {
		return s.theResponseIsA400NamingTheField(ctx, field)
	}
	if err := s.theResponseIsACreatedSignatureEnvelope(ctx); err != nil {
		return err
	}
	if v, _ := envelope(sc)[field].(string); v != def {
		return sc.answerBreaks(refRouting, "expected a 400 naming %s, or a contract with the default %s %q, got a contract with %s %q; %s", field, field, def, field, clip(v, 60), sc.got())
	}
	body, _ := sc.body.(map[string]any)
	if body[field] == nil {
		return nil // null is no value: taking it as absent is JSON's own reading
	}
	sent, _ := json.Marshal(body[field])
	engine.Warn(ctx, refRouting, "an optional value sent empty taken as absent loses nothing, but refusing it with a 400 tells a client that its value went missing",
		"took %s %s as absent, and created the contract with the default %q", field, clip(string(sent), 40), def)
	return nil
}

// bindResponseSentences registers the sentences whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (s *Steps) bindResponseSentences(sc registrar) {
	sc.Step(engine.Compiled(`^the response is (\d+) "([^"]*)"$`), s.theResponseIs)
	sc.Step(engine.Compiled(`^la respuesta es (\d+) "([^"]*)"$`), s.theResponseIs)
	sc.Step(engine.Compiled(`^the response status is (\d+)$`), s.theResponseStatusIs)
	sc.Step(engine.Compiled(`^el estado de la respuesta es (\d+)$`), s.theResponseStatusIs)
	sc.Step(engine.Compiled(`^the response is a 400 naming the problem$`), s.theResponseIsA400NamingTheProblem)
	sc.Step(engine.Compiled(`^la respuesta es un 400 que nombra el problema$`), s.theResponseIsA400NamingTheProblem)
	sc.Step(engine.Compiled(`^the response is a 400 naming the field "([^"]*)"$`), s.theResponseIsA400NamingTheField)
	sc.Step(engine.Compiled(`^la respuesta es un 400 que nombra el campo "([^"]*)"$`), s.theResponseIsA400NamingTheField)
	sc.Step(engine.Compiled(`^the response is a 400 whose message names "([^"]*)"$`), s.theResponseIsA400WhoseMessageNames)
	sc.Step(engine.Compiled(`^la respuesta es un 400 cuyo mensaje nombra "([^"]*)"$`), s.theResponseIsA400WhoseMessageNames)
	sc.Step(engine.Compiled(`^the request is refused \(a 4xx, best in the API's error shape\)$`), s.theRequestIsRefused)
	sc.Step(engine.Compiled(`^la solicitud se rechaza \(un 4xx, mejor con la forma de error de la API\)$`), s.theRequestIsRefused)
	sc.Step(engine.Compiled(`^the response is (\d+) "([^"]*)", or an acceptance that is only a warning$`), s.theResponseIsOrAWarnedAcceptance)
	sc.Step(engine.Compiled(`^la respuesta es (\d+) "([^"]*)", o una aceptación que solo es una advertencia$`), s.theResponseIsOrAWarnedAcceptance)
	sc.Step(engine.Compiled(`^the response is a 400 naming the field "([^"]*)", or a contract routed "([^"]*)" with a warning$`), s.theResponseIsA400NamingTheFieldOrADefault)
	sc.Step(engine.Compiled(`^la respuesta es un 400 que nombra el campo "([^"]*)", o un contrato con enrutamiento "([^"]*)" con una advertencia$`), s.theResponseIsA400NamingTheFieldOrADefault)
	sc.Step(engine.Compiled(`^the response message is "([^"]*)"$`), s.theResponseMessageIs)
	sc.Step(engine.Compiled(`^el mensaje de la respuesta es "([^"]*)"$`), s.theResponseMessageIs)
}
