package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every key is in both languages, and every key the page asks for is in
// them.
func TestTranslationTablesHaveTheSameKeys(t *testing.T) {
	keys := func(m map[string]string) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		sort.Strings(k)
		return k
	}
	assert.Equal(t, keys(english), keys(spanish), "every key in both tables")
	for k, v := range spanish {
		assert.NotEmpty(t, strings.TrimSpace(v), k)
		assert.Equal(t, strings.Count(english[k], "%"), strings.Count(v, "%"), "the same placeholders in %s", k)
	}

	var used []string
	for _, m := range regexp.MustCompile(`\{\{t "([^"]+)"`).FindAllStringSubmatch(reportTemplate, -1) {
		used = append(used, m[1])
	}
	require.NotEmpty(t, used)
	// Keys the code builds.
	for _, s := range []string{Passed, Failed, Inconclusive, Incomplete, PassedWithExpectedFailures} {
		used = append(used, "banner."+s, "status."+s)
	}
	for _, s := range []string{NotRun, NotTested, PartNotRun, NotSelected, PartNotSelected, ExpectedFailure, Stale} {
		used = append(used, "status."+s)
	}
	for _, k := range FailureKinds() {
		used = append(used, "diag."+string(k))
	}
	for _, s := range []string{Failed, Inconclusive} {
		used = append(used, "cause."+s)
	}
	for _, key := range targetLabels {
		used = append(used, key)
	}
	for _, keys := range notProven {
		used = append(used, keys...)
	}
	used = append(used, "hint.no-status")
	for _, k := range used {
		for lang, table := range tables {
			_, ok := table[k]
			if !ok {
				_, ok = refusalDiag(lang, k) // firmakit.Refusals, checked below
			}
			assert.True(t, ok, "key %q is missing in %s", k, lang)
		}
	}
	for _, r := range firmakit.Refusals {
		for _, lang := range ReportLangs {
			assert.NotEmpty(t, r.Diag[lang], "the diagnosis of %s in %s", r.Label(), lang)
		}
	}
}

func fixture() (Run, []ScenarioResult) {
	run := Run{Tool: "firmakit", Version: "test", Target: "http://127.0.0.1:8080", MerchantID: "merchant_demo",
		Profile: firmakit.BundledProfile(), Lang: "all", Tags: "~@reference",
		Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Elapsed: 1800 * time.Millisecond}
	var res []ScenarioResult
	for _, lang := range []string{"en", "es"} {
		name := map[string]string{"en": "each reserved prefix gets exactly one signed notification of its state",
			"es": "cada prefijo reservado recibe exactamente una notificación firmada de su estado"}[lang]
		res = append(res,
			ScenarioResult{Feature: lang + "/demo.feature", Line: 18, Name: name, Row: "prefix=DEMO_CREATED, state=CREATED", Lang: lang,
				Requirement: "DEMO-NOTIFICATION", Kind: "spec", Status: Passed,
				Timings: []Timing{{Label: "CREATED", After201: 501 * time.Millisecond}}},
			ScenarioResult{Feature: lang + "/demo.feature", Line: 22, Name: name, Row: "prefix=DEMO_SIGNED, state=SIGNED", Lang: lang,
				Requirement: "DEMO-NOTIFICATION", Kind: "spec", Status: Failed, FailedStep: "its signature is valid",
				Error:   "expected a valid X-Service-Signature header for the webhook secret, got \"t=1,v1=00\"",
				Timings: []Timing{{Label: "SIGNED", After201: 1730 * time.Millisecond}}},
			ScenarioResult{Feature: lang + "/verification.feature", Line: 131, Name: "a disabled key is refused", Row: "endpoint=check", Lang: lang,
				Requirement: "AUTH-DISABLED-KEY", Kind: "spec", Needs: []string{"needs-disabled-credential"}, Status: NotRun,
				Error: "no disabled credential given (--disabled-key, --disabled-secret)"},
		)
	}
	return run, res
}

func render(t *testing.T, run Run, res []ScenarioResult) string {
	t.Helper()
	c, err := Build(run, res)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, run, c, res))
	return b.String()
}

