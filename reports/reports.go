package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"go.yaml.in/yaml/v3"
)

// Statuses of a scenario, a requirement or an interface item, and the
// verdicts of a run (see Verdict).
const (
	Passed = "passed"
	Failed = "failed"
	// NotRun: the target's configuration cannot run the scenario (a
	// credential was not given); the reason is kept.
	NotRun = "not run"
	// Inconclusive: a timing check could not be judged because the
	// suite's own process could not run on time.
	Inconclusive = "inconclusive"
	// ExpectedFailure: the scenario failed, as an entry of the run's
	// expected-failures file declared (see ApplyExpectations); the
	// entry's reason is kept. It does not fail the run.
	ExpectedFailure = "expected failure"
	// PassedWithExpectedFailures is a run's verdict when every selected
	// scenario passed but for expected failures: the run does not fail,
	// yet it is not Passed, so that a reader of the certificate who looks
	// at its result alone cannot take declared deviations for conformance.
	PassedWithExpectedFailures = "passed with expected failures"
	// PassedWithWarnings is a run's verdict when every selected scenario
	// passed and some noted warnings: what a careful certifier wants to
	// see but the documents do not require (see Warning). The run does
	// not fail; --strict turns each warning into a failure (Strict).
	PassedWithWarnings = "passed with warnings"
	// Incomplete is a run's verdict when no scenario failed or was
	// inconclusive but some were not run.
	Incomplete = "incomplete"
	NotTested  = "not tested" // the interface does not show it
	PartNotRun = "passed, partly not run"
	// NotSelected: the run's language or tags left every scenario out.
	NotSelected     = "not selected"
	PartNotSelected = "passed, partly not selected"
)

// Run describes a finished conformance run.
type Run struct {
	Tool, Version string
	// Target is the base URL of the service under test, or the URL of
	// the endpoint under test (see TargetLabel). Bundled says it is the
	// bundled reference server that certify started in-process: its URL
	// is then a random loopback port, and the reports name it
	// BundledTarget instead.
	Target     string
	Bundled    bool
	MerchantID string
	Profile    *firmakit.Profile
	Lang, Tags string
	// ReportLang is the language of report.html, "es" or "en"; empty: Lang
	// when it is one of them, else English.
	ReportLang string
	Started    time.Time
	Elapsed    time.Duration
	// Set is the feature set that ran; nil is the service's.
	Set *features.Set
	// TargetLabel names a target that is not a service, for people: e.g.
	// WebhookTarget. The certificate's Target.Label is it when given.
	TargetLabel string
	// Hints name a likely mistake that the pattern of failures points
	// at, for the report to say first.
	Hints []Hint
	// Expected are the entries of the run's expected-failures file, whose
	// results ApplyExpectations rewrote; the certificate and report.html
	// list them with their reasons and what became of each.
	Expected []Expectation
	// SignatureIDs are the contracts a webhook run's notifications named
	// (certify-webhook --signature-id); none: made up.
	SignatureIDs []string
}

// BundledTarget is how the reports name the bundled reference server.
const BundledTarget = "bundled reference server"

// ExplorationFeature is the feature of the results of an exploration with
// generated requests (package explore, certify --explore): no .feature
// file holds them, so AnnotateCucumber writes them as a feature of their
// own.
const ExplorationFeature = "exploration"

// WebhookTarget is how the reports name a merchant's webhook endpoint,
// the target of the webhook set (Run.TargetLabel).
const WebhookTarget = "merchant webhook endpoint"

// targetLabel is what the reports call the run's target.
func (r Run) targetLabel() string {
	switch {
	case r.TargetLabel != "":
		return r.TargetLabel
	case r.Bundled:
		return BundledTarget
	}
	return r.Target
}

// set is the feature set that ran.
func (r Run) set() *features.Set {
	if r.Set == nil {
		return features.ServiceSet
	}
	return r.Set
}

// reportLang is the language report.html is written in.
func (r Run) reportLang() string {
	for _, l := range []string{r.ReportLang, r.Lang} {
		if _, ok := tables[l]; ok {
			return l
		}
	}
	return "en"
}

