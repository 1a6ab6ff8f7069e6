package stdservice

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const vectorTime = 1763805600

func fixedClock() time.Time { return time.Unix(vectorTime, 0) }

func TestSignatureVectors(t *testing.T) {
	got := RequestSignature("test_secret_demo", "1763805600", "POST", "/v1/check/merchant_demo", []byte("{}"))
	if want := "93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b"; got != want {
		t.Errorf("request signature: got %s, want %s", got, want)
	}
	body := []byte(`{"event_id":"1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed","status":"SIGNED"}`)
	got = WebhookSignature("whsec_test_demo", 1763805600, body)
	if want := "6b3109b2514634299a90bacf612edd491330a0a5ac29d801182f782f74cb6e16"; got != want {
		t.Errorf("webhook signature: got %s, want %s", got, want)
	}
}

// req describes one request; signed builds it with the demo credential
// unless a field overrides the defaults.
type req struct {
	method, target, body string
	key, secret, ts      string
	sig                  string // overrides the computed signature
	signTarget           string // target used for signing, when it differs
	drop                 string // header left out
}

func (q req) build() *http.Request {
	if q.method == "" {
		q.method = http.MethodPost
	}
	if q.key == "" {
		q.key = "test_key_demo"
	}
	if q.secret == "" {
		q.secret = "test_secret_demo"
	}
	if q.ts == "" {
		q.ts = strconv.Itoa(vectorTime)
	}
	signTarget := q.target
	if q.signTarget != "" {
		signTarget = q.signTarget
	}
	sig := q.sig
	if sig == "" {
		sig = RequestSignature(q.secret, q.ts, q.method, signTarget, []byte(q.body))
	}
	r := httptest.NewRequest(q.method, q.target, strings.NewReader(q.body))
	r.Header.Set("Content-Type", "application/json")
	for name, v := range map[string]string{HeaderKey: q.key, HeaderTimestamp: q.ts, HeaderSignature: sig} {
		if name != q.drop {
			r.Header.Set(name, v)
		}
	}
	return r
}

func do(t *testing.T, h http.Handler, r *http.Request) (int, map[string]any) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body map[string]any
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("response is not a JSON object: %v: %s", err, w.Body)
		}
	}
	return w.Code, body
}

func TestCheck(t *testing.T) {
	cfg := DemoConfig()
	cfg.Now = fixedClock
	svc := New(cfg)
	defer svc.Close()

	const target = "/v1/check/merchant_demo"
	ts := func(d int) string { return strconv.Itoa(vectorTime + d) }
	valid := RequestSignature("test_secret_demo", ts(0), "POST", target, []byte("{}"))
	cases := []struct {
		name   string
		req    req
		status int
		msg    string // exact message, or "" to only require one
	}{
		{"valid", req{}, 200, "Authenticated"},
		{"upper-case hex signature", req{sig: strings.ToUpper(valid)}, 200, "Authenticated"},
		{"raw query is signed", req{target: target + "?a=1&b=%20"}, 200, "Authenticated"},
		{"300 s in the past", req{ts: ts(-300)}, 200, "Authenticated"},
		{"300 s in the future", req{ts: ts(300)}, 200, "Authenticated"},
		{"body with content", req{body: `{"ping": [1, 2]}`}, 200, "Authenticated"},
		{"no key", req{drop: HeaderKey}, 400, "Missing headers"},
		{"no timestamp", req{drop: HeaderTimestamp}, 400, "Missing headers"},
		{"no signature", req{drop: HeaderSignature}, 400, "Missing headers"},
		{"timestamp not a number", req{ts: "soon"}, 401, "Request expired"},
		{"301 s in the past", req{ts: ts(-301)}, 401, "Request expired"},
		{"301 s in the future", req{ts: ts(301)}, 401, "Request expired"},
		{"unknown key", req{key: "nope"}, 401, "Invalid credentials"},
		{"disabled key", req{key: "test_key_disabled", secret: "test_secret_disabled"}, 401, "Invalid credentials"},
		{"key of another merchant", req{key: "test_key_other", secret: "test_secret_other"}, 401, "Invalid credentials"},
		{"signature not hex", req{sig: "zz"}, 401, "Invalid signature"},
		{"wrong secret", req{secret: "other"}, 401, "Invalid signature"},
		{"query left out of the signature", req{target: target + "?a=1", signTarget: target}, 401, "Invalid signature"},
		{"expired before bad key", req{ts: "x", key: "nope"}, 401, "Request expired"},
		{"not JSON", req{body: "{"}, 400, ""},
		{"JSON but not an object", req{body: "[]"}, 400, ""},
		{"data after the object", req{body: "{} {}"}, 400, ""},
		{"empty body", req{body: " "}, 400, ""},
		{"body over 1 MiB", req{body: `{"x":"` + strings.Repeat("a", MaxBodyBytes) + `"}`}, 413, ""},
		{"unknown api version", req{target: "/v9/check/merchant_demo"}, 404, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.req.target == "" {
				c.req.target = target
			}
			if c.req.body == "" {
				c.req.body = "{}"
			}
			status, body := do(t, svc, c.req.build())
			if status != c.status {
				t.Fatalf("status: got %d %v, want %d", status, body, c.status)
			}
			if len(body) != 2 || body["status_code"] != float64(c.status) {
				t.Errorf("body: got %v, want exactly status_code %d and message", body, c.status)
			}
			msg, _ := body["message"].(string)
			if (c.msg != "" && msg != c.msg) || msg == "" {
				t.Errorf("message: got %q, want %q", msg, c.msg)
			}
		})
	}

	// Another method is ServeMux's own 405.
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: got %d, want 405", w.Code)
	}
}

