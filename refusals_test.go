package firmakit_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The refusals are one table: every row is a distinct check, status and
// label, of a kind, citing a check of defaults.md A and a row of §7, with
// a diagnosis in each report language.
func TestRefusalsAreOneRowEach(t *testing.T) {
	seen := map[string]bool{}
	for i, r := range firmakit.Refusals {
		assert.Equal(t, i+1, r.Check, "in the order of the checks")
		assert.False(t, seen[r.Label()], "one row per label")
		seen[r.Label()] = true
		assert.True(t, r.Status == http.StatusBadRequest || r.Status == http.StatusUnauthorized, r.Label())
		assert.Equal(t, fmt.Sprintf("defaults §A check %d", r.Check), r.Ref)
		assert.Equal(t, fmt.Sprintf("§7 %d %s", r.Status, r.Label()), r.Row)
		assert.NotEmpty(t, r.Kind)
		assert.NotEmpty(t, r.When)
		for _, lang := range reports.ReportLangs {
			assert.NotEmpty(t, r.Diag[lang], "%s in %s", r.Label(), lang)
		}
		got, ok := firmakit.RefusalOf(fmt.Errorf("detail: %w", r.Err))
		assert.True(t, ok)
		assert.Equal(t, r.Check, got.Check, "a wrapped error is its refusal")
		got, ok = firmakit.RefusalAnswered(r.Status, r.Label())
		assert.True(t, ok)
		assert.Equal(t, r.Check, got.Check)
		_, ok = firmakit.RefusalAnswered(r.Status+1, r.Label())
		assert.False(t, ok, "the status is part of the answer")
	}
	// The named kinds of the reports are the table's.
	assert.Equal(t, []reports.FailureKind{reports.FailureMissingHeaders, reports.FailureExpired, reports.FailureInvalidCredentials, reports.FailureInvalidSignature},
		[]reports.FailureKind{reports.FailureKind(firmakit.Refusals[0].Kind), reports.FailureKind(firmakit.Refusals[1].Kind),
			reports.FailureKind(firmakit.Refusals[2].Kind), reports.FailureKind(firmakit.Refusals[3].Kind)})
	// The timestamp's tolerance is written in where the words need it.
	r, _ := firmakit.RefusalAt(2)
	assert.Contains(t, r.Says("300 s"), "more than 300 s from")
	_, ok := firmakit.RefusalAt(9)
	assert.False(t, ok)
}

// A refusal added to the table is one row: it reaches the reference's
// answers, the reports' kinds and diagnoses (both languages) and the
// OpenAPI document, with no other edit.
func TestANewRefusalIsOneRow(t *testing.T) {
	replayed := errors.New("Request replayed")
	saved := firmakit.Refusals
	firmakit.Refusals = append(append([]firmakit.Refusal(nil), saved...), firmakit.Refusal{
		Check: 5, Err: replayed, Status: http.StatusUnauthorized, Kind: "request-replayed",
		Ref: "defaults §A check 4", Row: "§7 401 Invalid signature",
		When: "the same signature came before, within {tolerance}",
		Diag: map[string]string{"en": "Requests got 401 Request replayed: the target saw the signature before.",
			"es": "Las solicitudes recibieron 401 Request replayed: el objetivo ya había visto la firma."},
	})
	t.Cleanup(func() { firmakit.Refusals = saved })

	// The reference answers a verification that fails with it.
	fake := &replayAuth{err: fmt.Errorf("seen at 12:00: %w", replayed)}
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(),
		Deviations: &reference.Deviations{Auth: fake, Open: func(s reference.Seam) error { fake.seam = s; return nil }}}
	require.NoError(t, ref.Open())
	defer ref.Close()
	resp, err := http.Post(ref.URL()+"/v1/check/merchant_demo", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.JSONEq(t, `{"status_code":401,"message":"Request replayed"}`, string(body))

	// The reports know its kind, group by it and explain it.
	assert.Equal(t, reports.FailureKind("request-replayed"), reports.AnswerFailure(http.StatusUnauthorized, "Request replayed"))
	assert.Contains(t, reports.FailureKinds(), reports.FailureKind("request-replayed"))
	causes := reports.Causes([]reports.ScenarioResult{{Lang: "en", Requirement: "AUTH-OK", Status: reports.Failed,
		Error: `expected 200, got 401 {"status_code":401,"message":"Request replayed"}`, FailureKind: "request-replayed"}})
	require.Len(t, causes, 1)
	assert.Equal(t, "Requests got 401 Request replayed: the target saw the signature before.", causes[0].Explanation)

	// The OpenAPI document lists it among the 401's, with its words.
	doc, err := openapi.Build(openapi.Options{})
	require.NoError(t, err)
	y, err := doc.YAML()
	require.NoError(t, err)
	assert.Contains(t, string(y), "`Request replayed` (the same signature came before, within 300 s)")
	assert.Contains(t, string(y), "message: Request replayed")
}

// replayAuth verifies every request with a verification that fails with
// err.
type replayAuth struct {
	reference.NopAuthDeviations
	seam reference.Seam
	err  error
}

func (a *replayAuth) Auth(echo.MiddlewareFunc) echo.MiddlewareFunc {
	return a.seam.Authenticate(func(echo.Context, time.Time, func() ([]byte, error)) (firmakit.Credential, error) {
		return firmakit.Credential{}, a.err
	})
}