// ScenarioResult is one scenario (one example row of an outline) of a run.
type ScenarioResult struct {
	Feature     string   `json:"feature"`
	Line        int      `json:"line,omitempty"` // of the scenario, or of its example row
	Name        string   `json:"name"`
	Example     string   `json:"example,omitempty"` // an outline row's setup, as run
	Row         string   `json:"row,omitempty"`     // an outline row's values, "header=value, …"
	Lang        string   `json:"lang"`
	Requirement string   `json:"requirement"`
	Kind        string   `json:"kind"`
	Needs       []string `json:"needs,omitempty"` // need tags, without @
	Status      string   `json:"status"`
	FailedStep  string   `json:"failed_step,omitempty"`
	// Error is why it failed, was not run, or was inconclusive.
	Error string `json:"error,omitempty"`
	// ExpectedReason is, for an ExpectedFailure, the reason its
	// expected-failures entry gives; Error is still the failure's own.
	ExpectedReason string `json:"expected_reason,omitempty"`
	// Breaks is, for a failure, the item of the documents whose sentence
	// the failing assertion enforces: a ref of features.Items, e.g.
	// "defaults §A check 2" (Quote gives its text).
	Breaks string `json:"breaks,omitempty"`
	// FailureKind is, for a failure, its kind when the step that failed
	// it knew it (an authentication answer, a notification that never
	// came); for an inconclusive result, what kept it from a verdict when
	// known (a target that answered nothing). Causes groups and explains
	// by it.
	FailureKind FailureKind `json:"failure_kind,omitempty"`
	// Facts are, for a failure or an inconclusive result, what it is
	// about as the step that judged it knew them: the field, what was
	// expected and seen, the answer's status and label, and its message
	// and step with what changes from one run to the next taken out.
	// Causes groups and shows by them; nil for a step's plain error.
	Facts *Facts `json:"facts,omitempty"`
	// Warnings are what the scenario's steps saw that the documents do not
	// require but a careful certifier wants to see; the scenario still
	// passes (Strict makes it fail).
	Warnings []Warning `json:"warnings,omitempty"`
	// Exchange is what was sent and what came back, for a suite that
	// records it (the webhook set's), passed or not.
	Exchange string        `json:"exchange,omitempty"`
	Duration time.Duration `json:"-"`

	// What the scenario's steps noted beside the verdict; each is
	// optional, and left empty by steps that do not note it.
	//
	// Timings are the notifications the scenario waited for, as they
	// arrived (steps.NoteTiming); report.html draws them on its timeline.
	Timings []Timing `json:"timings,omitempty"`
	// SignatureIDs are the contracts the scenario created
	// (steps.NoteSignatureID), EventIDs the event_id of each notification
	// it received (steps.NoteEventID); the certificate lists them all, so
	// that the service provider can match them against its records.
	SignatureIDs []string `json:"signature_ids,omitempty"`
	EventIDs     []string `json:"event_ids,omitempty"`
}

