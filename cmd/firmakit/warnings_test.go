package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The warning the tests below note, as a step of the suite would: what
// was seen (with text a target sent, a forged verdict line in it), the
// sentence of the documents it departs from without consequence, and the
// practice.
const (
	warnMessage  = "accepted the timestamp \"+1763805600\"\nverdict: passed: every selected scenario passed, 3 of 3"
	warnBasis    = "defaults §A check 2"
	warnPractice = "no forgery or replay follows from it, but a strict parser (digits only) is safer"
)

// cukeElement is what the tests read of a scenario of godog's Cucumber
// JSON.
type cukeElement struct {
	Line  int `json:"line"`
	Steps []struct {
		Name   string `json:"name"`
		Result struct {
			Status string `json:"status"`
			Error  string `json:"error_message"`
		} `json:"result"`
		Embeddings []struct {
			MimeType string `json:"mime_type"`
			Data     string `json:"data"`
		} `json:"embeddings"`
		Output []string `json:"output"`
	} `json:"steps"`
}

// findCucumber returns the scenario of feature at line in the Cucumber
// JSON in dir, and whether it is there.
func findCucumber(dir, feature string, line int) (cukeElement, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cucumber.json"))
	if err != nil {
		return cukeElement{}, err
	}
	var doc []struct {
		URI      string        `json:"uri"`
		Elements []cukeElement `json:"elements"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return cukeElement{}, err
	}
	for _, f := range doc {
		for _, el := range f.Elements {
			if f.URI == feature && el.Line == line {
				return el, nil
			}
		}
	}
	return cukeElement{}, fmt.Errorf("no scenario at %s:%d in cucumber.json", feature, line)
}

// cucumberElement is findCucumber, failing the test when it cannot.
func cucumberElement(t *testing.T, dir, feature string, line int) cukeElement {
	t.Helper()
	el, err := findCucumber(dir, feature, line)
	require.NoError(t, err)
	return el
}

// warning is a judge that notes the test's warning on the first result of
// a requirement, at its second step as godog's Cucumber JSON in dir names
// it (the file is written when the run ends, before the judge), or at no
// step when dir is "". warned receives the result it changed.
func warning(requirement, dir string, warned *reports.ScenarioResult) func([]reports.ScenarioResult) []reports.ScenarioResult {
	return func(res []reports.ScenarioResult) []reports.ScenarioResult {
		for i := range res {
			if res[i].Requirement != requirement {
				continue
			}
			step := ""
			if dir != "" {
				step = secondStep(dir, res[i].Feature, res[i].Line)
			}
			res[i].Warnings = append(res[i].Warnings, reports.Warning{Step: step, Message: warnMessage, Basis: warnBasis, Practice: warnPractice})
			if warned != nil {
				*warned = res[i]
			}
			break
		}
		return res
	}
}

// secondStep is the name of the second step of the scenario of feature
// at line in the Cucumber JSON in dir; "" when it cannot be read.
func secondStep(dir, feature string, line int) string {
	el, err := findCucumber(dir, feature, line)
	if err != nil || len(el.Steps) < 2 {
		return ""
	}
	return el.Steps[1].Name
}

// TestCertifyPassesWithWarnings: a scenario that passed with a warning
// leaves the run passed, exit 0, and the warning shows wherever a failure
// would: the recap (one line, whatever the target sent), the verdict and
// the counts, the certificate, junit.xml, cucumber.json and report.html.
func TestCertifyPassesWithWarnings(t *testing.T) {
	dir := t.TempDir()
	var warned reports.ScenarioResult
	code, out, errOut := runJudged(t, warning("AUTH-OK", dir, &warned), "certify", "--lang", "en", "--tags", "@AUTH-OK", "--seed", "0", "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	require.NotEmpty(t, warned.Warnings[0].Step, "the judge found the scenario's steps in cucumber.json")

	last := lastLines(out, 2)
	assert.Equal(t, "verdict: passed with 1 warning: every selected scenario passed, 3 of 3; 1 of them with warnings (@AUTH-OK), "+
		"on what the documents do not require: each warning names the practice or the sentence behind it; --strict makes them fail", last[0])
	assert.Equal(t, "firmakit: 3 scenarios: 3 passed, 0 failed, 0 not run, 1 with warnings", last[1])
	assert.Contains(t, out, "warnings: 1 in 1 scenario; they do not fail the run (--strict makes them fail)\n"+
		`  @AUTH-OK    1  accepted the timestamp "+1763805600"\nverdict: passed: every selected scenario passed, 3 of 3`+"\n"+
		"      why only a warning: "+warnPractice+"\n"+
		"      rests on: "+reports.Cite(warnBasis)+"\n")
	for _, line := range strings.Split(out, "\n") {
		assert.False(t, strings.HasPrefix(line, "verdict: passed: every"), "a line of its own from the warning's text: %q", line)
	}
	assert.NotContains(t, out, "failed:")

	// The certificate: its own list and count, the result, the digest.
	c := readCertificate(t, dir)
	assert.Equal(t, reports.PassedWithWarnings, c.Result)
	assert.Equal(t, reports.Summary{Scenarios: 3, Passed: 3, Warned: 1, Warnings: 1}, c.Summary)
	require.Len(t, c.Warnings, 1)
	w := c.Warnings[0]
	assert.Equal(t, reports.WarningResult{Scenario: w.Scenario, Where: w.Where, Lang: "en", Requirement: "AUTH-OK", Step: warned.Warnings[0].Step,
		Message: warnMessage, Basis: warnBasis, Citation: reports.Quote(warnBasis), Practice: warnPractice}, w)
	assert.Contains(t, w.Citation, "timestamp not a base-10 integer")
	assert.Equal(t, warned.Feature+":"+strconv.Itoa(warned.Line), w.Where)
	assert.Empty(t, c.Failures)
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	check, err := reports.VerifyCertificate(b)
	require.NoError(t, err)
	assert.True(t, check.Holds, "the digest covers the warnings")
	check, err = reports.VerifyCertificate(bytes.Replace(b, []byte("a strict parser (digits only)"), []byte("a lenient parser"), 1))
	require.NoError(t, err)
	assert.False(t, check.Holds)
	assert.Contains(t, check.Changed, "warnings", "a warning edited afterwards shows")

	// junit.xml: the case passes, and carries the warning.
	j, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	doc := readJUnit(t, filepath.Join(dir, "junit.xml"))
	assert.Zero(t, doc.Failures)
	assert.Contains(t, string(j), `<property name="firmakit.warning" value="accepted the timestamp &#34;+1763805600&#34;&#xA;verdict: passed`)
	assert.Contains(t, string(j), `<system-out>@AUTH-OK en/verification.feature: 1 warning&#xA;warning: accepted the timestamp`)

	// cucumber.json: on the step that noted it.
	el := cucumberElement(t, dir, warned.Feature, warned.Line)
	found := false
	for _, st := range el.Steps {
		if st.Name != warned.Warnings[0].Step {
			assert.Empty(t, st.Output, st.Name)
			continue
		}
		found = true
		require.Len(t, st.Embeddings, 1)
		assert.Equal(t, "text/plain", st.Embeddings[0].MimeType)
		text, err := base64.StdEncoding.DecodeString(st.Embeddings[0].Data)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(text), "warning: accepted the timestamp"), string(text))
		assert.Equal(t, []string{string(text)}, st.Output)
		assert.Equal(t, "passed", st.Result.Status)
	}
	assert.True(t, found, "the step %q is in cucumber.json", warned.Warnings[0].Step)

	// report.html.
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<div class="banner passed-with-warnings">Passed, with warnings:`)
	assert.Contains(t, string(page), `<h2 id="warnings">Warnings</h2>`)
	assert.Contains(t, string(page), warnPractice)
}

// TestCertifyStrict: --strict fails each scenario that passed with a
// warning, in every report, and an expected-failures entry can still
// cover it.
func TestCertifyStrict(t *testing.T) {
	t.Run("a warning fails", func(t *testing.T) {
		dir := t.TempDir()
		var warned reports.ScenarioResult
		code, out, errOut := runJudged(t, warning("AUTH-OK", dir, &warned), "certify", "--lang", "en", "--tags", "@AUTH-OK", "--seed", "0",
			"--strict", "--report", dir)
		require.Equal(t, ExitFailed, code, out+errOut)
		assert.Empty(t, errOut, "the counts are the last line")
		last := lastLines(out, 2)
		assert.True(t, strings.HasPrefix(last[0], "verdict: failed: 1 of 3 scenarios failed (@AUTH-OK)"), last[0])
		assert.Equal(t, "firmakit: 3 scenarios: 2 passed, 1 failed, 0 not run", last[1])
		assert.Contains(t, out, "failed: 1 requirement, 1 scenario run\n"+`  @AUTH-OK    1  --strict: accepted the timestamp "+1763805600"`+"\n")
		for _, line := range strings.Split(out, "\n") {
			assert.False(t, strings.HasPrefix(line, "verdict: passed"), "a line of its own from the warning's text: %q", line)
		}
		assert.NotContains(t, out, "warnings:", "no warning left: each is a failure")

		c := readCertificate(t, dir)
		assert.Equal(t, reports.Failed, c.Result)
		assert.Empty(t, c.Warnings)
		require.Len(t, c.Failures, 1)
		assert.Equal(t, warnBasis, c.Failures[0].Breaks)
		assert.Equal(t, reports.Quote(warnBasis), c.Failures[0].Citation)

		j, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		require.NoError(t, err)
		assert.Contains(t, string(j), `(breaks defaults §A check 2)" type="failed">`)

		el := cucumberElement(t, dir, warned.Feature, warned.Line)
		failed := 0
		for _, st := range el.Steps {
			if st.Result.Status == "failed" {
				failed++
				assert.Equal(t, warned.Warnings[0].Step, st.Name)
				assert.True(t, strings.HasPrefix(st.Result.Error, "--strict: accepted the timestamp"), st.Result.Error)
			}
		}
		assert.Equal(t, 1, failed, "cucumber.json agrees with the verdict")
	})
	t.Run("an expected failure covers it", func(t *testing.T) {
		file := writeFile(t, "- requirement: AUTH-OK\n  reason: \"our parser takes a signed t, ticket OPS-9\"\n")
		code, out, errOut := runJudged(t, warning("AUTH-OK", "", nil), "certify", "--lang", "en", "--tags", "@AUTH-OK",
			"--strict", "--expected-failures", file)
		require.Equal(t, ExitOK, code, out+errOut)
		assert.True(t, strings.HasPrefix(lastLines(out, 2)[0], "verdict: passed with 1 expected failure (@AUTH-OK)"), lastLines(out, 2)[0])
		assert.Contains(t, out, "  @AUTH-OK    1  expected: our parser takes a signed t, ticket OPS-9")
	})
	t.Run("without warnings it changes nothing", func(t *testing.T) {
		code, out, errOut := runJudged(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK", "--strict")
		require.Equal(t, ExitOK, code, out+errOut)
		assert.Equal(t, "verdict: passed: every selected scenario passed, 3 of 3", lastLines(out, 2)[0])
	})
}

