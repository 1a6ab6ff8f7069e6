package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/webhook"
)

// The run flow that certify and certify-webhook share: the flags of a
// run, their checks, the run of a suite with its display, and its end
// (reports, recap, verdict, exit). Each command adds what it runs
// against.

// runFlags are the flags of a suite's run, the same for certify and
// certify-webhook.
type runFlags struct {
	lang, tags, format, reportDir, reportLang, expectedFile string
	concurrency                                             int
	seed                                                    int64
	strict                                                  bool
	maxDuration                                             time.Duration
	profile                                                 func() (*firmakit.Profile, error)
}

// bindRunFlags binds a run's flags with the command's defaults: its
// scenarios at once, the help of --tags, and its --max-duration with the
// end of that flag's help.
func bindRunFlags(fs *flag.FlagSet, concurrency int, tagsUsage string, maxDuration time.Duration, maxDurationMore string) *runFlags {
	f := &runFlags{}
	fs.StringVar(&f.lang, "lang", "all", "features to run: es, en or all")
	fs.StringVar(&f.tags, "tags", "", tagsUsage)
	fs.IntVar(&f.concurrency, "concurrency", concurrency, "scenarios run at once")
	fs.StringVar(&f.format, "format", "firmakit", "output: firmakit (a line per scenario), or godog formats: progress, pretty, junit, cucumber, … ('name:file' writes to a file)")
	fs.Int64Var(&f.seed, "seed", -1, "scenario order: -1 random, 0 file order, else that seed")
	fs.StringVar(&f.reportDir, "report", "", "write junit.xml, cucumber.json, report.html and certificate.json to this folder")
	fs.StringVar(&f.reportLang, "report-lang", "", "language of report.html: es or en (default: --lang, or en for all)")
	fs.DurationVar(&f.maxDuration, "max-duration", maxDuration, maxDurationUsage+maxDurationMore)
	fs.StringVar(&f.expectedFile, "expected-failures", "", expectedFailuresUsage)
	fs.BoolVar(&f.strict, "strict", false, strictUsage)
	f.profile = profileFlag(fs)
	return f
}

// checkRun refuses, before anything starts, a profile that cannot be
// read, an unknown --lang, a --concurrency below 1 and a negative
// --max-duration, and returns the profile.
func (f *runFlags) checkRun() (*firmakit.Profile, error) {
	p, err := f.profile()
	if err != nil {
		return nil, err
	}
	if _, err := steps.Paths(f.lang); err != nil {
		return nil, usageError("--lang: %v", err)
	}
	if f.concurrency < 1 {
		return nil, usageError("--concurrency must be at least 1")
	}
	return p, checkMaxDuration(f.maxDuration)
}

// runPlan is what a run's flags come to once checked, before anything
// starts.
type runPlan struct {
	profile *firmakit.Profile
	// tags is the selection run: --tags, or the command's default.
	tags     string
	expected []reports.Expectation
	// formats are godog's, junitTo where the JUnit XML goes (splitJUnit).
	formats, junitTo string
}

// deadline is when --max-duration, from now, runs out; zero: no bound.
func (f *runFlags) deadline() time.Time {
	if f.maxDuration <= 0 {
		return time.Time{}
	}
	return time.Now().Add(f.maxDuration)
}

// plan refuses a --report-lang or a --format that cannot be written, a
// selection of nothing, and expected failures the selection does not
// have (selected is steps.Selected or webhook.Selected), then plans the
// run of the selection tags.
func (f *runFlags) plan(p *firmakit.Profile, selected func(lang, tags string) ([]reports.ScenarioResult, error), tags string) (*runPlan, error) {
	if err := checkReportLang(f.reportLang, f.reportDir); err != nil {
		return nil, err
	}
	if err := checkFormats(f.format); err != nil {
		return nil, err
	}
	expected, err := selectExpected(selected, f.lang, tags, f.expectedFile)
	if err != nil {
		return nil, err
	}
	formats, junitTo := splitJUnit(f.format)
	return &runPlan{profile: p, tags: tags, expected: expected, formats: formats, junitTo: junitTo}, nil
}

// suiteRun is one suite's run as runSuite drives it: the service suite
// (steps.Suite) or the webhook suite (webhook.Suite).
type suiteRun struct {
	suite interface {
		Run() (int, error)
		Results() []reports.ScenarioResult
		OutOfTime() bool
	}
	// options are the suite's, which runSuite sets from the flags, and
	// deadline their Deadline (runFlags.deadline, from where the
	// command's bound starts).
	options  *steps.RunOptions
	deadline time.Time
	// count is how many scenarios a language and tags select
	// (steps.Select, webhook.Select), for the display's total.
	count func(lang, tags string) (int, error)
	// intro prints what runs against what, the options set.
	intro func()
	// end adds to the run's ending what the suite's run says of itself:
	// its target in the reports, the likely causes of its failures.
	end func(*ending)
	// explore, when it has an explorer, runs beside the suite from its
	// start; its findings join the suite's results.
	explore *exploreRun
}

