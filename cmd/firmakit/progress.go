package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"golang.org/x/term"
)

// terminalOf tells whether w is a terminal, and how wide.
func terminalOf(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 20 {
		width = 80
	}
	return true, width
}

// progressAfter is how long a run goes before it shows how far it has got.
const progressAfter = time.Second

// lockedWriter serialises the writes of the suite's goroutines and of the
// progress display to one output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// progress shows how far a run has got. On a terminal it keeps one status
// line at the bottom, "  120 of 451 done, 3 failed, 4.2s", redrawn in
// place once the run has gone on for progressAfter, and prints above it a
// line for the first scenario of each requirement that did not pass, ten
// at most (the recap at the end sums them all up).
// Elsewhere (a file, a pipe, CI) the suite prints its plain line per
// scenario, and progress adds a plain "… 120 of 451 done, 3 failed" line
// every plainEvery.
type progress struct {
	tty   bool
	width int
	out   io.Writer
	start time.Time
	every time.Duration

	mu     sync.Mutex
	p      steps.Progress
	status bool // the status line is on the screen
	stop   chan struct{}
	done   chan struct{}
	// shown are the requirements a line was printed for, so that a
	// terminal shows each failing requirement once, maxShown at most.
	shown map[string]bool
}

// maxShown is how many scenarios that did not pass a terminal shows as
// they come; the recap at the end sums up every one.
const maxShown = 10

// plainEvery is how often a run that is not on a terminal says how far
// it has got.
const plainEvery = 5 * time.Second

func newProgress(out io.Writer, tty bool, width int) *progress {
	return &progress{tty: tty, width: width, out: out, every: plainEvery}
}

// Start begins the display of a run of total results.
func (p *progress) Start(total int) {
	p.start, p.p.Total = time.Now(), total
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.loop()
}

func (p *progress) loop() {
	defer close(p.done)
	select {
	case <-time.After(progressAfter):
	case <-p.stop:
		return
	}
	tick := 200 * time.Millisecond
	if !p.tty {
		tick = p.every
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		p.mu.Lock()
		if p.tty {
			p.draw()
		} else if p.p.Done < p.p.Total {
			fmt.Fprintf(p.out, "… %s\n", p.line())
		}
		p.mu.Unlock()
		select {
		case <-t.C:
		case <-p.stop:
			return
		}
	}
}

// line says how far the run has got.
func (p *progress) line() string {
	s := fmt.Sprintf("%d of %d done", p.p.Done, p.p.Total)
	if p.p.Failed > 0 {
		s += fmt.Sprintf(", %d failed", p.p.Failed)
	}
	if p.p.Inconclusive > 0 {
		s += fmt.Sprintf(", %d inconclusive", p.p.Inconclusive)
	}
	if p.p.NotRun > 0 {
		s += fmt.Sprintf(", %d not run", p.p.NotRun)
	}
	return s + fmt.Sprintf(", %.1fs", time.Since(p.start).Seconds())
}

// draw puts the status line at the bottom of the terminal.
func (p *progress) draw() {
	fmt.Fprintf(p.out, "\r\033[K%s", reports.Clip("  "+p.line(), p.width-1))
	p.status = true
}

// clear takes the status line off the screen.
func (p *progress) clear() {
	if p.status {
		io.WriteString(p.out, "\r\033[K")
		p.status = false
	}
}

// OnResult is the suite's steps.Suite.OnResult: it counts, and on a
// terminal prints a line for a scenario that did not pass.
func (p *progress) OnResult(r reports.ScenarioResult, pr steps.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p = pr
	key := r.Status + " " + r.Requirement
	if !p.tty || r.Status == reports.Passed || p.shown[key] || len(p.shown) > maxShown {
		return
	}
	if p.shown == nil {
		p.shown = map[string]bool{}
	}
	p.shown[key] = true
	shown := p.status
	p.clear()
	if len(p.shown) > maxShown {
		fmt.Fprintln(p.out, "…      more are counted below and summed up at the end")
		if shown {
			p.draw()
		}
		return
	}
	mark := map[string]string{reports.Failed: "FAIL", reports.NotRun: "not run", reports.Inconclusive: "INCONCLUSIVE"}[r.Status]
	if mark == "" {
		mark = r.Status
	}
	line := fmt.Sprintf("%-7s %s  @%s %s", mark, r.Lang, r.Requirement, r.Name)
	if r.Row != "" {
		line += " (" + r.Row + ")"
	}
	if r.Error != "" {
		line += ": " + reports.ShortError(r.Error)
	}
	fmt.Fprintln(p.out, reports.Clip(line, p.width-1))
	if shown {
		p.draw()
	}
}

// Stop ends the display and takes the status line off the screen.
func (p *progress) Stop() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}

