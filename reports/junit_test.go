package reports_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// normaliseTimes blanks durations and timestamps, which change from run
// to run, so that the golden file checks everything else.
func normaliseTimes(s string) string {
	s = regexp.MustCompile(` time="\d+\.\d{3}"`).ReplaceAllString(s, ` time="<seconds>"`)
	return regexp.MustCompile(` timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"`).ReplaceAllString(s, ` timestamp="<time>"`)
}

func TestJUnitGolden(t *testing.T) {
	run, res := fixtureRun()
	var b bytes.Buffer
	require.NoError(t, reports.WriteJUnit(&b, run, res))
	got := normaliseTimes(b.String())
	golden := filepath.Join("testdata", "junit.golden.xml")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got, "run go test ./reports -update after an intended change")
	require.NoError(t, checkJUnit(b.Bytes()))
}

// The JUnit shape CI servers read (Ant's junit.xsd, as Jenkins, GitLab
// and GitHub reporters take it): which element may hold which, the
// attributes each must have and their types.
var junitShape = map[string]struct {
	parents  []string
	required []string
	optional []string
}{
	"testsuites": {nil, []string{"name", "tests", "failures", "errors", "time"}, []string{"skipped", "disabled"}},
	"testsuite":  {[]string{"testsuites"}, []string{"name", "tests", "failures", "errors", "time", "timestamp"}, []string{"skipped", "hostname", "id", "package", "disabled"}},
	"properties": {[]string{"testsuite", "testcase"}, nil, nil},
	"property":   {[]string{"properties"}, []string{"name", "value"}, nil},
	"testcase":   {[]string{"testsuite"}, []string{"name", "classname", "time"}, []string{"assertions", "status"}},
	"failure":    {[]string{"testcase"}, []string{"message"}, []string{"type"}},
	"error":      {[]string{"testcase"}, []string{"message"}, []string{"type"}},
	"skipped":    {[]string{"testcase"}, nil, []string{"message"}},
	"system-out": {[]string{"testsuite", "testcase"}, nil, nil},
	"system-err": {[]string{"testsuite", "testcase"}, nil, nil},
}

