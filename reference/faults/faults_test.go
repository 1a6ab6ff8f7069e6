package faults_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFaultsAreListedAndDocumented(t *testing.T) {
	fs := faults.List()
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
	for _, f := range faults.List() {
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
	d, err := faults.New(names)
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
		assert.True(t, errors.Is(err, faults.ErrUnknownFault), err)
		assert.Contains(t, err.Error(), strconv.Quote(tc.name))
		assert.Contains(t, err.Error(), "did you mean")
		assert.Contains(t, err.Error(), tc.suggests)
		assert.Empty(t, s.URL(), "a refused server does not listen")
	}
	err := openFaulty(&reference.Server{Addr: "127.0.0.1:0"}, []string{"zzzzzzzzzzzzzzzz"})
	require.ErrorIs(t, err, faults.ErrUnknownFault)
	assert.NotContains(t, err.Error(), "did you mean")
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
	for _, f := range faults.List() {
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

// areas are the faults' areas.
var areas = map[string]bool{faults.AreaAuth: true, faults.AreaEnvelope: true, faults.AreaValidation: true, faults.AreaNotification: true}

// faultCase is how a fault shows: one exchange, made with a correct server
// and with one that has the fault, whose outcomes differ as it says.
type faultCase struct {
	fault    string
	statuses []int // the webhook's answers, in order, then 200
	server   func(*reference.Server)
	// probe makes one exchange and returns what the fault's rule is about;
	// correct is what it returns on a correct server, faulty with the fault.
	probe           func(t *testing.T, x *reftest.Exchange) any
	correct, faulty any
	// expect, when set, gives correct and faulty from the exchange, for
	// values that depend on its clock.
	expect func(x *reftest.Exchange, faulty bool) any
}

// faultCases are the cases of every fault, area by area.
func faultCases() []faultCase {
	var cases []faultCase
	for _, area := range [][]faultCase{authCases(), validationCases(), envelopeCases(), notificationCases()} {
		cases = append(cases, area...)
	}
	return cases
}

// openExchange opens a server of case c with the named faults switched on.
func openExchange(t *testing.T, c faultCase, names []string) *reftest.Exchange {
	t.Helper()
	dev, err := faults.New(names)
	require.NoError(t, err)
	return reftest.Open(t, dev, c.statuses, c.server)
}

// Lines of the answers the cases expect.
const (
	expired, authed          = "401 Request expired", "200 Authenticated"
	invalidSig, invalidCreds = "401 Invalid signature", "401 Invalid credentials"
	created                  = "201 Signature request created"
)

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

func envelopeKeys() []string {
	return []string{"created_at", "documents", "recipients", "routing", "sender", "signature_id", "status", "title"}
}

func createLine(change func(map[string]any)) func(*testing.T, *reftest.Exchange) any {
	return func(t *testing.T, x *reftest.Exchange) any { return x.Create(t, change).Line() }
}
