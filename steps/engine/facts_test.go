package engine

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
)

type testAnswer struct {
	status int
	label  string
}

func (a testAnswer) String() string {
	return `got 401 {"status_code":401,"message":"Invalid signature"}` + "\n  sent: POST /v1/check/m"
}
func (a testAnswer) Status() int   { return a.status }
func (a testAnswer) Label() string { return a.label }

// A message's facts come from its arguments as it is written: values
// out of the shape (a number #, a quoted value "…", any other "…"), names
// and fields kept, an answer as its status and label; the message itself
// is fmt.Sprintf's.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name        string
		format      string
		args        []any
		shape, sum  string
		field, want string
		seen        string
		status      int
		label       string
	}{
		{"an answer", "expected %s, %s", []any{Want(`200 "Authenticated"`), testAnswer{401, "Invalid signature"}},
			`expected …, got 401 "Invalid signature"`, `expected 200 "Authenticated", got 401 "Invalid signature"`, "", `200 "Authenticated"`, "", 401, "Invalid signature"},
		{"an answer without a label", "expected 201, %s", []any{testAnswer{404, ""}},
			`expected 201, got 404`, `expected 201, got 404`, "", "", "", 404, ""},
		{"a field compared", "expected data.%s %q, got %q", []any{Field("title"), Want("ñandú"), Seen("?and?")},
			`expected data.title "…", got "…"`, `expected data.title "ñandú", got "?and?"`, "title", "ñandú", "?and?", 0, ""},
		{"ids, numbers and durations", "expected a %s notification for signature_id %s %d–%d ms after the 201; none arrived within %s",
			[]any{"SIGNED", "0f8fad5b-d9cb-469f-a165-70867728950e", 300, 1500, 10 * time.Second},
			"expected a SIGNED notification for signature_id … #–# ms after the 201; none arrived within #",
			"expected a SIGNED notification for signature_id 0f8fad5b-d9cb-469f-a165-70867728950e 300–1500 ms after the 201; none arrived within 10s", "", "", "", 0, ""},
		{"a body and an error", "%v: %s", []any{errors.New("unexpected end of JSON input"), `{"status":`},
			"…: …", `unexpected end of JSON input: {"status":`, "", "", "", 0, ""},
		{"a name with digits kept", "since %s; got %d", []any{Name("its t was 301 s old"), 200},
			"since its t was 301 s old; got #", "since its t was 301 s old; got 200", "", "", "", 0, ""},
		{"the first line only", "expected %q\n  earlier: %s", []any{"x y", "z"}, `expected "…"`, `expected "x y"`, "", "", "", 0, ""},
		{"a word asked kept, a word seen not", "expected a %s notification, the first one is %q", []any{Want("SIGNED"), Seen("BOUNCED")},
			`expected a SIGNED notification, the first one is "…"`, `expected a SIGNED notification, the first one is "BOUNCED"`, "", "SIGNED", "BOUNCED", 0, ""},
		{"a literal percent", "100%% of %d", []any{3}, "100% of #", "100% of 3", "", "", "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, f := Describe(tc.format, tc.args...)
			assert.Equal(t, fmt.Sprintf(tc.format, tc.args...), msg)
			assert.Equal(t, reports.Facts{Field: tc.field, Expected: tc.want, Seen: tc.seen, Status: tc.status, Label: tc.label, Shape: tc.shape, Summary: tc.sum}, f)
		})
	}
}

// A breach within a message, or a Said, carries its facts on.
func TestDescribeCarriesAnInnerBreachOn(t *testing.T) {
	inner := Breaks("defaults §B bullet 6", "expected a 2xx answer within the %s delivery timeout, got %d", 10*time.Second, 500)
	_, f := Describe("%s, though its first delivery %s", inner, Name("was refused"))
	assert.Equal(t, "expected a 2xx answer within the # delivery timeout, got #, though its first delivery was refused", f.Shape)
	said := Say("no answer came within %s", 12*time.Second)
	_, f = Describe("%s, once: the scenario runs again alone", said)
	assert.Equal(t, "no answer came within #, once: the scenario runs again alone", f.Shape)
	assert.Equal(t, "no answer came within 12s, once: the scenario runs again alone", f.Summary)
}

// Every breach has a kind: the rule's when its step names none, the
// step's when it does; and its facts.
func TestEveryBreachHasAKind(t *testing.T) {
	err := Breaks("§2.2 title", "expected data.%s %q, got %q", Field("title"), Want("a"), Seen("b"))
	assert.Equal(t, reports.FailureEnvelope, FailureKindOf(err))
	assert.Equal(t, "§2.2 title", BreachOf(err))
	assert.Equal(t, "title", FactsOf(err).Field)
	err = BreaksAs(reports.FailureNotificationLate, "defaults §D bullet 1", "late by %d ms", 3)
	assert.Equal(t, reports.FailureNotificationLate, FailureKindOf(err))
	assert.Nil(t, FactsOf(errors.New("plain")), "a plain error is no breach")
	assert.Empty(t, FailureKindOf(errors.New("plain")))
}

// A step's shape is its sentence's, parameters taken out; a step of no
// sentence registered here is shown as it is.
func TestStepShape(t *testing.T) {
	Compiled(`^the response is (\d+) "([^"]*)"$`)
	Compiled(`^exactly one "([A-Z]+)" notification arrives between (\d+) and (\d+) ms after the 201$`)
	assert.Equal(t, `the response is # "…"`, StepShape(`the response is 401 "Invalid signature"`))
	assert.Equal(t, `exactly one "…" notification arrives between # and # ms after the 201`,
		StepShape(`exactly one "SIGNED" notification arrives between 300 and 1500 ms after the 201`))
	assert.Equal(t, "no sentence of mine", StepShape("no sentence of mine"))
}
