package steps

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// A pass is what both suites do around godog: run the selected scenarios
// once, file each result in the log with its row, file as not run what
// godog did not run, run again alone what could not be judged, and turn
// godog's status into the run's. Each suite brings its own steps (init)
// and its own feature set.
type pass struct {
	log      *Suite
	set      *features.Set
	fsys     fs.FS
	tags     string
	selected []pickled
	rows     map[string]pickled

	// init makes a scenario initializer whose steps file each result
	// with sink (after place); a row that only (when set) does not hold
	// is cut short before any step.
	init func(sink func(reports.ScenarioResult), only map[string]bool) func(*godog.ScenarioContext)

	mu  sync.Mutex
	ran map[string]bool

	// ctx ends at the run's deadline (see bound); every scenario's
	// context is made from it. nil: no deadline.
	ctx    context.Context
	cancel context.CancelFunc
}

// NotJudgedInTime is the error of an inconclusive result that the run's
// Deadline cut short or kept from starting.
const NotJudgedInTime = reports.NotJudgedInTime

// bound gives the run a deadline (zero: none). Once it has passed, the
// steps' contexts have ended (every request, wait and sleep of a step
// ends with them), no scenario starts, none runs again, and every result
// filed from then on is inconclusive: a scenario cut short is never
// failed nor passed for it. A result filed before stays as it was.
func (p *pass) bound(deadline time.Time) {
	if deadline.IsZero() {
		return
	}
	p.ctx, p.cancel = context.WithDeadline(context.Background(), deadline)
}

// end releases the deadline's timer.
func (p *pass) end() {
	if p.cancel != nil {
		p.cancel()
	}
}

// outOfTime tells whether the run's deadline has passed.
func (p *pass) outOfTime() bool { return p.ctx != nil && p.ctx.Err() != nil }

// judged is a result as it is filed: inconclusive once the deadline has
// passed, unless a scenario the target's configuration cannot run, which
// says so.
func (p *pass) judged(r reports.ScenarioResult) reports.ScenarioResult {
	if !p.outOfTime() || r.Status == reports.NotRun && r.Error != "" {
		return r
	}
	r.Status, r.Error = reports.Inconclusive, NotJudgedInTime
	return r
}

// started is for a scenario's Before hook: past the deadline, the
// scenario does not start.
func (p *pass) started() error {
	if p.outOfTime() {
		return godog.ErrSkip
	}
	return nil
}

// newPass makes the pass of a run of set's selected scenarios, whose
// results go to log.
func newPass(log *Suite, set *features.Set, tags string, selected []pickled) (*pass, error) {
	fsys, err := set.Features(features.FS)
	if err != nil {
		return nil, err
	}
	p := &pass{log: log, set: set, fsys: fsys, tags: tags, selected: selected,
		rows: map[string]pickled{}, ran: map[string]bool{}}
	for _, s := range selected {
		p.rows[pickleKey(s.pickle)] = s
	}
	return p, nil
}

// place sets a result's line and row from its scenario's key.
func (p *pass) place(r *reports.ScenarioResult, key string) {
	if row, ok := p.rows[key]; ok {
		r.Line, r.Row = row.line, row.row
	}
}

// options are godog's options for a run of paths of the set.
func (p *pass) options(paths []string, format string, out io.Writer, concurrency int, seed int64) *godog.Options {
	return &godog.Options{FS: p.fsys, Paths: paths, Format: format, Output: out, Tags: p.tags,
		Concurrency: concurrency, Randomize: seed, Strict: true, NoColors: true, DefaultContext: p.ctx}
}

// run runs the selected scenarios once and returns godog's status; a
// selected scenario godog did not run is filed as not run, never passed.
func (p *pass) run(name string, o *godog.Options) int {
	status := godog.TestSuite{Name: name, ScenarioInitializer: p.init(func(r reports.ScenarioResult) {
		r = p.judged(r)
		p.mu.Lock()
		p.ran[rowKey(r)] = true
		p.mu.Unlock()
		p.log.noteResult(r)
	}, nil), Options: o}.Run()
	p.mu.Lock()
	var missing []pickled
	for _, s := range p.selected {
		if !p.ran[rowKey(reports.ScenarioResult{Feature: s.pickle.Uri, Name: s.pickle.Name, Line: s.line})] {
			missing = append(missing, s)
		}
	}
	p.mu.Unlock()
	for _, s := range missing {
		p.log.noteResult(unran(s))
	}
	return status
}