// Summary counts the scenarios of a run by status.
type Summary struct {
	Scenarios    int `json:"scenarios"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	NotRun       int `json:"not_run"`
	Inconclusive int `json:"inconclusive"`
	// ExpectedFailures counts the failures an expected-failures entry
	// declared, apart from Failed.
	ExpectedFailures int `json:"expected_failures"`
	// Warned counts the scenarios that passed with warnings (they count
	// in Passed too), Warnings their warnings.
	Warned   int `json:"warned"`
	Warnings int `json:"warnings"`
}

// RequirementResult sums up the scenarios of one requirement tag.
type RequirementResult struct {
	Tag          string `json:"tag"`
	Kind         string `json:"kind"`
	Status       string `json:"status"`
	Passed       int    `json:"passed"`
	Failed       int    `json:"failed"`
	NotRun       int    `json:"not_run"`
	Inconclusive int    `json:"inconclusive"`
	// ExpectedFailures is absent when none of its scenarios was an
	// expected failure; Warnings, the warnings of its scenarios that
	// passed, when they noted none.
	ExpectedFailures int    `json:"expected_failures,omitempty"`
	Warnings         int    `json:"warnings,omitempty"`
	Example          string `json:"example"` // a scenario name, English when run
	// Exchange is what one of its scenarios sent and got back: the first
	// that failed, else the first in English (see ScenarioResult.Exchange).
	Exchange string `json:"exchange,omitempty"`
}

// ItemResult is the status of one item of the interface document.
type ItemResult struct {
	Ref          string   `json:"ref"`
	Text         string   `json:"text"`
	Status       string   `json:"status"`
	Requirements []string `json:"requirements"`
	Note         string   `json:"note,omitempty"`
}

// Certificate is the machine-readable outcome of a run.
type Certificate struct {
	Schema string `json:"schema"`
	Tool   struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"tool"`
	GeneratedAt string `json:"generated_at"`
	// Target.URL is the target's base URL (the endpoint's URL for the
	// webhook set), empty for the bundled reference server; Label names it
	// for people: the URL, BundledTarget, or Run.TargetLabel when the
	// target is not a service (WebhookTarget).
	Target struct {
		URL        string `json:"url"`
		Label      string `json:"label"`
		MerchantID string `json:"merchant_id"`
		// SignatureIDs are the merchant's contracts the webhook set's
		// notifications named; none: contracts firmakit made up.
		SignatureIDs []string `json:"signature_ids,omitempty"`
	} `json:"target"`
	Profile struct {
		Name   string `json:"name"`
		SHA256 string `json:"sha256"`
	} `json:"profile"`
	Suite struct {
		FeaturesSHA256 string `json:"features_sha256"`
		Lang           string `json:"lang"`
		Tags           string `json:"tags"`
		// Set names the feature set when it is not the service's.
		Set string `json:"set,omitempty"`
	} `json:"suite"`
	// Result is the run's verdict: passed, failed, inconclusive,
	// incomplete, "passed with expected failures" (never plain passed
	// when an expected-failures entry covered a failure: see
	// PassedWithExpectedFailures) or "passed with warnings"; Verdict says
	// it in a sentence, with what to do.
	Result    string  `json:"result"`
	Verdict   string  `json:"verdict"`
	Summary   Summary `json:"summary"`
	ElapsedMS int64   `json:"elapsed_ms"`
	// NotRun groups the scenarios not run by reason, with the flags that
	// would run them and the tag expression that leaves them out;
	// NotRunReasons says the same, a line per group.
	NotRun        []NotRunGroup       `json:"not_run"`
	NotRunReasons []string            `json:"not_run_reasons"`
	Interface     []ItemResult        `json:"interface"`
	Requirements  []RequirementResult `json:"requirements"`
	// Failures are the failed scenarios, each with the sentence it breaks
	// (Failure.Citation).
	Failures     []Failure        `json:"failures"`
	Inconclusive []ScenarioResult `json:"inconclusive"`
	// Warnings are the warnings of the scenarios that passed, one entry
	// each (Summary.Warnings counts them): what the target does that the
	// documents do not require, with the sentence or the practice behind
	// it. Under --strict they are failures instead.
	Warnings []WarningResult `json:"warnings"`
	// ExpectedFailures are the entries of the run's expected-failures
	// file (Run.Expected) with their reasons, what became of each, and
	// the failures each covered; the failures are counted apart from
	// Failures (Summary.ExpectedFailures).
	ExpectedFailures []ExpectationResult `json:"expected_failures"`
	// Hints name a likely mistake the failures point at (Run.Hints), in
	// English.
	Hints []string `json:"hints,omitempty"`
	// NotProven says what passing does not prove, in English, for a set
	// other than the service's (whose report says it in its own words).
	NotProven []string `json:"not_proven,omitempty"`
	// Causes groups the failures and the inconclusive scenarios by cause
	// (see Causes), with the likely cause when the pattern is known.
	Causes []Cause `json:"causes"`
	// SignatureIDs are the contracts the run created, EventIDs the
	// notifications it received, each sorted and listed once.
	SignatureIDs []string `json:"signature_ids"`
	EventIDs     []string `json:"event_ids"`
	// Digest is the SHA-256 of the rest, in canonical form; see
	// VerifyCertificate.
	Digest Digest `json:"digest"`
}

// Failure is a failed scenario as the certificate lists it: its result,
// whose Breaks names the item of the documents it breaks, and that item's
// sentence.
type Failure struct {
	ScenarioResult
	// Citation is the sentence of the item Breaks names, whole (Quote);
	// empty when the failure names none.
	Citation string `json:"citation,omitempty"`
}

// WarningResult is one warning of a scenario that passed, as the
// certificate lists it.
type WarningResult struct {
	// Scenario is the scenario's name, with its outline row; Where its
	// feature file and line.
	Scenario    string `json:"scenario"`
	Where       string `json:"where"`
	Lang        string `json:"lang"`
	Requirement string `json:"requirement"`
	Step        string `json:"step,omitempty"`
	Message     string `json:"message"`
	// Basis is a ref of the documents' items, or BasisPractice; Citation
	// is that item's sentence, whole, empty for a practice.
	Basis    string `json:"basis"`
	Citation string `json:"citation,omitempty"`
	Practice string `json:"practice"`
}

