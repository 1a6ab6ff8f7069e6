package reference_test

import (
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference/liberties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLibertiesAreListedAndCiteTheirGround(t *testing.T) {
	list := liberties.List()
	require.GreaterOrEqual(t, len(list), 20)
	classes := map[string]bool{liberties.ClassRouting: true, liberties.ClassLenient: true, liberties.ClassEmpty: true, liberties.ClassWording: true,
		liberties.ClassExtra: true, liberties.ClassFormat: true, liberties.ClassSchedule: true}
	areas := map[string]bool{liberties.AreaAuth: true, liberties.AreaEnvelope: true, liberties.AreaNotification: true, liberties.AreaAll: true}
	seen, perClass := map[string]bool{}, map[string]int{}
	for _, l := range list {
		assert.False(t, seen[l.Name], "liberty %s listed twice", l.Name)
		seen[l.Name] = true
		assert.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)+$`, l.Name)
		assert.True(t, classes[l.Class], "liberty %s: unknown class %q", l.Name, l.Class)
		assert.True(t, areas[l.Area], "liberty %s: unknown area %q", l.Name, l.Area)
		perClass[l.Class]++
		assert.Regexp(t, `(defaults §[A-F]|interface §\d|no document)`, l.Why, "liberty %s says which sentence allows it, or that none speaks of it", l.Name)
		assert.Greater(t, len(l.Description), 20, "liberty %s is described", l.Name)
	}
	for c := range classes {
		assert.GreaterOrEqual(t, perClass[c], 1, "class %s has a liberty", c)
	}
	_, err := liberties.New([]string{"no-such-liberty"})
	require.ErrorIs(t, err, liberties.ErrUnknownLiberty)
	d, err := liberties.New([]string{" ", ""})
	require.NoError(t, err)
	assert.Nil(t, d, "no liberty named: the reference's own choices")
}

// libertyCases say, for each liberty, an exchange that tells a server
// taking it from the reference's own: the same probes as the faults'.
func libertyCases() []faultCase {
	const authed, created = "200 Authenticated", "201 Signature request created"
	createdAt := func(faulty func(time.Time) string) func(*exchange, bool) any {
		return func(x *exchange, liberty bool) any {
			at := x.now.Add(10 * time.Millisecond)
			if liberty {
				return strconv.Quote(faulty(at))
			}
			return strconv.Quote(firmakit.FormatTime(at))
		}
	}
	contentType := func(a answer) string { return a.header.Get("Content-Type") }
	notifiedField := func(title, name string) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any {
			_, _, n := x.notified(t, title)
			return string(n[name])
		}
	}
	other := func(path, method string) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any {
			a := x.send(t, outgoing{path: path, method: method})
			mt, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
			return []string{strconv.Itoa(a.status), mt, a.header.Get("Location")}
		}
	}
	refusal := func(change func(map[string]any)) func(*testing.T, *exchange) any {
		return func(t *testing.T, x *exchange) any { return x.create(t, change).line() }
	}
	cases := []faultCase{
		{fault: "error-body-extra-keys",
			probe:   func(t *testing.T, x *exchange) any { return keys(x.send(t, outgoing{key: "firmakit_unknown"}).obj) },
			correct: []string{"message", "status_code"}, faulty: []string{"error", "message", "request_id", "status_code"}},
		{fault: "check-answer-extra-keys",
			probe:   func(t *testing.T, x *exchange) any { a := x.send(t, outgoing{}); return append(keys(a.obj), a.line()) },
			correct: []string{"message", "status_code", authed}, faulty: []string{"merchant_id", "message", "request_id", "status_code", authed}},
		{fault: "create-answer-extra-key",
			probe:   func(t *testing.T, x *exchange) any { a := x.create(t, nil); return append(keys(a.obj), a.line()) },
			correct: []string{"data", "message", "status_code", created}, faulty: []string{"data", "message", "request_id", "status_code", created}},
		{fault: "answers-indented",
			probe: func(t *testing.T, x *exchange) any {
				return strings.Contains(string(x.send(t, outgoing{}).raw), "\n  ")
			},
			correct: false, faulty: true},
		{fault: "answers-json-charset",
			probe:   func(t *testing.T, x *exchange) any { return contentType(x.send(t, outgoing{key: "firmakit_unknown"})) },
			correct: "application/json", faulty: "application/json; charset=utf-8"},
		{fault: "response-extra-headers",
			probe: func(t *testing.T, x *exchange) any {
				a := x.send(t, outgoing{})
				return []string{a.header.Get("Cache-Control"), strconv.FormatBool(a.header.Get("X-Request-Id") != "")}
			},
			correct: []string{"", "false"}, faulty: []string{"no-store", "true"}},
		{fault: "stdlib-405-text", probe: other("/v1/check/merchant_demo", http.MethodGet),
			correct: []string{"405", "application/json", ""}, faulty: []string{"405", "text/plain", ""}},
		{fault: "stdlib-404-text", probe: other("/v2/check/merchant_demo", ""),
			correct: []string{"404", "application/json", ""}, faulty: []string{"404", "text/plain", ""}},
		{fault: "stdlib-clean-path-redirect",
			probe: func(t *testing.T, x *exchange) any {
				noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				resp, err := noFollow.Post(x.s.URL()+"//check/merchant_demo", "application/json", strings.NewReader("{}"))
				require.NoError(t, err)
				resp.Body.Close()
				return []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Location")}
			},
			correct: []string{"404", ""}, faulty: []string{"301", "/check/merchant_demo"}},
		{fault: "timestamp-plus-sign",
			probe: func(t *testing.T, x *exchange) any {
				return []string{x.send(t, outgoing{ts: "+" + x.at(0)}).line(), x.send(t, outgoing{ts: "+" + x.at(-400*time.Second)}).line()}
			},
			correct: []string{"401 Request expired", "401 Request expired"}, faulty: []string{authed, "401 Request expired"}},
		{fault: "routing-empty-default",
			probe:   refusal(func(r map[string]any) { r["routing"] = "" }),
			correct: "400 routing must be parallel or sequential", faulty: created},
		{fault: "refusals-in-spanish",
			probe:   refusal(func(r map[string]any) { delete(r, "title") }),
			correct: "400 title is required", faulty: "400 el título es obligatorio"},
		{fault: "refusals-field-first",
			probe:   refusal(func(r map[string]any) { r["documents"] = []any{"x"} }),
			correct: "400 unknown document: x", faulty: "400 documents: no such template: x"},
		{fault: "missing-list-names-first-item",
			probe:   refusal(func(r map[string]any) { delete(r, "signers") }),
			correct: "400 signers is required", faulty: "400 missing signer: signer_1"},
		{fault: "signature-id-uppercase",
			probe: func(t *testing.T, x *exchange) any {
				id := str(x.create(t, nil).data()["signature_id"])
				return id == strings.ToUpper(id)
			},
			correct: false, faulty: true},
		{fault: "signature-id-uuid-v7",
			probe:   func(t *testing.T, x *exchange) any { return str(x.create(t, nil).data()["signature_id"])[14:15] },
			correct: "4", faulty: "7"},
		{fault: "event-id-prefixed",
			probe: func(t *testing.T, x *exchange) any {
				_, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				return regexp.MustCompile(`^evt_[0-9a-f]{24}$`).MatchString(str(n["event_id"]))
			},
			correct: false, faulty: true},
		{fault: "notification-extra-keys",
			probe: func(t *testing.T, x *exchange) any {
				_, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				return keys(n)
			},
			correct: notificationKeys(), faulty: sorted(append(notificationKeys(), "api_version", "livemode"))},
		{fault: "notification-created-at-seconds", probe: notifiedField("DEMO_SIGNED contrato 42", "created_at"),
			expect: createdAt(func(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05Z") })},
		{fault: "notification-created-at-offset", probe: notifiedField("DEMO_SIGNED contrato 42", "created_at"),
			expect: createdAt(func(at time.Time) string {
				return at.In(time.FixedZone("", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
			})},
		{fault: "notification-indented",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				return []bool{strings.Contains(string(h.body), "\n    "), verified(h, "whsec_test_demo")}
			},
			correct: []bool{false, true}, faulty: []bool{true, true}},
		{fault: "notification-extra-headers",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				return []string{h.header.Get("User-Agent"), strconv.FormatBool(verified(h, "whsec_test_demo"))}
			},
			correct: []string{"firmakit-reference/1", "true"}, faulty: []string{"Comercio-Webhooks/2.1", "true"}},
		{fault: "notification-json-charset",
			probe: func(t *testing.T, x *exchange) any {
				_, h, _ := x.notified(t, "DEMO_SIGNED contrato 42")
				return h.header.Get("Content-Type")
			},
			correct: "application/json", faulty: "application/json; charset=utf-8"},
		{fault: "reasons-own-words", probe: notifiedField("DEMO_REJECTED contrato 42", "reason"),
			correct: `"El firmante rechazó el contrato: no está de acuerdo con el monto (demo)"`, faulty: `"La persona firmante declinó firmar el documento"`},
		{fault: "document-url-query",
			probe: func(t *testing.T, x *exchange) any {
				_, _, n := x.notified(t, "DEMO_SIGNED contrato 42")
				u := str(n["document_url"])
				resp, err := http.Get(u)
				require.NoError(t, err)
				resp.Body.Close()
				return []string{strconv.FormatBool(strings.HasSuffix(u, "?download=1")), strconv.Itoa(resp.StatusCode)}
			},
			correct: []string{"false", "200"}, faulty: []string{"true", "200"}},
		{fault: "demo-delay-900ms",
			probe:   func(t *testing.T, x *exchange) any { return x.s.DemoDelay },
			correct: 10 * time.Millisecond, faulty: 900 * time.Millisecond},
		{fault: "retry-later-than-schedule",
			probe: func(t *testing.T, x *exchange) any {
				if x.s.Deviations == nil {
					return time.Second
				}
				return x.s.Deviations.RetryWait(nil, time.Second)
			},
			correct: time.Second, faulty: 1250 * time.Millisecond},
		{fault: "body-limit-before-auth",
			probe: func(t *testing.T, x *exchange) any {
				big := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
				return x.send(t, outgoing{body: &big, header: dropHeader(keyHeader)}).status
			},
			correct: http.StatusBadRequest, faulty: http.StatusRequestEntityTooLarge},
	}
	for i := range cases {
		cases[i].liberty = true
	}
	return cases
}

// TestEachLibertyDeviates opens, for each liberty, a server with the
// reference's own choices and one taking that liberty, makes the same
// exchange with both and checks that it deviates as the liberty says: a
// liberty that changed nothing would make the precision test prove
// nothing.
func TestEachLibertyDeviates(t *testing.T) {
	cases := libertyCases()
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.fault] = true
	}
	for _, l := range liberties.List() {
		assert.True(t, covered[l.Name], "liberty %s has no case", l.Name)
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel()
			good := openExchange(t, c, nil)
			bad := openExchange(t, c, []string{c.fault})
			correct, liberty := c.correct, c.faulty
			if c.expect != nil {
				correct, liberty = c.expect(good, false), c.expect(bad, true)
			}
			require.NotEqual(t, correct, liberty, "the case tells the liberty from the reference's own choice")
			assert.Equal(t, correct, c.probe(t, good), "the reference's own choice")
			assert.Equal(t, liberty, c.probe(t, bad), "with the liberty")
		})
	}
}

// TestRoutingIsOneOfTwoValuesWhenSent: routing is optional (parallel by
// default), but sent, it is parallel or sequential; null and "" are
// neither (defaults §C bullet 4).
func TestRoutingIsOneOfTwoValuesWhenSent(t *testing.T) {
	x := openExchange(t, faultCase{}, nil)
	for _, v := range []any{nil, "", "Parallel"} {
		assert.Equal(t, "400 routing must be parallel or sequential", x.create(t, func(r map[string]any) { r["routing"] = v }).line(), "%#v", v)
	}
	a := x.create(t, nil)
	assert.Equal(t, "201 Signature request created", a.line())
	assert.Equal(t, "parallel", str(a.data()["routing"]), "absent: the default")
}
