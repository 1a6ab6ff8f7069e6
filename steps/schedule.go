package steps

import (
	"reflect"
	"regexp"
	"strconv"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/steps/engine"
)

// A run's scenarios mostly wait: for a notification, for the quiet window
// after it, for the profile's retries. The longest waits on the delivery
// schedule (a first answer held past the delivery timeout waits the
// timeout, then the first retry delay), so a run lasts at least that long.
// It starts those scenarios first and runs the others in their shadow:
// godog is handed every selected scenario at once, and a gate of
// Concurrency slots (engine.Gate) lets them start longest wait first, the
// rest in godog's order. This file says how long each scenario waits.

// stepWait is a sentence that makes its scenario wait on the profile's
// delivery schedule, and how long that adds given its parameters.
type stepWait struct {
	expr *regexp.Regexp
	wait func(args []string) time.Duration
}

// scheduleWaits are the sentences, both languages, that hold a contract's
// first deliveries back (answered 5xx or 4xx, hung up on, answered only
// after the delivery timeout), each with what it adds to its scenario's
// wait under p: the retry delays it waits out, and the delivery timeout.
// The waits every notification scenario shares (the demo delay, the quiet
// window) are left out: they do not tell scenarios apart.
func scheduleWaits(p *firmakit.Profile) []stepWait {
	retries := p.Webhook.Retries
	first := func() time.Duration {
		if len(retries) == 0 {
			return 0
		}
		return retries[0]
	}
	var s Steps
	byMethod := map[uintptr]func([]string) time.Duration{
		funcOf(s.theWebhookAnswersToTheFirstNotification): func([]string) time.Duration { return first() },
		funcOf(s.theWebhookHangsUpOnTheFirstNotification): func([]string) time.Duration { return first() },
		funcOf(s.theWebhookAnswersOnlyAfterTheDeliveryTimeout): func([]string) time.Duration {
			return p.Webhook.Timeout + first()
		},
		funcOf(s.theWebhookAnswersToTheFirstNotifications): func(args []string) time.Duration {
			n, _ := strconv.Atoi(args[len(args)-1])
			var d time.Duration
			for _, r := range retries[:min(max(n, 0), len(retries))] {
				d += r
			}
			return d
		},
	}
	byMethod[funcOf(s.theWebhookAnswersToEveryNotification)] = func([]string) time.Duration {
		// Every retry delay, then the longest again: the watch for a
		// delivery past the schedule.
		var d, longest time.Duration
		for _, r := range retries {
			d, longest = d+r, max(longest, r)
		}
		if d+longest > maxScheduleWatch {
			return 0 // not run
		}
		return d + longest
	}
	r := &waitRecorder{byMethod: byMethod}
	s.bindSentences(r)
	return r.list
}

func funcOf(fn any) uintptr { return reflect.ValueOf(fn).Pointer() }

// waitRecorder is a registrar that keeps the sentences of byMethod.
type waitRecorder struct {
	byMethod map[uintptr]func([]string) time.Duration
	list     []stepWait
}

func (r *waitRecorder) Step(expr, fn any) {
	if w, ok := r.byMethod[funcOf(fn)]; ok {
		r.list = append(r.list, stepWait{expr: expr.(*regexp.Regexp), wait: w})
	}
}

// scheduleWait is how long a scenario's steps make it wait on the
// delivery schedule (see scheduleWaits).
func scheduleWait(waits []stepWait, sc *godog.Scenario) time.Duration {
	var d time.Duration
	for _, st := range sc.Steps {
		for _, w := range waits {
			if m := w.expr.FindStringSubmatch(st.Text); m != nil {
				d += w.wait(m[1:])
				break
			}
		}
	}
	return d
}

// Floor is how long a run of the scenarios lang and tags select lasts at
// least against a target whose notifications come demoDelay after the
// 201: the down windows of the scenarios that take the receiver down,
// which go first, one at a time (down.go); then the longest wait on the
// delivery schedule of a scenario that has one (see scheduleWaits),
// after the demo delay, and the quiet window that follows the last
// delivery. Zero when no scenario waits on the schedule. make
// bench-suite prints it beside certify's wall time.
func Floor(p *firmakit.Profile, lang, tags string, demoDelay time.Duration) (time.Duration, error) {
	selected, err := engine.Pickles(features.ServiceSet, lang, tags)
	if err != nil {
		return 0, err
	}
	waits, windows := scheduleWaits(p), downWindows()
	var longest, down time.Duration
	for _, s := range selected {
		longest = max(longest, scheduleWait(waits, s))
		down += scheduleWait(windows, s)
	}
	if longest == 0 {
		return down, nil
	}
	return down + demoDelay + longest + quietAfter, nil
}