var (
	intAttr     = map[string]bool{"tests": true, "failures": true, "errors": true, "skipped": true, "disabled": true, "assertions": true}
	secondsRe   = regexp.MustCompile(`^\d+(\.\d+)?$`)
	timestampRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`)
)

// checkJUnit parses a JUnit document and checks it against junitShape,
// then that every count attribute equals what its cases hold and that a
// case holds at most one outcome.
func checkJUnit(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	type counts struct{ tests, failures, errors, skipped int }
	var total, suite counts
	var suiteAttrs, rootAttrs map[string]string
	outcomes := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not XML: %w", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			name := el.Name.Local
			shape, ok := junitShape[name]
			if !ok {
				return fmt.Errorf("element <%s> is not in the JUnit schema", name)
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			if (parent == "" && shape.parents != nil) || (parent != "" && !contains(shape.parents, parent)) {
				return fmt.Errorf("<%s> inside <%s>", name, parent)
			}
			attrs := map[string]string{}
			for _, a := range el.Attr {
				if !contains(shape.required, a.Name.Local) && !contains(shape.optional, a.Name.Local) {
					return fmt.Errorf("<%s> has attribute %s, not in the schema", name, a.Name.Local)
				}
				attrs[a.Name.Local] = a.Value
				switch {
				case intAttr[a.Name.Local]:
					if _, err := strconv.ParseUint(a.Value, 10, 32); err != nil {
						return fmt.Errorf("<%s %s=%q>: not a count", name, a.Name.Local, a.Value)
					}
				case a.Name.Local == "time" && !secondsRe.MatchString(a.Value):
					return fmt.Errorf("<%s time=%q>: not seconds", name, a.Value)
				case a.Name.Local == "timestamp" && !timestampRe.MatchString(a.Value):
					return fmt.Errorf("<%s timestamp=%q>: not an ISO 8601 time without zone", name, a.Value)
				}
			}
			for _, r := range shape.required {
				if _, ok := attrs[r]; !ok {
					return fmt.Errorf("<%s> lacks attribute %s", name, r)
				}
			}
			switch name {
			case "testsuites":
				rootAttrs = attrs
			case "testsuite":
				suite, suiteAttrs = counts{}, attrs
			case "testcase":
				suite.tests++
				outcomes = 0
			case "failure":
				suite.failures++
				outcomes++
			case "error":
				suite.errors++
				outcomes++
			case "skipped":
				suite.skipped++
				outcomes++
			}
			if outcomes > 1 {
				return fmt.Errorf("a testcase holds more than one of failure, error, skipped")
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if el.Name.Local == "testsuite" {
				if err := sameCounts("testsuite "+suiteAttrs["name"], suiteAttrs, suite.tests, suite.failures, suite.errors, suite.skipped); err != nil {
					return err
				}
				total.tests += suite.tests
				total.failures += suite.failures
				total.errors += suite.errors
				total.skipped += suite.skipped
			}
		}
	}
	if rootAttrs == nil {
		return fmt.Errorf("no <testsuites>")
	}
	return sameCounts("testsuites", rootAttrs, total.tests, total.failures, total.errors, total.skipped)
}

func sameCounts(what string, attrs map[string]string, tests, failures, errors, skipped int) error {
	for _, c := range []struct {
		attr string
		n    int
	}{{"tests", tests}, {"failures", failures}, {"errors", errors}, {"skipped", skipped}} {
		if attrs[c.attr] != strconv.Itoa(c.n) {
			return fmt.Errorf("%s says %s=%q, its cases hold %d", what, c.attr, attrs[c.attr], c.n)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestCheckJUnitFindsProblems makes sure the shape check can fail: each
// case breaks one thing in a valid document.
func TestCheckJUnitFindsProblems(t *testing.T) {
	run, res := fixtureRun()
	var b bytes.Buffer
	require.NoError(t, reports.WriteJUnit(&b, run, res))
	valid := b.String()
	require.NoError(t, checkJUnit([]byte(valid)))
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"a wrong count", `<testsuite name="en/demo.feature" tests="3"`, `<testsuite name="en/demo.feature" tests="4"`, `testsuite en/demo.feature says tests="4", its cases hold 3`},
		{"a wrong total", `<testsuites name="firmakit" tests="6" failures="1"`, `<testsuites name="firmakit" tests="6" failures="0"`, `testsuites says failures="0", its cases hold 1`},
		{"a missing attribute", ` classname="en.verification"`, ``, `<testcase> lacks attribute classname`},
		{"an unknown element", `<skipped message=`, `<ignored message=`, `element <ignored> is not in the JUnit schema`},
		{"a bad time", `time="1.800"`, `time="1.8s"`, `not seconds`},
		{"not XML", `</testsuites>`, `</testsuite>`, `not XML`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broken := strings.Replace(valid, tc.old, tc.new, 1)
			require.NotEqual(t, valid, broken, "the change must apply")
			err := checkJUnit([]byte(broken))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestJUnitCases starts from a run where every scenario passed and
// changes one thing per case.
func TestJUnitCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func([]reports.ScenarioResult) []reports.ScenarioResult
		want   []string // substrings of the document
		counts string   // the attributes of <testsuites>
	}{
		{"every scenario passed", func(r []reports.ScenarioResult) []reports.ScenarioResult { return r },
			[]string{`<testcase name="a disabled key is refused (endpoint=check)" classname="en.verification" time="0.001"></testcase>`},
			`tests="6" failures="0" errors="0" skipped="0"`},
		{"one failed", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[0].Status, r[0].FailedStep, r[0].Error = reports.Failed, "the response is 200", "expected 200, got 401\n  sent: POST /v1/check"
			return r
		}, []string{`<failure message="step &#34;the response is 200&#34;: expected 200, got 401" type="failed">@AUTH-OK en/verification.feature&#xA;step: the response is 200&#xA;expected 200, got 401&#xA;  sent: POST /v1/check</failure>`},
			`tests="6" failures="1" errors="0" skipped="0"`},
		{"one not run", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[1].Status, r[1].Error = reports.NotRun, "no disabled credential given (--disabled-key, --disabled-secret)"
			return r
		}, []string{`<skipped message="no disabled credential given (--disabled-key, --disabled-secret)"></skipped>`},
			`tests="6" failures="0" errors="0" skipped="1"`},
		{"one inconclusive", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[5].Status, r[5].Error = reports.Inconclusive, "paused 900 ms"
			return r
		}, []string{`<error message="paused 900 ms" type="inconclusive">`},
			`tests="6" failures="0" errors="1" skipped="0"`},
		{"two rows of one name get told apart", func(r []reports.ScenarioResult) []reports.ScenarioResult {
			r[1].Row, r[2].Row = "", ""
			return r
		}, []string{`<testcase name="a disabled key is refused" classname`, `<testcase name="a disabled key is refused #2" classname`},
			`tests="6" failures="0" errors="0" skipped="0"`},
		{"no scenario", func([]reports.ScenarioResult) []reports.ScenarioResult { return nil },
			[]string{`<testsuite name="firmakit" tests="0"`, `<property name="firmakit.verdict" value="incomplete"></property>`},
			`tests="0" failures="0" errors="0" skipped="0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, _ := fixtureRun()
			var b bytes.Buffer
			require.NoError(t, reports.WriteJUnit(&b, run, tc.change(passing())))
			doc := b.String()
			require.NoError(t, checkJUnit(b.Bytes()), doc)
			for _, w := range tc.want {
				assert.Contains(t, doc, w)
			}
			assert.Contains(t, doc, `<testsuites name="firmakit" `+tc.counts+` time="1.800">`)
		})
	}
}

// Suites and cases follow the feature files, whatever order the
// scenarios finished in; a suite's time is the sum of its cases'.
func TestJUnitOrderAndTime(t *testing.T) {
	run, res := fixtureRun()
	for i, j := 0, len(res)-1; i < j; i, j = i+1, j-1 {
		res[i], res[j] = res[j], res[i]
	}
	var b bytes.Buffer
	require.NoError(t, reports.WriteJUnit(&b, run, res))
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(b.Bytes(), &doc))
	require.Len(t, doc.Suites, 2)
	assert.Equal(t, "en/demo.feature", doc.Suites[0].Name)
	assert.Equal(t, fmt.Sprintf("%.3f", (510*time.Millisecond+520*time.Millisecond+1600*time.Millisecond).Seconds()), doc.Suites[0].Time)
	var names []string
	for _, c := range doc.Suites[1].Cases {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"a signed request is accepted whatever JSON object it holds",
		"a disabled key is refused (endpoint=check)", "a disabled key is refused (endpoint=signature)"}, names)
}