// runSuite runs a suite with the run's flags, showing each scenario as it
// ends (m.newDisplay), and ends the run with its verdict, its reports and
// its exit (finishRun).
func (m *Main) runSuite(f *runFlags, plan *runPlan, r suiteRun) error {
	shown := m.newDisplay(plan.formats)
	formats, err := withCucumber(shown.Formats, f.reportDir)
	if err != nil {
		return err
	}
	*r.options = steps.RunOptions{Lang: f.lang, Tags: plan.tags, Concurrency: f.concurrency, Format: formats,
		Output: shown.Output, Progress: shown.Lines, Randomize: f.seed, Deadline: r.deadline}
	r.intro()
	total, _ := r.count(f.lang, plan.tags)
	r.options.OnResult = shown.Start(total)
	start := time.Now()
	suiteDone := make(chan struct{})
	x := r.explore.start(r.deadline, suiteDone)
	status, err := r.suite.Run()
	close(suiteDone)
	elapsed := time.Since(start)
	shown.Stop()
	if err != nil && x != nil {
		x.stop()
	}
	var se *steps.SelectionError
	switch {
	case errors.As(err, &se):
		return usageError("--tags: %v", err)
	case errors.Is(err, webhook.ErrUnknownContract):
		return &exitError{ExitFailed, err}
	case err != nil:
		return usageError("%v", err)
	}
	if shown.Own() {
		fmt.Fprintln(m.Stdout)
	}
	results := r.suite.Results()
	if x != nil {
		results = append(results, m.waitExploration(x)...)
		elapsed = time.Since(start)
	}
	results, status = judged(m.judge, results, f.strict, plan.expected, status)
	e := ending{run: reports.Run{Tool: "firmakit", Version: Version(), Profile: plan.profile, Lang: f.lang, Tags: plan.tags,
		ReportLang: f.reportLang, Started: start, Elapsed: elapsed, Expected: plan.expected},
		results: results, godogStatus: status, junitTo: plan.junitTo, reportDir: f.reportDir, cucumber: cucumberFiles(formats),
		width: shown.Width, outOfTime: outOfTime(r.suite.OutOfTime(), f.maxDuration)}
	r.end(&e)
	return m.finishRun(e)
}

// ending is what a suite's run ends with on standard output: see
// finishRun.
type ending struct {
	run     reports.Run
	results []reports.ScenarioResult
	// godogStatus is the status the suite's Run returned.
	godogStatus int
	// junitTo is where --format sends JUnit XML: "" nowhere, "-"
	// standard output, else a file (splitJUnit); reportDir is --report.
	junitTo, reportDir string
	// cucumber are the files godog wrote Cucumber JSON to, which the
	// results' warnings and breaches are added to (cucumberFiles).
	cucumber []string
	// width bounds the recap's lines on a terminal (0: no bound).
	width int
	// causes says, after the recap, what the failures probably come from.
	causes func(io.Writer)
	// network says what the run's requests met on the way to the target
	// ("" when nothing worth saying).
	network string
	// outOfTime, when the run's --max-duration ran out, is that bound.
	outOfTime time.Duration
}

// finishRun ends the output of certify and certify-webhook, in this
// order: the JUnit XML when --format asked for it, a recap of what did not
// pass, of the warnings, and the likely causes, the scenarios not run and
// why, the wall time, where the reports are, then the verdict and the
// counts, last. It returns the run's exit (verdictError), or the error of
// writing a report.
func (m *Main) finishRun(e ending) error {
	run, results := e.run, e.results
	switch e.junitTo {
	case "":
	case "-":
		if err := reports.WriteJUnit(m.Stdout, run, results); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
	default:
		if err := reports.WriteJUnitFile(e.junitTo, run, results); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
	}
	reports.WriteRecap(m.Stdout, results, e.width)
	if e.causes != nil {
		e.causes(m.Stdout)
	}
	for _, g := range reports.NotRunGroups(run.Tags, results) {
		fmt.Fprintln(m.Stdout, g)
	}
	if e.network != "" {
		fmt.Fprintln(m.Stdout, e.network)
	}
	if e.outOfTime > 0 {
		n := 0
		for _, r := range results {
			if r.Status == reports.Inconclusive && r.Error == steps.NotJudgedInTime {
				n++
			}
		}
		fmt.Fprintf(m.Stdout, msgOutOfTime+"\n", e.outOfTime, n)
	}
	fmt.Fprintf(m.Stdout, "wall time %s\n", run.Elapsed.Round(time.Millisecond))
	for _, f := range e.cucumber {
		if err := reports.AnnotateCucumberFile(f, results); err != nil {
			return fmt.Errorf("cucumber: %w", err)
		}
	}
	if e.reportDir != "" {
		if err := reports.WriteAll(e.reportDir, run, results); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		in := func(f string) string { return filepath.Join(e.reportDir, f) }
		fmt.Fprintf(m.Stdout, "report: %s (also %s, %s, %s)\n", in("report.html"), in("certificate.json"), in("junit.xml"), in("cucumber.json"))
	}
	// The verdict, then the counts: the last line of the output.
	fmt.Fprintln(m.Stdout, "verdict: "+reports.Explain(run.Tags, results))
	fmt.Fprintln(m.Stdout, "firmakit: "+reports.Summarize(results).String())
	return verdictError(reports.Verdict(results), e.godogStatus)
}

