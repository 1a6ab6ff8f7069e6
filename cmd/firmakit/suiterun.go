package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/explore"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
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
	if _, err := engine.Paths(f.lang); err != nil {
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
	// outputs are where the reports go.
	outputs reports.Outputs
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
	outputs, err := reports.PlanOutputs(f.format, f.reportDir, f.reportLang)
	if err == nil {
		var expected []reports.Expectation
		if expected, err = reports.ReadExpectations(selected, f.lang, tags, f.expectedFile); err == nil {
			return &runPlan{profile: p, tags: tags, expected: expected, outputs: outputs}, nil
		}
	}
	if errors.As(err, new(*reports.UsageError)) {
		return nil, usageError("%v", err)
	}
	return nil, err
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
	options  *engine.RunOptions
	deadline time.Time
	// count is how many scenarios a language and tags select
	// (steps.Select, webhook.Select), for the display's total.
	count func(lang, tags string) (int, error)
	// intro prints what runs against what, the options set.
	intro func()
	// end adds to the run's finish what the suite's run says of itself:
	// its target in the reports, the likely causes of its failures.
	end func(*reports.Finish)
	// explore, when it has an explorer, runs beside the suite from its
	// start; its findings join the suite's results.
	explore *explore.Beside
	// ctx is the run's, which the exploration ends with.
	ctx context.Context
}

// runSuite runs a suite with the run's flags, showing each scenario as it
// ends (m.newDisplay), and ends the run with its verdict, its reports and
// its exit (reports.Finish).
func (m *Main) runSuite(f *runFlags, plan *runPlan, r suiteRun) error {
	shown := m.newDisplay(plan.outputs.Godog)
	*r.options = engine.RunOptions{Lang: f.lang, Tags: plan.tags, Concurrency: f.concurrency, Format: plan.outputs.ForGodog(shown.Formats),
		Output: shown.Output, Progress: shown.Lines, Randomize: f.seed, Deadline: r.deadline}
	r.intro()
	total, _ := r.count(f.lang, plan.tags)
	r.options.OnResult = shown.Start(total)
	start := time.Now()
	suiteDone := make(chan struct{})
	x := r.explore.Start(r.ctx, r.deadline, suiteDone)
	status, err := r.suite.Run()
	close(suiteDone)
	elapsed := time.Since(start)
	shown.Stop()
	if err != nil && x != nil {
		x.Stop()
	}
	var se *engine.SelectionError
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
		results = append(results, x.Wait(m.Stdout)...)
		elapsed = time.Since(start)
	}
	if m.judge != nil {
		results = m.judge(results)
	}
	finish := reports.Finish{Run: reports.Run{Tool: "firmakit", Version: Version(), Profile: plan.profile, Lang: f.lang, Tags: plan.tags,
		ReportLang: f.reportLang, Started: start, Elapsed: elapsed, Expected: plan.expected},
		Results: results, GodogStatus: status, Strict: f.strict, Outputs: plan.outputs, Width: shown.Width}
	if r.suite.OutOfTime() {
		finish.OutOfTime = f.maxDuration
	}
	r.end(&finish)
	end, err := finish.Write(m.Stdout)
	switch {
	case err != nil:
		return err
	case end.Err != nil:
		return &exitError{end.Exit, end.Err}
	case end.Exit != reports.ExitPassed:
		// Nothing is printed after the verdict and the counts.
		return &verdictExit{end.Exit, end.Verdict}
	}
	return nil
}

// expectedFailuresUsage is the help of --expected-failures, shared by
// certify and certify-webhook.
const expectedFailuresUsage = "YAML file of known deviations: a list of entries, each '- requirement: TAG' or '- scenario: NAME' " +
	"with 'reason: WHY'; a listed failure is reported as an expected failure and does not fail the run, an entry whose scenarios all pass does"

// strictUsage is the help of --strict, shared by certify and
// certify-webhook.
const strictUsage = "make every warning fail its scenario (exit 1), for teams that want the profile's letter: " +
	"a warning is what the documents do not require, or a departure from the profile without consequence"

// verdictExit ends certify with the exit code of a verdict that its
// output's last lines (the verdict, then the counts) already explained, so
// that nothing is printed after them.
type verdictExit struct {
	code    int
	verdict string
}

func (e *verdictExit) Error() string { return e.verdict }
