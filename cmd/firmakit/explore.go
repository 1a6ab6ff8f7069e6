package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/firmakit/firmakit/explore"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
)

// DefaultExplore is how long certify explores against the bundled
// reference when --explore is not given: beside the suite, and never
// longer than the suite runs, so that the run takes no longer.
const DefaultExplore = 5 * time.Second

// ExploreRateBesideTheSuite caps the requests per second of an
// exploration while the suite runs: it leaves the suite's scenarios, some
// of which time notifications to the hundred milliseconds, the CPU they
// need. Once the suite is done, --explore sends as fast as the target and
// its pacer let.
const ExploreRateBesideTheSuite = 200

// exploreUsage is the help of --explore.
var exploreUsage = fmt.Sprintf("also send generated requests beside the suite for this long, each judged by what holds for every request "+
	"(no 5xx, the error body's shape, the order of the checks, a valid request accepted); a failure is shrunk to its smallest request, "+
	"printed as a 'firmakit sign --curl' line, and fails the run; --seed replays the same requests. 0: none. "+
	"Unless given: %s against the bundled reference, ending with the suite at the latest; none against a --target", DefaultExplore)

// exploreRun is certify's exploration of the target beside the suite, as
// planned (ctx, explorer, withSuite), then under way.
type exploreRun struct {
	ctx context.Context
	// explorer is nil when the run explores nothing; withSuite ends the
	// exploration with the suite at the latest (the default one).
	explorer  *explore.Explorer
	withSuite bool

	// until is when the exploration's budget runs out.
	until  time.Time
	cancel context.CancelFunc
	done   chan struct{}
	report *explore.Report
	err    error
}

// planExploration makes the exploration the flags ask for against t
// (nil: none): --explore when given, else DefaultExplore against the
// bundled reference, stopped when the suite ends. Its seed is --seed, or
// a new one when that is -1.
func (f *certifyFlags) planExploration(ctx context.Context, t *steps.Target, bundled bool) *explore.Explorer {
	_, given := givenFlags(ctx)["explore"]
	budget := f.explore
	if !given && !bundled {
		budget = 0
	}
	if budget <= 0 {
		return nil
	}
	seed := f.seed
	if seed < 0 {
		seed = rand.Int64N(1<<31-1) + 1
	}
	e := &explore.Explorer{Target: t, Seed: seed, Budget: budget, BodyDir: f.reportDir,
		Line: explore.Line{BaseURL: t.URL, APIVersion: t.APIVersion}}
	if p := f.profileName(); p != "" {
		e.Line.Profile = p
	}
	if bundled {
		// The run's own reference is gone when the run ends: the lines
		// name 'firmakit serve' at its default address instead.
		e.Line.BaseURL = "http://" + reference.DefaultAddr
	}
	e.Rate = ExploreRateBesideTheSuite
	if !given {
		// Inside the suite's time: a finding shrinks within the budget too.
		e.ShrinkBudget = budget
	}
	return e
}

// start runs the exploration until its budget, its context's end, the
// run's deadline (zero: none) or, with withSuite, the end of the suite
// (suiteDone). It returns x, or nil when x explores nothing.
func (x *exploreRun) start(deadline time.Time, suiteDone <-chan struct{}) *exploreRun {
	if x == nil || x.explorer == nil {
		return nil
	}
	ctx := x.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if !deadline.IsZero() {
		ctx, x.cancel = context.WithDeadline(ctx, deadline)
	} else {
		ctx, x.cancel = context.WithCancel(ctx)
	}
	if x.withSuite {
		x.explorer.Stop = suiteDone
	} else {
		x.explorer.Unpaced = suiteDone
	}
	x.until = time.Now().Add(x.explorer.Budget)
	x.done = make(chan struct{})
	go func() {
		defer close(x.done)
		x.report, x.err = x.explorer.Run(ctx)
	}()
	return x
}

// stop ends the exploration at once, as when the suite could not run.
func (x *exploreRun) stop() {
	x.cancel()
	<-x.done
}

// waitExploration waits for the exploration's end, saying so when it
// goes on after the suite, prints what it did and found, and returns its
// findings as results. An exploration that failed of itself is said in a
// line and gives none: it is no finding, and the suite's verdict stands.
func (m *Main) waitExploration(x *exploreRun) []reports.ScenarioResult {
	select {
	case <-x.done:
	default:
		if left := time.Until(x.until).Round(time.Second); left > 0 && !x.withSuite {
			fmt.Fprintf(m.Stdout, "exploration: the suite is done; exploring for %s more (--explore %s)\n", left, x.explorer.Budget)
		}
		<-x.done
	}
	x.cancel()
	if x.err != nil {
		fmt.Fprintf(m.Stdout, "exploration: stopped, judging nothing: %v\n", x.err)
		return nil
	}
	m.printExploration(x.report, x.explorer)
	return x.report.Results()
}

// printExploration says what the exploration did, then each finding with
// the line that sends its request again and the row that would pin it.
func (m *Main) printExploration(rep *explore.Report, e *explore.Explorer) {
	found := "no finding"
	switch n := len(rep.Findings); {
	case n == 1:
		found = "1 finding"
	case n > 1:
		found = fmt.Sprintf("%d findings", n)
	}
	unjudged := ""
	if rep.Unjudged > 0 {
		unjudged = fmt.Sprintf(" (and %d that got no answer of the target's own, not judged)", rep.Unjudged)
	}
	fmt.Fprintf(m.Stdout, "exploration: %d requests judged in %s%s, seed %d (replay: --seed %d): %s\n",
		rep.Requests, rep.Elapsed.Round(100*time.Millisecond), unjudged, rep.Seed, rep.Seed, found)
	for _, f := range rep.Findings {
		fmt.Fprintf(m.Stdout, "  @%s %s\n    breaks %s\n", f.Property.ID, f.Property.Name, f.Cite())
		for _, line := range strings.Split(f.Error(rep.Seed), "\n") {
			fmt.Fprintln(m.Stdout, "    "+line)
		}
	}
	if len(rep.Findings) > 0 && e.Line.BaseURL != e.Target.URL {
		fmt.Fprintf(m.Stdout, "  (the lines name %s, where 'firmakit serve' listens: this run's own reference is gone)\n", e.Line.BaseURL)
	}
}
