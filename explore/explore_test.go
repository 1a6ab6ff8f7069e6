package explore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/explore"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/liberties"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startReference starts the bundled reference server on loopback, with
// the deviations dev (nil: none), and returns it.
func startReference(t *testing.T, dev *reference.Deviations) *reference.Server {
	t.Helper()
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: dev,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	return ref
}

// explore runs an exploration of the demo merchant at url.
func exploreAt(t *testing.T, url string, e explore.Explorer) *explore.Report {
	t.Helper()
	e.Target = steps.DemoTarget(url, nil, false)
	rep, err := e.Run(context.Background())
	require.NoError(t, err)
	return rep
}

// A short exploration of the bundled reference judges requests and finds
// nothing: what holds for every request holds for the reference.
func TestExploreBundledReference(t *testing.T) {
	ref := startReference(t, nil)
	rep := exploreAt(t, ref.URL(), explore.Explorer{Seed: 1, Budget: 2 * time.Second})
	for _, f := range rep.Findings {
		t.Errorf("%s: %s", f.Property.ID, f.Error(rep.Seed))
	}
	assert.Positive(t, rep.Requests)
	assert.Zero(t, rep.Unjudged)
	assert.Empty(t, rep.Results(), "no finding, no result: nothing fails the run")
}

// planted answers 500 to a create request whose title holds a tab, with
// three signers and routed "sequential": three choices, each of them on
// its own harmless, that an exploration must make together.
func planted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/signature/") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var v struct {
				Title   string
				Signers []json.RawMessage
				Routing string
			}
			if json.Unmarshal(body, &v) == nil && strings.Contains(v.Title, "\t") && len(v.Signers) == 3 && v.Routing == "sequential" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"status_code":500,"message":"planted"}`))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// The planted 5xx is found and shrunk to the smallest request that gets
// it, the three choices and nothing else, written as the 'firmakit sign'
// line that sends it again and as the example row that pins it; the same
// seed finds the same request after the same number of requests.
func TestExploreShrinksAFaultThreeChoicesDeep(t *testing.T) {
	ref := startReference(t, nil)
	srv := httptest.NewServer(planted(ref.Handler()))
	t.Cleanup(srv.Close)
	const seed = 22
	first := exploreAt(t, srv.URL, explore.Explorer{Seed: seed, Budget: 60 * time.Second, MaxFindings: 1})
	require.Len(t, first.Findings, 1)
	f := first.Findings[0]
	assert.Equal(t, explore.NoServerError, f.Property)
	assert.Equal(t, "defaults §A paragraph 5", f.Breaks)
	assert.Equal(t, 500, f.Status)
	assert.Equal(t, `the title "Contrato \t"; signer_3 added (3 signers), which the template does not have; routing "sequential"`, f.Request.Words())
	assert.Equal(t, "firmakit sign --curl --url '"+srv.URL+"/v1/signature/merchant_demo' --body "+
		`'{"title":"Contrato \t","documents":["contrato_arriendo"],"signers":[`+
		`{"email":"firmante1@example.com","key":"signer_1","name":"Ana Pérez Ñuñez"},`+
		`{"email":"firmante2@example.com","key":"signer_2","name":"Luis Soto-Ávila"},`+
		`{"email":"pedro@example.com","key":"signer_3","name":"Pedro Núñez"}],`+
		`"data":{"monto_mensual":"450000","nombre_arrendatario":"Ana Pérez"},"routing":"sequential"}'`, f.Command)
	assert.Equal(t, `| signature | the title "Contrato \\t"; signer_3 added (3 signers), which the template does not have; routing "sequential" | not a 5xx |`, f.Row)
	assert.Positive(t, f.Shrinking, "the first failing request had more in it than the three choices")

	again := exploreAt(t, srv.URL, explore.Explorer{Seed: seed, Budget: 60 * time.Second, MaxFindings: 1})
	require.Len(t, again.Findings, 1)
	assert.Equal(t, f.After, again.Findings[0].After, "the same seed, the same sequence of requests")
	assert.Equal(t, f.Command, again.Findings[0].Command)

	res := first.Results()
	require.Len(t, res, 1)
	assert.Equal(t, reports.Failed, res[0].Status)
	assert.Equal(t, reports.ExplorationFeature, res[0].Feature)
	assert.Equal(t, "EXPLORE-NO-5XX", res[0].Requirement)
	assert.Equal(t, "defaults §A paragraph 5", res[0].Breaks)
	assert.Contains(t, res[0].Error, f.Command)
	assert.Contains(t, res[0].Error, "replay: --seed 22")
}