// strictUsage is the help of --strict, shared by certify and
// certify-webhook.
const strictUsage = "make every warning fail its scenario (exit 1), for teams that want the profile's letter: " +
	"a warning is what the documents do not require, or a departure from the profile without consequence"

// judged is what a run's results come to: rewritten by judge when set (a
// test's stand-in for the steps), each warning a failure under --strict
// (reports.Strict), then the expected failures applied, so that an
// expected-failures entry can cover a scenario --strict failed. It returns
// the results and godog's status as expectFailures leaves it.
func judged(judge func([]reports.ScenarioResult) []reports.ScenarioResult, results []reports.ScenarioResult, strict bool,
	expected []reports.Expectation, status int) ([]reports.ScenarioResult, int) {
	if judge != nil {
		results = judge(results)
	}
	if strict {
		results = reports.Strict(results)
	}
	return expectFailures(results, expected, status)
}

// cucumberFiles are the files a format list sends godog's Cucumber JSON
// to ("cucumber:FILE"); one to standard output cannot be rewritten.
func cucumberFiles(formats string) []string {
	var files []string
	for _, f := range strings.Split(formats, ",") {
		if name, file, ok := strings.Cut(f, ":"); ok && strings.TrimSpace(name) == "cucumber" && file != "" {
			files = append(files, file)
		}
	}
	return files
}

// withCucumber adds godog's Cucumber JSON in --report's folder to a
// format list, making the folder; a list without --report is unchanged.
func withCucumber(formats, reportDir string) (string, error) {
	if reportDir == "" {
		return formats, nil
	}
	if err := os.MkdirAll(reportDir, 0o755); err != nil {
		return "", usageError("--report: %v", err)
	}
	return formats + ",cucumber:" + filepath.Join(reportDir, "cucumber.json"), nil
}

// checkReportLang refuses a --report-lang report.html has no language
// for, or one given without --report.
func checkReportLang(reportLang, reportDir string) error {
	switch {
	case reportLang != "" && !slices.Contains(reports.ReportLangs, reportLang):
		return usageError("--report-lang %q: want es or en", reportLang)
	case reportLang != "" && reportDir == "":
		return usageError("--report-lang is the language of report.html: give --report DIR too, or drop it")
	}
	return nil
}

// verdictExit ends certify with the exit code of a verdict that its
// output's last lines (the verdict, then the counts) already explained, so
// that nothing is printed after them.
type verdictExit struct {
	code    int
	verdict string
}

func (e *verdictExit) Error() string { return e.verdict }

// verdictError maps a run's verdict (and godog's status) to the exit code
// of certify: nil only when every selected scenario passed, some with
// warnings (reports.PassedWithWarnings) or as expected failures.
func verdictError(verdict string, godogStatus int) error {
	switch {
	case verdict == reports.Failed:
		return &verdictExit{ExitFailed, verdict}
	case godogStatus != 0:
		return &exitError{ExitFailed, errors.New("godog reported a failure that no scenario result shows; see its output above")}
	case verdict == reports.Inconclusive:
		return &verdictExit{ExitInconclusive, verdict}
	case verdict == reports.Incomplete:
		return &verdictExit{ExitIncomplete, verdict}
	}
	return nil
}

// splitJUnit takes the JUnit entries out of a --format list: firmakit
// writes JUnit from its own results, which tell not run and inconclusive
// from passed; godog's formatter does not. It returns the list left for
// godog and where the JUnit goes: "" nowhere, "-" standard output, else a
// file.
func splitJUnit(formats string) (rest, junit string) {
	var keep []string
	for _, f := range strings.Split(formats, ",") {
		name, file, hasFile := strings.Cut(f, ":")
		switch {
		case strings.TrimSpace(name) != "junit":
			keep = append(keep, f)
		case hasFile:
			junit = file
		default:
			junit = "-"
		}
	}
	return strings.Join(keep, ","), junit
}

// checkFormats refuses a --format list naming a format neither firmakit
// nor godog has, before anything starts.
func checkFormats(list string) error {
	known := []string{"firmakit", "junit"}
	for name := range godog.AvailableFormatters() {
		if !slices.Contains(known, name) {
			known = append(known, name)
		}
	}
	sort.Strings(known[2:])
	for _, f := range strings.Split(list, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(f), ":")
		if !slices.Contains(known, name) {
			hint := ""
			if near := firmakit.Closest(name, known); near != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", near)
			}
			return usageError("--format %q: no format %q%s; want one of %s, optionally as name:file", list, name, hint, strings.Join(known, ", "))
		}
	}
	return nil
}
