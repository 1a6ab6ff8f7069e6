package engine

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
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// A Pass is what both suites do around godog: run the selected scenarios
// once, file each result in the log with its row, file as not run what
// godog did not run, run again alone what could not be judged, and turn
// godog's status into the run's. Each suite brings its own steps (an
// Initializer) and its own feature set (a Selection); RunOptions.Start
// makes one.
type Pass struct {
	log      *RunOptions
	set      *features.Set
	fsys     fs.FS
	paths    []string
	selected []pickled
	rows     map[string]pickled

	// init makes a scenario initializer whose steps file each result
	// with sink (after Place); a row that only (when set) does not hold
	// is cut short before any step.
	init Initializer

	mu  sync.Mutex
	ran map[string]bool

	// atOnce is how many rows the round under way runs at once: the
	// first run's concurrency, a rerun's (1: alone).
	atOnce int

	// ctx ends at the run's deadline (see bound); every scenario's
	// context is made from it. nil: no deadline.
	ctx    context.Context
	cancel context.CancelFunc
}

// An Initializer is a suite's part in a Pass: it makes the scenario
// initializer of a godog run whose steps file each result with sink,
// after Pass.Place has set its row. When only is set (a rerun), a
// scenario whose key (PickleKey) it does not hold is cut short before any
// step, and files nothing. Pass.AtOnce tells, when it is called, how
// many rows the round runs at once.
type Initializer func(sink func(reports.ScenarioResult), only map[string]bool) func(*godog.ScenarioContext)

// Selection is the scenarios of a feature set that a run's language and
// tags select, each outline row on its own, before anything runs.
type Selection struct {
	set     *features.Set
	paths   []string
	pickles []pickled
}

// Len is how many scenarios (outline rows one by one) are selected.
func (s *Selection) Len() int { return len(s.pickles) }

// Select selects the scenarios of set that the options' Lang and Tags
// name. It returns a *SelectionError when they select nothing to run (see
// Select), a plain error for an unknown language.
func (o *RunOptions) Select(set *features.Set) (*Selection, error) {
	paths, err := Paths(o.Lang)
	if err != nil {
		return nil, err
	}
	pickles, err := selectFrom(loaderOf(set), o.Lang, o.Tags)
	if err != nil {
		return nil, err
	}
	return &Selection{set: set, paths: paths, pickles: pickles}, nil
}

// Start begins a run of sel, whose results the options' log keeps (the
// last run's are dropped), bounded by Deadline. End releases the bound.
func (o *RunOptions) Start(sel *Selection) (*Pass, error) {
	o.reset(sel.Len())
	fsys, err := sel.set.Features(features.FS)
	if err != nil {
		return nil, err
	}
	p := &Pass{log: o, set: sel.set, fsys: fsys, paths: sel.paths, selected: sel.pickles,
		rows: map[string]pickled{}, ran: map[string]bool{}}
	for _, s := range sel.pickles {
		p.rows[PickleKey(s.pickle)] = s
	}
	p.bound(o.Deadline)
	return p, nil
}

// NotJudgedInTime is the error of an inconclusive result that the run's
// Deadline cut short or kept from starting.
const NotJudgedInTime = reports.NotJudgedInTime

// bound gives the run a deadline (zero: none). Once it has passed, the
// steps' contexts have ended (every request, wait and sleep of a step
// ends with them), no scenario starts, none runs again, and every result
// filed from then on is inconclusive: a scenario cut short is never
// failed nor passed for it. A result filed before stays as it was.
func (p *Pass) bound(deadline time.Time) {
	if deadline.IsZero() {
		return
	}
	p.ctx, p.cancel = context.WithDeadline(context.Background(), deadline)
}

// End releases the deadline's timer.
func (p *Pass) End() {
	if p.cancel != nil {
		p.cancel()
	}
}

// OutOfTime tells whether the run's deadline has passed.
func (p *Pass) OutOfTime() bool { return p.ctx != nil && p.ctx.Err() != nil }

// Context is the run's: it ends at the deadline (Background when there
// is none). What the run checks after its scenarios uses it.
func (p *Pass) Context() context.Context {
	if p.ctx == nil {
		return context.Background()
	}
	return p.ctx
}

