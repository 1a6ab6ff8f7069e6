package main

import (
	"io"
	"os"
	"strings"

	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
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

// display is how a suite's run shows on standard output, as --format
// says: firmakit's own lines (reports.Console: on a terminal a status
// line and the scenarios that did not pass, elsewhere a line per
// scenario), or godog's formats.
type display struct {
	// Formats is the format list left for godog, Output where godog
	// writes it.
	Formats string
	Output  io.Writer
	// Lines is the suite's Progress: a line per scenario, off a terminal.
	Lines io.Writer
	// shown is firmakit's own display; nil when godog's formats show the
	// run.
	shown *reports.Console
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
		d.shown, d.Output = reports.NewConsole(m.Stdout, tty, width), io.Discard
		d.Lines = d.shown.Lines()
		d.Formats = "progress" + strings.TrimPrefix(formats, "firmakit")
	}
	return d
}

// Start shows the run from here on: total is how many results it will
// file. It returns the suite's OnResult, nil when godog shows the run.
func (d *display) Start(total int) func(reports.ScenarioResult, engine.Progress) {
	if d.shown == nil {
		return nil
	}
	d.shown.Start(total)
	return func(r reports.ScenarioResult, p engine.Progress) { d.shown.OnResult(r, reports.Tally(p)) }
}

// Stop ends the display, the status line taken off the screen.
func (d *display) Stop() {
	if d.shown != nil {
		d.shown.Stop()
	}
}

// Own tells whether firmakit's own lines show the run.
func (d *display) Own() bool { return d.shown != nil }