const createBody = `{
  "title": "Contrato de arriendo 42",
  "documents": ["contrato_arriendo"],
  "signers": [
    {"key": "signer_2", "name": "Luis Soto", "email": "luis@example.com"},
    {"key": "signer_1", "name": "Ana Pérez", "email": "ana@example.com"}
  ],
  "data": {"nombre_arrendatario": "Ana Pérez", "monto_mensual": "450000"}
}`

// edit changes one field of createBody; a nil value removes it.
func edit(t *testing.T, field string, value any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(createBody), &m); err != nil {
		t.Fatal(err)
	}
	if value == nil {
		delete(m, field)
	} else {
		m[field] = value
	}
	b, _ := json.Marshal(m)
	return string(b)
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestCreate(t *testing.T) {
	cfg := DemoConfig()
	clock := time.Date(2026, 11, 22, 10, 0, 0, 512_345_678, time.FixedZone("CLT", -3*3600))
	cfg.Now = func() time.Time { return clock }
	svc := New(cfg)
	defer svc.Close()
	const target = "/v1/signature/merchant_demo"
	now := strconv.FormatInt(clock.Unix(), 10)
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, req{target: target, body: createBody, ts: now}.build())
	if w.Code != http.StatusCreated {
		t.Fatalf("create: got %d %s", w.Code, w.Body)
	}
	var resp createResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	env := resp.Data
	if !uuidV4.MatchString(env.SignatureID) {
		t.Errorf("signature_id %q is not a UUID v4", env.SignatureID)
	}
	env.SignatureID = ""
	want := Envelope{
		Status:     "PENDIENTE",
		Title:      "Contrato de arriendo 42",
		Routing:    "parallel",
		Sender:     Sender{Name: "Comercio Demo", Email: "contratos@comercio-demo.test"},
		Documents:  []EnvelopeDocument{{Key: "document_0", Title: "Contrato de arriendo"}},
		Recipients: []Recipient{{"signer_1", "Ana Pérez", "ana@example.com", "pending"}, {"signer_2", "Luis Soto", "luis@example.com", "pending"}},
		CreatedAt:  "2026-11-22T13:00:00.512Z",
	}
	got, _ := json.Marshal(env)
	wantJSON, _ := json.Marshal(want)
	if resp.StatusCode != 201 || resp.Message != "Signature request created" || !bytes.Equal(got, wantJSON) {
		t.Errorf("create:\ngot  %d %q %s\nwant 201 %q %s", resp.StatusCode, resp.Message, got, "Signature request created", wantJSON)
	}

	signers := func(s ...map[string]any) []any {
		out := make([]any, len(s))
		for i := range s {
			out[i] = s[i]
		}
		return out
	}
	ana := map[string]any{"key": "signer_1", "name": "Ana", "email": "ana@example.com"}
	luis := map[string]any{"key": "signer_2", "name": "Luis", "email": "luis@example.com"}
	refusals := []struct {
		name, body string
		status     int
		words      []string // the message must name the field and the fault
	}{
		{"routing sent as empty", edit(t, "routing", ""), 201, nil},
		{"sequential routing", edit(t, "routing", "sequential"), 201, nil},
		{"no title", edit(t, "title", nil), 400, []string{"title", "required"}},
		{"empty title", edit(t, "title", ""), 400, []string{"title", "required"}},
		{"unknown document", edit(t, "documents", []string{"x"}), 400, []string{"unknown document", "x"}},
		{"no documents", edit(t, "documents", []string{}), 400, []string{"documents"}},
		{"missing signer", edit(t, "signers", signers(ana)), 400, []string{"missing signer", "signer_2"}},
		{"signer twice", edit(t, "signers", signers(ana, ana, luis)), 400, []string{"signer_1", "twice"}},
		{"unknown signer", edit(t, "signers", signers(ana, luis, map[string]any{"key": "signer_3", "name": "X", "email": "x@example.com"})), 400, []string{"unknown signer", "signer_3"}},
		{"invalid email", edit(t, "signers", signers(map[string]any{"key": "signer_1", "name": "Ana", "email": "ana"}, luis)), 400, []string{"invalid email", "signer_1"}},
		{"missing data key", edit(t, "data", map[string]any{"nombre_arrendatario": "Ana"}), 400, []string{"missing data key", "monto_mensual"}},
		{"unknown data key", edit(t, "data", map[string]any{"nombre_arrendatario": "Ana", "monto_mensual": "1", "montto": "2"}), 400, []string{"unknown data key", "montto"}},
		{"bad routing", edit(t, "routing", "serial"), 400, []string{"routing", "serial"}},
		{"title not a string", edit(t, "title", 42), 400, []string{"title", "string"}},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			status, body := do(t, svc, req{target: target, body: c.body, ts: now}.build())
			if status != c.status || body["status_code"] != float64(c.status) {
				t.Fatalf("got %d %v, want %d", status, body, c.status)
			}
			msg, _ := body["message"].(string)
			for _, word := range c.words {
				if !strings.Contains(msg, word) {
					t.Errorf("message %q does not name %q", msg, word)
				}
			}
		})
	}
}