// WarningList lists the warnings of the results that passed, in their
// order: those of a scenario that failed or was not run are not counted
// (Summary.Warnings), since its verdict says more; under --strict (Strict)
// they are failures.
func WarningList(results []ScenarioResult) []WarningResult {
	out := []WarningResult{}
	for _, r := range results {
		if r.Status != Passed {
			continue
		}
		for _, w := range r.Warnings {
			out = append(out, WarningResult{Scenario: caseName(r), Where: where(r), Lang: r.Lang, Requirement: r.Requirement,
				Step: w.Step, Message: w.Message, Basis: w.Basis, Citation: Quote(w.Basis), Practice: w.Practice})
		}
	}
	return out
}

// Quote is the sentence of the item of the documents whose ref is ref,
// whole; "" for an unknown ref and for BasisPractice. Cite says it with
// its ref, cut short, on one line.
func Quote(ref string) string {
	text, _ := features.ItemText(ref)
	return text
}

// where is a result's feature file and line: "en/webhook.feature:42".
func where(r ScenarioResult) string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.Feature, r.Line)
	}
	return r.Feature
}

// Build makes the certificate of a run from its scenario results: the
// verdict (see Verdict), the counts, what was not run and why, and the
// status of every requirement and interface item. It returns the errors of
// encoding the profile and of reading the embedded features.
func Build(run Run, scenarios []ScenarioResult) (*Certificate, error) {
	set := run.set()
	c, err := header(run, set)
	if err != nil {
		return nil, err
	}
	c.Result, c.Verdict, c.Summary = Verdict(scenarios), Explain(run.Tags, scenarios), Summarize(scenarios)
	c.NotRun, c.NotRunReasons = NotRunGroups(run.Tags, scenarios), []string{}
	for _, g := range c.NotRun {
		c.NotRunReasons = append(c.NotRunReasons, g.String())
	}
	c.Failures, c.Inconclusive, c.ExpectedFailures = []Failure{}, []ScenarioResult{}, []ExpectationResult{}
	c.Warnings = WarningList(scenarios)
	for _, e := range run.Expected {
		c.ExpectedFailures = append(c.ExpectedFailures, judgeExpectation(e, scenarios))
	}
	c.Causes = causesOf("en", scenarios, set == features.ServiceSet)
	c.SignatureIDs, c.EventIDs = []string{}, []string{}
	for _, s := range scenarios {
		c.SignatureIDs = append(c.SignatureIDs, s.SignatureIDs...)
		c.EventIDs = append(c.EventIDs, s.EventIDs...)
	}
	c.SignatureIDs, c.EventIDs = sortedSet(c.SignatureIDs), sortedSet(c.EventIDs)
	byTag := c.requirements(scenarios)
	if c.Interface, err = interfaceItems(set, byTag); err != nil {
		return nil, err
	}
	if err := sealCertificate(c); err != nil {
		return nil, err
	}
	return c, nil
}

// header starts a run's certificate with what it is of: the tool, the
// target, the set and what it does not prove, the profile's and the
// features' digests.
func header(run Run, set *features.Set) (*Certificate, error) {
	c := &Certificate{Schema: "firmakit.certificate/v1"}
	c.Tool.Name, c.Tool.Version = run.Tool, run.Version
	c.GeneratedAt = run.Started.Add(run.Elapsed).UTC().Format(time.RFC3339)
	c.Target.URL, c.Target.Label, c.Target.MerchantID = run.Target, run.targetLabel(), run.MerchantID
	c.Target.SignatureIDs = run.SignatureIDs
	if run.Bundled {
		c.Target.URL = ""
	}
	if set != features.ServiceSet {
		c.Suite.Set = set.Name
		for _, key := range notProven[set.Name] {
			c.NotProven = append(c.NotProven, tr("en", key))
		}
	}
	for _, h := range run.Hints {
		c.Hints = append(c.Hints, h.String())
	}
	if run.Profile != nil {
		y, err := yaml.Marshal(run.Profile)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(y)
		c.Profile.Name, c.Profile.SHA256 = run.Profile.Name, hex.EncodeToString(sum[:])
	}
	fsum, err := set.Digest(features.FS)
	if err != nil {
		return nil, err
	}
	c.Suite.FeaturesSHA256, c.Suite.Lang, c.Suite.Tags = fsum, run.Lang, run.Tags
	c.ElapsedMS = run.Elapsed.Milliseconds()
	return c, nil
}