// File files a result of the run that is not a scenario's (a check after
// them, such as the service suite's ledger), judged as a scenario's is:
// inconclusive once the deadline has passed.
func (p *Pass) File(r reports.ScenarioResult) { p.log.NoteResult(p.judged(r)) }

// Pickles are the scenarios the pass runs, as godog runs them.
func (p *Pass) Pickles() []*messages.Pickle { return picklesOf(p.selected) }

// judged is a result as it is filed: inconclusive once the deadline has
// passed, unless a scenario the target's configuration cannot run, which
// says so.
func (p *Pass) judged(r reports.ScenarioResult) reports.ScenarioResult {
	if !p.OutOfTime() || r.Status == reports.NotRun && r.Error != "" {
		return r
	}
	r.Status, r.Error = reports.Inconclusive, NotJudgedInTime
	r.Breaks, r.FailureKind = "", "" // what it came to before the deadline cut it short is no verdict
	return r
}

// Started is for a scenario's Before hook: past the deadline, the
// scenario does not start (godog.ErrSkip).
func (p *Pass) Started() error {
	if p.OutOfTime() {
		return godog.ErrSkip
	}
	return nil
}

// Place sets a result's line and row from its scenario's key
// (PickleKey).
func (p *Pass) Place(r *reports.ScenarioResult, key string) {
	if row, ok := p.rows[key]; ok {
		r.Line, r.Row = row.line, row.row
	}
}

// options are godog's options for a run of paths of the set.
func (p *Pass) options(paths []string, format string, out io.Writer, concurrency int, seed int64) *godog.Options {
	return &godog.Options{FS: p.fsys, Paths: paths, Format: format, Output: out, Tags: p.log.Tags,
		Concurrency: concurrency, Randomize: seed, Strict: true, NoColors: true, DefaultContext: p.ctx}
}

// Run runs the selected scenarios once, concurrency at a time, each with
// the steps init gives, and returns godog's status; a selected scenario
// godog did not run is filed as not run, never passed. name is godog's
// name of the run; the options' Format, Output, Randomize and Options
// apply.
func (p *Pass) Run(name string, concurrency int, init Initializer) int {
	p.init, p.atOnce = init, concurrency
	o := p.options(p.paths, p.log.Format, p.log.Output, concurrency, p.log.Randomize)
	if p.log.Options != nil {
		p.log.Options(o)
	}
	status := godog.TestSuite{Name: name, ScenarioInitializer: p.init(func(r reports.ScenarioResult) {
		r = p.judged(r)
		p.mu.Lock()
		p.ran[RowKey(r)] = true
		p.mu.Unlock()
		p.log.NoteResult(r)
	}, nil), Options: o}.Run()
	p.mu.Lock()
	var missing []pickled
	for _, s := range p.selected {
		if !p.ran[RowKey(reports.ScenarioResult{Feature: s.pickle.Uri, Name: s.pickle.Name, Line: s.line})] {
			missing = append(missing, s)
		}
	}
	p.mu.Unlock()
	for _, s := range missing {
		p.log.NoteResult(unran(s))
	}
	return status
}

// Status is the run's: godog's, or 1 when a scenario failed in the end
// (a rerun may have judged what the first run could not). Past the
// deadline, godog's says nothing (it counts the steps cut short as
// failed): the results alone decide.
func (p *Pass) Status(godogStatus int) int {
	p.log.setOutOfTime(p.OutOfTime())
	if p.OutOfTime() {
		godogStatus = 0
	}
	if godogStatus == 0 && p.log.Count(reports.Failed) > 0 {
		return 1
	}
	return godogStatus
}

// AtOnce is how many rows the round under way runs at once: the first
// run's concurrency, or a rerun's (1: alone, one at a time). An
// Initializer reads it when the round begins.
func (p *Pass) AtOnce() int { return p.atOnce }

