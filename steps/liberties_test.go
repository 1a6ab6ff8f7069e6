// The precision test runs the suite about thirty times; under the race
// detector that takes minutes, so `make test` runs it on its own without
// -race, beside the power test (the same steps run under -race in
// TestConformanceSuite and TestAnIndependentServicePasses).

//go:build !race

package steps_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/liberties"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// libertyTags selects, for a liberty, the scenarios of its area it could
// trip, leaving out @reference as a run against a target does: a liberty
// departs from the reference's own choices, which only @reference checks.
// Only a liberty of the delivery schedule waits out the whole of it
// (exhausted): the others show in the scenarios of their area.
func libertyTags(t *testing.T, l liberties.Liberty) string {
	byArea := areaTags(t)
	if l.Class == liberties.ClassSchedule && l.Area == liberties.AreaNotification {
		return byArea[areaDelivery] + " && ~@reference"
	}
	list := map[string]string{liberties.AreaAuth: byArea[faults.AreaAuth], liberties.AreaEnvelope: byArea[faults.AreaEnvelope],
		liberties.AreaNotification: byArea[faults.AreaNotification]}[l.Area]
	if list == "" {
		return "~@reference && ~" + exhausted
	}
	return list + " && ~@reference"
}

// TestEveryLibertyIsPassed measures the suite's precision, the twin of
// its power: the suite (in English, the Spanish scenarios being the same;
// the scenarios of the liberty's area, every one for a liberty that shows
// everywhere) runs against the reference server with each named liberty
// taken, a variation the documents allow, and must pass every time, or
// pass with warnings. A failure names a check that fails a correct
// service: a bug in the check, not in the liberty. On a loaded machine a
// run may leave a few timing rows inconclusive after their reruns alone,
// as the whole-suite tests allow (lateRows): that is no verdict against
// the liberty, and anything else inconclusive still fails.
func TestEveryLibertyIsPassed(t *testing.T) {
	t.Parallel()
	list := liberties.List()
	require.GreaterOrEqual(t, len(list), 20)
	type outcome struct {
		verdict, detail string
		warned          []string
		err             error
		run             *runTime
		suite           *steps.Suite
	}
	var mu sync.Mutex
	outcomes := map[string]outcome{}
	var wg sync.WaitGroup
	for _, l := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer suiteRuns.take(l.Area != liberties.AreaAuth && l.Area != liberties.AreaEnvelope)()
			start, o := time.Now(), outcome{run: &runTime{}}
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
			ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
			if ref.Deviations, o.err = liberties.New([]string{l.Name}); o.err == nil {
				if o.err = rv.Open(); o.err == nil {
					defer rv.Close()
					if o.err = ref.Config.SetWebhooks(rv.HookURL); o.err == nil {
						if o.err = ref.Open(); o.err == nil {
							defer ref.Close()
							s := &steps.Suite{Target: steps.DemoTarget(ref.URL(), rv, true), RunOptions: steps.RunOptions{Lang: "en", Tags: libertyTags(t, l), Randomize: -1, Concurrency: 32, Progress: &o.run.again}}
							_, o.err = s.Run()
							o.run.took = time.Since(start)
							if o.err == nil {
								o.verdict, o.detail, o.suite = s.Verdict(), unpassed(s), s
								for _, r := range s.Results() {
									if len(r.Warnings) > 0 {
										o.warned = append(o.warned, r.Requirement)
									}
								}
							}
						}
					}
				}
			}
			mu.Lock()
			outcomes[l.Name] = o
			mu.Unlock()
		}()
	}
	wg.Wait()
	var lines []string
	for _, l := range list {
		o := outcomes[l.Name]
		t.Run(l.Name, func(t *testing.T) {
			require.NoError(t, o.err)
			if o.verdict == reports.Inconclusive {
				assert.Zero(t, o.suite.Count(reports.Failed), "liberty %s was failed:\n%s", l.Name, o.detail)
				if late := lateRows(t, o.suite); !t.Failed() {
					t.Logf("liberty %s: %d row(s) left inconclusive by lateness, none failed", l.Name, late)
					return
				}
			}
			assert.Contains(t, []string{reports.Passed, reports.PassedWithWarnings}, o.verdict,
				"liberty %s (%s: %s) was failed:\n%s", l.Name, l.Why, l.Description, o.detail)
		})
		lines = append(lines, fmt.Sprintf("%-32s %-15s %s; warned by: %s", l.Name, o.run, o.verdict, strings.Join(uniqueSorted(o.warned), " ")))
	}
	sort.Strings(lines)
	t.Logf("%d liberties, each passed:\n%s", len(list), strings.Join(lines, "\n"))
	passed := 0
	for _, o := range outcomes {
		if o.verdict == reports.Passed || o.verdict == reports.PassedWithWarnings || (o.suite != nil && o.verdict == reports.Inconclusive && o.suite.Count(reports.Failed) == 0) {
			passed++
		}
	}
	t.Logf("service suite: liberties passed %d of %d", passed, len(list))
}