func TestDemoState(t *testing.T) {
	for title, want := range map[string]string{
		"DEMO_SIGNED contrato 42": "SIGNED",
		"DEMO_CANCELEDx":          "CANCELED",
		"DEMO_CREATED":            "CREATED",
		"demo_signed x":           "",
		"x DEMO_SIGNED":           "",
		" DEMO_SIGNED":            "",
		"DEMO_SIGNE":              "",
	} {
		if got, _ := demoState(title); got != want {
			t.Errorf("%q: got %q, want %q", title, got, want)
		}
	}
}

// verifyWebhook checks X-Service-Signature the way a merchant would.
func verifyWebhook(header, secret string, body []byte) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	want, _ := hex.DecodeString(WebhookSignature(secret, t, body))
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

type received struct {
	header string
	body   []byte
}

func TestDemoNotification(t *testing.T) {
	got := make(chan received, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Get(HeaderSignature), b}
	}))
	defer hook.Close()

	cfg := DemoConfig()
	cfg.DemoDelay = 10 * time.Millisecond
	cfg.WebhookSecrets = []string{"whsec_old", "whsec_test_demo"}
	cfg.WebhookURL = func(id string) string { return hook.URL + "/hooks/" + id }
	svc := New(cfg)
	defer svc.Close()
	api := httptest.NewServer(svc)
	defer api.Close()

	for _, c := range []struct{ prefix, state, extra string }{
		{"DEMO_SIGNED", "SIGNED", "document_url"},
		{"DEMO_REJECTED", "REJECTED", "reason"},
		{"DEMO_CREATED", "CREATED", ""},
	} {
		t.Run(c.state, func(t *testing.T) {
			body := edit(t, "title", c.prefix+" contrato 42")
			signed := req{target: "/v1/signature/merchant_demo", body: body, ts: strconv.FormatInt(time.Now().Unix(), 10)}.build()
			r, _ := http.NewRequest(http.MethodPost, api.URL+"/v1/signature/merchant_demo", strings.NewReader(body))
			r.Header = signed.Header
			resp, err := http.DefaultClient.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			var created createResponse
			json.NewDecoder(resp.Body).Decode(&created)
			resp.Body.Close()
			if resp.StatusCode != 201 {
				t.Fatalf("create: got %d", resp.StatusCode)
			}

			n := <-got
			if !verifyWebhook(n.header, "whsec_test_demo", n.body) {
				t.Fatalf("signature %q does not verify %s", n.header, n.body)
			}
			var p map[string]any
			if err := json.Unmarshal(n.body, &p); err != nil {
				t.Fatal(err)
			}
			if p["status"] != c.state || p["signature_id"] != created.Data.SignatureID || p["demo"] != true || !uuidV4.MatchString(p["event_id"].(string)) {
				t.Errorf("payload %s", n.body)
			}
			for _, k := range []string{"document_url", "reason"} {
				if _, has := p[k]; has != (k == c.extra) {
					t.Errorf("%s: key %s present=%v in %s", c.state, k, has, n.body)
				}
			}
			if c.extra != "document_url" {
				return
			}
			doc, err := http.Get(p["document_url"].(string))
			if err != nil {
				t.Fatal(err)
			}
			pdf, _ := io.ReadAll(doc.Body)
			doc.Body.Close()
			if doc.StatusCode != 200 || doc.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Errorf("document: got %d %q %.20q", doc.StatusCode, doc.Header.Get("Content-Type"), pdf)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	for _, c := range []struct {
		name     string
		failures int
		attempts int
		outcome  string
	}{
		{"delivered on the third attempt", 2, 3, "delivered"},
		{"failed after every retry", 100, 4, "failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var ids []string
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var p struct {
					EventID string `json:"event_id"`
				}
				json.NewDecoder(r.Body).Decode(&p)
				mu.Lock()
				defer mu.Unlock()
				ids = append(ids, p.EventID)
				if len(ids) <= c.failures {
					http.Error(w, "down", http.StatusServiceUnavailable)
				}
			}))
			defer hook.Close()
			cfg := DemoConfig()
			cfg.DemoDelay = time.Millisecond
			cfg.RetryWaits = []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond}
			cfg.WebhookURL = func(string) string { return hook.URL }
			svc := New(cfg)
			defer svc.Close()

			now := strconv.FormatInt(time.Now().Unix(), 10)
			if status, body := do(t, svc, req{target: "/v1/signature/merchant_demo", body: edit(t, "title", "DEMO_BOUNCED x"), ts: now}.build()); status != 201 {
				t.Fatalf("create: %d %v", status, body)
			}
			var d []Delivery
			for len(d) == 0 || d[0].Outcome == "pending" {
				time.Sleep(2 * time.Millisecond)
				d = svc.Deliveries()
			}
			mu.Lock()
			defer mu.Unlock()
			if d[0].Outcome != c.outcome || d[0].Attempts != c.attempts || len(ids) != c.attempts {
				t.Errorf("got %s after %d attempts (%d received), want %s after %d", d[0].Outcome, d[0].Attempts, len(ids), c.outcome, c.attempts)
			}
			for _, id := range ids {
				if id != d[0].Notification.EventID {
					t.Errorf("event_id changed between attempts: %v", ids)
				}
			}
		})
	}
}