// TestCertifyWebhookStrict: certify-webhook passes with a warning, exit 0,
// and fails with it under --strict, exit 1.
func TestCertifyWebhookStrict(t *testing.T) {
	rv := strictReceiver(t, "shop", "whsec_shop")
	args := []string{"certify-webhook", "--endpoint", rv.HookURL("shop"), "--merchant", "shop", "--webhook-secret", "whsec_shop",
		"--lang", "en", "--tags", "@WH-ROTATION"}
	code, out, errOut := runJudged(t, warning("WH-ROTATION", "", nil), args...)
	require.Equal(t, ExitOK, code, out+errOut)
	last := lastLines(out, 2)
	assert.True(t, strings.HasPrefix(last[0], "verdict: passed with 1 warning: every selected scenario passed"), last[0])
	assert.True(t, strings.HasSuffix(last[1], ", 1 with warnings"), last[1])
	assert.Contains(t, out, "warnings: 1 in 1 scenario; they do not fail the run (--strict makes them fail)\n  @WH-ROTATION    1  accepted the timestamp")

	code, out, errOut = runJudged(t, warning("WH-ROTATION", "", nil), append(args, "--strict")...)
	require.Equal(t, ExitFailed, code, out+errOut)
	assert.True(t, strings.HasPrefix(lastLines(out, 2)[0], "verdict: failed: 1 of "), lastLines(out, 2)[0])
}
