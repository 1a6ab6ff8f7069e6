package explore

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The glue to rapid's engine, which is made for go test: it reads its
// settings (checks, seed, shrink time, fail files) from process-wide flags
// and asks testing.Short. One exploration at a time sets them. This file
// is the one outside the tests that imports testing: rapid imports it
// anyway, and a program must call testing.Init before rapid can run.

// engineMu keeps two explorations from setting rapid's flags at once.
var engineMu sync.Mutex

// engineReady makes rapid's engine usable in a program: it reads
// testing.Short, which panics until the testing flags are registered and
// the command line parsed. In a test binary both are done already.
var engineReady = sync.OnceFunc(func() {
	if !flag.Parsed() {
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	}
})

// engine is the settings of one exploration's runs of rapid.
type engine struct {
	restore []func()
}

// newEngine sets rapid's settings for an exploration: no fail files
// written (the seed replays a finding), shrinking bounded by shrink.
// Close puts them back.
func newEngine(shrink time.Duration) *engine {
	engineReady()
	e := &engine{}
	e.set("rapid.nofailfile", "true")
	e.set("rapid.shrinktime", shrink.String())
	e.set("rapid.v", "false")
	e.set("rapid.log", "false")
	checks := batchChecks
	if testing.Short() {
		checks *= 5 // rapid runs a fifth of them under -short
	}
	e.set("rapid.checks", strconv.Itoa(checks))
	e.set("rapid.seed", "1")
	return e
}

func (e *engine) set(name, value string) {
	f := flag.Lookup(name)
	if f == nil {
		return
	}
	old := f.Value.String()
	_ = f.Value.Set(value)
	e.restore = append(e.restore, func() { _ = f.Value.Set(old) })
}

func (e *engine) close() {
	for i := len(e.restore) - 1; i >= 0; i-- {
		e.restore[i]()
	}
}

// batchChecks is how many requests one run of rapid draws at most: the
// exploration's budget is checked between them, and each run has a seed of
// its own.
const batchChecks = 25

// check runs prop for up to batchChecks requests from seed, shrinking
// the first failure. It returns what rapid reported, with in panicked a
// panic of the shrinker that could not reproduce a failure (a target
// that answers the same request differently).
func (e *engine) check(seed uint64, prop func(*rapid.T)) (s *sink) {
	// rapid takes 0 for "a random seed".
	_ = flag.Lookup("rapid.seed").Value.Set(strconv.FormatUint(max(seed, 1), 10))
	s = &sink{}
	defer func() {
		if p := recover(); p != nil {
			s.panicked = p
		}
	}()
	rapid.Check(s, prop)
	return s
}

// sink is rapid's testing.TB in a program: it keeps what rapid reports,
// for an exploration to tell its own findings from a fault of its own.
type sink struct {
	failed   bool
	errors   []string
	panicked any
}

func (s *sink) Helper()                      {}
func (s *sink) Name() string                 { return "firmakit-explore" }
func (s *sink) Logf(string, ...any)          {}
func (s *sink) Log(...any)                   {}
func (s *sink) Skipf(string, ...any)         {}
func (s *sink) Skip(...any)                  {}
func (s *sink) SkipNow()                     {}
func (s *sink) Errorf(f string, args ...any) { s.fail(f, args...) }
func (s *sink) Error(args ...any)            { s.fail("%s", fmt.Sprint(args...)) }
func (s *sink) Fatalf(f string, args ...any) { s.fail(f, args...) }
func (s *sink) Fatal(args ...any)            { s.fail("%s", fmt.Sprint(args...)) }
func (s *sink) FailNow()                     { s.failed = true }
func (s *sink) Fail()                        { s.failed = true }
func (s *sink) Failed() bool                 { return s.failed }

// crashed is what rapid reported of a panic of the property itself (a
// fault of the exploration, not a finding), "" for none.
func (s *sink) crashed() string {
	for _, e := range s.errors {
		if strings.HasPrefix(e, "[rapid] panic") {
			first, _, _ := strings.Cut(e, "\n")
			return first
		}
	}
	return ""
}

func (s *sink) fail(format string, a ...any) {
	s.failed = true
	s.errors = append(s.errors, fmt.Sprintf(format, a...))
}
