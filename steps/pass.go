package steps

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"

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
		Concurrency: concurrency, Randomize: seed, Strict: true, NoColors: true}
}

// run runs the selected scenarios once and returns godog's status; a
// selected scenario godog did not run is filed as not run, never passed.
func (p *pass) run(name string, o *godog.Options) int {
	status := godog.TestSuite{Name: name, ScenarioInitializer: p.init(func(r reports.ScenarioResult) {
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
// (a rerun may have judged what the first run could not).
func (p *pass) status(godogStatus int) int {
	if godogStatus == 0 && p.log.Count(reports.Failed) > 0 {
		return 1
	}
	return godogStatus
}

// rerunInconclusive runs each inconclusive row again, alone, and files
// its new result in place of the old; one inconclusive again says so.
func (p *pass) rerunInconclusive(name string) error {
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
		case n.Status == reports.Inconclusive:
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
