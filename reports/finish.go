package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// The exit codes of a run's verdict (Ending.Exit), as firmakit's commands
// end with them.
const (
	ExitPassed       = 0 // every selected scenario passed, some with warnings or as expected failures
	ExitFailed       = 1 // a scenario failed
	ExitIncomplete   = 4 // none failed, but some selected scenarios were not run
	ExitInconclusive = 5 // none failed, but a timing check could not be judged
)

// A Finish is what a suite's run ends with: its results as the suite gave
// them, and how the run was asked to be judged and reported.
type Finish struct {
	// Run describes the run for the reports; Run.Expected are the
	// expected failures applied (ReadExpectations).
	Run     Run
	Results []ScenarioResult
	// GodogStatus is the status the suite's run returned.
	GodogStatus int
	// Strict makes every warning fail its scenario (Strict).
	Strict bool
	// Outputs are where the reports go (PlanOutputs).
	Outputs Outputs
	// Width bounds the recap's lines on a terminal (0: no bound).
	Width int
	// Causes, when set, says after the recap what the failures probably
	// come from.
	Causes func(w io.Writer, results []ScenarioResult)
	// Network says what the run's requests met on the way to the target
	// ("" when nothing worth saying).
	Network string
	// OutOfTime, when the run's time bound ran out, is that bound.
	OutOfTime time.Duration
}

// An Ending is how a run ended: its results once judged, its verdict, and
// the exit code that verdict comes to.
type Ending struct {
	Results []ScenarioResult
	Verdict string
	// Exit is the verdict's exit code (ExitPassed, ExitFailed, …).
	Exit int
	// Err, when not nil, says why the exit is ExitFailed although no
	// result failed.
	Err error
}

// ErrGodogOnly is the error of a run whose suite reported a failure that
// no scenario result shows.
var ErrGodogOnly = errors.New("godog reported a failure that no scenario result shows; see its output above")

// msgOutOfTime is the line a run that ran out of time ends with, before
// the verdict: the bound, and how many scenarios were not judged.
const msgOutOfTime = "max duration: the run reached --max-duration %s before it ended: %d scenario(s) not judged, inconclusive (listed above and in the reports); give it more time, or select fewer scenarios with --tags"

// Write ends a run on w: it judges the results (each warning a failure
// under Strict, then the expected failures applied, so that an entry can
// cover a scenario Strict failed), then writes, in this order, the
// formats --format gave firmakit to standard output or their files, a
// recap of what did not pass, of the warnings, and the likely causes,
// the scenarios not run and why, what the network did, the scenarios
// the time bound left unjudged, the wall time, godog's files completed,
// the report folder, then the verdict and the counts, last. It returns
// how the run ended, or the error of writing a report.
func (f Finish) Write(w io.Writer) (Ending, error) {
	run, results, status := f.Run, f.Results, f.GodogStatus
	if f.Strict {
		results = Strict(results)
	}
	results, status = expectFailures(results, run.Expected, status)
	var cert *Certificate
	certificate := func() (*Certificate, error) {
		var err error
		if cert == nil {
			cert, err = Build(run, results)
		}
		return cert, err
	}
	if len(f.Outputs.own) > 0 {
		c, err := certificate()
		if err != nil {
			return Ending{}, err
		}
		if err := f.Outputs.writeOwn(w, run, c, results); err != nil {
			return Ending{}, err
		}
	}
	WriteRecap(w, results, f.Width)
	if f.Causes != nil {
		f.Causes(w, results)
	}
	for _, g := range NotRunGroups(run.Tags, results) {
		fmt.Fprintln(w, g)
	}
	if f.Network != "" {
		fmt.Fprintln(w, f.Network)
	}
	if f.OutOfTime > 0 {
		n := 0
		for _, r := range results {
			if r.Status == Inconclusive && r.Error == NotJudgedInTime {
				n++
			}
		}
		fmt.Fprintf(w, msgOutOfTime+"\n", f.OutOfTime, n)
	}
	fmt.Fprintf(w, "wall time %s\n", run.Elapsed.Round(time.Millisecond))
	if err := f.Outputs.annotate(results); err != nil {
		return Ending{}, err
	}
	if f.Outputs.dir != "" {
		c, err := certificate()
		if err == nil {
			err = f.Outputs.writeDir(run, c, results)
		}
		if err != nil {
			return Ending{}, err
		}
		fmt.Fprintln(w, f.Outputs.reportLine())
	}
	// The verdict, then the counts: the last lines of the output.
	fmt.Fprintln(w, "verdict: "+Explain(run.Tags, results))
	fmt.Fprintln(w, "firmakit: "+Summarize(results).String())
	e := Ending{Results: results, Verdict: Verdict(results)}
	e.Exit, e.Err = ExitOf(e.Verdict, status)
	return e, nil
}

// ExitOf is the exit code of a verdict, given the status godog's run
// returned: ExitPassed only when every selected scenario passed, some with
// warnings or as expected failures; ExitFailed with ErrGodogOnly when
// godog saw a failure that no result shows.
func ExitOf(verdict string, godogStatus int) (int, error) {
	switch {
	case verdict == Failed:
		return ExitFailed, nil
	case godogStatus != 0:
		return ExitFailed, ErrGodogOnly
	case verdict == Inconclusive:
		return ExitInconclusive, nil
	case verdict == Incomplete:
		return ExitIncomplete, nil
	}
	return ExitPassed, nil
}

// expectFailures applies a run's expected-failures entries to its results
// (ApplyExpectations) and returns them with godog's status: godog says 1
// when a scenario failed, which says nothing more once every failure it
// saw was expected.
func expectFailures(results []ScenarioResult, list []Expectation, godogStatus int) ([]ScenarioResult, int) {
	if len(list) == 0 {
		return results, godogStatus
	}
	out := ApplyExpectations(results, list)
	if godogStatus != 0 && Summarize(results).Failed > 0 && Summarize(out).Failed == 0 {
		godogStatus = 0
	}
	return out, godogStatus
}

// UsageError is a flag's value a run cannot go with: a --format
// neither firmakit nor godog has, a --report folder that cannot be made,
// an --expected-failures file that cannot be read or used, a --tags
// selecting nothing. Its text names the flag.
type UsageError struct {
	msg string
	err error
}

func (e *UsageError) Error() string { return e.msg }
func (e *UsageError) Unwrap() error { return e.err }

// usage is the UsageError of a flag: "--flag: err", or "--flag what: err".
func usage(flag string, err error) *UsageError {
	return &UsageError{msg: flag + ": " + err.Error(), err: err}
}

// ReadExpectations refuses a selection of nothing and loads an
// expected-failures file against it: selected gives the results a
// language and tags select (nothing run yet), which the file's entries
// must name (ParseExpectations, then CheckExpectations). No entries for
// an empty file name.
func ReadExpectations(selected func(lang, tags string) ([]ScenarioResult, error), lang, tags, file string) ([]Expectation, error) {
	sel, err := selected(lang, tags)
	if err != nil {
		return nil, usage("--tags", err)
	}
	all, err := selected("all", "")
	if err != nil {
		return nil, err
	}
	if file == "" {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, usage("--expected-failures", err)
	}
	list, err := ParseExpectations(data)
	if err == nil {
		err = CheckExpectations(list, sel, all)
	}
	if err != nil {
		return nil, usage("--expected-failures "+file, err)
	}
	return list, nil
}
