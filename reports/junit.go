package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
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

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the run as JUnit XML: a testsuite per feature file, a
// testcase per scenario or outline row (named with the row's values), a
// failure with the failed step and the error for a failed scenario, a
// skipped with the reason for one not run, a skipped whose message begins
// "expected failure: " for an expected failure, and an error of type
// "inconclusive" for an inconclusive one. Each testsuite carries the
// run's verdict as the property firmakit.verdict. It returns w's errors.
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

// WriteJUnitFile writes the run's JUnit XML to a file (see WriteJUnit);
// it returns the errors of creating and writing it.
func WriteJUnitFile(path string, run Run, results []ScenarioResult) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteJUnit(f, run, results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

func problem(r ScenarioResult) string {
	first, _, _ := strings.Cut(r.Error, "\n")
	if r.FailedStep == "" {
		return first
	}
	return fmt.Sprintf(`step "%s": %s`, r.FailedStep, first)
}

func details(r ScenarioResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@%s %s\n", r.Requirement, r.Feature)
	if r.FailedStep != "" {
		fmt.Fprintf(&b, "step: %s\n", r.FailedStep)
	}
	b.WriteString(r.Error)
	return b.String()
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}
