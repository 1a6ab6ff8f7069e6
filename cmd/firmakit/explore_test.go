package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var explorationLine = regexp.MustCompile(`(?m)^exploration: (\d+) requests judged in [^,]+, seed (\d+) \(replay: --seed (\d+)\): (.+)$`)

// --explore explores for as long as asked, beside a suite that ends
// sooner, and a run whose exploration finds nothing passes with the
// suite's results alone; by default the exploration ends with the suite.
func TestCertifyExploresBesideTheSuite(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	code, out, errOut := run(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK", "--explore", "2s", "--seed", "7", "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "--explore 2s outlasts a suite of a second")
	m := explorationLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	n, _ := strconv.Atoi(m[1])
	assert.Positive(t, n)
	assert.Equal(t, []string{"7", "7", "no finding"}, m[2:])
	assert.Contains(t, out, "exploration: the suite is done; exploring for")
	assert.Equal(t, []string{"verdict: passed: every selected scenario passed, 3 of 3", "firmakit: 3 scenarios: 3 passed, 0 failed, 0 not run"},
		lastLines(out, 2), "no finding, no result")
	c := readCertificate(t, dir)
	assert.Equal(t, 3, c.Summary.Scenarios)

	// By default it ends with the suite: the run takes no longer.
	code, out, errOut = run(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK")
	require.Equal(t, ExitOK, code, out+errOut)
	m = explorationLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	took, err := time.ParseDuration(regexp.MustCompile(`judged in (\S+),`).FindStringSubmatch(m[0])[1])
	require.NoError(t, err)
	assert.Less(t, took, DefaultExplore, "the default exploration ends with a suite of three scenarios")
	assert.NotContains(t, out, "exploring for")

	code, out, _ = run(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK", "--explore", "0")
	require.Equal(t, ExitOK, code)
	assert.NotContains(t, out, "exploration:")
	code, _, errOut = run(t, nil, "certify", "--explore", "-1s")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--explore must be 0")
}

// plantedFault answers 500 to a create request whose title holds a tab,
// with three signers, routed "sequential": three choices an exploration
// must make together.
func plantedFault(next http.Handler) http.Handler {
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

// shellWords splits a command line of single-quoted and bare words, as
// ShellQuote writes them.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			in = true
		case c == ' ':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	require.False(t, quoted, "unbalanced quotes: %s", line)
	if in {
		words = append(words, w.String())
	}
	return words
}

// A finding of the exploration fails the run and shows in the output and
// in every report, citing its sentence; its 'firmakit sign' line sends
// the same request again, which gets the same 500; --seed replays it.
func TestCertifyExploreFindingFailsTheRunInEveryReport(t *testing.T) {
	hook := freeAddr(t)
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	require.NoError(t, ref.Config.SetWebhook("merchant_demo", "http://"+hook+"/hooks/merchant_demo"))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	srv := httptest.NewServer(plantedFault(ref.Handler()))
	t.Cleanup(srv.Close)

	// Seed 22 draws the planted request after 10 others: a change to the
	// draws may call for another seed (the explore package's test of the
	// same fault, with a long budget, finds it whatever the seed).
	certify := func(dir string) (int, string) {
		code, out, errOut := run(t, nil, "certify", "--target", srv.URL, "--key", "test_key_demo", "--secret", "test_secret_demo",
			"--webhook-secret", "whsec_test_demo", "--listen", hook, "--lang", "en", "--tags", "@AUTH-OK", "--rate", "0",
			"--explore", "4s", "--seed", "22", "--report", dir)
		return code, out + errOut
	}
	dir := t.TempDir()
	code, out := certify(dir)
	require.Equal(t, ExitFailed, code, out)
	m := explorationLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, "1 finding", m[4])
	assert.Contains(t, out, "  @EXPLORE-NO-5XX no request is answered with a 5xx\n    breaks defaults §A paragraph 5: \"No client input may ever produce a 5xx.\"\n")
	assert.Contains(t, out, `expected not a 5xx, got 500 {"status_code":500,"message":"planted"}`)
	signLine := regexp.MustCompile(`(?m)send it again: (firmakit sign .*)$`).FindStringSubmatch(out)
	require.NotNil(t, signLine, out)
	assert.Equal(t, "firmakit sign --curl --url '"+srv.URL+"/v1/signature/merchant_demo' --body "+
		`'{"title":"Contrato \t","documents":["contrato_arriendo"],"signers":[`+
		`{"email":"firmante1@example.com","key":"signer_1","name":"Ana Pérez Ñuñez"},`+
		`{"email":"firmante2@example.com","key":"signer_2","name":"Luis Soto-Ávila"},`+
		`{"email":"pedro@example.com","key":"signer_3","name":"Pedro Núñez"}],`+
		`"data":{"monto_mensual":"450000","nombre_arrendatario":"Ana Pérez"},"routing":"sequential"}'`, signLine[1])
	assert.Contains(t, out, `| signature | the title "Contrato \\t"; signer_3 added (3 signers), which the template does not have; routing "sequential" | not a 5xx |`)
	assert.Contains(t, out, "@EXPLORE-NO-5XX", "in the recap")
	assert.True(t, strings.HasPrefix(lastLines(out, 2)[0], "verdict: failed: 1 of 4 scenarios failed (@EXPLORE-NO-5XX)"), lastLines(out, 2)[0])

	// The line sends the same request again (the demo merchant's key is
	// sign's default: no --key, no --secret).
	words := shellWords(t, signLine[1])
	require.Equal(t, []string{"firmakit", "sign"}, words[:2])
	code, curl, errOut := run(t, nil, words[1:]...)
	require.Equal(t, ExitOK, code, errOut)
	_, err := exec.LookPath("curl")
	require.NoError(t, err, "curl is needed to run the printed line")
	sent, err := exec.Command("sh", "-c", curl).CombinedOutput()
	require.NoError(t, err, string(sent))
	assert.Equal(t, `{"status_code":500,"message":"planted"}`, string(sent))

	// Every report has it, citing the sentence.
	c := readCertificate(t, dir)
	assert.Equal(t, reports.Failed, c.Result)
	require.Len(t, c.Failures, 1)
	assert.Equal(t, "EXPLORE-NO-5XX", c.Failures[0].Requirement)
	assert.Contains(t, c.Failures[0].Citation, "No client input may ever produce a 5xx.")
	doc := readJUnit(t, filepath.Join(dir, "junit.xml"))
	assert.Equal(t, 1, doc.Failures)
	var suites []string
	for _, s := range doc.Suites {
		suites = append(suites, s.Name)
	}
	assert.Contains(t, suites, reports.ExplorationFeature)
	for _, f := range []string{"cucumber.json", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Contains(t, string(b), "EXPLORE-NO-5XX", f)
	}

	// The same seed, the same finding.
	code, again := certify(t.TempDir())
	require.Equal(t, ExitFailed, code, again)
	assert.Contains(t, again, "send it again: "+signLine[1]+"\n")
}