// Every named fault of the reference that breaks a property is found, as
// a finding of that property: a test of the exploration's power.
func TestExploreFindsNamedFaults(t *testing.T) {
	for fault, want := range map[string]explore.Property{
		"auth-missing-headers-401":             explore.CheckOrder,
		"auth-timestamp-before-headers":        explore.CheckOrder,
		"auth-credentials-before-timestamp":    explore.CheckOrder,
		"auth-signature-before-credentials":    explore.CheckOrder,
		"auth-json-before-signature":           explore.CheckOrder,
		"auth-no-body-limit":                   explore.CheckOrder,
		"auth-uppercase-signature-refused":     explore.Accepted,
		"auth-error-status-code-mismatch":      explore.ErrorShape,
		"auth-error-text-plain":                explore.ErrorShape,
		"auth-invalid-json-500":                explore.NoServerError,
		"validation-unknown-data-key-accepted": explore.CheckOrder,
	} {
		t.Run(fault, func(t *testing.T) {
			// In parallel, so that a reference's shutdown overlaps the
			// next exploration; the explorations themselves take turns.
			t.Parallel()
			dev, err := faults.New([]string{fault})
			require.NoError(t, err)
			ref := startReference(t, dev)
			rep := exploreAt(t, ref.URL(), explore.Explorer{Seed: 1, Budget: 30 * time.Second, MaxFindings: 1})
			require.Len(t, rep.Findings, 1, "not found in %d requests", rep.Requests)
			assert.Equal(t, want, rep.Findings[0].Property, rep.Findings[0].Error(1))
			t.Logf("found after %d requests, shrunk in %d: %s", rep.Findings[0].After, rep.Findings[0].Shrinking, rep.Findings[0].Request.Words())
		})
	}
}

// No liberty of the reference, each a variation the documents allow, is
// a finding: what the documents leave open is not judged.
func TestExplorePassesLiberties(t *testing.T) {
	for _, l := range liberties.List() {
		if l.Area == liberties.AreaNotification {
			continue // notifications are not explored
		}
		t.Run(l.Name, func(t *testing.T) {
			t.Parallel()
			dev, err := liberties.New([]string{l.Name})
			require.NoError(t, err)
			ref := startReference(t, dev)
			rep := exploreAt(t, ref.URL(), explore.Explorer{Seed: 1, Budget: 250 * time.Millisecond})
			for _, f := range rep.Findings {
				t.Errorf("%s: %s", f.Property.ID, f.Error(rep.Seed))
			}
			assert.Positive(t, rep.Requests)
		})
	}
}

// An answer that is not the target's own, a gateway's 502 page or a rate
// limit, is no finding: the requests are counted as not judged.
func TestExploreDoesNotJudgeAGateway(t *testing.T) {
	for name, answer := range map[string]func(http.ResponseWriter){
		"502 page": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html><body>Bad gateway</body></html>"))
		},
		"429": func(w http.ResponseWriter) { w.WriteHeader(http.StatusTooManyRequests) },
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { answer(w) }))
			t.Cleanup(srv.Close)
			target := steps.DemoTarget(srv.URL, nil, false)
			target.Retries = -1 // once each: the test is about the verdict, not the waits
			rep, err := (&explore.Explorer{Target: target, Seed: 1, Budget: 300 * time.Millisecond}).Run(context.Background())
			require.NoError(t, err)
			assert.Empty(t, rep.Findings)
			assert.Zero(t, rep.Requests)
			assert.Positive(t, rep.Unjudged)
		})
	}
}

// Rate caps the requests a second until Unpaced closes.
func TestExploreKeepsToItsRate(t *testing.T) {
	ref := startReference(t, nil)
	paced := exploreAt(t, ref.URL(), explore.Explorer{Seed: 1, Budget: time.Second, Rate: 5})
	assert.Positive(t, paced.Requests)
	assert.LessOrEqual(t, paced.Requests, 6, "5 a second, the first at once")
	free := make(chan struct{})
	close(free)
	unpaced := exploreAt(t, ref.URL(), explore.Explorer{Seed: 1, Budget: time.Second, Rate: 5, Unpaced: free})
	assert.Greater(t, unpaced.Requests, 6)
}