// A page asked for in Spanish has no fixed English text left, and keeps
// the Spanish scenarios' own text.
func TestReportInSpanish(t *testing.T) {
	run, res := fixture()
	run.ReportLang = "es"
	page := render(t, run, res)
	assert.Contains(t, page, `<html lang="es">`)
	assert.Contains(t, page, "La suite falló")
	assert.Contains(t, page, "cada prefijo reservado recibe exactamente una notificación firmada de su estado", "the Spanish copy names the row")
	assert.Contains(t, page, "no se dio una credencial deshabilitada", "the reason for not running, in Spanish")
	assert.Contains(t, page, "fallido: fallaron 2 de 6 escenarios", "the verdict sentence, in Spanish")
	// The interface document is quoted as written, in English.
	text := visibleText(regexp.MustCompile(`(?s)<div class="scroll"><table><tr><th>punto</th>.*?</table></div>`).ReplaceAllString(page, ""))
	for k, en := range english {
		if en == spanish[k] || !strings.Contains(en, " ") || strings.Contains(en, "%") {
			continue
		}
		assert.False(t, strings.Contains(text, en), "English text of %q on the Spanish page: %q", k, en)
	}
	for _, word := range []string{"passed", "failed", "not run", "Verdict", "Target", "Requirements"} {
		assert.False(t, regexp.MustCompile(`\b`+word+`\b`).MatchString(text), "%q on the Spanish page", word)
	}

	run.ReportLang = ""
	run.Lang = "es"
	assert.Contains(t, render(t, run, res), `<html lang="es">`, "--lang es gives a Spanish page")
	run.Lang = "all"
	page = render(t, run, res)
	assert.Contains(t, page, `<html lang="en">`, "--lang all gives English")
	assert.Contains(t, page, "The suite failed")
	assert.NotContains(t, page, "La suite falló")
}

// visibleText is what a page shows: no style, no tags, entities read.
func visibleText(page string) string {
	page = regexp.MustCompile(`(?s)<style>.*?</style>`).ReplaceAllString(page, "")
	page = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, " ")
	return html.UnescapeString(page)
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"ñandú á", 10, "ñandú á"},
		{"ñandú á", 7, "ñandú á"},
		{"ñandú á", 6, "ñandú…"},
		{"ñandú á", 5, "ñand…"},
		{"ñandú á", 1, "…"},
		{"ñandú á", 0, ""},
		{"😀😀😀", 2, "😀…"},
		{"ñand\xc3", 10, "ñand\uFFFD"},
	} {
		got := Clip(tc.in, tc.n)
		assert.Equal(t, tc.want, got, "Clip(%q, %d)", tc.in, tc.n)
		assert.True(t, utf8.ValidString(got), "Clip(%q, %d) = %q", tc.in, tc.n, got)
		assert.LessOrEqual(t, utf8.RuneCountInString(got), max(tc.n, 0))
	}
	// Cut at every length, never half a character.
	s := "Contrato ñandú — cláusula «única» 賃貸借契約書 😀"
	for n := 0; n <= utf8.RuneCountInString(s)+1; n++ {
		assert.True(t, utf8.ValidString(Clip(s, n)), "n=%d", n)
	}
}

// A result's shape, step and one-line error are its facts' when its
// step wrote them, else its error's first line and its step as they are:
// nothing is read back from a message.
func TestShapeAndShortComeFromFacts(t *testing.T) {
	plain := ScenarioResult{Error: "expected 200, got 401 {\"message\":\"x\"}\n  sent: POST /v1/check/m", FailedStep: `the response is 200 "Authenticated"`}
	assert.Equal(t, `expected 200, got 401 {"message":"x"}`, shape(plain))
	assert.Equal(t, `expected 200, got 401 {"message":"x"}`, Short(plain))
	assert.Equal(t, `the response is 200 "Authenticated"`, stepShape(plain))
	described := plain
	described.Facts = &Facts{Shape: `expected #, got 401 "x"`, Summary: `expected 200, got 401 "x"`, Step: `the response is # "…"`}
	assert.Equal(t, `expected #, got 401 "x"`, shape(described))
	assert.Equal(t, `expected 200, got 401 "x"`, Short(described))
	assert.Equal(t, `the response is # "…"`, stepShape(described))
}

