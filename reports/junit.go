package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// The JUnit XML shape that CI servers read (Ant's, as Jenkins, GitLab and
// GitHub reporters take it): testsuites > testsuite > testcase, a case
// holding at most one of failure, error or skipped.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitCase is a testcase. Properties and system-out carry its warnings:
// Ant's schema has no properties under a testcase, but Jenkins, pytest
// and most readers take them there, and a reader that does not ignores
// them.
type junitCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties"`
	Failure    *junitProblem    `xml:"failure"`
	Error      *junitProblem    `xml:"error"`
	Skipped    *junitProblem    `xml:"skipped"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

// junitProperties is a testcase's properties element, absent when nil.
type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the run as JUnit XML: a testsuite per feature file, a
// testcase per scenario or outline row (named with the row's values), a
// failure with the failed step, the sentence it breaks and the error for a
// failed scenario, a skipped with the reason for one not run, a skipped
// whose message begins "expected failure: " for an expected failure, and
// an error of type "inconclusive" for an inconclusive one. A testcase
// whose scenario noted warnings (one that passed, most often) carries
// each as a property firmakit.warning and all of them in its system-out.
// Each testsuite carries the run's verdict as the property
// firmakit.verdict. It returns w's errors.
func WriteJUnit(w io.Writer, run Run, results []ScenarioResult) error {
	sorted := append([]ScenarioResult(nil), results...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Feature != sorted[j].Feature {
			return sorted[i].Feature < sorted[j].Feature
		}
		return sorted[i].Line < sorted[j].Line
	})
	doc := junitSuites{Name: run.Tool, Time: seconds(run.Elapsed)}
	if doc.Name == "" {
		doc.Name = "firmakit"
	}
	props := []junitProperty{
		{"firmakit.verdict", Verdict(results)},
		{"firmakit.explain", Explain(run.Tags, results)},
		{"firmakit.target", run.targetLabel()},
		{"firmakit.merchant_id", run.MerchantID},
		{"firmakit.lang", run.Lang},
		{"firmakit.tags", run.Tags},
	}
	var suite *junitSuite
	var suiteTime time.Duration
	names := map[string]int{}
	for _, r := range sorted {
		if suite == nil || suite.Name != r.Feature {
			if suite != nil {
				suite.Time = seconds(suiteTime)
			}
			doc.Suites = append(doc.Suites, junitSuite{Name: r.Feature, Properties: props,
				Timestamp: run.Started.UTC().Format("2006-01-02T15:04:05")})
			suite, suiteTime, names = &doc.Suites[len(doc.Suites)-1], 0, map[string]int{}
		}
		c := junitCase{Name: caseName(r), Classname: classname(r.Feature), Time: seconds(r.Duration)}
		if len(r.Warnings) > 0 {
			c.Properties = &junitProperties{}
			for _, w := range r.Warnings {
				c.Properties.Property = append(c.Properties.Property, junitProperty{"firmakit.warning", w.String()})
			}
		}
		c.SystemOut = warningsOut(r)
		if names[c.Name]++; names[c.Name] > 1 {
			c.Name += fmt.Sprintf(" #%d", names[c.Name])
		}
		switch r.Status {
		case Passed:
		case Failed:
			c.Failure = &junitProblem{Type: Failed, Message: problem(r), Text: details(r)}
			suite.Failures++
		case Inconclusive:
			c.Error = &junitProblem{Type: Inconclusive, Message: problem(r), Text: details(r)}
			suite.Errors++
		case ExpectedFailure:
			// JUnit has no outcome for an expected failure. A failure or
			// an error would turn the CI server's build red for a
			// deviation the run does not fail on; a passed case would hide
			// it. A skipped one is neither, and is what pytest writes for
			// its xfail: the message says it was expected and why, the
			// text keeps the failure itself. (Ant's schema gives skipped a
			// message and no type.)
			c.Skipped = &junitProblem{Message: "expected failure: " + r.ExpectedReason, Text: details(r)}
			suite.Skipped++
		default:
			c.Skipped = &junitProblem{Message: r.Error}
			suite.Skipped++
		}
		suite.Tests++
		suiteTime += r.Duration
		suite.Cases = append(suite.Cases, c)
	}
	if suite != nil {
		suite.Time = seconds(suiteTime)
	} else {
		// No scenario at all: an empty suite still carries the verdict.
		doc.Suites = []junitSuite{{Name: doc.Name, Time: seconds(0), Properties: props,
			Timestamp: run.Started.UTC().Format("2006-01-02T15:04:05")}}
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseName is the scenario's name with the outline row it ran.
func caseName(r ScenarioResult) string {
	switch {
	case r.Row != "":
		return r.Name + " (" + r.Row + ")"
	case r.Example != "":
		return r.Name + " (" + r.Example + ")"
	}
	return r.Name
}

// classname turns "en/verification.feature" into "en.verification", which
// CI servers show as package "en", class "verification".
func classname(feature string) string {
	return strings.ReplaceAll(strings.TrimSuffix(feature, ".feature"), "/", ".")
}

// problem is a failure's message: the failed step, the first line of the
// error, and the item of the documents it breaks.
func problem(r ScenarioResult) string {
	first, _, _ := strings.Cut(r.Error, "\n")
	if r.FailedStep != "" {
		first = fmt.Sprintf(`step "%s": %s`, r.FailedStep, first)
	}
	if r.Breaks != "" {
		first += " (breaks " + r.Breaks + ")"
	}
	return first
}

// details is a failure's text: the requirement and the feature file, the
// failed step, the sentence it breaks, whole, and the error.
func details(r ScenarioResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@%s %s\n", r.Requirement, r.Feature)
	if r.FailedStep != "" {
		fmt.Fprintf(&b, "step: %s\n", r.FailedStep)
	}
	if r.Breaks != "" {
		fmt.Fprintf(&b, "breaks: %s\n", cited(r.Breaks))
	}
	b.WriteString(r.Error)
	return b.String()
}

// warningsOut is a testcase's system-out: its scenario's warnings, each
// with its step, what it rests on and the practice; "" for none.
func warningsOut(r ScenarioResult) string {
	if len(r.Warnings) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@%s %s: %s\n", r.Requirement, r.Feature, count(len(r.Warnings), "warning"))
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w.Message)
		if w.Step != "" {
			fmt.Fprintf(&b, "  step: %s\n", w.Step)
		}
		fmt.Fprintf(&b, "  why only a warning: %s\n", w.Practice)
		if w.Basis == BasisPractice {
			b.WriteString("  rests on: a practice; no sentence of the documents requires it\n")
		} else {
			fmt.Fprintf(&b, "  rests on: %s\n", cited(w.Basis))
		}
	}
	return b.String()
}

// cited is a ref of the documents' items with its sentence, whole:
// `defaults §A check 2: "…"`; an unknown ref as is.
func cited(ref string) string {
	if text := Quote(ref); text != "" {
		return fmt.Sprintf("%s: %q", ref, text)
	}
	return ref
}

// count says "1 thing" or "N things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}
