// Package reports turns a conformance run into what people and pipelines
// read: the run's verdict, a self-contained HTML report, a machine-readable
// certificate and JUnit XML, next to the Cucumber JSON that godog writes.
package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
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
	// Target is the base URL of the service under test. Bundled says it is
	// the bundled reference server that certify started in-process: its
	// URL is then a random loopback port, and the reports name it
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
}

// BundledTarget is how the reports name the bundled reference server.
const BundledTarget = "bundled reference server"

// targetLabel is what the reports call the run's target.
func (r Run) targetLabel() string {
	if r.Bundled {
		return BundledTarget
	}
	return r.Target
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
	Error    string        `json:"error,omitempty"`
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
	Example      string `json:"example"` // a scenario name, English when run
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
	// Target.URL is the target's base URL, empty for the bundled
	// reference server; Label names it for people: the URL, or
	// BundledTarget.
	Target struct {
		URL        string `json:"url"`
		Label      string `json:"label"`
		MerchantID string `json:"merchant_id"`
	} `json:"target"`
	Profile struct {
		Name   string `json:"name"`
		SHA256 string `json:"sha256"`
	} `json:"profile"`
	Suite struct {
		FeaturesSHA256 string `json:"features_sha256"`
		Lang           string `json:"lang"`
		Tags           string `json:"tags"`
	} `json:"suite"`
	// Result is the run's verdict: passed, failed, inconclusive or
	// incomplete; Verdict says it in a sentence, with what to do.
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
	Failures      []ScenarioResult    `json:"failures"`
	Inconclusive  []ScenarioResult    `json:"inconclusive"`
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

// Build makes the certificate of a run from its scenario results: the
// verdict (see Verdict), the counts, what was not run and why, and the
// status of every requirement and interface item. It returns the errors of
// encoding the profile and of reading the embedded features.
func Build(run Run, scenarios []ScenarioResult) (*Certificate, error) {
	c := &Certificate{Schema: "firmakit.certificate/v1"}
	c.Tool.Name, c.Tool.Version = run.Tool, run.Version
	c.GeneratedAt = run.Started.Add(run.Elapsed).UTC().Format(time.RFC3339)
	c.Target.URL, c.Target.Label, c.Target.MerchantID = run.Target, run.targetLabel(), run.MerchantID
	if run.Bundled {
		c.Target.URL = ""
	}
	if run.Profile != nil {
		y, err := yaml.Marshal(run.Profile)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(y)
		c.Profile.Name, c.Profile.SHA256 = run.Profile.Name, hex.EncodeToString(sum[:])
	}
	fsum, err := featuresDigest()
	if err != nil {
		return nil, err
	}
	c.Suite.FeaturesSHA256, c.Suite.Lang, c.Suite.Tags = fsum, run.Lang, run.Tags
	c.ElapsedMS = run.Elapsed.Milliseconds()
	c.Result, c.Verdict, c.Summary = Verdict(scenarios), Explain(run.Tags, scenarios), Summarize(scenarios)
	c.NotRun, c.NotRunReasons = NotRunGroups(run.Tags, scenarios), []string{}
	for _, g := range c.NotRun {
		c.NotRunReasons = append(c.NotRunReasons, g.String())
	}
	c.Failures, c.Inconclusive = []ScenarioResult{}, []ScenarioResult{}
	c.Causes = Causes(scenarios)
	c.SignatureIDs, c.EventIDs = []string{}, []string{}
	for _, s := range scenarios {
		c.SignatureIDs = append(c.SignatureIDs, s.SignatureIDs...)
		c.EventIDs = append(c.EventIDs, s.EventIDs...)
	}
	c.SignatureIDs, c.EventIDs = sortedSet(c.SignatureIDs), sortedSet(c.EventIDs)

	byTag := map[string]*RequirementResult{}
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
		if r.Kind != s.Kind && !strings.Contains(r.Kind, s.Kind) {
			r.Kind += "+" + s.Kind
		}
		switch s.Status {
		case Passed:
			r.Passed++
		case Failed:
			r.Failed++
			c.Failures = append(c.Failures, s)
		case Inconclusive:
			r.Inconclusive++
			c.Inconclusive = append(c.Inconclusive, s)
		default:
			r.NotRun++
		}
	}
	sort.Strings(order)
	for _, tag := range order {
		r := byTag[tag]
		r.Status = status(r.Passed, r.Failed, r.NotRun, r.Inconclusive)
		c.Requirements = append(c.Requirements, *r)
	}

	items, err := features.AllItems(features.FS)
	if err != nil {
		return nil, err
	}
	reqs, err := features.Requirements(features.FS)
	if err != nil {
		return nil, err
	}
	byRef := map[string]features.Requirement{}
	for _, r := range reqs {
		byRef[r.Ref] = r
	}
	for _, it := range items {
		r := byRef[it.Ref]
		ir := ItemResult{Ref: it.Ref, Text: it.Text, Requirements: append([]string{}, r.Scenarios...), Note: r.Note}
		var p, f, n, i, out int
		for _, tag := range r.Scenarios {
			if rr := byTag[tag]; rr != nil {
				p, f, n, i = p+rr.Passed, f+rr.Failed, n+rr.NotRun, i+rr.Inconclusive
			} else {
				out++ // left out by the run's tags or language
			}
		}
		ir.Status = status(p, f, n, i)
		switch {
		case out > 0 && p+f+n+i == 0:
			ir.Status = NotSelected
		case out > 0 && ir.Status == Passed:
			ir.Status = PartNotSelected
		}
		if len(r.Scenarios) == 0 {
			ir.Status = NotTested
		}
		c.Interface = append(c.Interface, ir)
	}
	if err := sealCertificate(c); err != nil {
		return nil, err
	}
	return c, nil
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
// the order of Verdict.
func status(passed, failed, notRun, inconclusive int) string {
	switch {
	case failed > 0:
		return Failed
	case inconclusive > 0:
		return Inconclusive
	case passed == 0:
		return NotRun
	case notRun > 0:
		return PartNotRun
	}
	return Passed
}

// featuresDigest fingerprints the suite: the same digest means the same
// scenarios were run.
func featuresDigest() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(features.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(features.FS, p)
		h.Write([]byte(p + "\x00"))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// WriteAll writes dir/certificate.json, dir/report.html and dir/junit.xml
// for a run; it returns the first error of building or writing them.
func WriteAll(dir string, run Run, scenarios []ScenarioResult) error {
	c, err := Build(run, scenarios)
	if err != nil {
		return err
	}
	if err := WriteJUnitFile(filepath.Join(dir, "junit.xml"), run, scenarios); err != nil {
		return err
	}
	// Tag expressions hold "&&": kept as is, not escaped for HTML.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "certificate.json"), b.Bytes(), 0o644); err != nil {
		return err
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, run, c, scenarios); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.html"), page.Bytes(), 0o644)
}