// recapFailures is recap without the likely causes: per requirement that
// did not pass, its count and first error; per requirement whose failures
// were expected, its count and the reason given; then the warnings of the
// scenarios that passed (recapWarnings). Every line is one line of output,
// whatever a target sent: reports.Clip escapes what would break it.
func recapFailures(w io.Writer, results []reports.ScenarioResult, width int) {
	clip := func(s string) string {
		if width > 0 {
			return reports.Clip(s, width-1)
		}
		return reports.Clip(s, 240)
	}
	for _, status := range []string{reports.Failed, reports.Inconclusive, reports.ExpectedFailure} {
		type req struct {
			tag   string
			n     int
			first reports.ScenarioResult
		}
		var order []*req
		byTag := map[string]*req{}
		runs := 0
		for _, r := range results {
			if r.Status != status {
				continue
			}
			runs++
			key := r.Requirement + "\x00" + r.ExpectedReason
			q := byTag[key]
			if q == nil {
				q = &req{tag: r.Requirement, first: r}
				byTag[key] = q
				order = append(order, q)
			}
			q.n++
		}
		if len(order) == 0 {
			continue
		}
		what := map[string]string{reports.Failed: "failed", reports.Inconclusive: "inconclusive",
			reports.ExpectedFailure: "expected failures, declared with --expected-failures (they do not fail the run)"}[status]
		tags := map[string]bool{}
		for _, q := range order {
			tags[q.tag] = true
		}
		fmt.Fprintf(w, "%s: %s, %s\n", what, count(len(tags), "requirement"), count(runs, "scenario run"))
		pad := 0
		for _, q := range order {
			pad = max(pad, len(q.tag)+1)
		}
		for _, q := range order {
			why := reports.ShortError(q.first.Error)
			if status == reports.ExpectedFailure {
				why = "expected: " + q.first.ExpectedReason
			}
			fmt.Fprintln(w, clip(fmt.Sprintf("  %-*s %4d  %s", pad, "@"+q.tag, q.n, why)))
		}
	}
	recapWarnings(w, results, clip)
}

// recapWarnings sums up the warnings of the scenarios that passed,
// grouped by what they rest on and the practice (reports.WarningGroups):
// per group, its requirements, how many scenarios noted it and the first
// one's message, why it is only a warning, and the sentence of the
// documents or the practice behind it. Under --strict there are none: they
// are failures, recapped above.
func recapWarnings(w io.Writer, results []reports.ScenarioResult, clip func(string) string) {
	var passed []reports.ScenarioResult
	for _, r := range results {
		if r.Status == reports.Passed && len(r.Warnings) > 0 {
			passed = append(passed, r)
		}
	}
	if len(passed) == 0 {
		return
	}
	s := reports.Summarize(results)
	fmt.Fprintf(w, "warnings: %d in %s; they do not fail the run (--strict makes them fail)\n", s.Warnings, count(s.Warned, "scenario"))
	groups := reports.WarningGroups(passed)
	tags := make([]string, len(groups))
	pad := 0
	for i, g := range groups {
		tags[i] = "@" + strings.Join(g.Requirements, ",@")
		pad = min(max(pad, len(tags[i])), 32)
	}
	for i, g := range groups {
		fmt.Fprintln(w, clip(fmt.Sprintf("  %-*s %4d  %s", pad, tags[i], g.Scenarios, g.First)))
		fmt.Fprintln(w, clip("      why only a warning: "+g.Practice))
		if g.Basis == reports.BasisPractice {
			fmt.Fprintln(w, clip("      rests on: a practice; no sentence of the documents requires it"))
		} else {
			fmt.Fprintln(w, clip("      rests on: "+reports.Cite(g.Basis)))
		}
	}
}

// likelyCauses says the likely cause of each group of failures that
// reports.Causes recognises.
func likelyCauses(w io.Writer, results []reports.ScenarioResult) {
	var known []reports.Cause
	for _, c := range reports.Causes(results) {
		if c.Diagnosis != "" {
			known = append(known, c)
		}
	}
	// Whole, even on a terminal: the hint is the point.
	for _, c := range known {
		fmt.Fprintf(w, "likely cause of %s: %s\n", count(c.Results, "failure"), firmakit.EscapeText(c.Explanation))
	}
}

// count says "1 thing" or "N things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// display is how a suite's run shows on standard output, as --format
// says: firmakit's own lines (on a terminal a status line and the
// scenarios that did not pass, elsewhere a line per scenario), or godog's
// formats.
type display struct {
	// Formats is the format list left for godog, Output where godog
	// writes it.
	Formats string
	Output  io.Writer
	// Lines is the suite's Progress: a line per scenario, off a terminal.
	Lines io.Writer
	// shown is the progress display; nil when godog's formats show the
	// run.
	shown *progress
	// Width is the terminal's width, 0 off a terminal.
	Width int
}

// newDisplay sets up the display of a run for a --format list without
// its JUnit entries (splitJUnit).
func (m *Main) newDisplay(formats string) *display {
	tty, width := m.terminal(m.Stdout)
	d := &display{Formats: formats, Output: m.Stdout, Width: width}
	if formats == "" || formats == "firmakit" || strings.HasPrefix(formats, "firmakit,") {
		// Our own lines; godog's progress goes nowhere.
		out := &lockedWriter{w: m.Stdout}
		d.shown, d.Output = newProgress(out, tty, width), io.Discard
		if !tty {
			d.Lines = out
		}
		d.Formats = "progress" + strings.TrimPrefix(formats, "firmakit")
	}
	return d
}

// Start shows the run from here on: total is how many results it will
// file. It returns the suite's OnResult, nil when godog shows the run.
func (d *display) Start(total int) func(reports.ScenarioResult, steps.Progress) {
	if d.shown == nil {
		return nil
	}
	d.shown.Start(total)
	return d.shown.OnResult
}

// Stop ends the display, the status line taken off the screen.
func (d *display) Stop() {
	if d.shown != nil {
		d.shown.Stop()
	}
}

// Own tells whether firmakit's own lines show the run.
func (d *display) Own() bool { return d.shown != nil }
