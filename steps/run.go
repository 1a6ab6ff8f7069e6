package steps

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// Suite runs the conformance suite against a target.
type Suite struct {
	Target *Target
	// Lang is "es", "en" or "all" (default).
	Lang string
	// Tags is a godog tag expression, e.g. "~@reference".
	Tags string
	// Concurrency is how many scenarios run at once (default 64): the
	// demo scenarios mostly wait, so they overlap.
	Concurrency int
	// Format is a godog format list, e.g. "progress" or
	// "pretty,junit:out/junit.xml,cucumber:out/cucumber.json".
	Format string
	Output io.Writer
	// Randomize orders scenarios at random with this seed; 0 keeps the
	// file order, -1 picks a seed.
	Randomize int64
	// TestingT runs each scenario as a subtest of t.
	TestingT *testing.T
	// Progress, when set, gets one line per scenario as it finishes.
	Progress io.Writer

	mu      sync.Mutex
	skipped map[string]int
	results []reports.ScenarioResult
}

// Paths returns the feature folders of a language selection.
func Paths(lang string) ([]string, error) {
	switch lang {
	case "", "all":
		return []string{"es", "en"}, nil
	case "es", "en":
		return []string{lang}, nil
	}
	return nil, fmt.Errorf("language %q: want es, en or all", lang)
}

// Run runs the suite and returns godog's status: 0 when every selected
// scenario passed (or was not run for want of a credential), 1 otherwise.
func (s *Suite) Run() (int, error) {
	if err := s.Target.Validate(); err != nil {
		return 2, err
	}
	paths, err := Paths(s.Lang)
	if err != nil {
		return 2, err
	}
	if s.Concurrency <= 0 {
		s.Concurrency = 64
	}
	if s.Format == "" {
		s.Format = "progress"
	}
	if s.Target.APIVersion == "" {
		s.Target.APIVersion = "v1"
	}
	s.skipped, s.results = map[string]int{}, nil
	lag := StartLagMonitor()
	defer lag.Stop()
	ledger := NewLedger(time.Now())
	st := &Steps{T: s.Target, Skipped: s.noteSkip, Done: s.noteResult, Lag: lag, Ledger: ledger}
	status := godog.TestSuite{
		Name:                "firmakit",
		ScenarioInitializer: st.InitializeScenario,
		Options: &godog.Options{
			FS:          features.FS,
			Paths:       paths,
			Format:      s.Format,
			Output:      s.Output,
			Tags:        s.Tags,
			Concurrency: s.Concurrency,
			Randomize:   s.Randomize,
			Strict:      true,
			TestingT:    s.TestingT,
			NoColors:    true,
		},
	}.Run()
	if err := s.rerunInconclusive(st); err != nil {
		return 2, err
	}
	if ledger.Len() > 0 {
		r := ledger.Check(context.Background(), s.Target, lag, s.Target.SharedClock)
		s.noteResult(r)
	}
	if status == 0 && (s.Count(reports.Failed) > 0 || s.Count(reports.Inconclusive) > 0) {
		status = 1
	}
	return status, nil
}