// status is the run's: godog's, or 1 when a scenario failed in the end
// (a rerun may have judged what the first run could not). Past the
// deadline, godog's says nothing (it counts the steps cut short as
// failed): the results alone decide.
func (p *pass) status(godogStatus int) int {
	p.log.setOutOfTime(p.outOfTime())
	if p.outOfTime() {
		godogStatus = 0
	}
	if godogStatus == 0 && p.log.Count(reports.Failed) > 0 {
		return 1
	}
	return godogStatus
}

// rerunInconclusive runs each inconclusive row again, alone, and files
// its new result in place of the old; one inconclusive again says so.
func (p *pass) rerunInconclusive(name string) error {
	if p.outOfTime() {
		return nil
	}
	again, keep := p.log.inconclusive()
	if len(again) == 0 {
		return nil
	}
	paths, err := p.scenarioPaths(again)
	if err != nil {
		return err
	}
	if p.log.Progress != nil {
		p.log.mu.Lock()
		fmt.Fprintf(p.log.Progress, "running %d inconclusive scenario(s) again, alone\n", len(again))
		p.log.mu.Unlock()
	}
	// Only the inconclusive rows run again, not their whole outline.
	only := map[string]bool{}
	for key, row := range p.rows {
		for _, r := range again {
			if row.line == r.Line && strings.HasPrefix(key, r.Feature+"\x00"+r.Name+"\x00") {
				only[key] = true
			}
		}
	}
	var mu sync.Mutex
	redone := map[string]reports.ScenarioResult{}
	for _, path := range paths {
		godog.TestSuite{Name: name, ScenarioInitializer: p.init(func(r reports.ScenarioResult) {
			r = p.judged(r)
			mu.Lock()
			defer mu.Unlock()
			redone[rowKey(r)] = r
		}, only), Options: p.options([]string{path}, "progress", io.Discard, 1, 0)}.Run()
	}
	p.log.mu.Lock()
	p.log.results = keep
	p.log.mu.Unlock()
	for _, r := range again {
		n, ok := redone[rowKey(r)]
		switch {
		case !ok:
			n = r // not run again: stays inconclusive
		case n.Status == reports.Inconclusive && n.Error != NotJudgedInTime:
			n.Error = "again when run alone: " + strings.TrimPrefix(n.Error, "again when run alone: ")
		}
		p.log.noteResult(n)
	}
	return nil
}

// scenarioPaths are the godog paths (file:line) of the scenarios of rs,
// each once.
func (p *pass) scenarioPaths(rs []reports.ScenarioResult) ([]string, error) {
	lines := map[string]int64{}
	for _, lang := range []string{"es", "en"} {
		scs, err := p.set.Scenarios(features.FS, lang)
		if err != nil {
			return nil, err
		}
		for _, sc := range scs {
			lines[lang+"/"+sc.File+"\x00"+sc.Name] = sc.Line
		}
	}
	var paths []string
	for _, r := range rs {
		line, ok := lines[r.Feature+"\x00"+r.Name]
		if !ok {
			return nil, fmt.Errorf("rerun: no scenario %q in %s", r.Name, r.Feature)
		}
		if path := fmt.Sprintf("%s:%d", r.Feature, line); !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// inconclusive splits the log's results into the inconclusive ones and
// the rest.
func (s *Suite) inconclusive() (again, keep []reports.ScenarioResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep = s.results[:0:0]
	for _, r := range s.results {
		if r.Status == reports.Inconclusive {
			again = append(again, r)
		} else {
			keep = append(keep, r)
		}
	}
	return again, keep
}
