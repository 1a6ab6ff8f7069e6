package reference_test

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/liberties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	keyHeader = "X-Service-Key"
	tsHeader  = "X-Service-Timestamp"
	sigHeader = "X-Service-Signature"
)

var (
	uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	areas       = map[string]bool{refaults.AreaAuth: true, refaults.AreaEnvelope: true, refaults.AreaValidation: true, refaults.AreaNotification: true}
)

func TestFaultsAreListedAndDocumented(t *testing.T) {
	fs := refaults.List()
	require.GreaterOrEqual(t, len(fs), 45)
	perArea := map[string]int{}
	seen := map[string]bool{}
	for i, f := range fs {
		assert.False(t, seen[f.Name], "fault %s listed twice", f.Name)
		seen[f.Name] = true
		assert.True(t, areas[f.Area], "fault %s: unknown area %q", f.Name, f.Area)
		perArea[f.Area]++
		assert.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)+$`, f.Name)
		assert.True(t, strings.HasPrefix(f.Name, f.Area+"-"), "fault %s: the name starts with its area %s", f.Name, f.Area)
		assert.Regexp(t, `(defaults\.md|interface) `, f.Rule, "fault %s cites a rule of one of the two documents", f.Name)
		assert.Greater(t, len(f.Description), 20, "fault %s is described", f.Name)
		if i > 0 {
			prev := fs[i-1]
			assert.True(t, prev.Area < f.Area || (prev.Area == f.Area && prev.Name < f.Name), "sorted by area then name: %s before %s", prev.Name, f.Name)
		}
	}
	for a := range areas {
		assert.GreaterOrEqual(t, perArea[a], 8, "area %s", a)
	}
}

func TestOpenTakesEveryFault(t *testing.T) {
	var all []string
	for _, f := range refaults.List() {
		s := &reference.Server{Addr: "127.0.0.1:0"}
		require.NoError(t, openFaulty(s, []string{f.Name}), f.Name)
		require.NoError(t, s.Close())
		all = append(all, f.Name)
	}
	// Combined, and with the blanks and repeats a comma-separated flag gives.
	s := &reference.Server{Addr: "127.0.0.1:0"}
	require.NoError(t, openFaulty(s, append(all, "", " "+all[0]+" ")))
	require.NoError(t, s.Close())
}

// openFaulty opens s with the named faults switched on.
func openFaulty(s *reference.Server, names []string) error {
	d, err := refaults.New(names)
	if err != nil {
		return err
	}
	s.Deviations = d
	return s.Open()
}

func TestOpenRefusesAnUnknownFault(t *testing.T) {
	for _, tc := range []struct{ name, suggests string }{
		{"auth-tolerance-600", "auth-tolerance-600s"},
		{"notification-twise", "notification-twice"},
		{"envelope-http200", "envelope-http-200"},
		{"twice", "notification-twice"},
	} {
		s := &reference.Server{Addr: "127.0.0.1:0"}
		err := openFaulty(s, []string{"auth-tolerance-60s", tc.name})
		require.Error(t, err, tc.name)
		assert.True(t, errors.Is(err, refaults.ErrUnknownFault), err)
		assert.Contains(t, err.Error(), strconv.Quote(tc.name))
		assert.Contains(t, err.Error(), "did you mean")
		assert.Contains(t, err.Error(), tc.suggests)
		assert.Empty(t, s.URL(), "a refused server does not listen")
	}
	err := openFaulty(&reference.Server{Addr: "127.0.0.1:0"}, []string{"zzzzzzzzzzzzzzzz"})
	require.ErrorIs(t, err, refaults.ErrUnknownFault)
	assert.NotContains(t, err.Error(), "did you mean")
}

// TestVerifierFaultsKeepValidRequests: a fault of the verifier breaks its
// own rule only, so a plainly signed request still passes, except under
// the faults that cut a part every request signs.
func TestVerifierFaultsKeepValidRequests(t *testing.T) {
	for _, f := range refaults.List() {
		if f.Area != refaults.AreaAuth || f.Name == "auth-method-not-signed" || f.Name == "auth-timestamp-not-signed" {
			continue
		}
		x := openExchange(t, faultCase{}, []string{f.Name})
		assert.Equal(t, "200 Authenticated", x.send(t, outgoing{}).line(), f.Name)
		assert.Equal(t, "201 Signature request created", x.create(t, nil).line(), f.Name)
	}
}

// exchange is one server of a fault case, with its webhook endpoint and
// its fixed clock.
type exchange struct {
	s    *reference.Server
	sk   *sink
	now  time.Time
	seen int // notifications taken from sk
}

type faultCase struct {
	fault string
	// liberty tells that fault names a liberty (package liberties), not
	// a fault: the same probes show how each deviates.
	liberty  bool
	statuses []int // the webhook's answers, in order, then 200
	server   func(*reference.Server)
	// probe makes one exchange and returns what the fault's rule is about;
	// correct is what it returns on a correct server, faulty with the fault.
	probe           func(t *testing.T, x *exchange) any
	correct, faulty any
	// expect, when set, gives correct and faulty from the exchange, for
	// values that depend on its clock.
	expect func(x *exchange, faulty bool) any
}

func openExchange(t *testing.T, c faultCase, faults []string) *exchange {
	t.Helper()
	sk, url := newSink(t, c.statuses...)
	x := &exchange{sk: sk, now: time.Now()}
	x.s = openWithWebhook(t, url, func(s *reference.Server) {
		s.Clock = stoppedClock(func() time.Time { return x.now })
		// Short waits, unless the case is about them.
		s.DemoDelay = 10 * time.Millisecond
		s.RetrySchedule = []time.Duration{20 * time.Millisecond, 20 * time.Millisecond}
		var err error
		if c.liberty {
			s.Deviations, err = liberties.New(faults)
		} else {
			s.Deviations, err = refaults.New(faults)
		}
		require.NoError(t, err)
		if c.server != nil {
			c.server(s)
		}
	})
	return x
}

// outgoing is a request to the service, signed by the demo credential at
// the exchange's time unless a field says otherwise.
type outgoing struct {
	path        string // default the check endpoint of merchant_demo
	method      string // default POST; sent and signed
	body        *string
	key, secret string
	ts          string
	sign        func(rp *firmakit.RequestParts, p *firmakit.Profile) // change what is signed
	header      func(h http.Header)                                  // change the headers once signed
}

type answer struct {
	status int
	header http.Header
	raw    []byte
	obj    map[string]json.RawMessage // nil when the body is not a JSON object
}

// line is "<status> <message>", the way the interface names an answer.
func (a answer) line() string {
	return strconv.Itoa(a.status) + " " + str(a.obj["message"])
}

func (a answer) data() map[string]json.RawMessage {
	var d map[string]json.RawMessage
	_ = json.Unmarshal(a.obj["data"], &d)
	return d
}

func (x *exchange) send(t *testing.T, o outgoing) answer {
	t.Helper()
	if o.path == "" {
		o.path = "/v1/check/merchant_demo"
	}
	body := "{}"
	if o.body != nil {
		body = *o.body
	}
	if o.key == "" {
		o.key, o.secret = "test_key_demo", "test_secret_demo"
	}
	if o.ts == "" {
		o.ts = strconv.FormatInt(x.now.Unix(), 10)
	}
	if o.method == "" {
		o.method = http.MethodPost
	}
	p := firmakit.BundledProfile()
	rp := firmakit.RequestParts{Timestamp: o.ts, Method: o.method, RequestTarget: o.path, KeyID: o.key, Body: []byte(body)}
	if o.sign != nil {
		o.sign(&rp, p)
	}
	req, err := http.NewRequest(o.method, x.s.URL()+o.path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(keyHeader, o.key)
	req.Header.Set(tsHeader, o.ts)
	req.Header.Set(sigHeader, p.RequestSignature(o.secret, rp))
	if o.header != nil {
		o.header(req.Header)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	a.raw, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = json.Unmarshal(a.raw, &a.obj)
	return a
}

// createRequest is the create-signature body of defaults.md C, its
// signers out of order.
func createRequest() map[string]any {
	return map[string]any{
		"title":     "Contrato 42",
		"documents": []any{"contrato_arriendo"},
		"signers": []any{
			map[string]any{"key": "signer_2", "name": "Luis Soto", "email": "luis@example.com"},
			map[string]any{"key": "signer_1", "name": "Ana Pérez", "email": "ana@example.com"},
		},
		"data": map[string]any{"nombre_arrendatario": "Ana Pérez", "monto_mensual": "450000"},
	}
}

func (x *exchange) create(t *testing.T, change func(req map[string]any)) answer {
	t.Helper()
	req := createRequest()
	if change != nil {
		change(req)
	}
	b, err := json.Marshal(req)
	require.NoError(t, err)
	body := string(b)
	return x.send(t, outgoing{path: "/v1/signature/merchant_demo", body: &body})
}

func (x *exchange) createTitled(t *testing.T, title string) answer {
	t.Helper()
	a := x.create(t, func(r map[string]any) { r["title"] = title })
	require.Equal(t, http.StatusCreated, a.status, string(a.raw))
	return a
}

// notifications waits until total notifications have arrived since the
// exchange opened, or within has passed, and returns those that did.
func (x *exchange) notifications(total int, within time.Duration) []hit {
	deadline := time.After(within)
wait:
	for x.seen < total {
		select {
		case <-x.sk.got:
			x.seen++
		case <-deadline:
			break wait
		}
	}
	x.sk.mu.Lock()
	defer x.sk.mu.Unlock()
	return append([]hit(nil), x.sk.hits[:x.seen]...)
}

// notified creates a contract titled title and returns its first notification.
func (x *exchange) notified(t *testing.T, title string) (answer, hit, map[string]json.RawMessage) {
	t.Helper()
	a := x.createTitled(t, title)
	hs := x.notifications(x.seen+1, 3*time.Second)
	require.NotEmpty(t, hs, "no notification for %q", title)
	h := hs[len(hs)-1]
	var n map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(h.body, &n), string(h.body))
	return a, h, n
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func keys[V any](m map[string]V) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func verified(h hit, secret string) bool {
	return firmakit.BundledProfile().VerifyWebhook(h.header.Get(sigHeader), h.body, []string{secret}, time.Now()) == nil
}

func sorted(s []string) []string { sort.Strings(s); return s }

func ptr(s string) *string { return &s }

func without(parts []string, part string) []string {
	var out []string
	for _, p := range parts {
		if p != part {
			out = append(out, p)
		}
	}
	return out
}

func setHeader(name, v string) func(http.Header) { return func(h http.Header) { h.Set(name, v) } }
func dropHeader(name string) func(http.Header)   { return func(h http.Header) { h.Del(name) } }

func (x *exchange) at(d time.Duration) string { return strconv.FormatInt(x.now.Add(d).Unix(), 10) }

func envelopeKeys() []string {
	return []string{"created_at", "documents", "recipients", "routing", "sender", "signature_id", "status", "title"}
}

func notificationKeys() []string {
	return []string{"created_at", "demo", "document_url", "event_id", "merchant_id", "signature_id", "status", "title", "type"}
}

func faultCases() []faultCase {
	const expired, authed = "401 Request expired", "200 Authenticated"
	const invalidSig, invalidCreds = "401 Invalid signature", "401 Invalid credentials"
	const created = "201 Signature request created"
	offsets := func(x *exchange, t *testing.T, ds ...time.Duration) []string {
		var out []string
		for _, d := range ds {
			out = append(out, x.send(t, outgoing{ts: x.at(d)}).line())
		}
		return out
	}
	// signedBoth sends a request signed as the profile says, then the
	// same request signed the way the fault does.
	signedBoth := func(path string, body *string, faulty func(*firmakit.RequestParts, *firmakit.Profile)) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any {
			return []string{
				x.send(t, outgoing{path: path, body: body}).line(),
				x.send(t, outgoing{path: path, body: body, sign: faulty}).line(),
			}
		}
	}
	statuses := func(x *exchange, t *testing.T, bodies ...string) []int {
		var out []int
		for _, b := range bodies {
			out = append(out, x.send(t, outgoing{body: ptr(b)}).status)
		}
		return out
	}
	badSignature := outgoing{header: setHeader(sigHeader, "00")}
	dataOf := func(t *testing.T, x *exchange, change func(map[string]any)) map[string]json.RawMessage {
		a := x.create(t, change)
		require.Contains(t, []int{200, 201}, a.status, string(a.raw))
		return a.data()
	}
	createdAt := func(t *testing.T, x *exchange) any { return str(dataOf(t, x, nil)["created_at"]) }
	field := func(name string, change func(map[string]any)) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any { return string(dataOf(t, x, change)[name]) }
	}
	recipients := func(t *testing.T, x *exchange, key string) []string {
		var rs []map[string]string
		require.NoError(t, json.Unmarshal(dataOf(t, x, nil)["recipients"], &rs))
		var out []string
		for _, r := range rs {
			out = append(out, r[key])
		}
		return out
	}
	documents := func(t *testing.T, x *exchange, key string) []string {
		var ds []map[string]string
		require.NoError(t, json.Unmarshal(dataOf(t, x, nil)["documents"], &ds))
		var out []string
		for _, d := range ds {
			out = append(out, d[key])
		}
		return out
	}
	createLine := func(change func(map[string]any)) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any { return x.create(t, change).line() }
	}
	addSigner := func(key, email string) func(map[string]any) {
		return func(r map[string]any) {
			r["signers"] = append(r["signers"].([]any), map[string]any{"key": key, "name": "Otra Persona", "email": email})
		}
	}
	// otherVersionCreate sends a demo contract to two other version
	// segments of the create path: their statuses, then how many
	// notifications came.
	otherVersionCreate := func(t *testing.T, x *exchange) any {
		req := createRequest()
		req["title"] = "DEMO_SIGNED contrato 42"
		b, _ := json.Marshal(req)
		var out []int
		for _, v := range []string{"v2", ""} {
			out = append(out, x.send(t, outgoing{path: "/" + v + "/signature/merchant_demo", body: ptr(string(b))}).status)
		}
		return append(out, len(x.notifications(2, time.Second)))
	}
	notifiedField := func(title, name string) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any {
			_, _, n := x.notified(t, title)
			v, ok := n[name]
			if !ok {
				return "(absent)"
			}
			return string(v)
		}
	}
	hasField := func(title, name string) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any {
			_, _, n := x.notified(t, title)
			_, ok := n[name]
			return ok
		}
	}
	statesFor := func(title string) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any {
			x.createTitled(t, title)
			out := []string{}
			for _, h := range x.notifications(1, time.Second) {
				var n map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(h.body, &n))
				out = append(out, str(n["status"]))
			}
			return out
		}
	}
	// arrival names when the notification came, against the window of
	// defaults.md D, measured from both ends of the create request.
	arrival := func(t *testing.T, x *exchange) any {
		before := time.Now()
		x.createTitled(t, "DEMO_SIGNED contrato 42")
		after := time.Now()
		hs := x.notifications(1, 4*time.Second)
		require.Len(t, hs, 1)
		switch at := hs[0].at; {
		case at.Sub(before) < 300*time.Millisecond:
			return "before 300 ms"
		case at.Sub(after) > 1500*time.Millisecond:
			return "after 1500 ms"
		}
		return "within 300 to 1500 ms"
	}
	eventIDs := func(hs []hit) []string {
		var out []string
		for _, h := range hs {
			var n map[string]json.RawMessage
			_ = json.Unmarshal(h.body, &n)
			out = append(out, str(n["event_id"]))
		}
		return out
	}
	distinct := func(ids []string) int {
		m := map[string]bool{}
		for _, id := range ids {
			m[id] = true
		}
		return len(m)
	}
	slowRetry := func(s *reference.Server) { s.RetrySchedule = []time.Duration{400 * time.Millisecond} }
	realDelay := func(s *reference.Server) { s.DemoDelay = reference.DefaultDemoDelay }
	p := firmakit.BundledProfile()

	return []faultCase{
		// ---- auth ----
		{fault: "auth-empty-header-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return []string{
					x.send(t, outgoing{header: setHeader(sigHeader, "")}).line(),
					x.send(t, outgoing{header: setHeader(keyHeader, "")}).line(),
					x.send(t, outgoing{header: setHeader(tsHeader, "")}).line(),
				}
			},
			correct: []string{"400 Missing headers", "400 Missing headers", "400 Missing headers"},
			faulty:  []string{invalidSig, invalidCreds, expired}},
		{fault: "auth-missing-headers-401",
			probe:   func(t *testing.T, x *exchange) any { return x.send(t, outgoing{header: dropHeader(keyHeader)}).line() },
			correct: "400 Missing headers", faulty: "401 Missing headers"},
		{fault: "auth-missing-header-label",
			probe:   func(t *testing.T, x *exchange) any { return x.send(t, outgoing{header: dropHeader(sigHeader)}).line() },
			correct: "400 Missing headers", faulty: "400 Missing header"},
		{fault: "auth-future-timestamp-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return offsets(x, t, 400*time.Second, 86400*time.Second, -400*time.Second)
			},
			correct: []string{expired, expired, expired}, faulty: []string{authed, authed, expired}},
		{fault: "auth-old-timestamp-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return offsets(x, t, -400*time.Second, -86400*time.Second, 400*time.Second)
			},
			correct: []string{expired, expired, expired}, faulty: []string{authed, authed, expired}},
		{fault: "auth-tolerance-600s",
			probe: func(t *testing.T, x *exchange) any {
				return offsets(x, t, -301*time.Second, 301*time.Second, -601*time.Second)
			},
			correct: []string{expired, expired, expired}, faulty: []string{authed, authed, expired}},
		{fault: "auth-tolerance-60s",
			probe: func(t *testing.T, x *exchange) any {
				return offsets(x, t, -299*time.Second, 299*time.Second, -59*time.Second)
			},
			correct: []string{authed, authed, authed}, faulty: []string{expired, expired, authed}},
		{fault: "auth-timestamp-milliseconds-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{ts: strconv.FormatInt(x.now.UnixMilli(), 10)}).line()
			},
			correct: expired, faulty: authed},
		{fault: "auth-timestamp-lenient",
			probe: func(t *testing.T, x *exchange) any {
				return []string{x.send(t, outgoing{ts: x.at(0) + ".5"}).line(), x.send(t, outgoing{ts: "+" + x.at(0)}).line()}
			},
			correct: []string{expired, expired}, faulty: []string{authed, authed}},
		{fault: "auth-disabled-key-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{key: "test_key_disabled", secret: "test_secret_disabled"}).line()
			},
			correct: invalidCreds, faulty: authed},
		{fault: "auth-other-merchant-key-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{key: "test_key_other", secret: "test_secret_other"}).line()
			},
			correct: invalidCreds, faulty: authed},
		{fault: "auth-unknown-key-invalid-signature",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{key: "test_key_nope", secret: "x"}).line()
			},
			correct: invalidCreds, faulty: invalidSig},
		{fault: "auth-uppercase-signature-refused",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{header: func(h http.Header) { h.Set(sigHeader, strings.ToUpper(h.Get(sigHeader))) }}).line()
			},
			correct: authed, faulty: invalidSig},
		{fault: "auth-method-not-signed",
			probe: signedBoth("", nil, func(_ *firmakit.RequestParts, p *firmakit.Profile) {
				p.Request.StringToSign = without(p.Request.StringToSign, firmakit.PartMethod)
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-query-not-signed",
			probe: signedBoth("/v1/check/merchant_demo?ref=42", nil, func(rp *firmakit.RequestParts, _ *firmakit.Profile) {
				rp.RequestTarget = "/v1/check/merchant_demo"
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-target-decoded",
			probe: signedBoth("/v1/check/merchant_demo?nota=a%2Fb%20c", nil, func(rp *firmakit.RequestParts, _ *firmakit.Profile) {
				rp.RequestTarget = "/v1/check/merchant_demo?nota=a/b c"
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-body-reserialised",
			probe: signedBoth("", ptr(`{"b": 1, "a": "x"}`), func(rp *firmakit.RequestParts, _ *firmakit.Profile) {
				rp.Body = []byte(`{"a":"x","b":1}`)
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-timestamp-not-signed",
			probe: signedBoth("", nil, func(_ *firmakit.RequestParts, p *firmakit.Profile) {
				p.Request.StringToSign = without(p.Request.StringToSign, firmakit.PartTimestamp)
			}),
			correct: []string{authed, invalidSig}, faulty: []string{invalidSig, authed}},
		{fault: "auth-signature-prefix-compared",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{header: func(h http.Header) { h.Set(sigHeader, h.Get(sigHeader)[:16]+strings.Repeat("0", 48)) }}).line()
			},
			correct: invalidSig, faulty: authed},
		{fault: "auth-signature-before-credentials",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{key: "test_key_disabled", secret: "test_secret_disabled", header: setHeader(sigHeader, "00")}).line()
			},
			correct: invalidCreds, faulty: invalidSig},
		{fault: "auth-credentials-before-timestamp",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{key: "test_key_nope", secret: "x", ts: x.at(-400 * time.Second)}).line()
			},
			correct: expired, faulty: invalidCreds},
		{fault: "auth-timestamp-before-headers",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{ts: x.at(-400 * time.Second), header: dropHeader(keyHeader)}).line()
			},
			correct: "400 Missing headers", faulty: expired},
		{fault: "auth-json-before-signature",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{body: ptr(`{"a":`), header: setHeader(sigHeader, "00")}).line()
			},
			correct: invalidSig, faulty: "400 Body is not valid JSON: the body ends before the JSON value does"},
		{fault: "auth-error-status-code-mismatch",
			probe: func(t *testing.T, x *exchange) any {
				a := x.send(t, badSignature)
				return []string{strconv.Itoa(a.status), string(a.obj["status_code"])}
			},
			correct: []string{"401", "401"}, faulty: []string{"401", "400"}},
		{fault: "auth-error-text-plain",
			probe: func(t *testing.T, x *exchange) any {
				a := x.send(t, badSignature)
				mt, _, err := mime.ParseMediaType(a.header.Get("Content-Type"))
				require.NoError(t, err)
				return []string{mt, a.line()}
			},
			correct: []string{"application/json", invalidSig}, faulty: []string{"text/plain", invalidSig}},
		{fault: "auth-non-json-accepted",
			probe:   func(t *testing.T, x *exchange) any { return statuses(x, t, "nope", "", "{}{}") },
			correct: []int{400, 400, 400}, faulty: []int{200, 200, 200}},
		{fault: "auth-non-object-accepted",
			probe:   func(t *testing.T, x *exchange) any { return statuses(x, t, "[1,2]", `"x"`, "42", "null", "nope") },
			correct: []int{400, 400, 400, 400, 400}, faulty: []int{200, 200, 200, 200, 400}},
		{fault: "auth-invalid-json-500",
			probe: func(t *testing.T, x *exchange) any {
				return []string{x.send(t, outgoing{body: ptr(`{"a":`)}).line(), x.send(t, outgoing{body: ptr(`[1]`)}).line()}
			},
			correct: []string{"400 Body is not valid JSON: the body ends before the JSON value does", "400 Body must be a JSON object, got an array"},
			faulty:  []string{"500 Internal error", "400 Body must be a JSON object, got an array"}},
		{fault: "auth-no-body-limit",
			probe: func(t *testing.T, x *exchange) any {
				return statuses(x, t, `{"a":"`+strings.Repeat("x", 1<<20)+`"}`)
			},
			correct: []int{413}, faulty: []int{200}},
		{fault: "auth-body-limit-512k",
			probe: func(t *testing.T, x *exchange) any {
				// Exactly 1 MiB, which the limit allows, and 1 byte more, which it refuses.
				pad := strings.Repeat("x", 1<<20-len(`{"a":""}`))
				return statuses(x, t, `{"a":"`+pad+`"}`, `{"a":"`+pad+`x"}`)
			},
			correct: []int{200, 413}, faulty: []int{413, 413}},

		{fault: "auth-check-any-api-version",
			probe: func(t *testing.T, x *exchange) any {
				var out []int
				for _, v := range []string{"v2", "V1", "v1.0", ""} {
					out = append(out, x.send(t, outgoing{path: "/" + v + "/check/merchant_demo"}).status)
				}
				return out
			},
			correct: []int{404, 404, 404, 404}, faulty: []int{200, 200, 200, 200}},
		{fault: "auth-check-any-method",
			probe: func(t *testing.T, x *exchange) any {
				var out []string
				for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost} {
					out = append(out, strconv.Itoa(x.send(t, outgoing{method: m}).status))
				}
				return out
			},
			correct: []string{"405", "405", "405", "405", "200"}, faulty: []string{"200", "200", "200", "200", "200"}},
		{fault: "auth-create-any-method",
			probe: func(t *testing.T, x *exchange) any {
				b, _ := json.Marshal(createRequest())
				var out []int
				for _, m := range []string{http.MethodPut, http.MethodGet, http.MethodPost} {
					out = append(out, x.send(t, outgoing{method: m, path: "/v1/signature/merchant_demo", body: ptr(string(b))}).status)
				}
				return out
			},
			correct: []int{405, 405, 201}, faulty: []int{201, 201, 201}},
		{fault: "auth-merchant-id-case-insensitive",
			probe: func(t *testing.T, x *exchange) any {
				return []string{x.send(t, outgoing{path: "/v1/check/MERCHANT_DEMO"}).line(), x.send(t, outgoing{path: "/v1/check/merchant_demo_2"}).line()}
			},
			correct: []string{invalidCreds, invalidCreds}, faulty: []string{authed, invalidCreds}},

		// ---- envelope ----
		{fault: "envelope-extra-field",
			probe:   func(t *testing.T, x *exchange) any { return keys(dataOf(t, x, nil)) },
			correct: envelopeKeys(), faulty: sorted(append(envelopeKeys(), "merchant_id"))},
		{fault: "envelope-routing-missing",
			probe:   func(t *testing.T, x *exchange) any { return keys(dataOf(t, x, nil)) },
			correct: envelopeKeys(), faulty: without(envelopeKeys(), "routing")},
		{fault: "envelope-sender-null",
			probe:   field("sender", nil),
			correct: `{"name":"Comercio Demo","email":"contratos@comercio-demo.test"}`, faulty: "null"},
		{fault: "envelope-status-lowercase",
			probe:   field("status", nil),
			correct: `"PENDIENTE"`, faulty: `"pendiente"`},
		{fault: "envelope-title-collapsed",
			probe:   field("title", func(r map[string]any) { r["title"] = "  Contrato   de arriendo\t42 " }),
			correct: `"  Contrato   de arriendo\t42 "`, faulty: `"Contrato de arriendo 42"`},
		{fault: "envelope-title-truncated",
			probe: func(t *testing.T, x *exchange) any {
				return utf8.RuneCountInString(str(dataOf(t, x, func(r map[string]any) { r["title"] = strings.Repeat("ñ", 300) })["title"]))
			},
			correct: 300, faulty: 200},
		{fault: "envelope-title-ascii",
			probe:   field("title", func(r map[string]any) { r["title"] = "Contrato ñandú 😀" }),
			correct: `"Contrato ñandú 😀"`, faulty: `"Contrato ?and? ?"`},
		{fault: "envelope-recipients-request-order",
			probe:   func(t *testing.T, x *exchange) any { return recipients(t, x, "key") },
			correct: []string{"signer_1", "signer_2"}, faulty: []string{"signer_2", "signer_1"}},
		{fault: "envelope-recipient-status-uppercase",
			probe:   func(t *testing.T, x *exchange) any { return recipients(t, x, "status") },
			correct: []string{"pending", "pending"}, faulty: []string{"PENDING", "PENDING"}},
		{fault: "envelope-documents-from-1",
			probe:   func(t *testing.T, x *exchange) any { return documents(t, x, "key") },
			correct: []string{"document_0"}, faulty: []string{"document_1"}},
		{fault: "envelope-document-title-is-name",
			probe:   func(t *testing.T, x *exchange) any { return documents(t, x, "title") },
			correct: []string{"Contrato de arriendo"}, faulty: []string{"contrato_arriendo"}},
		{fault: "envelope-created-at-no-millis", probe: createdAt,
			expect: func(x *exchange, faulty bool) any {
				if faulty {
					return x.now.UTC().Format("2006-01-02T15:04:05Z")
				}
				return firmakit.FormatTime(x.now)
			}},
		{fault: "envelope-created-at-offset", probe: createdAt,
			expect: func(x *exchange, faulty bool) any {
				if faulty {
					return x.now.In(time.FixedZone("", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
				}
				return firmakit.FormatTime(x.now)
			}},
		{fault: "envelope-created-at-past", probe: createdAt,
			expect: func(x *exchange, faulty bool) any {
				if faulty {
					return firmakit.FormatTime(x.now.Add(-time.Hour))
				}
				return firmakit.FormatTime(x.now)
			}},
		{fault: "envelope-signature-id-not-uuid",
			probe: func(t *testing.T, x *exchange) any {
				a, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				id := str(a.data()["signature_id"])
				return []bool{uuidPattern.MatchString(id), str(n["signature_id"]) == id}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "envelope-signature-id-reused",
			probe: func(t *testing.T, x *exchange) any {
				a, b := str(dataOf(t, x, nil)["signature_id"]), str(dataOf(t, x, nil)["signature_id"])
				return []bool{uuidPattern.MatchString(a), a == b}
			},
			correct: []bool{true, false}, faulty: []bool{true, true}},
		{fault: "envelope-routing-ignored",
			probe: func(t *testing.T, x *exchange) any {
				return []string{
					string(dataOf(t, x, func(r map[string]any) { r["routing"] = "sequential" })["routing"]),
					string(dataOf(t, x, func(r map[string]any) { r["routing"] = "parallel" })["routing"]),
				}
			},
			correct: []string{`"sequential"`, `"parallel"`}, faulty: []string{`"parallel"`, `"parallel"`}},
		{fault: "envelope-http-200",
			probe: func(t *testing.T, x *exchange) any {
				a := x.create(t, nil)
				return []string{strconv.Itoa(a.status), string(a.obj["status_code"]), str(a.obj["message"])}
			},
			correct: []string{"201", "201", "Signature request created"}, faulty: []string{"200", "200", "Signature request created"}},
		{fault: "envelope-status-code-200",
			probe: func(t *testing.T, x *exchange) any {
				a := x.create(t, nil)
				return []string{strconv.Itoa(a.status), string(a.obj["status_code"])}
			},
			correct: []string{"201", "201"}, faulty: []string{"201", "200"}},
		{fault: "envelope-message-missing",
			probe:   func(t *testing.T, x *exchange) any { return keys(x.create(t, nil).obj) },
			correct: []string{"data", "message", "status_code"}, faulty: []string{"data", "status_code"}},
		{fault: "envelope-sender-email-invalid",
			probe:   field("sender", nil),
			correct: `{"name":"Comercio Demo","email":"contratos@comercio-demo.test"}`, faulty: `{"name":"Comercio Demo","email":"contratos at comercio-demo.test"}`},

		{fault: "auth-timestamp-leading-zero-refused",
			probe:   func(t *testing.T, x *exchange) any { return x.send(t, outgoing{ts: "0" + x.at(0)}).line() },
			correct: authed, faulty: expired},
		{fault: "auth-timestamp-spaces-ignored",
			probe: func(t *testing.T, x *exchange) any {
				ts := x.at(0)
				return x.send(t, outgoing{ts: ts[:5] + " " + ts[5:]}).line()
			},
			correct: expired, faulty: authed},
		{fault: "auth-content-type-parameters-refused",
			probe: func(t *testing.T, x *exchange) any {
				return []int{x.send(t, outgoing{header: setHeader("Content-Type", "application/json; charset=utf-8")}).status,
					x.send(t, outgoing{header: setHeader("Content-Type", "application/json")}).status}
			},
			correct: []int{200, 200}, faulty: []int{400, 200}},
		{fault: "auth-content-type-case-sensitive",
			probe: func(t *testing.T, x *exchange) any {
				return []int{x.send(t, outgoing{header: setHeader("Content-Type", "Application/JSON")}).status,
					x.send(t, outgoing{header: setHeader("Content-Type", "application/json; charset=UTF-8")}).status}
			},
			correct: []int{200, 200}, faulty: []int{400, 200}},
		{fault: "auth-trailing-data-accepted",
			probe:   func(t *testing.T, x *exchange) any { return statuses(x, t, "{}{}", "{} ]", "{} x", "[]{}") },
			correct: []int{400, 400, 400, 400}, faulty: []int{200, 200, 200, 400}},
		{fault: "auth-body-padding-refused",
			probe:   func(t *testing.T, x *exchange) any { return statuses(x, t, " {}", "\r\n{}\n", "{} ") },
			correct: []int{200, 200, 200}, faulty: []int{400, 400, 200}},
		{fault: "auth-create-body-limit-2mib",
			probe: func(t *testing.T, x *exchange) any {
				b, err := json.Marshal(createRequest())
				require.NoError(t, err)
				padded := string(b[:len(b)-1]) + strings.Repeat(" ", 1<<20+1-len(b)) + "}"
				return x.send(t, outgoing{path: "/v1/signature/merchant_demo", body: &padded}).status
			},
			correct: 413, faulty: 201},
		{fault: "auth-key-case-insensitive",
			probe: func(t *testing.T, x *exchange) any {
				return x.send(t, outgoing{key: "TEST_KEY_DEMO", secret: "test_secret_demo"}).line()
			},
			correct: "401 Invalid credentials", faulty: authed},
		{fault: "auth-check-json5-accepted",
			probe: func(t *testing.T, x *exchange) any {
				return statuses(x, t, `{"a":1,}`, `{/*c*/"a":1}`, `{'a':1}`, `{"a":NaN}`, `{"a":`)
			},
			correct: []int{400, 400, 400, 400, 400}, faulty: []int{200, 200, 200, 200, 400}},
		{fault: "auth-create-json5-accepted",
			probe: func(t *testing.T, x *exchange) any {
				b, err := json.Marshal(createRequest())
				require.NoError(t, err)
				body := string(b[:len(b)-1]) + ",}"
				return x.send(t, outgoing{path: "/v1/signature/merchant_demo", body: &body}).status
			},
			correct: 400, faulty: 201},
		{fault: "validation-email-plus-refused",
			probe: createLine(func(r map[string]any) {
				r["signers"].([]any)[0].(map[string]any)["email"] = "luis+contratos@example.com"
			}),
			correct: created, faulty: "400 invalid email for signer_2"},
		{fault: "validation-name-max-60",
			probe: createLine(func(r map[string]any) {
				r["signers"].([]any)[0].(map[string]any)["name"] = strings.Repeat("Luis Soto ", 7)
			}),
			correct: created, faulty: "400 name is required for signer_2"},
		{fault: "envelope-message-reworded",
			probe:   createLine(nil),
			correct: created, faulty: "201 Signature request accepted"},
		{fault: "envelope-sender-not-merchant",
			probe:   field("sender", nil),
			correct: `{"name":"Comercio Demo","email":"contratos@comercio-demo.test"}`, faulty: `{"name":"Servicio de Firma","email":"no-reply@firma.test"}`},
		{fault: "validation-message-without-field",
			probe: func(t *testing.T, x *exchange) any {
				return []string{
					x.create(t, func(r map[string]any) { delete(r, "title") }).line(),
					x.create(t, func(r map[string]any) { delete(r["data"].(map[string]any), "monto_mensual") }).line(),
					x.create(t, func(r map[string]any) { r["signers"].([]any)[1].(map[string]any)["email"] = "ana@" }).line(),
					x.create(t, func(r map[string]any) { r["documents"] = []any{"nope"} }).line(),
				}
			},
			correct: []string{"400 title is required", "400 missing data key: monto_mensual", "400 invalid email for signer_1", "400 unknown document: nope"},
			faulty:  []string{"400 a required field is missing", "400 missing data key", "400 invalid email", "400 unknown document"}},

		// ---- validation ----
		{fault: "validation-unknown-data-key-accepted",
			probe:   createLine(func(r map[string]any) { r["data"].(map[string]any)["montto"] = "1" }),
			correct: "400 unknown data key: montto", faulty: created},
		{fault: "validation-missing-data-key-accepted",
			probe:   createLine(func(r map[string]any) { delete(r["data"].(map[string]any), "monto_mensual") }),
			correct: "400 missing data key: monto_mensual", faulty: created},
		{fault: "validation-missing-signer-accepted",
			probe:   createLine(func(r map[string]any) { r["signers"] = r["signers"].([]any)[1:] }),
			correct: "400 missing signer: signer_2", faulty: created},
		{fault: "validation-duplicate-signer-accepted",
			probe:   createLine(addSigner("signer_1", "otra@example.com")),
			correct: "400 signer listed twice: signer_1", faulty: created},
		{fault: "validation-unknown-signer-accepted",
			probe:   createLine(addSigner("testigo", "testigo@example.com")),
			correct: "400 unknown signer: testigo", faulty: created},
		{fault: "validation-invalid-email-accepted",
			probe: createLine(func(r map[string]any) {
				r["signers"].([]any)[1].(map[string]any)["email"] = "ana@"
			}),
			correct: "400 invalid email for signer_1", faulty: created},
		{fault: "validation-unknown-document-accepted",
			probe:   createLine(func(r map[string]any) { r["documents"] = []any{"contrato_arriendo", "anexo"} }),
			correct: "400 unknown document: anexo", faulty: created},
		{fault: "validation-missing-title-accepted",
			probe:   createLine(func(r map[string]any) { delete(r, "title") }),
			correct: "400 title is required", faulty: created},
		{fault: "validation-wrong-type-500",
			probe: func(t *testing.T, x *exchange) any {
				return []string{
					x.create(t, func(r map[string]any) { r["title"] = 42 }).line(),
					x.create(t, func(r map[string]any) { r["signers"] = map[string]any{} }).line(),
					x.create(t, func(r map[string]any) { delete(r, "title") }).line(),
				}
			},
			correct: []string{"400 title must be a string", "400 signers must be an array of objects with key, name and email strings", "400 title is required"},
			faulty:  []string{"500 Internal error", "500 Internal error", "400 title is required"}},
		{fault: "validation-messages-reworded",
			probe: func(t *testing.T, x *exchange) any {
				return []string{
					x.create(t, func(r map[string]any) { delete(r, "title") }).line(),
					x.create(t, func(r map[string]any) { delete(r["data"].(map[string]any), "monto_mensual") }).line(),
					x.create(t, func(r map[string]any) { r["signers"].([]any)[1].(map[string]any)["email"] = "ana@" }).line(),
				}
			},
			correct: []string{"400 title is required", "400 missing data key: monto_mensual", "400 invalid email for signer_1"},
			faulty:  []string{"400 title missing", "400 data key missing: monto_mensual", "400 email not valid for signer_1"}},
		{fault: "validation-routing-unchecked",
			probe:   createLine(func(r map[string]any) { r["routing"] = "mixed" }),
			correct: "400 routing must be parallel or sequential", faulty: created},
		{fault: "validation-routing-case-insensitive",
			probe: func(t *testing.T, x *exchange) any {
				var out []string
				for _, v := range []string{"Parallel", " sequential", "mixed"} {
					a := x.create(t, func(r map[string]any) { r["routing"] = v })
					out = append(out, a.line()+" "+str(a.data()["routing"]))
				}
				return out
			},
			correct: []string{"400 routing must be parallel or sequential ", "400 routing must be parallel or sequential ", "400 routing must be parallel or sequential "},
			faulty:  []string{created + " parallel", created + " sequential", "400 routing must be parallel or sequential "}},
		{fault: "validation-create-any-version", probe: otherVersionCreate,
			correct: []int{404, 404, 0}, faulty: []int{201, 201, 2}},
		{fault: "validation-create-other-version-notifies", probe: otherVersionCreate,
			correct: []int{404, 404, 0}, faulty: []int{404, 404, 2}},

		// ---- notification ----
		{fault: "notification-immediate", server: realDelay, probe: arrival,
			correct: "within 300 to 1500 ms", faulty: "before 300 ms"},
		{fault: "notification-late", server: realDelay, probe: arrival,
			correct: "within 300 to 1500 ms", faulty: "after 1500 ms"},
		{fault: "notification-twice",
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				ids := eventIDs(x.notifications(2, time.Second))
				return []int{len(ids), distinct(ids)}
			},
			correct: []int{1, 1}, faulty: []int{2, 2}},
		{fault: "notification-never",
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(1, time.Second))
			},
			correct: 1, faulty: 0},
		{fault: "notification-redelivered",
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				ids := eventIDs(x.notifications(2, 3*time.Second))
				return []int{len(ids), distinct(ids)}
			},
			correct: []int{1, 1}, faulty: []int{2, 1}},
		{fault: "notification-content-type-text",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				return h.header.Get("Content-Type")
			},
			correct: "application/json", faulty: "text/plain; charset=utf-8"},
		{fault: "notification-wrong-merchant-id",
			probe: func(t *testing.T, x *exchange) any {
				_, h, n := x.notified(t, "DEMO_SIGNED contrato 42")
				return []any{str(n["merchant_id"]), verified(h, "whsec_test_demo")}
			},
			correct: []any{"merchant_demo", true}, faulty: []any{"other_merchant_demo", true}},
		{fault: "notification-wrong-type",
			probe:   notifiedField("DEMO_SIGNED contrato 42", "type"),
			correct: `"signature.status"`, faulty: `"signature.updated"`},
		{fault: "notification-title-collapsed",
			probe:   notifiedField("DEMO_SIGNED   con   espacios ", "title"),
			correct: `"DEMO_SIGNED   con   espacios "`, faulty: `"DEMO_SIGNED con espacios"`},
		// The notification's created_at is the time it is sent, DemoDelay
		// (10 ms) after the fixed clock.
		{fault: "notification-timestamp-stale",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				wh, err := p.ParseWebhookHeader(h.header.Get(sigHeader))
				require.NoError(t, err)
				ts, err := strconv.ParseInt(wh.Timestamp, 10, 64)
				require.NoError(t, err)
				return []any{ts - x.now.Unix(), verified(h, "whsec_test_demo")}
			},
			correct: []any{int64(0), true}, faulty: []any{int64(-250), true}},
		{fault: "notification-timestamp-milliseconds",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				wh, err := p.ParseWebhookHeader(h.header.Get(sigHeader))
				require.NoError(t, err)
				ts, err := strconv.ParseInt(wh.Timestamp, 10, 64)
				require.NoError(t, err)
				// v1 matches the t it carries, whatever its unit.
				ok := p.VerifyWebhook(h.header.Get(sigHeader), h.body, []string{"whsec_test_demo"}, time.Unix(ts, 0)) == nil
				return []any{ts == x.now.Unix(), ts == x.now.UnixMilli(), ok}
			},
			correct: []any{true, false, true}, faulty: []any{false, true, true}},
		{fault: "notification-no-retry", statuses: []int{503},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		{fault: "notification-signature-header-spaced",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				return strings.Contains(h.header.Get(sigHeader), ", v1=")
			},
			correct: false, faulty: true},
		{fault: "notification-3xx-delivered", statuses: []int{302},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		{fault: "notification-retry-after-204", statuses: []int{204},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(2, time.Second))
			},
			correct: 1, faulty: 2},
		{fault: "notification-no-retry-after-4xx", statuses: []int{404},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		{fault: "notification-no-retry-after-close", statuses: []int{hangUp},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(2, time.Second))
			},
			correct: 2, faulty: 1},
		// The webhook answers 200 after lateWait, past the timeout.
		{fault: "notification-late-2xx-counts", statuses: []int{lateOK},
			server: func(s *reference.Server) { s.DeliveryTimeout = lateWait / 3 },
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				return len(x.notifications(2, 3*lateWait))
			},
			correct: 2, faulty: 1},
		{fault: "notification-retry-schedule-flat", statuses: []int{503, 503},
			server: func(s *reference.Server) {
				s.RetrySchedule = []time.Duration{100 * time.Millisecond, 400 * time.Millisecond}
			},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				hs := x.notifications(3, 2*time.Second)
				require.Len(t, hs, 3)
				return hs[2].at.Sub(hs[1].at) >= 300*time.Millisecond
			},
			correct: true, faulty: false},
		{fault: "notification-retry-new-event-id", statuses: []int{503, 500},
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				ids := eventIDs(x.notifications(3, 2*time.Second))
				return []int{len(ids), distinct(ids)}
			},
			correct: []int{3, 1}, faulty: []int{3, 3}},
		{fault: "notification-retry-immediate", statuses: []int{503}, server: slowRetry,
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				hs := x.notifications(2, 2*time.Second)
				require.Len(t, hs, 2)
				return hs[1].at.Sub(hs[0].at) >= 400*time.Millisecond
			},
			correct: true, faulty: false},
		{fault: "notification-event-id-reused",
			probe: func(t *testing.T, x *exchange) any {
				x.createTitled(t, "DEMO_SIGNED contrato 42")
				x.createTitled(t, "DEMO_CREATED contrato 43")
				ids := eventIDs(x.notifications(2, 2*time.Second))
				require.Len(t, ids, 2)
				return []any{uuidPattern.MatchString(ids[0]), distinct(ids)}
			},
			correct: []any{true, 2}, faulty: []any{true, 1}},
		{fault: "notification-event-id-empty",
			probe: func(t *testing.T, x *exchange) any {
				_, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				id, isString := n["event_id"], json.Unmarshal(n["event_id"], new(string)) == nil
				return []bool{isString, uuidPattern.MatchString(str(id)), str(id) == ""}
			},
			correct: []bool{true, true, false}, faulty: []bool{true, false, true}},
		{fault: "notification-non-demo-title", probe: statesFor("Contrato 42"),
			correct: []string{}, faulty: []string{"CREATED"}},
		{fault: "notification-prefix-case-insensitive", probe: statesFor("demo_signed contrato"),
			correct: []string{}, faulty: []string{"SIGNED"}},
		{fault: "notification-prefix-anywhere", probe: statesFor("contrato DEMO_SIGNED"),
			correct: []string{}, faulty: []string{"SIGNED"}},
		{fault: "notification-wrong-state",
			probe: func(t *testing.T, x *exchange) any {
				return []any{notifiedField("DEMO_BOUNCED contrato 42", "status")(t, x), notifiedField("DEMO_SIGNED contrato 42", "status")(t, x)}
			},
			correct: []any{`"BOUNCED"`, `"SIGNED"`}, faulty: []any{`"REJECTED"`, `"SIGNED"`}},
		{fault: "notification-document-url-always", probe: hasField("DEMO_CREATED contrato 42", "document_url"),
			correct: false, faulty: true},
		{fault: "notification-document-url-missing", probe: hasField("DEMO_SIGNED contrato 42", "document_url"),
			correct: true, faulty: false},
		{fault: "notification-document-url-404",
			probe: func(t *testing.T, x *exchange) any {
				_, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				resp, err := http.Get(str(n["document_url"]))
				require.NoError(t, err)
				resp.Body.Close()
				return resp.StatusCode
			},
			correct: 200, faulty: 404},
		{fault: "notification-reason-missing", probe: hasField("DEMO_REJECTED contrato 42", "reason"),
			correct: true, faulty: false},
		{fault: "notification-reason-on-signed", probe: hasField("DEMO_SIGNED contrato 42", "reason"),
			correct: false, faulty: true},
		{fault: "notification-null-keys",
			probe: func(t *testing.T, x *exchange) any {
				return []any{notifiedField("DEMO_SIGNED contrato 42", "reason")(t, x), notifiedField("DEMO_CREATED contrato 42", "document_url")(t, x)}
			},
			correct: []any{"(absent)", "(absent)"}, faulty: []any{"null", "null"}},
		{fault: "notification-signature-id-mismatch",
			probe: func(t *testing.T, x *exchange) any {
				a, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				return []bool{str(n["signature_id"]) == str(a.data()["signature_id"]), uuidPattern.MatchString(str(n["signature_id"]))}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "notification-demo-false", probe: notifiedField("DEMO_SIGNED contrato 42", "demo"),
			correct: "true", faulty: "false"},
		{fault: "notification-signed-body-differs",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				compact := h
				compact.body = compactJSON(t, h.body)
				return []bool{verified(h, "whsec_test_demo"), verified(compact, "whsec_test_demo")}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "notification-wrong-secret",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				return verified(h, "whsec_test_demo")
			},
			correct: true, faulty: false},
		{fault: "notification-signature-uppercase",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				wh, err := p.ParseWebhookHeader(h.header.Get(sigHeader))
				require.NoError(t, err)
				require.Len(t, wh.Signatures, 1)
				return []bool{regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(wh.Signatures[0]), verified(h, "whsec_test_demo")}
			},
			correct: []bool{true, true}, faulty: []bool{false, true}},
		{fault: "notification-signature-header-renamed",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				var names []string
				for k := range h.header {
					if strings.Contains(k, "Signature") {
						names = append(names, k)
					}
				}
				return names
			},
			correct: []string{"X-Service-Signature"}, faulty: []string{"X-Webhook-Signature"}},
	}
}

// compactJSON removes the insignificant whitespace of a JSON text.
func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v json.RawMessage
	require.NoError(t, json.Unmarshal(b, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return out
}

// TestEachFaultDeviates opens, for each fault, a correct server and one
// with that fault alone, makes the same exchange with both over HTTP and
// checks that the faulty one deviates exactly as the fault says.
func TestEachFaultDeviates(t *testing.T) {
	cases := faultCases()
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.fault] = true
	}
	for _, f := range refaults.List() {
		assert.True(t, covered[f.Name], "fault %s has no case", f.Name)
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel()
			good := openExchange(t, c, nil)
			bad := openExchange(t, c, []string{c.fault})
			correct, faulty := c.correct, c.faulty
			if c.expect != nil {
				correct, faulty = c.expect(good, false), c.expect(bad, true)
			}
			require.NotEqual(t, correct, faulty, "the case tells the fault from a correct server")
			assert.Equal(t, correct, c.probe(t, good), "correct server")
			assert.Equal(t, faulty, c.probe(t, bad), "faulty server")
		})
	}
}
