// The power test runs the suite about a hundred times; under the race
// detector that takes minutes, so `make test` runs it on its own without
// -race (the same steps run under -race in TestConformanceSuite).

//go:build !race

package steps_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryFaultIsCaught measures the suite's power: the suite (in
// English, the Spanish scenarios being the same; the feature of the
// fault's area, a notification fault's in widening parts: faultAreas)
// runs against the reference server with each named fault switched on,
// and must fail every time, with a failure (not merely an inconclusive
// or incomplete run). Against no fault the whole suite must pass:
// TestConformanceSuite.
func TestEveryFaultIsCaught(t *testing.T) {
	t.Parallel()
	faults := refaults.List()
	require.GreaterOrEqual(t, len(faults), 40)
	tags := areaTags(t)
	var mu sync.Mutex
	outcomes := map[string]faultOutcome{}
	caughtBy := map[string][]string{}
	// The runs mostly wait, so they go on side by side (suiteRuns); each
	// subtest below then judges its own.
	var wg sync.WaitGroup
	for _, f := range faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start, o := time.Now(), faultOutcome{run: &runTime{}}
			// Each selection of faultAreas in turn, until one catches it.
			for _, area := range faultAreas(f) {
				o = faultRun(f, tags[area], o.run)
				o.run.took, o.area = time.Since(start), area
				if o.err != nil || o.verdict == reports.Failed {
					break
				}
			}
			mu.Lock()
			outcomes[f.Name], caughtBy[f.Name] = o, o.by
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, f := range faults {
		t.Run(f.Name, func(t *testing.T) {
			o := outcomes[f.Name]
			require.NoError(t, o.err)
			for _, area := range faultAreas(f) {
				require.NotEmpty(t, tags[area], "fault %s has area %q", f.Name, f.Area)
			}
			assert.Equal(t, reports.Failed, o.verdict, "fault %s (%s: %s) was not caught:\n%s", f.Name, f.Rule, f.Description, o.detail)
			assert.Empty(t, o.uncited, "every failure cites the sentence of the documents it enforces")
		})
	}
	var lines []string
	for name, by := range caughtBy {
		lines = append(lines, fmt.Sprintf("%-45s %-15s %-21s %d failed: %s", name, outcomes[name].run, outcomes[name].area, len(by), strings.Join(uniqueSorted(by), " ")))
	}
	sort.Strings(lines)
	t.Logf("%d faults, each caught by:\n%s", len(faults), strings.Join(lines, "\n"))
	caught := 0
	for _, o := range outcomes {
		if o.verdict == reports.Failed {
			caught++
		}
	}
	t.Logf("service suite: faults caught %d of %d", caught, len(faults))
	ops := map[string]faultOps{}
	for name, o := range outcomes {
		ops[name] = faultOps{o.ops, o.byListed}
	}
	t.Logf("faults caught per operator class (only by its rows: no listed row failed):\n%s", perClass(ops))
}

// faultOps is what operator rows caught a fault, and whether listed rows
// did too.
type faultOps struct {
	ops    []string
	listed bool
}

// perClass counts, per operator class, the faults its rows caught, and
// those only its rows caught.
func perClass(m map[string]faultOps) string {
	all, only := map[string]int{}, map[string]int{}
	for _, f := range m {
		classes := map[string]bool{}
		for _, op := range f.ops {
			classes[steps.OperatorClass(op)] = true
		}
		for c := range classes {
			all[c]++
			if !f.listed && len(classes) == 1 {
				only[c]++
			}
		}
	}
	var lines []string
	for c, n := range all {
		lines = append(lines, fmt.Sprintf("  %-12s %3d caught, %3d only by its rows", c, n, only[c]))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func uniqueSorted(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// faultOutcome is what a run of the suite against a fault gave.
type faultOutcome struct {
	verdict, detail string
	area            string // the selection of areaTags that ran
	by              []string
	ops             []string // operators whose rows failed
	byListed        bool     // a listed row (not an operator's) failed
	uncited         []string // failures that cite no sentence of the documents
	err             error
	run             *runTime
}

// faultRun runs the English scenarios tags selects against the reference
// with the fault f, in a slot of suiteRuns; run counts its reruns.
func faultRun(f refaults.Fault, tags string, run *runTime) (o faultOutcome) {
	defer suiteRuns.take(f.Area == refaults.AreaNotification)()
	o.run = run
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
	if o.err = faultyPair(rv, ref, f.Name); o.err != nil {
		return o
	}
	defer rv.Close()
	if o.err = ref.Config.SetWebhooks(rv.HookURL); o.err != nil {
		return o
	}
	if o.err = ref.Open(); o.err != nil {
		return o
	}
	defer ref.Close()
	s := &steps.Suite{Target: steps.DemoTarget(ref.URL(), rv, true), RunOptions: steps.RunOptions{Lang: "en", Tags: tags, Randomize: -1, Concurrency: 32, Progress: &run.again}}
	if _, o.err = s.Run(); o.err != nil {
		return o
	}
	o.verdict, o.detail = s.Verdict(), unpassed(s)
	for _, r := range s.Results() {
		if r.Status != reports.Failed {
			continue
		}
		o.by = append(o.by, r.Requirement)
		if op := steps.OperatorOf(r.Example); op != "" {
			o.ops = append(o.ops, op)
		} else if r.Requirement != steps.LedgerRequirement {
			o.byListed = true
		}
		if _, ok := features.ItemText(r.Breaks); !ok {
			o.uncited = append(o.uncited, r.Requirement+": "+r.Error)
		}
	}
	return o
}

// faultyPair gives ref the named fault and opens rv.
func faultyPair(rv *receiver.Receiver, ref *reference.Server, fault string) (err error) {
	if ref.Deviations, err = refaults.New([]string{fault}); err != nil {
		return err
	}
	return rv.Open()
}