// 58 failures of one wrong secret, 29 rows in each language, over several
// steps, are one cause with one example and a diagnosis; others keep
// their own causes.
func TestCausesGroupAWrongSecret(t *testing.T) {
	var res []ScenarioResult
	steps := map[string][]string{"en": {`the response is 200 "Authenticated"`, "the contract is created", "the response status is 200"},
		"es": {`la respuesta es 200 "Authenticated"`, "se crea el contrato", "el estado de la respuesta es 200"}}
	for _, lang := range []string{"es", "en"} {
		for i := 0; i < 29; i++ {
			res = append(res, ScenarioResult{Feature: lang + "/x.feature", Line: 10 + i, Lang: lang, Name: lang + " scenario",
				Requirement: fmt.Sprintf("REQ-%d", i%7), Row: fmt.Sprintf("n=%d", i), Status: Failed, FailedStep: steps[lang][i%3], FailureKind: FailureInvalidSignature,
				Error: fmt.Sprintf(`expected %d "x", got 401 {"status_code":401,"message":"Invalid signature"}`+"\n  sent: POST /v1/check/m [X-Service-Timestamp: %d]",
					200+i%2, 1763805600+i)})
		}
		res = append(res,
			ScenarioResult{Feature: lang + "/x.feature", Line: 90, Lang: lang, Requirement: "DEMO-TITLE", Status: Failed, FailedStep: "its title is the title sent",
				FailureKind: FailureNotificationForm, Error: `expected the notification's title "ñandú", got "?and?"`,
				Facts: &Facts{Field: "title", Expected: "ñandú", Seen: "?and?", Shape: `expected the notification's title "…", got "…"`}},
			ScenarioResult{Feature: lang + "/x.feature", Line: 91, Lang: lang, Requirement: "DEMO-TITLE", Row: "sample=emoji", Status: Failed, FailedStep: "its title is the title sent",
				FailureKind: FailureNotificationForm, Error: `expected the notification's title "😀", got "?"`,
				Facts: &Facts{Field: "title", Expected: "😀", Seen: "?", Shape: `expected the notification's title "…", got "…"`}},
			ScenarioResult{Feature: lang + "/x.feature", Line: 92, Lang: lang, Requirement: "AUTH-OK", Status: Passed},
			ScenarioResult{Feature: lang + "/x.feature", Line: 93, Lang: lang, Requirement: "DEMO-LATE", Status: Inconclusive,
				FailedStep: "a notification arrives", Error: "this process ran 900 ms late"},
		)
	}
	causes := Causes(res)
	require.Len(t, causes, 3)
	c := causes[0]
	assert.Equal(t, Failed, c.Status)
	assert.Equal(t, "request-invalid-signature", c.Diagnosis)
	assert.Contains(t, c.Explanation, "firmakit sign")
	assert.Equal(t, 58, c.Results)
	assert.Equal(t, 29, c.Rows, "the es and en copies of a row are merged")
	assert.Len(t, c.Members, 29)
	assert.Equal(t, []string{"en", "es"}, c.Members[0].Langs)
	assert.Equal(t, "en", c.Example.Lang, "the example is the English copy")
	assert.Len(t, c.Steps, 3, "one cause over three steps")
	assert.Len(t, c.Requirements, 7)

	assert.Equal(t, 4, causes[1].Results, "the two title rows share a cause: their facts agree but for the values")
	assert.Equal(t, 2, causes[1].Rows)
	assert.Equal(t, "notification-form", causes[1].Diagnosis, "a rule's kind")
	assert.Equal(t, `expected the notification's title "…", got "…"`, causes[1].Error)
	assert.Equal(t, Inconclusive, causes[2].Status, "inconclusive after the failures")

	es := causesIn("es", res)
	assert.Equal(t, "es", es[0].Example.Lang, "a Spanish page shows the Spanish copy")
	assert.Equal(t, "es scenario", es[0].Members[0].Name)
}