// rerunInconclusive runs again, alone, every scenario whose timing could
// not be judged, and keeps the new outcome of those rows: a pass, a
// failure, or inconclusive again, never a pass by default.
func (s *Suite) rerunInconclusive(st *Steps) error {
	s.mu.Lock()
	var again []reports.ScenarioResult
	keep := s.results[:0:0]
	for _, r := range s.results {
		if r.Status == reports.Inconclusive {
			again = append(again, r)
		} else {
			keep = append(keep, r)
		}
	}
	s.mu.Unlock()
	if len(again) == 0 {
		return nil
	}
	lines := map[string]int64{}
	for _, lang := range []string{"es", "en"} {
		scs, err := features.Scenarios(features.FS, lang)
		if err != nil {
			return err
		}
		for _, sc := range scs {
			lines[lang+"/"+sc.File+"\x00"+sc.Name] = sc.Line
		}
	}
	wanted := map[string]bool{}
	var paths []string
	for _, r := range again {
		wanted[r.Feature+"\x00"+r.Name+"\x00"+r.Example] = true
		line, ok := lines[r.Feature+"\x00"+r.Name]
		if !ok {
			return fmt.Errorf("rerun: no scenario %q in %s", r.Name, r.Feature)
		}
		if p := fmt.Sprintf("%s:%d", r.Feature, line); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "running %d inconclusive scenario(s) again, alone\n", len(again))
	}
	var mu sync.Mutex
	redone := map[string]reports.ScenarioResult{}
	rerun := *st
	rerun.Done = func(r reports.ScenarioResult) {
		mu.Lock()
		defer mu.Unlock()
		redone[r.Feature+"\x00"+r.Name+"\x00"+r.Example] = r
	}
	for _, p := range paths {
		godog.TestSuite{Name: "firmakit-rerun", ScenarioInitializer: rerun.InitializeScenario,
			Options: &godog.Options{FS: features.FS, Paths: []string{p}, Format: "progress", Output: io.Discard,
				Tags: s.Tags, Concurrency: 1, Strict: true, NoColors: true}}.Run()
	}
	s.mu.Lock()
	s.results = keep
	s.mu.Unlock()
	for _, r := range again {
		key := r.Feature + "\x00" + r.Name + "\x00" + r.Example
		n, ok := redone[key]
		if !ok {
			n = r // not found again: stays inconclusive
		} else if n.Status == reports.Inconclusive {
			n.Error = "again when run alone: " + n.Error
		}
		s.noteResult(n)
	}
	return nil
}

func (s *Suite) noteResult(r reports.ScenarioResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results = append(s.results, r)
	if s.Progress == nil {
		return
	}
	mark := map[string]string{reports.Passed: "ok", reports.Failed: "FAIL", reports.NotRun: "not run", reports.Inconclusive: "?"}[r.Status]
	fmt.Fprintf(s.Progress, "%-7s %s  @%-38s %s\n", mark, r.Lang, r.Requirement, r.Name)
	if r.Example != "" {
		fmt.Fprintf(s.Progress, "        (%s)\n", r.Example)
	}
	switch r.Status {
	case reports.Failed:
		fmt.Fprintf(s.Progress, "        step: %s\n        %s\n", r.FailedStep, strings.ReplaceAll(r.Error, "\n", "\n        "))
	case reports.NotRun, reports.Inconclusive:
		if r.Error != "" {
			fmt.Fprintf(s.Progress, "        %s\n", r.Error)
		}
	}
}

// Results returns the outcome of every scenario of the last run, in the
// order of the feature files.
func (s *Suite) Results() []reports.ScenarioResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]reports.ScenarioResult(nil), s.results...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Feature != out[j].Feature {
			return out[i].Feature < out[j].Feature
		}
		return out[i].Requirement < out[j].Requirement
	})
	return out
}

// Count returns how many scenarios of the last run ended with status.
func (s *Suite) Count(status string) int {
	n := 0
	for _, r := range s.Results() {
		if r.Status == status {
			n++
		}
	}
	return n
}

// Summary is the run's outcome in one line; unlike godog's own summary, it
// never counts a scenario that was not run as passed.
func (s *Suite) Summary() string {
	line := fmt.Sprintf("firmakit: %d scenarios: %d passed, %d failed, %d not run",
		len(s.Results()), s.Count(reports.Passed), s.Count(reports.Failed), s.Count(reports.NotRun))
	if n := s.Count(reports.Inconclusive); n > 0 {
		line += fmt.Sprintf(", %d inconclusive", n)
	}
	return line
}

func (s *Suite) noteSkip(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipped[reason]++
}

// NotRun says which scenarios were not run and why, one line per reason.
func (s *Suite) NotRun() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for reason, n := range s.skipped {
		out = append(out, fmt.Sprintf("%d scenario(s) not run: %s", n, reason))
	}
	sort.Strings(out)
	return out
}

// String describes the suite's selection.
func (s *Suite) String() string {
	paths, _ := Paths(s.Lang)
	return fmt.Sprintf("features %s, tags %q, concurrency %d", strings.Join(paths, "+"), s.Tags, s.Concurrency)
}
