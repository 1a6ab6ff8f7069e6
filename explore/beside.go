package explore

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/firmakit/firmakit/reports"
)

// Beside is an exploration run beside a conformance suite's run: planned
// (Explorer, WithSuite), started with the suite (Start), then waited for
// and told (Wait).
type Beside struct {
	// Explorer explores; nil explores nothing.
	Explorer *Explorer
	// WithSuite ends the exploration with the suite at the latest (the
	// default budget of a run); otherwise it goes on for its whole budget,
	// unpaced once the suite is done.
	WithSuite bool

	// until is when the exploration's budget runs out.
	until  time.Time
	cancel context.CancelFunc
	done   chan struct{}
	report *Report
	err    error
}

// Start runs the exploration until its budget, ctx's end, the run's
// deadline (zero: none) or, with WithSuite, the end of the suite
// (suiteDone closed). It returns b, or nil when b explores nothing.
func (b *Beside) Start(ctx context.Context, deadline time.Time, suiteDone <-chan struct{}) *Beside {
	if b == nil || b.Explorer == nil {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if !deadline.IsZero() {
		ctx, b.cancel = context.WithDeadline(ctx, deadline)
	} else {
		ctx, b.cancel = context.WithCancel(ctx)
	}
	if b.WithSuite {
		b.Explorer.Stop = suiteDone
	} else {
		b.Explorer.Unpaced = suiteDone
	}
	b.until = time.Now().Add(b.Explorer.Budget)
	b.done = make(chan struct{})
	go func() {
		defer close(b.done)
		b.report, b.err = b.Explorer.Run(ctx)
	}()
	return b
}

// Stop ends the exploration at once, as when the suite could not run.
func (b *Beside) Stop() {
	b.cancel()
	<-b.done
}

// Wait waits for the exploration's end, saying on w when it goes on after
// the suite, then says what it did and found (Report.Print), and returns
// its findings as results. An exploration that failed of itself is said
// in a line and gives none: it is no finding, and the suite's verdict
// stands.
func (b *Beside) Wait(w io.Writer) []reports.ScenarioResult {
	select {
	case <-b.done:
	default:
		if left := time.Until(b.until).Round(time.Second); left > 0 && !b.WithSuite {
			fmt.Fprintf(w, "exploration: the suite is done; exploring for %s more (--explore %s)\n", left, b.Explorer.Budget)
		}
		<-b.done
	}
	b.cancel()
	if b.err != nil {
		fmt.Fprintf(w, "exploration: stopped, judging nothing: %v\n", b.err)
		return nil
	}
	b.report.Print(w, b.Explorer)
	return b.report.Results()
}

// Print says what an exploration by e did, then each finding with the
// line that sends its request again and the row that would pin it.
func (r *Report) Print(w io.Writer, e *Explorer) {
	found := "no finding"
	switch n := len(r.Findings); {
	case n == 1:
		found = "1 finding"
	case n > 1:
		found = fmt.Sprintf("%d findings", n)
	}
	unjudged := ""
	if r.Unjudged > 0 {
		unjudged = fmt.Sprintf(" (and %d that got no answer of the target's own, not judged)", r.Unjudged)
	}
	fmt.Fprintf(w, "exploration: %d requests judged in %s%s, seed %d (replay: --seed %d): %s\n",
		r.Requests, r.Elapsed.Round(100*time.Millisecond), unjudged, r.Seed, r.Seed, found)
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  @%s %s\n    breaks %s\n", f.Property.ID, f.Property.Name, f.Cite())
		for _, line := range strings.Split(f.Error(r.Seed), "\n") {
			fmt.Fprintln(w, "    "+line)
		}
	}
	if len(r.Findings) > 0 && e.Line.BaseURL != e.Target.URL {
		fmt.Fprintf(w, "  (the lines name %s, where 'firmakit serve' listens: this run's own reference is gone)\n", e.Line.BaseURL)
	}
}
