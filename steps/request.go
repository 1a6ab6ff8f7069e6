package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// checkBody is the body of a check request: any JSON object will do.
func (s *Steps) checkBody() any { return map[string]any{} }

// createBody is a valid create-signature body for the target's template,
// as a map that the steps edit: the root package's builder, through JSON.
func (s *Steps) createBody(title string) map[string]any {
	b, _ := json.Marshal(firmakit.NewCreateRequest(s.T.Template, s.T.Data, title))
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	return body
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

// createVersion is the literal version segment of the create path
// (interface §4.2 and §9).
const createVersion = "v1"

// acceptedVersion is the version segment the endpoint takes.
func (s *Steps) acceptedVersion(sc *scenario) string {
	if sc.endpoint == "check" {
		return s.T.APIVersion
	}
	return createVersion
}

func (s *Steps) path(sc *scenario) string {
	version, merchant := s.acceptedVersion(sc), s.T.MerchantID
	if sc.version != nil {
		version = *sc.version
	}
	if sc.merchant != nil {
		merchant = *sc.merchant
	}
	if sc.endpoint == "check" {
		return "/" + version + "/check/" + merchant
	}
	return "/" + version + "/signature/" + merchant
}

// method is the HTTP method the request goes with, and is signed over.
func (sc *scenario) method() string {
	if sc.verb != "" {
		return sc.verb
	}
	return http.MethodPost
}

// bodyBytes is the body as it goes on the wire.
func (sc *scenario) bodyBytes() ([]byte, error) {
	if sc.rawBody != nil {
		return sc.rawBody, nil
	}
	return json.Marshal(sc.body)
}

// send signs and sends the scenario's request and keeps the answer. A
// transient answer (a rate limit, a gateway's 502, a broken connection:
// see Target.do) is not judged: the request is signed again with a fresh
// timestamp (an offset under test stays the same offset from the new
// now) and sent again; when no answer of the target's own comes, the
// scenario is inconclusive, never failed.
func (s *Steps) send(ctx context.Context, sc *scenario) error {
	body, err := sc.bodyBytes()
	if err != nil {
		return err
	}
	path := s.path(sc)
	target := path
	if sc.query != "" {
		target += "?" + sc.query
	}
	build := func(int) (*http.Request, error) {
		now := time.Now()
		if sc.offset != 0 {
			// Send just after a second ticks over, so that the time the
			// server reads is as close to the offset as the clock allows.
			if err := engine.SleepUntil(ctx, now.Truncate(time.Second).Add(time.Second+10*time.Millisecond)); err != nil {
				return nil, err
			}
			now = time.Now()
		}
		req, err := s.signedRequest(ctx, sc, now, target, path, body)
		if err != nil {
			return nil, err
		}
		sc.sent = describe(req, body, s.T.Profile)
		sc.sentAt = time.Now()
		return req, nil
	}
	unsure := func() {
		if sc.endpoint == "signature" && s.Ledger != nil {
			s.Ledger.Unsure(sc.title(), time.Now())
		}
	}
	ex, err := s.T.do(ctx, build, unsure)
	var rt *retryable
	switch {
	case errors.As(err, &rt):
		if rt.unreached {
			sc.inconclusiveKind = reports.FailureUnreachable
		}
		return s.inconclusive(ctx, "%v; sent: %s", rt, sc.sent)
	case err != nil:
		return fmt.Errorf("sent %s: %w", sc.sent, err)
	}
	sc.sentAt, sc.answered, sc.attempts, sc.persistent = ex.sentAt, ex.answered, ex.attempts, ex.persistent
	sc.raw, sc.status, sc.header = ex.body, ex.status, ex.header
	sc.resp = nil
	_ = json.Unmarshal(sc.raw, &sc.resp)
	if sc.endpoint == "signature" && sc.status == http.StatusCreated {
		s.noteCreated(ctx, sc)
		// Every 201's created_at has its form, not only the one a
		// scenario looks at: a fraction that loses its trailing zeros
		// shows on one contract in ten.
		if v, ok := envelope(sc)["created_at"].(string); ok && !millisUTC.MatchString(v) {
			return engine.Breaks("§2.2 created_at", "expected data.created_at of every 201 to be UTC with exactly three fraction digits and Z, like 2026-11-22T10:00:00.512Z, got %q; sent: %s", engine.Seen(clip(v, 100)), sc.sent)
		}
	}
	return nil
}

// signedRequest builds the scenario's request signed at now, with every
// alteration the scenario asked for.
func (s *Steps) signedRequest(ctx context.Context, sc *scenario, now time.Time, target, path string, body []byte) (*http.Request, error) {
	sc.stampSent = stampOff(now, sc.offset)
	ts := strconv.FormatInt(sc.stampSent, 10)
	if sc.stamp != nil {
		ts = sc.stamp(now)
	}
	sc.stampText = ts
	parts := firmakit.RequestParts{Timestamp: ts, Method: sc.method(), RequestTarget: target, KeyID: sc.cred.KeyID, Body: body}
	if sc.signBody != nil {
		parts.Body = sc.signBody
	}
	if sc.signPath != "" {
		parts.RequestTarget = sc.signPath
	}
	if sc.signQuery != nil {
		parts.RequestTarget = path
		if *sc.signQuery != "" {
			parts.RequestTarget += "?" + *sc.signQuery
		}
	}
	if sc.signVerb != "" {
		parts.Method = sc.signVerb
	}
	if sc.signStamp != nil {
		parts.Timestamp = sc.signStamp(now)
	}
	p := s.T.Profile
	sig := p.RequestSignature(sc.cred.Secret, parts)
	switch {
	case sc.badSig != "":
		sig = sc.badSig
	case sc.alterSig != "":
		var err error
		if sig, err = alterSignature(p, sig, sc.alterSig); err != nil {
			return nil, err
		}
	case sc.upperSig:
		sig = strings.ToUpper(sig)
	case sc.sigForm != nil:
		sig = sc.sigForm(sig)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if sc.contentType != "" {
		h.Set("Content-Type", sc.contentType)
	}
	h.Set(p.Request.KeyHeader, sc.cred.KeyID)
	h.Set(p.Request.TimestampHeader, ts)
	h.Set(p.Request.SignatureHeader, sig)
	if sc.nameCase != "" {
		// The map key is sent as written (HTTP/1.1), so a spelling that is
		// not canonical reaches the target as such.
		for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
			v := h[http.CanonicalHeaderKey(name)]
			delete(h, http.CanonicalHeaderKey(name))
			h[spell(name, sc.nameCase)] = v
		}
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
	req, err := http.NewRequestWithContext(ctx, sc.method(), strings.TrimRight(s.T.URL, "/")+target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = h
	if sc.chunked {
		// No length: the body goes chunked, and the target learns its
		// size only by reading it.
		req.ContentLength = -1
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = nil
	}
	return req, nil
}

// spell writes a header name in lower case, upper case or alternating
// case ("x-sErViCe-…"): the same name to any reader that follows HTTP.
func spell(name, how string) string {
	switch how {
	case "lower":
		return strings.ToLower(name)
	case "upper":
		return strings.ToUpper(name)
	}
	b := []byte(strings.ToLower(name))
	for i := range b {
		if i%2 == 1 && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// title is the title the scenario's create request carries.
func (sc *scenario) title() string {
	if m, ok := sc.body.(map[string]any); ok && sc.rawBody == nil {
		if t, ok := m["title"].(string); ok {
			return t
		}
	}
	return sc.titleSent
}

// noteCreated records a contract the target created, for the scenario,
// the receiver (which shows the delay since creation) and the ledger.
func (s *Steps) noteCreated(ctx context.Context, sc *scenario) {
	id, _ := envelope(sc)["signature_id"].(string)
	if id == "" {
		return
	}
	sc.created = id
	NoteSignatureID(ctx, id)
	title := sc.title()
	if s.Ledger != nil {
		s.Ledger.Created(id, title, sc.sentAt, sc.answered)
	}
	if n, ok := s.T.Notifications.(interface {
		NoteContract(context.Context, string, string) error
	}); ok {
		created, _ := envelope(sc)["created_at"].(string)
		_ = n.NoteContract(ctx, id, created)
	}
}

func (s *Steps) theRequestIsSent(ctx context.Context) error { return s.send(ctx, get(ctx)) }

// describe renders a request for a failure message. Signatures and keys
// are shown (they are what a merchant debugs); secrets never reach here.
func describe(r *http.Request, body []byte, p *firmakit.Profile) string {
	var hs []string
	for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		sent, v, ok := name, []string(nil), false
		for k, vs := range r.Header { // a name may be sent in another case
			if strings.EqualFold(k, name) {
				sent, v, ok = k, vs, true
			}
		}
		if ok {
			hs = append(hs, fmt.Sprintf("%s: %q", sent, strings.Join(v, ",")))
		} else {
			hs = append(hs, name+" (absent)")
		}
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		hs = append(hs, fmt.Sprintf("Content-Type: %q", ct))
	}
	return fmt.Sprintf("%s %s [%s] body %s", r.Method, r.URL.RequestURI(), strings.Join(hs, "; "), clip(string(body), 300))
}

// clip shortens s to at most n bytes without splitting a character, and
// escapes its control characters: an excerpt of what a target or an
// endpoint sent is shown in error messages, terminals, CI logs and
// reports, where an escape sequence or a line break of its own must not
// act.
func clip(s string, n int) string { return firmakit.Excerpt(s, n) }

// got is the scenario's answer, as an argument of a failure's message.
func (sc *scenario) got() engine.Answer {
	again := ""
	if sc.persistent != "" {
		again = " (" + sc.persistent + ")"
	}
	return answer{status: sc.status, label: sc.answerMessage(),
		text: fmt.Sprintf("got %d %s%s\n  sent: %s", sc.status, clip(strings.TrimSpace(string(sc.raw)), 500), again, sc.sent)}
}

// answer is the scenario's answer as a message's argument (engine.Answer):
// in full in the message, its status and label in the failure's facts.
type answer struct {
	status int
	label  string
	text   string
}

func (a answer) String() string { return a.text }
func (a answer) Status() int    { return a.status }
func (a answer) Label() string  { return a.label }

// stampAmbiguous tells, for a request sent with a timestamp off by an
// offset, whether the server may have seen it on either side of the
// tolerance: its clock was read somewhere between the request leaving and
// the answer coming back, and perhaps truncated to the second.
func (s *Steps) stampAmbiguous(sc *scenario) (string, bool) {
	if sc.offset == 0 || sc.sentAt.IsZero() {
		return "", false
	}
	tol := s.T.Profile.Request.Tolerance.Seconds()
	ts := float64(sc.stampSent)
	// The server read its clock between the request leaving and the
	// answer coming back, in whole seconds, truncated or rounded: the
	// earliest it may have read is the second the request left, the
	// latest the second after the answer came. The answer's time is the
	// later of the wall clock's and the sending's plus the round trip as
	// the monotonic clock measured it: a step of the wall clock back or
	// forward while the request was out (a virtual machine's clock
	// corrected under load) must not hide that the server may have read a
	// later time.
	answered := sc.sentAt.Add(max(sc.answered.Sub(sc.sentAt), 0))
	if wall := sc.answered.Round(0); wall.After(answered) {
		answered = wall
	}
	lo := float64(sc.sentAt.Unix()) - ts
	hi := math.Ceil(float64(answered.UnixNano())/1e9) - ts
	out := func(d float64) bool { return d > tol || d < -tol }
	if out(lo) == out(hi) {
		return "", false
	}
	return fmt.Sprintf("the request took %s ms, so the server's clock may have put the timestamp %.1f to %.1f s off, on both sides of the %.0f s tolerance", engine.Millis(sc.answered.Sub(sc.sentAt)), lo, hi, tol), true
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

// bindRequestSentences registers the sentences whose methods live in this file, the
// English and the Spanish one on the same method. Each file registers
// its own, so that godog reports a step at the file of its method.
func (s *Steps) bindRequestSentences(sc registrar) {
	sc.Step(engine.Compiled(`^a signed request to the "(check|signature)" endpoint$`), s.aSignedRequestToTheEndpoint)
	sc.Step(engine.Compiled(`^una solicitud firmada al endpoint "(check|signature)"$`), s.aSignedRequestToTheEndpoint)
	sc.Step(engine.Compiled(`^the request is sent$`), s.theRequestIsSent)
	sc.Step(engine.Compiled(`^se envía la solicitud$`), s.theRequestIsSent)
}

// answerMessage is the message of the answer's body, the API's shape
// {"status_code": …, "message": "…"}; "" when it has none.
func (sc *scenario) answerMessage() string {
	msg, _ := sc.resp["message"].(string)
	return msg
}
