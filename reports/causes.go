package reports

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Cause is a group of failed (or of inconclusive) scenario results that
// have one likely cause, or break one rule alike: 58 failures of one
// wrong secret are one Cause. A result whose kind is a likely cause
// (ScenarioResult.FailureKind, set by the step that failed it or left it
// inconclusive) is grouped by it, whatever its step and its wording; one
// of a rule's kind by its facts (ScenarioResult.Facts: the message and
// step as its step wrote them, the values taken out). Either says what
// probably went wrong (Diagnosis).
type Cause struct {
	Status string `json:"status"` // Failed or Inconclusive
	// Diagnosis names the kind of failure the results share (a FailureKind),
	// Explanation says what probably went wrong in English; both empty
	// for failures of no known kind.
	Diagnosis   string `json:"diagnosis,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	// Error is the example's message as its step wrote it with what
	// changes from one run to the next taken out (Facts.Shape), or its
	// first line when its step said no more.
	Error string `json:"error"`
	// Steps are the failed steps, their parameters taken out
	// (Facts.Step), in the order met.
	Steps []string `json:"steps"`
	// Results counts the scenario runs of the cause, each language's copy
	// apart; Rows counts them with the Spanish and English copies of one
	// scenario row merged.
	Results      int      `json:"results"`
	Rows         int      `json:"rows"`
	Requirements []string `json:"requirements"`
	// Example is the first result of the cause, in full (English when the
	// row ran in English); Members are its rows, Example's first.
	Example ScenarioResult `json:"-"`
	Members []CauseRow     `json:"-"`
}

// CauseRow is one scenario row of a Cause, its copies in each language
// merged.
type CauseRow struct {
	Requirement string
	Name        string // in the language of its first copy (see Causes)
	Row         string
	Example     string
	Langs       []string // "en", "es"
	Where       []string // feature:line of each copy
}

// Explain says what probably went wrong for the cause's diagnosis in a
// language of ReportLangs; "" when it has none.
func (c Cause) ExplainIn(lang string) string {
	if c.Diagnosis == "" {
		return ""
	}
	return tr(lang, "diag."+c.Diagnosis)
}

// rowKey names a scenario row across languages: its requirement, its
// outline row, and which scenario of that requirement and row it is in
// file order (the parity check keeps the languages in step).
type rowKey struct {
	requirement, row string
	nth              int
}

// rowKeys gives every result its row key, counting within each language.
func rowKeys(results []ScenarioResult) []rowKey {
	keys := make([]rowKey, len(results))
	seen := map[string]int{}
	for i, r := range results {
		k := r.Lang + "\x00" + r.Requirement + "\x00" + r.Row
		keys[i] = rowKey{r.Requirement, r.Row, seen[k]}
		seen[k]++
	}
	return keys
}

// Causes groups the failed and the inconclusive results of a run by
// cause: by their kind of failure when it is a likely cause
// (ScenarioResult.FailureKind), else by their kind, facts and failed step
// (FailureKind.ByFacts), without reading a message. The Spanish and English copies
// of one scenario row are merged into one CauseRow, shown by its English
// copy when it has one. Failures come first, then the largest causes.
func Causes(results []ScenarioResult) []Cause { return causesIn("en", results) }

// causesIn is Causes with each row shown by its copy in lang when it has
// one.
func causesIn(lang string, results []ScenarioResult) []Cause { return causesOf(lang, results, true) }

// causesOf is causesIn, with the kinds of failure explained only when
// withDiagnoses: they speak of a service under test (--target, its API
// version), so a run of another feature set, which names its own likely
// mistakes (Run.Hints), groups its failures by error and step alone.
func causesOf(lang string, results []ScenarioResult, withDiagnoses bool) []Cause {
	keys := rowKeys(results)
	type row struct {
		CauseRow
		status string
		first  ScenarioResult // the English copy when there is one
	}
	var rows []*row
	byKey := map[string]*row{}
	for i, r := range results {
		if r.Status != Failed && r.Status != Inconclusive {
			continue
		}
		k := fmt.Sprintf("%s\x00%s\x00%s\x00%d", r.Status, keys[i].requirement, keys[i].row, keys[i].nth)
		w := where(r)
		rw := byKey[k]
		if rw == nil {
			rw = &row{CauseRow: CauseRow{Requirement: r.Requirement, Name: r.Name, Row: r.Row, Example: r.Example}, status: r.Status, first: r}
			byKey[k] = rw
			rows = append(rows, rw)
		}
		if !slices.Contains(rw.Langs, r.Lang) {
			rw.Langs = append(rw.Langs, r.Lang)
		}
		rw.Where = append(rw.Where, w)
		if r.Lang == lang && rw.first.Lang != lang {
			rw.first, rw.Name, rw.Example = r, r.Name, r.Example
		}
	}

	var out []*Cause
	byCause := map[string]*Cause{}
	for _, rw := range rows {
		sort.Strings(rw.Langs)
		errLine, step := shape(rw.first), stepShape(rw.first)
		diag := ""
		if withDiagnoses {
			diag = string(rw.first.FailureKind) // a failure's, or what kept a result from a verdict
		}
		k := rw.status + "\x00" + diag + "\x00" + errLine + "\x00" + step
		if diag != "" && !rw.first.FailureKind.ByFacts() {
			k = rw.status + "\x00diagnosis\x00" + diag
		}
		c := byCause[k]
		if c == nil {
			c = &Cause{Status: rw.status, Diagnosis: diag, Error: errLine, Example: rw.first, Steps: []string{}, Requirements: []string{}}
			if diag != "" {
				c.Explanation = tr("en", "diag."+diag)
			}
			byCause[k] = c
			out = append(out, c)
		}
		c.Rows++
		c.Results += len(rw.Where)
		c.Members = append(c.Members, rw.CauseRow)
		if !slices.Contains(c.Steps, step) {
			c.Steps = append(c.Steps, step)
		}
		if !slices.Contains(c.Requirements, rw.Requirement) {
			c.Requirements = append(c.Requirements, rw.Requirement)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Status != out[j].Status {
			return out[i].Status == Failed
		}
		return out[i].Results > out[j].Results
	})
	causes := make([]Cause, len(out))
	for i, c := range out {
		sort.Strings(c.Requirements)
		causes[i] = *c
	}
	return causes
}

// joinLangs says the languages of a row: "en, es".
func joinLangs(langs []string) string { return strings.Join(langs, ", ") }