// requirements counts the scenarios of each requirement tag, keeps the
// failed and inconclusive ones, and lists the requirements by tag.
func (c *Certificate) requirements(scenarios []ScenarioResult) map[string]*RequirementResult {
	byTag := map[string]*RequirementResult{}
	exchangeRank := map[string]int{}
	var order []string
	for _, s := range scenarios {
		r := byTag[s.Requirement]
		if r == nil {
			r = &RequirementResult{Tag: s.Requirement, Kind: s.Kind}
			byTag[s.Requirement] = r
			order = append(order, s.Requirement)
		}
		if r.Example == "" || s.Lang == "en" {
			r.Example = s.Name
		}
		// The exchange shown: the first failure's, else the first in
		// English, else the first.
		rank := 1
		switch {
		case s.Status == Failed:
			rank = 3
		case s.Lang == "en":
			rank = 2
		}
		if s.Exchange != "" && rank > exchangeRank[s.Requirement] {
			r.Exchange, exchangeRank[s.Requirement] = s.Exchange, rank
		}
		if r.Kind != s.Kind && !strings.Contains(r.Kind, s.Kind) {
			r.Kind += "+" + s.Kind
		}
		switch s.Status {
		case Passed:
			r.Passed++
			r.Warnings += len(s.Warnings)
		case Failed:
			r.Failed++
			c.Failures = append(c.Failures, Failure{ScenarioResult: s, Citation: Quote(s.Breaks)})
		case Inconclusive:
			r.Inconclusive++
			c.Inconclusive = append(c.Inconclusive, s)
		case ExpectedFailure:
			r.ExpectedFailures++
		default:
			r.NotRun++
		}
	}
	sort.Strings(order)
	for _, tag := range order {
		r := byTag[tag]
		r.Status = status(r.Passed, r.Failed, r.NotRun, r.Inconclusive, r.ExpectedFailures)
		c.Requirements = append(c.Requirements, *r)
	}
	return byTag
}

// interfaceItems gives each item of the documents the set traces the
// status of the requirements that test it: not tested when none does,
// not selected when the run left them all out.
func interfaceItems(set *features.Set, byTag map[string]*RequirementResult) ([]ItemResult, error) {
	items, err := set.Items(features.FS)
	if err != nil {
		return nil, err
	}
	reqs, err := set.Requirements(features.FS)
	if err != nil {
		return nil, err
	}
	byRef := map[string]features.Requirement{}
	for _, r := range reqs {
		byRef[r.Ref] = r
	}
	var out []ItemResult
	for _, it := range items {
		r := byRef[it.Ref]
		ir := ItemResult{Ref: it.Ref, Text: it.Text, Requirements: append([]string{}, r.Scenarios...), Note: r.Note}
		var p, f, n, i, x, left int
		for _, tag := range r.Scenarios {
			if rr := byTag[tag]; rr != nil {
				p, f, n, i, x = p+rr.Passed, f+rr.Failed, n+rr.NotRun, i+rr.Inconclusive, x+rr.ExpectedFailures
			} else {
				left++ // left out by the run's tags or language
			}
		}
		ir.Status = status(p, f, n, i, x)
		switch {
		case left > 0 && p+f+n+i+x == 0:
			ir.Status = NotSelected
		case left > 0 && ir.Status == Passed:
			ir.Status = PartNotSelected
		}
		if len(r.Scenarios) == 0 {
			ir.Status = NotTested
		}
		out = append(out, ir)
	}
	return out, nil
}

// sortedSet returns the distinct non-empty strings of s, sorted.
func sortedSet(s []string) []string {
	out := []string{}
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// status sums up the scenarios of a requirement or an interface item, in
// the order of Verdict; an expected failure is shown as such, before what
// was not run.
func status(passed, failed, notRun, inconclusive, expected int) string {
	switch {
	case failed > 0:
		return Failed
	case inconclusive > 0:
		return Inconclusive
	case expected > 0:
		return ExpectedFailure
	case passed == 0:
		return NotRun
	case notRun > 0:
		return PartNotRun
	}
	return Passed
}

// notProven says, per feature set other than the service's, what passing
// does not prove: keys of the report's language tables, in the order
// shown. The service's report says it with its own caveats (WriteHTML).
var notProven = map[string][]string{
	"webhook": {"notproven.webhook.profile", "notproven.webhook.effects", "notproven.webhook.duplicate",
		"notproven.webhook.timing", "notproven.webhook.scope"},
}