// An answer where another was expected is explained by its status and
// label alone.
func TestAnswerFailure(t *testing.T) {
	for _, tc := range []struct {
		status  int
		message string
		want    FailureKind
	}{
		{401, "Invalid credentials", FailureInvalidCredentials},
		{401, "Request expired", FailureExpired},
		{401, "Invalid signature", FailureInvalidSignature},
		{400, "Missing headers", FailureMissingHeaders},
		{404, "Not found", FailureNotFound},
		{404, "", FailureNotFound},
		{502, "", FailureServerError},
		{500, "boom", FailureServerError},
		{200, "Authenticated", ""},
		{401, "invalid signature", ""},
		{400, "missing signer: signer_1", ""},
		{413, "Request Entity Too Large", ""},
	} {
		assert.Equal(t, tc.want, AnswerFailure(tc.status, tc.message), "%d %q", tc.status, tc.message)
	}
}

// Failures are grouped by the kind their step gave them, not by their
// wording: a step's message reworded, or two steps' messages that differ,
// stay one cause of that kind; the same wording of two kinds is two
// causes.
func TestCausesGroupByKindNotWording(t *testing.T) {
	res := []ScenarioResult{
		{Feature: "en/x.feature", Line: 1, Lang: "en", Requirement: "DEMO-SIGNED", Status: Failed, FailedStep: "a SIGNED notification arrives",
			FailureKind: FailureNotificationMissing, Error: "expected a SIGNED notification; none arrived within 10s"},
		{Feature: "en/x.feature", Line: 2, Lang: "en", Requirement: "DEMO-BOUNCED", Status: Failed, FailedStep: "a BOUNCED notification arrives",
			FailureKind: FailureNotificationMissing, Error: "no BOUNCED notification came in the 10 s the profile allows"},
		{Feature: "en/x.feature", Line: 3, Lang: "en", Requirement: "AUTH-OK", Status: Failed, FailedStep: "the response status is 200",
			FailureKind: FailureExpired, Error: "the answer was wrong"},
		{Feature: "en/x.feature", Line: 4, Lang: "en", Requirement: "AUTH-OK", Status: Failed, FailedStep: "the response status is 200",
			FailureKind: FailureInvalidSignature, Error: "the answer was wrong"},
		{Feature: "en/x.feature", Line: 5, Lang: "en", Requirement: "AUTH-OK", Status: Failed, FailedStep: "the response status is 200",
			Error: `expected 200, got 401 {"status_code":401,"message":"Invalid signature"}`},
	}
	causes := Causes(res)
	require.Len(t, causes, 4)
	assert.Equal(t, "notification-missing", causes[0].Diagnosis)
	assert.Equal(t, 2, causes[0].Results, "two wordings, one kind")
	assert.Contains(t, causes[0].Explanation, "signature_webhook")
	assert.Equal(t, []string{"request-expired", "request-invalid-signature", ""},
		[]string{causes[1].Diagnosis, causes[2].Diagnosis, causes[3].Diagnosis},
		"one wording, two kinds; and a failure whose step gave no kind is not explained from its words")
	for _, c := range causesOf("en", res, false) {
		assert.Empty(t, c.Diagnosis, "another feature set's failures are not explained as the service's")
	}
}

func TestTimeline(t *testing.T) {
	run, res := fixture()
	page := render(t, run, res)
	svg := regexp.MustCompile(`(?s)<svg class="timeline".*?</svg>`).FindString(page)
	require.NotEmpty(t, svg, "an inline SVG")
	assert.Equal(t, 4, strings.Count(svg, "<circle"), "a dot per notification")
	assert.Equal(t, 2, strings.Count(svg, `<circle class="out"`), "the 1730 ms ones are outside the window")
	assert.Contains(t, svg, `class="window"`)
	assert.Contains(t, svg, `class="mark"`)
	assert.Contains(t, svg, "SIGNED: 1730 ms, @DEMO-NOTIFICATION")
	assert.NotContains(t, page, "<script")
	assert.Contains(t, page, "4 notifications: median 1115 ms, slowest 1730 ms; 2 outside 300–1500 ms.")

	for i := range res {
		res[i].Timings = nil
	}
	page = render(t, run, res)
	assert.NotContains(t, page, "<svg")
	assert.Contains(t, page, "No notification timings were recorded in this run")
}

func TestTimingJSON(t *testing.T) {
	b, err := json.Marshal(Timing{Label: "SIGNED", After201: 502300 * time.Microsecond})
	require.NoError(t, err)
	assert.JSONEq(t, `{"label":"SIGNED","after_201_ms":502.3}`, string(b))
	var back Timing
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, Timing{Label: "SIGNED", After201: 502300 * time.Microsecond}, back)
}

