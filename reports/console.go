package reports

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Tally is how far a run has got, as the suite counts it while it runs.
type Tally struct {
	// Done is how many results are filed, Total how many the run will
	// file.
	Done, Total int
	// The results filed so far, by status.
	Failed, Inconclusive, NotRun int
}

// consoleAfter is how long a run goes before the console shows how far
// it has got.
const consoleAfter = time.Second

// lockedWriter serialises the writes of the suite's goroutines and of the
// console to one output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Console shows a run on standard output as it goes. On a terminal it
// keeps one status line at the bottom, "  120 of 451 done, 3 failed,
// 4.2s", redrawn in place once the run has gone on for a second, and
// prints above it a line for the first scenario of each requirement that
// did not pass, ten at most (WriteRecap sums them all up at the end).
// Elsewhere (a file, a pipe, CI) the suite prints its plain line per
// scenario to Lines, and the console adds a plain "… 120 of 451 done, 3
// failed" line every few seconds.
type Console struct {
	tty   bool
	width int
	out   *lockedWriter
	start time.Time
	every time.Duration

	mu     sync.Mutex
	p      Tally
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

// NewConsole returns the console of a run that writes to out: tty tells
// whether out is a terminal, width how wide it is (lines are cut to fit).
func NewConsole(out io.Writer, tty bool, width int) *Console {
	return &Console{tty: tty, width: width, out: &lockedWriter{w: out}, every: plainEvery}
}

// Lines is where the suite writes its plain line per scenario: the
// console's output, shared without interleaving, off a terminal; nil on
// a terminal, where the console shows the scenarios that did not pass.
func (c *Console) Lines() io.Writer {
	if c.tty {
		return nil
	}
	return c.out
}

// Start begins the display of a run of total results.
func (c *Console) Start(total int) {
	c.start, c.p.Total = time.Now(), total
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go c.loop()
}

func (c *Console) loop() {
	defer close(c.done)
	select {
	case <-time.After(consoleAfter):
	case <-c.stop:
		return
	}
	tick := 200 * time.Millisecond
	if !c.tty {
		tick = c.every
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		c.mu.Lock()
		if c.tty {
			c.draw()
		} else if c.p.Done < c.p.Total {
			fmt.Fprintf(c.out, "… %s\n", c.line())
		}
		c.mu.Unlock()
		select {
		case <-t.C:
		case <-c.stop:
			return
		}
	}
}

// line says how far the run has got.
func (c *Console) line() string {
	s := fmt.Sprintf("%d of %d done", c.p.Done, c.p.Total)
	if c.p.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.p.Failed)
	}
	if c.p.Inconclusive > 0 {
		s += fmt.Sprintf(", %d inconclusive", c.p.Inconclusive)
	}
	if c.p.NotRun > 0 {
		s += fmt.Sprintf(", %d not run", c.p.NotRun)
	}
	return s + fmt.Sprintf(", %.1fs", time.Since(c.start).Seconds())
}

// draw puts the status line at the bottom of the terminal.
func (c *Console) draw() {
	fmt.Fprintf(c.out, "\r\033[K%s", Clip("  "+c.line(), c.width-1))
	c.status = true
}

// clear takes the status line off the screen.
func (c *Console) clear() {
	if c.status {
		io.WriteString(c.out, "\r\033[K")
		c.status = false
	}
}

// OnResult takes a result as the suite files it, with how far the run
// has got: it counts, and on a terminal prints a line for a scenario
// that did not pass.
func (c *Console) OnResult(r ScenarioResult, t Tally) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p = t
	key := r.Status + " " + r.Requirement
	if !c.tty || r.Status == Passed || c.shown[key] || len(c.shown) > maxShown {
		return
	}
	if c.shown == nil {
		c.shown = map[string]bool{}
	}
	c.shown[key] = true
	shown := c.status
	c.clear()
	if len(c.shown) > maxShown {
		fmt.Fprintln(c.out, "…      more are counted below and summed up at the end")
		if shown {
			c.draw()
		}
		return
	}
	mark := map[string]string{Failed: "FAIL", NotRun: "not run", Inconclusive: "INCONCLUSIVE"}[r.Status]
	if mark == "" {
		mark = r.Status
	}
	line := fmt.Sprintf("%-7s %s  @%s %s", mark, r.Lang, r.Requirement, r.Name)
	if r.Row != "" {
		line += " (" + r.Row + ")"
	}
	if r.Error != "" {
		line += ": " + Short(r)
	}
	fmt.Fprintln(c.out, Clip(line, c.width-1))
	if shown {
		c.draw()
	}
}

// Stop ends the display and takes the status line off the screen.
func (c *Console) Stop() {
	if c.stop == nil {
		return
	}
	close(c.stop)
	<-c.done
	c.mu.Lock()
	c.clear()
	c.mu.Unlock()
}
