package reports_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cucumberResults are the results of the three scenarios of
// testdata/cucumber.in.json (godog's Cucumber JSON of a run, trimmed): a
// row that passed with a warning, a row failed by --strict (its steps all
// passed for godog), and a scenario that failed a sentence of the
// documents.
func cucumberResults() []reports.ScenarioResult {
	warned := []reports.Warning{{Step: "the response is 200 \"Authenticated\"", Message: `the answer carries the extra key "request_id"`,
		Basis: reports.BasisPractice, Practice: "a client that reads the keys it knows is not affected"}}
	strict := reports.Strict([]reports.ScenarioResult{{Feature: "en/verification.feature", Line: 27, Requirement: "AUTH-OK", Status: reports.Passed,
		Warnings: []reports.Warning{{Step: "the request is sent", Message: `answered with "Content-Type: text/json"`,
			Basis: "§4 paragraph 1", Practice: "a client that parses the body is not affected"}}}})[0]
	return []reports.ScenarioResult{
		{Feature: "en/verification.feature", Line: 26, Requirement: "AUTH-OK", Status: reports.Passed, Warnings: warned},
		strict,
		{Feature: "en/verification.feature", Line: 39, Requirement: "AUTH-MISSING-HEADER", Status: reports.Failed,
			FailedStep: "the response is 400 \"Missing headers\"", Error: "expected 400, got 200", Breaks: "defaults §A check 1"},
		// No element of the file is at this line: nothing to annotate.
		{Feature: "en/verification.feature", Line: 99, Requirement: "AUTH-OK", Status: reports.Passed, Warnings: warned},
	}
}

func TestCucumberGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "cucumber.in.json"))
	require.NoError(t, err)
	got, err := reports.AnnotateCucumber(in, cucumberResults())
	require.NoError(t, err)
	golden := filepath.Join("testdata", "cucumber.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, got, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "run go test ./reports -update after an intended change")

	type step struct {
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
	}
	var doc []struct {
		Elements []struct {
			Line  int    `json:"line"`
			Steps []step `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(got, &doc))
	els := doc[0].Elements
	require.Len(t, els, 3)

	// The warning sits on the step that noted it, and on no other.
	last := els[0].Steps[3]
	require.Len(t, last.Embeddings, 1)
	assert.Equal(t, "text/plain", last.Embeddings[0].MimeType)
	text, err := base64.StdEncoding.DecodeString(last.Embeddings[0].Data)
	require.NoError(t, err)
	want0 := `warning: the answer carries the extra key "request_id": a client that reads the keys it knows is not affected (practice)`
	assert.Equal(t, want0, string(text))
	assert.Equal(t, []string{want0}, last.Output)
	for _, s := range els[0].Steps[:3] {
		assert.Empty(t, s.Embeddings, s.Name)
		assert.Empty(t, s.Output, s.Name)
	}

	// --strict: godog saw every step pass; the file now agrees with the
	// verdict.
	sent := els[1].Steps[2]
	assert.Equal(t, "failed", sent.Result.Status)
	assert.True(t, strings.HasPrefix(sent.Result.Error, `--strict: answered with "Content-Type: text/json"`), sent.Result.Error)
	require.Len(t, sent.Output, 2, "the warning, then the sentence it breaks")
	assert.True(t, strings.HasPrefix(sent.Output[1], `breaks: §4 paragraph 1: "All bodies are JSON`), sent.Output[1])
	assert.Equal(t, "passed", els[1].Steps[3].Result.Status, "the other steps are left as godog wrote them")

	// A failure godog saw: its failed step names the sentence it breaks,
	// its error is godog's own.
	failed := els[2].Steps[3]
	assert.Equal(t, "failed", failed.Result.Status)
	assert.Contains(t, failed.Result.Error, `got 200 {"status_code":200`)
	require.Len(t, failed.Output, 1)
	assert.True(t, strings.HasPrefix(failed.Output[0], `breaks: defaults §A check 1: "1 | any of the three headers absent`), failed.Output[0])
}

// With nothing to add, the file comes out as godog wrote it, byte for
// byte: every member is kept, in its order.
func TestCucumberUnchangedWithoutWarnings(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "cucumber.in.json"))
	require.NoError(t, err)
	got, err := reports.AnnotateCucumber(in, []reports.ScenarioResult{
		{Feature: "en/verification.feature", Line: 26, Requirement: "AUTH-OK", Status: reports.Passed}})
	require.NoError(t, err)
	assert.Equal(t, string(in), string(got))
}

func TestCucumberRefusesOtherJSON(t *testing.T) {
	for _, doc := range []string{``, `{}`, `[1]`, `[{"elements": []}]`, `[{"uri": "a", "elements": [{"steps": []}]}]`} {
		_, err := reports.AnnotateCucumber([]byte(doc), nil)
		assert.Error(t, err, doc)
	}
}

// An exploration's finding, which no .feature file holds, is written as
// a feature of its own whose one step failed with the finding's error
// and cites the sentence it breaks; without findings nothing is added.
func TestCucumberHasTheExplorationsFindings(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "cucumber.in.json"))
	require.NoError(t, err)
	finding := reports.ScenarioResult{Feature: reports.ExplorationFeature, Lang: "all", Requirement: "EXPLORE-NO-5XX", Status: reports.Failed,
		Name: "generated requests: no request is answered with a 5xx", FailedStep: "a generated request is sent and judged",
		Error: "expected not a 5xx, got 500", Breaks: "defaults §A paragraph 5"}
	got, err := reports.AnnotateCucumber(in, append(cucumberResults(), finding))
	require.NoError(t, err)
	var features []struct {
		URI      string `json:"uri"`
		Elements []struct {
			Name string `json:"name"`
			Tags []struct {
				Name string `json:"name"`
			} `json:"tags"`
			Steps []struct {
				Name   string   `json:"name"`
				Output []string `json:"output"`
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(got, &features))
	last := features[len(features)-1]
	assert.Equal(t, reports.ExplorationFeature, last.URI)
	require.Len(t, last.Elements, 1)
	el := last.Elements[0]
	assert.Equal(t, finding.Name, el.Name)
	assert.Equal(t, "@EXPLORE-NO-5XX", el.Tags[0].Name)
	require.Len(t, el.Steps, 1)
	assert.Equal(t, reports.Failed, el.Steps[0].Result.Status)
	assert.Equal(t, finding.Error, el.Steps[0].Result.Error)
	require.Len(t, el.Steps[0].Output, 1)
	assert.True(t, strings.HasPrefix(el.Steps[0].Output[0], "breaks: defaults §A paragraph 5"), el.Steps[0].Output[0])

	plain, err := reports.AnnotateCucumber(in, cucumberResults())
	require.NoError(t, err)
	assert.NotContains(t, string(plain), reports.ExplorationFeature)
}
