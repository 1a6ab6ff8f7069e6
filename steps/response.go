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
	"strings"

	"github.com/firmakit/firmakit"
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

// apiShape checks an answer's content type and that its body is exactly
// {"status_code": <the HTTP status>, "message": <string>} plus, for a
// created contract, "data". It returns the message.
func (sc *scenario) apiShape(keys ...string) (string, error) { return sc.answerShape(true, keys) }

// answerShape is apiShape; when exact is false, keys beyond keys are
// allowed (the interface lists fields, the profile says "exactly").
func (sc *scenario) answerShape(exact bool, keys []string) (string, error) {
	if ct := sc.header.Get("Content-Type"); !jsonContentType(ct) {
		return "", fmt.Errorf("expected a JSON answer (Content-Type application/json), the Content-Type is %q; %s", ct, sc.got())
	}
	obj, err := object(sc.raw)
	if err != nil {
		return "", fmt.Errorf("expected a JSON object, %s", sc.got())
	}
	var extra []string
	if !exact {
		for k := range obj {
			if !slices.Contains(keys, k) {
				extra = append(extra, k)
			}
		}
	}
	if err := exactKeys("the answer", obj, keys, extra...); err != nil {
		return "", fmt.Errorf("%v; %s", err, sc.got())
	}
	code := string(bytes.TrimSpace(obj["status_code"]))
	if !integerLiteral.MatchString(code) || code != fmt.Sprint(sc.status) {
		return "", fmt.Errorf("expected status_code to be the integer %d, the HTTP status; %s", sc.status, sc.got())
	}
	var msg string
	if err := json.Unmarshal(obj["message"], &msg); err != nil {
		return "", fmt.Errorf("expected message to be a string; %s", sc.got())
	}
	return msg, nil
}

var apiKeys = []string{"status_code", "message"}

func (s *Steps) theResponseIs(ctx context.Context, status int, message string) error {
	sc := get(ctx)
	if why, ok := s.stampAmbiguous(sc); ok && sc.status != status {
		return s.inconclusive(ctx, "expected %d %q, got %d: %s", status, message, sc.status, why)
	}
	if sc.status != status {
		return fmt.Errorf("expected %d %q, %s", status, message, sc.got())
	}
	msg, err := sc.apiShape(apiKeys...)
	if err != nil {
		return err
	}
	if msg != message {
		return fmt.Errorf("expected message %q, %s", message, sc.got())
	}
	return nil
}

// theResponseStatusIs checks the status and the answer's shape; a check
// answered 200 must also say "Authenticated".
func (s *Steps) theResponseStatusIs(ctx context.Context, status int) error {
	sc := get(ctx)
	if why, ok := s.stampAmbiguous(sc); ok && sc.status != status {
		return s.inconclusive(ctx, "expected %d, got %d: %s", status, sc.status, why)
	}
	if sc.status != status {
		return fmt.Errorf("expected status %d, %s", status, sc.got())
	}
	keys := apiKeys
	if status == http.StatusCreated && sc.endpoint == "signature" {
		keys = append(keys, "data")
	}
	msg, err := sc.apiShape(keys...)
	if err != nil {
		return err
	}
	if status == http.StatusOK && sc.endpoint == "check" && msg != "Authenticated" {
		return fmt.Errorf("expected message %q, %s", "Authenticated", sc.got())
	}
	if status >= 400 && strings.TrimSpace(msg) == "" {
		return fmt.Errorf("expected a message saying what is wrong, %s", sc.got())
	}
	return nil
}

// authLabels are the answers of checks 1 to 4, which a refusal of the
// body must not borrow.
var authLabels = []string{firmakit.ErrMissingHeaders.Error(), firmakit.ErrExpired.Error(), firmakit.ErrInvalidCredentials.Error(), firmakit.ErrInvalidSignature.Error()}

