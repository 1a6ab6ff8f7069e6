package liberties_test

import (
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/internal/reftest"
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
func libertyCases() []libertyCase {
	const authed, created = "200 Authenticated", "201 Signature request created"
	createdAt := func(faulty func(time.Time) string) func(*reftest.Exchange, bool) any {
		return func(x *reftest.Exchange, liberty bool) any {
			at := x.Now.Add(10 * time.Millisecond)
			if liberty {
				return strconv.Quote(faulty(at))
			}
			return strconv.Quote(firmakit.FormatTime(at))
		}
	}
	contentType := func(a reftest.Answer) string { return a.Header.Get("Content-Type") }
	notifiedField := func(title, name string) func(*testing.T, *reftest.Exchange) any {
		return func(t *testing.T, x *reftest.Exchange) any {
			_, _, n := x.Notified(t, title)
			return string(n[name])
		}
	}
	other := func(path, method string) func(*testing.T, *reftest.Exchange) any {
		return func(t *testing.T, x *reftest.Exchange) any {
			a := x.Send(t, reftest.Request{Path: path, Method: method})
			mt, _, _ := mime.ParseMediaType(a.Header.Get("Content-Type"))
			return []string{strconv.Itoa(a.Status), mt, a.Header.Get("Location")}
		}
	}
	refusal := func(change func(map[string]any)) func(*testing.T, *reftest.Exchange) any {
		return func(t *testing.T, x *reftest.Exchange) any { return x.Create(t, change).Line() }
	}
	cases := []libertyCase{
		{liberty: "error-body-extra-keys",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return reftest.Keys(x.Send(t, reftest.Request{Key: "firmakit_unknown"}).Obj)
			},
			correct: []string{"message", "status_code"}, taken: []string{"error", "message", "request_id", "status_code"}},
		{liberty: "check-answer-extra-keys",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Send(t, reftest.Request{})
				return append(reftest.Keys(a.Obj), a.Line())
			},
			correct: []string{"message", "status_code", authed}, taken: []string{"merchant_id", "message", "request_id", "status_code", authed}},
		{liberty: "create-answer-extra-key",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Create(t, nil)
				return append(reftest.Keys(a.Obj), a.Line())
			},
			correct: []string{"data", "message", "status_code", created}, taken: []string{"data", "message", "request_id", "status_code", created}},
		{liberty: "answers-indented",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return strings.Contains(string(x.Send(t, reftest.Request{}).Raw), "\n  ")
			},
			correct: false, taken: true},
		{liberty: "answers-json-charset",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return contentType(x.Send(t, reftest.Request{Key: "firmakit_unknown"}))
			},
			correct: "application/json", taken: "application/json; charset=utf-8"},
		{liberty: "response-extra-headers",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				a := x.Send(t, reftest.Request{})
				return []string{a.Header.Get("Cache-Control"), strconv.FormatBool(a.Header.Get("X-Request-Id") != "")}
			},
			correct: []string{"", "false"}, taken: []string{"no-store", "true"}},
		{liberty: "stdlib-405-text", probe: other("/v1/check/merchant_demo", http.MethodGet),
			correct: []string{"405", "application/json", ""}, taken: []string{"405", "text/plain", ""}},
		{liberty: "stdlib-404-text", probe: other("/v2/check/merchant_demo", ""),
			correct: []string{"404", "application/json", ""}, taken: []string{"404", "text/plain", ""}},
		{liberty: "stdlib-clean-path-redirect",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				resp, err := noFollow.Post(x.Server.URL()+"//check/merchant_demo", "application/json", strings.NewReader("{}"))
				require.NoError(t, err)
				resp.Body.Close()
				return []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Location")}
			},
			correct: []string{"404", ""}, taken: []string{"301", "/check/merchant_demo"}},
		{liberty: "timestamp-plus-sign",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return []string{x.Send(t, reftest.Request{TS: "+" + x.At(0)}).Line(), x.Send(t, reftest.Request{TS: "+" + x.At(-400*time.Second)}).Line()}
			},
			correct: []string{"401 Request expired", "401 Request expired"}, taken: []string{authed, "401 Request expired"}},
		{liberty: "routing-empty-default",
			probe:   refusal(func(r map[string]any) { r["routing"] = "" }),
			correct: "400 routing must be parallel or sequential", taken: created},
		{liberty: "refusals-in-spanish",
			probe:   refusal(func(r map[string]any) { delete(r, "title") }),
			correct: "400 title is required", taken: "400 el título es obligatorio"},
		{liberty: "refusals-field-first",
			probe:   refusal(func(r map[string]any) { r["documents"] = []any{"x"} }),
			correct: "400 unknown document: x", taken: "400 documents: no such template: x"},
		{liberty: "missing-list-names-first-item",
			probe:   refusal(func(r map[string]any) { delete(r, "signers") }),
			correct: "400 signers is required", taken: "400 missing signer: signer_1"},
		{liberty: "signature-id-uppercase",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				id := reftest.Str(x.Create(t, nil).Data()["signature_id"])
				return id == strings.ToUpper(id)
			},
			correct: false, taken: true},
		{liberty: "signature-id-uuid-v7",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				return reftest.Str(x.Create(t, nil).Data()["signature_id"])[14:15]
			},
			correct: "4", taken: "7"},
		{liberty: "event-id-prefixed",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				return regexp.MustCompile(`^evt_[0-9a-f]{24}$`).MatchString(reftest.Str(n["event_id"]))
			},
			correct: false, taken: true},
		{liberty: "notification-extra-keys",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				return reftest.Keys(n)
			},
			correct: reftest.NotificationKeys(), taken: reftest.Sorted(append(reftest.NotificationKeys(), "api_version", "livemode"))},
		{liberty: "notification-created-at-seconds", probe: notifiedField("DEMO_SIGNED contrato 42", "created_at"),
			expect: createdAt(func(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05Z") })},
		{liberty: "notification-created-at-offset", probe: notifiedField("DEMO_SIGNED contrato 42", "created_at"),
			expect: createdAt(func(at time.Time) string {
				return at.In(time.FixedZone("", -3*3600)).Format("2006-01-02T15:04:05.000-07:00")
			})},
		{liberty: "notification-indented",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				return []bool{strings.Contains(string(h.Body), "\n    "), reftest.Verified(h, "whsec_test_demo")}
			},
			correct: []bool{false, true}, taken: []bool{true, true}},
		{liberty: "notification-extra-headers",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				return []string{h.Header.Get("User-Agent"), strconv.FormatBool(reftest.Verified(h, "whsec_test_demo"))}
			},
			correct: []string{"firmakit-reference/1", "true"}, taken: []string{"Comercio-Webhooks/2.1", "true"}},
		{liberty: "notification-json-charset",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, h, _ := x.Notified(t, "DEMO_SIGNED contrato 42")
				return h.Header.Get("Content-Type")
			},
			correct: "application/json", taken: "application/json; charset=utf-8"},
		{liberty: "reasons-own-words", probe: notifiedField("DEMO_REJECTED contrato 42", "reason"),
			correct: `"El firmante rechazó el contrato: no está de acuerdo con el monto (demo)"`, taken: `"La persona firmante declinó firmar el documento"`},
		{liberty: "document-url-query",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				_, _, n := x.Notified(t, "DEMO_SIGNED contrato 42")
				u := reftest.Str(n["document_url"])
				resp, err := http.Get(u)
				require.NoError(t, err)
				resp.Body.Close()
				return []string{strconv.FormatBool(strings.HasSuffix(u, "?download=1")), strconv.Itoa(resp.StatusCode)}
			},
			correct: []string{"false", "200"}, taken: []string{"true", "200"}},
		{liberty: "demo-delay-900ms",
			probe:   func(t *testing.T, x *reftest.Exchange) any { return x.Server.DemoDelay },
			correct: 10 * time.Millisecond, taken: 900 * time.Millisecond},
		{liberty: "retry-later-than-schedule",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				if x.Server.Deviations == nil {
					return time.Second
				}
				return x.Server.Deviations.Delivery.RetryWait(nil, time.Second)
			},
			correct: time.Second, taken: 1250 * time.Millisecond},
		{liberty: "body-limit-before-auth",
			probe: func(t *testing.T, x *reftest.Exchange) any {
				big := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
				return x.Send(t, reftest.Request{Body: &big, Header: reftest.DropHeader(reftest.KeyHeader)}).Status
			},
			correct: http.StatusBadRequest, taken: http.StatusRequestEntityTooLarge},
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
		covered[c.liberty] = true
	}
	for _, l := range liberties.List() {
		assert.True(t, covered[l.Name], "liberty %s has no case", l.Name)
	}
	for _, c := range cases {
		t.Run(c.liberty, func(t *testing.T) {
			t.Parallel()
			good := openExchange(t, c, nil)
			bad := openExchange(t, c, []string{c.liberty})
			correct, liberty := c.correct, c.taken
			if c.expect != nil {
				correct, liberty = c.expect(good, false), c.expect(bad, true)
			}
			require.NotEqual(t, correct, liberty, "the case tells the liberty from the reference's own choice")
			assert.Equal(t, correct, c.probe(t, good), "the reference's own choice")
			assert.Equal(t, liberty, c.probe(t, bad), "with the liberty")
		})
	}
}

// libertyCase is how a liberty shows: one exchange, made with a server
// making the reference's own choices and with one taking the liberty,
// whose outcomes differ as it says.
type libertyCase struct {
	liberty  string
	statuses []int // the webhook's answers, in order, then 200
	server   func(*reference.Server)
	// probe makes one exchange and returns what the liberty varies;
	// correct is what it returns on the reference's own choices, taken
	// with the liberty.
	probe          func(t *testing.T, x *reftest.Exchange) any
	correct, taken any
	// expect, when set, gives correct and taken from the exchange, for
	// values that depend on its clock.
	expect func(x *reftest.Exchange, taken bool) any
}

// openExchange opens a server of case c taking the named liberties.
func openExchange(t *testing.T, c libertyCase, names []string) *reftest.Exchange {
	t.Helper()
	dev, err := liberties.New(names)
	require.NoError(t, err)
	return reftest.Open(t, dev, c.statuses, c.server)
}
