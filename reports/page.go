package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/firmakit/firmakit/features"
)

//go:embed report.html.tmpl
var reportTemplate string

// page is report.html's template; each render clones it and binds "t"
// and "status" to the page's language.
var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"class":  func(s string) string { return strings.ReplaceAll(strings.Split(s, ",")[0], " ", "-") },
	"t":      func(key string, args ...any) string { return tr("en", key, args...) },
	"status": func(s string) string { return trStatus("en", s) },
}).Parse(reportTemplate))

// pageData is what report.html shows, in its language.
type pageData struct {
	Lang                    string
	C                       *Certificate
	ResultWord              string
	Banner, Counts, Verdict string
	TargetURL               string // empty for the bundled reference server
	// TargetName names a target that is not a service (Run.TargetLabel),
	// before its URL; empty for a service.
	TargetName string
	// Service is true for a run of the service's feature set: only it has
	// notification timings and contracts to show.
	Service                bool
	Hints                  []string
	Grid                   []gridCell
	NotRun                 []notRunView
	Failures, Inconclusive []causeView
	FailureSummary         string
	Timeline               template.HTML
	TimelineSummary        string
	Requirements           []reqView
	Caveats                []string
	// Expected are the run's expected-failures entries; HasExpected tells
	// whether any scenario was an expected failure, for the requirements'
	// column of them.
	Expected    []expectedView
	HasExpected bool
	// Warnings are the run's warnings grouped by what they rest on and
	// the practice; HasWarnings tells whether any scenario that passed
	// noted one, for the requirements' column of them.
	Warnings       []warningView
	WarningSummary string
	HasWarnings    bool
}

// warningView is a group of warnings sharing a basis and a practice: what
// they rest on (a sentence of the documents, or a practice) and each
// scenario that noted one.
type warningView struct {
	Basis, Practice string
	Requirements    []string
	Count           string
	// Ref and Citation are the item of the documents it rests on and its
	// sentence; both empty for a practice.
	Ref, Citation string
	Scenarios     []WarningResult
}

type expectedView struct {
	ExpectationResult
	Count string
}

// targetLabels are the report's keys of the Run.TargetLabel it knows; a
// label not here is shown as given.
var targetLabels = map[string]string{WebhookTarget: "target.webhook"}

type gridCell struct{ Tag, Class, Title string }

type notRunView struct {
	Scenarios    int
	Reason       string
	Requirements []string
	Flags        []string
	LeaveOut     string
}

type causeView struct {
	Status string
	// Breaks and Citation are the item of the documents the example's
	// failure breaks and its sentence; empty when it names none.
	Breaks, Citation string
	Heading          string
	Diagnosis        string
	// Explain says what the part of the documents a rule's kind names
	// asks, under a heading that is the failure's own (a likely cause is
	// the heading instead: Diagnosis).
	Explain       string
	Count         string
	Error         string
	Requirements  []string
	Steps         []string
	Example       ScenarioResult
	ExampleWhere  string
	Others        []causeRowView
	OthersSummary string
}

type causeRowView struct {
	CauseRow
	LangList string
	Where    string
}

type reqView struct {
	RequirementResult
	Name string // a scenario of it, in the page's language when run
}