func (s *Steps) theResponseIsA400NamingTheProblem(ctx context.Context) error {
	sc := get(ctx)
	if sc.status != http.StatusBadRequest {
		return fmt.Errorf("expected 400, %s", sc.got())
	}
	msg, err := sc.apiShape(apiKeys...)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return fmt.Errorf("expected a message naming the problem, %s", sc.got())
	}
	for _, l := range authLabels {
		if msg == l {
			return fmt.Errorf("expected a message naming the problem with the body, got the authentication label %q; %s", msg, sc.got())
		}
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

// theResponseIsARefusalInTheAPIsErrorShape accepts any 4xx in the API's
// error shape, with a message: for a request the documents do not accept
// without saying which status it gets. A 2xx accepts it, a 5xx is never
// an answer to client input (defaults.md A).
func (s *Steps) theResponseIsARefusalInTheAPIsErrorShape(ctx context.Context) error {
	sc := get(ctx)
	if sc.status < 400 || sc.status > 499 {
		return fmt.Errorf("expected a refusal, a 4xx, %s", sc.got())
	}
	msg, err := sc.apiShape(apiKeys...)
	if err != nil {
		return err
	}
	if strings.TrimSpace(msg) == "" {
		return fmt.Errorf("expected a message saying what is wrong, %s", sc.got())
	}
	return nil
}

// theResponseIsA400WhoseMessageNames is a 400 naming the problem whose
// message holds each comma-separated word, in any case: the field and the
// value at fault ({data-key}, {signer-N} and {template} are the target's).
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
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(w)) {
			return fmt.Errorf("expected a message naming %q (defaults.md C: the message names the field and the fault), %s", w, sc.got())
		}
	}
	return nil
}

// theResponseIsA400NamingTheField is a 400 naming the problem whose
// message names the field too (defaults.md C), in any case.
func (s *Steps) theResponseIsA400NamingTheField(ctx context.Context, field string) error {
	if err := s.theResponseIsA400NamingTheProblem(ctx); err != nil {
		return err
	}
	sc := get(ctx)
	if msg, _ := sc.resp["message"].(string); !strings.Contains(strings.ToLower(msg), strings.ToLower(field)) {
		return fmt.Errorf("expected a message naming the field %s, %s", field, sc.got())
	}
	return nil
}

// bindResponseSentences registers the sentences whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (s *Steps) bindResponseSentences(sc registrar) {
	sc.Step(`^the response is (\d+) "([^"]*)"$`, s.theResponseIs)
	sc.Step(`^la respuesta es (\d+) "([^"]*)"$`, s.theResponseIs)
	sc.Step(`^the response status is (\d+)$`, s.theResponseStatusIs)
	sc.Step(`^el estado de la respuesta es (\d+)$`, s.theResponseStatusIs)
	sc.Step(`^the response is a 400 naming the problem$`, s.theResponseIsA400NamingTheProblem)
	sc.Step(`^la respuesta es un 400 que nombra el problema$`, s.theResponseIsA400NamingTheProblem)
	sc.Step(`^the response is a 400 naming the field "([^"]*)"$`, s.theResponseIsA400NamingTheField)
	sc.Step(`^la respuesta es un 400 que nombra el campo "([^"]*)"$`, s.theResponseIsA400NamingTheField)
	sc.Step(`^the response is a 400 whose message names "([^"]*)"$`, s.theResponseIsA400WhoseMessageNames)
	sc.Step(`^la respuesta es un 400 cuyo mensaje nombra "([^"]*)"$`, s.theResponseIsA400WhoseMessageNames)
	sc.Step(`^the response is a refusal in the API's error shape$`, s.theResponseIsARefusalInTheAPIsErrorShape)
	sc.Step(`^la respuesta es un rechazo con la forma de error de la API$`, s.theResponseIsARefusalInTheAPIsErrorShape)
	sc.Step(`^the response message is "([^"]*)"$`, s.theResponseMessageIs)
	sc.Step(`^el mensaje de la respuesta es "([^"]*)"$`, s.theResponseMessageIs)
}
