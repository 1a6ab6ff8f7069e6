package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// runTests reads the output of `go test -json` (files, or standard input)
// and prints where its time went: the slowest tests and every package's
// wall time. make test-times runs it on the stages of make test.
func runTests(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("tests", flag.ExitOnError)
	n := fs.Int("n", 10, "how many of the slowest tests to list")
	_ = fs.Parse(args)
	var runs []testRun
	if fs.NArg() == 0 {
		r, err := readTestRun("stdin", os.Stdin)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		r, err := readTestRun(strings.TrimSuffix(filepath.Base(name), ".json"), f)
		f.Close()
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	fmt.Fprint(out, summarizeTests(runs, *n))
	return nil
}

// testEvent is one line of `go test -json` (cmd/test2json).
type testEvent struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// testTime is how long one test or package took, and how it ended.
type testTime struct {
	Run, Package, Test, Action string
	Elapsed                    time.Duration
}

// testRun is what one `go test -json` run took: its top-level tests and
// its packages, and its wall time from the first event to the last.
type testRun struct {
	Name     string
	Tests    []testTime
	Packages []testTime
	Wall     time.Duration
}

// readTestRun reads one `go test -json` stream. Lines that are not JSON
// (a build failure's text) are skipped. A test's time is the longer of
// its Elapsed and the wall time from its start (or, for a parallel test,
// from when it went on) to its end: go test counts in Elapsed neither the
// parallel subtests a test waits for nor anything after its function
// returned.
func readTestRun(name string, r io.Reader) (testRun, error) {
	run := testRun{Name: name}
	var first, last time.Time
	began := map[string]time.Time{} // package and test → run, or cont
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if !e.Time.IsZero() {
			if first.IsZero() || e.Time.Before(first) {
				first = e.Time
			}
			if e.Time.After(last) {
				last = e.Time
			}
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "run", "cont":
			began[key] = e.Time
			continue
		case "pass", "fail", "skip":
		default:
			continue
		}
		t := testTime{Run: name, Package: e.Package, Test: e.Test, Action: e.Action,
			Elapsed: time.Duration(e.Elapsed * float64(time.Second))}
		if b, ok := began[key]; ok && e.Test != "" && !e.Time.IsZero() {
			t.Elapsed = max(t.Elapsed, e.Time.Sub(b))
		}
		switch {
		case e.Test == "":
			run.Packages = append(run.Packages, t)
		case !strings.Contains(e.Test, "/"):
			run.Tests = append(run.Tests, t)
		}
	}
	if err := sc.Err(); err != nil {
		return run, fmt.Errorf("%s: %w", name, err)
	}
	run.Wall = last.Sub(first)
	return run, nil
}

// summarizeTests lists the n slowest tests of all runs, then each run's
// packages from the slowest, and each run's wall time.
func summarizeTests(runs []testRun, n int) string {
	var b strings.Builder
	var tests []testTime
	for _, r := range runs {
		tests = append(tests, r.Tests...)
	}
	byTime := func(s []testTime) {
		sort.SliceStable(s, func(i, j int) bool { return s[i].Elapsed > s[j].Elapsed })
	}
	byTime(tests)
	fmt.Fprintf(&b, "the %d slowest tests:\n", min(n, len(tests)))
	for _, t := range tests[:min(n, len(tests))] {
		fmt.Fprintf(&b, "  %7.1f s  %-6s %-14s %s%s\n", t.Elapsed.Seconds(), t.Run, shortPackage(t.Package), t.Test, outcome(t.Action))
	}
	for _, r := range runs {
		pkgs := append([]testTime(nil), r.Packages...)
		byTime(pkgs)
		fmt.Fprintf(&b, "%s: %d packages, %d tests, %.1f s wall\n", r.Name, len(pkgs), len(r.Tests), r.Wall.Seconds())
		for _, p := range pkgs {
			if p.Action == "skip" {
				continue // no test files
			}
			fmt.Fprintf(&b, "  %7.1f s  %s%s\n", p.Elapsed.Seconds(), shortPackage(p.Package), outcome(p.Action))
		}
	}
	return b.String()
}

// shortPackage drops the module's path from a package's.
func shortPackage(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

const module = "github.com/firmakit/firmakit"

func outcome(action string) string {
	if action == "pass" {
		return ""
	}
	return "  (" + action + ")"
}