// RerunInconclusive runs each inconclusive row again, at rows at once (1
// or less: alone, one at a time), and files its new result in place of
// the old; one inconclusive again says so. name is godog's name of the
// run. Several at once, the suite's Initializer orders and bounds them as
// on a first run; only a row that runs again alone may be judged by what
// only a run alone tells (Steps.Alone).
func (p *Pass) RerunInconclusive(name string, at int) error {
	if p.OutOfTime() {
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
	at = max(at, 1)
	if p.log.Progress != nil {
		how := "alone"
		if at > 1 {
			how = fmt.Sprintf("%d at a time", at)
		}
		p.log.mu.Lock()
		fmt.Fprintf(p.log.Progress, "running %d inconclusive scenario(s) again, %s\n", len(again), how)
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
	p.atOnce = at
	init := p.init(func(r reports.ScenarioResult) {
		r = p.judged(r)
		mu.Lock()
		defer mu.Unlock()
		redone[RowKey(r)] = r
	}, only)
	// One godog run per scenario (file:line), alone one after the other;
	// several at once, all begun together, the Initializer letting at of
	// their rows run at a time.
	var wg sync.WaitGroup
	for _, path := range paths {
		run := func() {
			godog.TestSuite{Name: name, ScenarioInitializer: init,
				Options: p.options([]string{path}, "progress", io.Discard, at, 0)}.Run()
		}
		if at == 1 {
			run()
			continue
		}
		wg.Go(run)
	}
	wg.Wait()
	p.log.mu.Lock()
	p.log.results = keep
	p.log.mu.Unlock()
	for _, r := range again {
		n, ok := redone[RowKey(r)]
		switch {
		case !ok:
			n = r // not run again: stays inconclusive
		case n.Status == reports.Inconclusive && n.Error != NotJudgedInTime && at == 1:
			n.Error = "again when run alone: " + strings.TrimPrefix(n.Error, "again when run alone: ")
		}
		p.log.NoteResult(n)
	}
	return nil
}

// scenarioPaths are the godog paths (file:line) of the scenarios of rs,
// each once. A result names its scenario as godog compiled it, an
// outline's placeholders filled from its row ("… una notificación
// REJECTED, …" for "… una notificación <state>, …"), so a result is
// matched to the scenario of its file that starts last at or before its
// row's line and whose name it fits.
func (p *Pass) scenarioPaths(rs []reports.ScenarioResult) ([]string, error) {
	byFile, err := scenariosByFile(p.set)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, r := range rs {
		path, err := scenarioPath(byFile, r)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(paths, path) {
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// scenariosByFile are the scenarios of set, by "lang/file".
func scenariosByFile(set *features.Set) (map[string][]features.Scenario, error) {
	byFile := map[string][]features.Scenario{}
	for _, lang := range []string{"es", "en"} {
		scs, err := set.Scenarios(features.FS, lang)
		if err != nil {
			return nil, err
		}
		for _, sc := range scs {
			byFile[lang+"/"+sc.File] = append(byFile[lang+"/"+sc.File], sc)
		}
	}
	return byFile, nil
}

// scenarioPath is the godog path (file:line) of r's scenario.
func scenarioPath(byFile map[string][]features.Scenario, r reports.ScenarioResult) (string, error) {
	var found *features.Scenario
	for i, sc := range byFile[r.Feature] {
		if !FitsOutlineName(sc.Name, r.Name) || (r.Line > 0 && sc.Line > int64(r.Line)) {
			continue
		}
		if found == nil || sc.Line > found.Line {
			found = &byFile[r.Feature][i]
		}
	}
	if found == nil {
		return "", fmt.Errorf("rerun: no scenario %q in %s", r.Name, r.Feature)
	}
	return fmt.Sprintf("%s:%d", r.Feature, found.Line), nil
}

// FitsOutlineName tells whether name is the scenario name template with
// each of its <placeholders> filled in (by any text, empty too), as
// godog compiles an outline's rows.
func FitsOutlineName(template, name string) bool {
	var literals []string
	rest := template
	for {
		open := strings.Index(rest, "<")
		if open < 0 {
			break
		}
		end := strings.Index(rest[open:], ">")
		if end < 0 {
			break
		}
		literals = append(literals, rest[:open])
		rest = rest[open+end+1:]
	}
	if len(literals) == 0 {
		return template == name
	}
	literals = append(literals, rest)
	if !strings.HasPrefix(name, literals[0]) {
		return false
	}
	name = name[len(literals[0]):]
	last := literals[len(literals)-1]
	for _, lit := range literals[1 : len(literals)-1] {
		i := strings.Index(name, lit)
		if i < 0 {
			return false
		}
		name = name[i+len(lit):]
	}
	return strings.HasSuffix(name, last)
}
