package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/firmakit/firmakit/explore"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/steps"
)

// DefaultExplore is how long certify explores against the bundled
// reference when --explore is not given: beside the suite, and never
// longer than the suite runs, so that the run takes no longer.
const DefaultExplore = 5 * time.Second

// ExploreRateBesideTheSuite caps the requests per second of an
// exploration while the suite runs: it leaves the suite's scenarios, some
// of which time notifications to the hundred milliseconds, the CPU they
// need. Once the suite is done, --explore sends as fast as the target and
// its pacer let.
const ExploreRateBesideTheSuite = 200

// exploreUsage is the help of --explore.
var exploreUsage = fmt.Sprintf("also send generated requests beside the suite for this long, each judged by what holds for every request "+
	"(no 5xx, the error body's shape, the order of the checks, a valid request accepted); a failure is shrunk to its smallest request, "+
	"printed as a 'firmakit sign --curl' line, and fails the run; --seed replays the same requests. 0: none. "+
	"Unless given: %s against the bundled reference, ending with the suite at the latest; none against a --target", DefaultExplore)

// planExploration makes the exploration the flags ask for against t
// (nil: none): --explore when given, else DefaultExplore against the
// bundled reference, stopped when the suite ends. Its seed is --seed, or
// a new one when that is -1.
func (f *certifyFlags) planExploration(ctx context.Context, t *steps.Target, bundled bool) *explore.Explorer {
	_, given := cliflag.GivenIn(ctx)["explore"]
	budget := f.explore
	if !given && !bundled {
		budget = 0
	}
	if budget <= 0 {
		return nil
	}
	seed := f.seed
	if seed < 0 {
		seed = rand.Int64N(1<<31-1) + 1
	}
	e := &explore.Explorer{Target: t, Seed: seed, Budget: budget, BodyDir: f.reportDir,
		Line: explore.Line{BaseURL: t.URL, APIVersion: t.APIVersion}}
	if p := f.profileName(); p != "" {
		e.Line.Profile = p
	}
	if bundled {
		// The run's own reference is gone when the run ends: the lines
		// name 'firmakit serve' at its default address instead.
		e.Line.BaseURL = "http://" + reference.DefaultAddr
	}
	e.Rate = ExploreRateBesideTheSuite
	if !given {
		// Inside the suite's time: a finding shrinks within the budget too.
		e.ShrinkBudget = budget
	}
	return e
}