// The vectors of RFC 8785, sections 3.2.2 and 3.2.3.
func TestCanonicalRFC8785(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
	} {
		doc, err := decodeObject([]byte(tc.in))
		require.NoError(t, err)
		got, err := Canonical(doc)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(got))
	}
}

func TestVerifyCertificate(t *testing.T) {
	run, res := fixture()
	c, err := Build(run, res)
	require.NoError(t, err)
	original, err := json.MarshalIndent(c, "", "  ")
	require.NoError(t, err)

	check, err := VerifyCertificate(original)
	require.NoError(t, err)
	assert.True(t, check.Holds)
	assert.Equal(t, c.Digest.SHA256, check.SHA256)

	// Each case edits the certificate as JSON, as a person would.
	edit := func(change func(doc map[string]any)) []byte {
		doc, err := decodeObject(original)
		require.NoError(t, err)
		change(doc)
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name    string
		change  func(doc map[string]any)
		changed []string
	}{
		{"the same content, laid out otherwise", func(map[string]any) {}, nil},
		{"the result", func(doc map[string]any) { doc["result"] = "passed" }, []string{"result"}},
		{"a count", func(doc map[string]any) { doc["summary"].(map[string]any)["failed"] = json.Number("0") }, []string{"summary"}},
		{"one requirement", func(doc map[string]any) {
			doc["requirements"].([]any)[1].(map[string]any)["status"] = "passed"
		}, []string{"requirement DEMO-NOTIFICATION"}},
		{"a requirement taken out", func(doc map[string]any) {
			doc["requirements"] = doc["requirements"].([]any)[:1]
		}, []string{"removed requirement DEMO-NOTIFICATION"}},
		{"a member added", func(doc map[string]any) { doc["approved_by"] = "me" }, []string{"added member approved_by"}},
		{"a member taken out", func(doc map[string]any) { delete(doc, "failures") }, []string{"removed member failures"}},
		{"the digest itself", func(doc map[string]any) {
			doc["digest"].(map[string]any)["sha256"] = strings.Repeat("0", 64)
		}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check, err := VerifyCertificate(edit(tc.change))
			require.NoError(t, err)
			if tc.changed == nil {
				assert.True(t, check.Holds)
				return
			}
			assert.False(t, check.Holds)
			assert.Equal(t, tc.changed, append([]string{}, check.Changed...))
		})
	}

	_, err = VerifyCertificate(edit(func(doc map[string]any) { delete(doc, "digest") }))
	assert.ErrorIs(t, err, ErrNoDigest)
	_, err = VerifyCertificate([]byte(`[1]`))
	assert.Error(t, err)
	_, err = VerifyCertificate(edit(func(doc map[string]any) { doc["digest"].(map[string]any)["algorithm"] = "md5" }))
	assert.ErrorContains(t, err, "md5")
}

// The certificate names the bundled reference server, not its random
// port, and lists every id the steps noted, once each.
func TestCertificateTargetAndIDs(t *testing.T) {
	run, res := fixture()
	run.Bundled, run.Target = true, "http://127.0.0.1:41735"
	res[0].SignatureIDs, res[0].EventIDs = []string{"b", "a"}, []string{"e1"}
	res[3].SignatureIDs, res[3].EventIDs = []string{"a"}, []string{"e1", "e2", ""}
	c, err := Build(run, res)
	require.NoError(t, err)
	assert.Empty(t, c.Target.URL)
	assert.Equal(t, BundledTarget, c.Target.Label)
	assert.Equal(t, []string{"a", "b"}, c.SignatureIDs)
	assert.Equal(t, []string{"e1", "e2"}, c.EventIDs)
	page := render(t, run, res)
	assert.NotContains(t, page, "41735")
	assert.Contains(t, page, "bundled reference server")
	var j bytes.Buffer
	require.NoError(t, WriteJUnit(&j, run, res))
	assert.Contains(t, j.String(), `name="firmakit.target" value="bundled reference server"`)
	assert.NotContains(t, j.String(), "41735")
}