// WriteHTML writes report.html of a run whose certificate is c, in the
// run's report language (Run.ReportLang). It returns w's errors.
func WriteHTML(w io.Writer, run Run, c *Certificate, results []ScenarioResult) error {
	lang := run.reportLang()
	d := pageData{Lang: lang, C: c, ResultWord: trStatus(lang, c.Result), Banner: tr(lang, "banner."+c.Result),
		Verdict: ExplainIn(lang, run.Tags, results), TargetURL: c.Target.URL, Service: run.set() == features.ServiceSet}
	if run.TargetLabel != "" {
		d.TargetName = run.TargetLabel
		if key, ok := targetLabels[run.TargetLabel]; ok {
			d.TargetName = tr(lang, key)
		}
	}
	for _, h := range run.Hints {
		d.Hints = append(d.Hints, h.In(lang))
	}
	s := c.Summary
	d.Counts = tr(lang, "counts", s.Passed, s.Failed, s.NotRun)
	if s.ExpectedFailures > 0 {
		d.Counts += tr(lang, "counts.expected", s.ExpectedFailures)
	}
	d.HasExpected = s.ExpectedFailures > 0
	for _, e := range c.ExpectedFailures {
		d.Expected = append(d.Expected, expectedView{ExpectationResult: e,
			Count: tr(lang, "expected.count", e.ExpectedFailures, e.Scenarios, e.Passed)})
	}
	if s.Inconclusive > 0 {
		d.Counts += tr(lang, "counts.inconclusive", s.Inconclusive)
	}
	if s.Warned > 0 {
		d.Counts += tr(lang, "counts.warned", s.Warned)
	}
	d.Counts += tr(lang, "counts.of", s.Scenarios)
	d.Warnings, d.HasWarnings = warningViews(lang, c.Warnings), s.Warnings > 0
	d.WarningSummary = tr(lang, "warnings.summary", s.Warnings, s.Warned)

	// A scenario of each requirement, in the page's language when run.
	names := map[string]ScenarioResult{}
	for _, r := range results {
		if cur, ok := names[r.Requirement]; !ok || cur.Lang != lang && r.Lang == lang {
			names[r.Requirement] = r
		}
	}
	for _, r := range c.Requirements {
		title := fmt.Sprintf("@%s: %s", r.Tag, trStatus(lang, r.Status))
		class := strings.ReplaceAll(strings.Split(r.Status, ",")[0], " ", "-")
		if r.Warnings > 0 {
			title += ", " + warningsIn(lang, r.Warnings)
			class += " warned"
		}
		d.Grid = append(d.Grid, gridCell{Tag: r.Tag, Class: class, Title: title})
		d.Requirements = append(d.Requirements, reqView{RequirementResult: r, Name: names[r.Tag].Name})
	}
	for _, g := range c.NotRun {
		d.NotRun = append(d.NotRun, notRunView{Scenarios: g.Scenarios, Reason: trReason(lang, g), Requirements: g.Requirements,
			Flags: g.Flags, LeaveOut: g.LeaveOut})
	}
	failedRows, failedRuns, failedCauses := 0, 0, 0
	for _, cause := range causesOf(lang, results, d.Service) {
		v := causeView{Status: cause.Status, Diagnosis: cause.ExplainIn(lang), Error: cause.Error, Requirements: cause.Requirements,
			Steps: cause.Steps, Example: cause.Example, Breaks: cause.Example.Breaks, Citation: Quote(cause.Example.Breaks)}
		v.Heading = v.Diagnosis
		if FailureKind(cause.Diagnosis).ByFacts() {
			v.Explain, v.Diagnosis = v.Diagnosis, "" // a rule's kind: the failure heads its group
		}
		if v.Diagnosis == "" {
			v.Heading = cause.Error
		}
		v.Count = tr(lang, "cause."+cause.Status, cause.Results)
		switch {
		case cause.Rows == cause.Results:
		case cause.Rows == 1:
			v.Count += " · " + tr(lang, "cause.row")
		default:
			v.Count += " · " + tr(lang, "cause.rows", cause.Rows)
		}
		if len(cause.Members) > 0 {
			v.ExampleWhere = strings.Join(cause.Members[0].Where, ", ")
			for _, m := range cause.Members[1:] {
				v.Others = append(v.Others, causeRowView{CauseRow: m, LangList: joinLangs(m.Langs), Where: strings.Join(m.Where, ", ")})
			}
		}
		v.OthersSummary = tr(lang, "cause.others", len(v.Others))
		if cause.Status == Failed {
			d.Failures = append(d.Failures, v)
			failedRows, failedRuns, failedCauses = failedRows+cause.Rows, failedRuns+cause.Results, failedCauses+1
		} else {
			d.Inconclusive = append(d.Inconclusive, v)
		}
	}
	d.FailureSummary = tr(lang, "failures.summary", failedRuns, failedRows, failedCauses)
	d.Timeline, d.TimelineSummary = timeline(lang, results)
	if d.Service {
		for _, k := range []string{"profile", "demo", "reference", "timing", "ledger", "scope", "digest"} {
			d.Caveats = append(d.Caveats, tr(lang, "caveat."+k))
		}
	} else {
		for _, key := range notProven[run.set().Name] {
			d.Caveats = append(d.Caveats, tr(lang, key))
		}
		d.Caveats = append(d.Caveats, tr(lang, "caveat.digest"))
	}

	t, err := page.Clone()
	if err != nil {
		return err
	}
	t.Funcs(template.FuncMap{
		"t":      func(key string, args ...any) string { return tr(lang, key, args...) },
		"status": func(s string) string { return trStatus(lang, s) },
	})
	return t.Execute(w, d)
}

// warningViews groups the warnings of the certificate (those of the
// scenarios that passed) by basis and practice, in the order of
// WarningGroups, each group with every warning of it.
func warningViews(lang string, list []WarningResult) []warningView {
	by := map[string]*warningView{}
	var keys []string
	for _, w := range list {
		k := w.Basis + "\x00" + w.Practice
		v := by[k]
		if v == nil {
			v = &warningView{Basis: w.Basis, Practice: w.Practice}
			if w.Basis != BasisPractice {
				v.Ref, v.Citation = w.Basis, w.Citation
			}
			by[k] = v
			keys = append(keys, k)
		}
		if !slices.Contains(v.Requirements, w.Requirement) {
			v.Requirements = append(v.Requirements, w.Requirement)
		}
		v.Scenarios = append(v.Scenarios, w)
	}
	sort.Strings(keys)
	out := make([]warningView, 0, len(keys))
	for _, k := range keys {
		v := by[k]
		sort.Strings(v.Requirements)
		v.Count = warningsIn(lang, len(v.Scenarios))
		out = append(out, *v)
	}
	return out
}
