package steps

import (
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// What moved to package steps/engine, the run engine both suites run on,
// named here as before for the Go API's users. New code uses engine's
// names.

// A LagMonitor measures how late this process runs.
//
// Deprecated: use engine.LagMonitor.
type LagMonitor = engine.LagMonitor

// StartLagMonitor starts measuring how late this process runs.
//
// Deprecated: use engine.StartLagMonitor.
func StartLagMonitor() *LagMonitor { return engine.StartLagMonitor() }

// Registrar registers a step sentence.
//
// Deprecated: use engine.Registrar.
type Registrar = engine.Registrar

// registrar is Registrar under the name the service set's files bind
// their sentences with.
type registrar = engine.Registrar

// Sentence is one step of the suites, in both languages.
//
// Deprecated: use engine.Sentence.
type Sentence = engine.Sentence

// RunOptions are what a run of either suite is asked.
//
// Deprecated: use engine.RunOptions.
type RunOptions = engine.RunOptions

// Progress is how far a run has got.
//
// Deprecated: use engine.Progress.
type Progress = engine.Progress

// A Pass is what both suites do around godog.
//
// Deprecated: use engine.Pass.
type Pass = engine.Pass

// An Initializer is a suite's part in a Pass.
//
// Deprecated: use engine.Initializer.
type Initializer = engine.Initializer

// Selection is the scenarios of a feature set a run selects.
//
// Deprecated: use engine.Selection.
type Selection = engine.Selection

// SelectionError says why a tag expression selects nothing to run.
//
// Deprecated: use engine.SelectionError.
type SelectionError = engine.SelectionError

// The selection's errors (see SelectionError).
//
// Deprecated: use engine's.
var (
	ErrUnknownTag      = engine.ErrUnknownTag
	ErrNothingSelected = engine.ErrNothingSelected
	ErrMalformedTags   = engine.ErrMalformedTags
)

// A Pacer paces a run's requests.
//
// Deprecated: use engine.Pacer.
type Pacer = engine.Pacer

// NetworkStats is what a run met on the network.
//
// Deprecated: use engine.NetworkStats.
type NetworkStats = engine.NetworkStats

// Network is what a run's HTTP client and pacing are built from.
//
// Deprecated: use engine.Network.
type Network = engine.Network

// The pacer's defaults.
//
// Deprecated: use engine's.
const (
	DefaultMaxWait   = engine.DefaultMaxWait
	DefaultStartRate = engine.DefaultStartRate
)

// NewPacer returns a pacer.
//
// Deprecated: use engine.NewPacer.
func NewPacer(start, ceiling float64) *Pacer { return engine.NewPacer(start, ceiling) }

// Paths returns the feature folders of a language selection.
//
// Deprecated: use engine.Paths.
func Paths(lang string) ([]string, error) { return engine.Paths(lang) }

// SelectedIn is Selected for another feature set than the service's.
//
// Deprecated: use engine.Planned.
func SelectedIn(set *features.Set, lang, tags string) ([]reports.ScenarioResult, error) {
	return engine.Planned(set, lang, tags)
}

// NotJudgedInTime is the error of an inconclusive result that the run's
// Deadline cut short or kept from starting.
//
// Deprecated: use engine.NotJudgedInTime.
const NotJudgedInTime = engine.NotJudgedInTime

// ListSentences lists the sentences that bind registers.
//
// Deprecated: use engine.ListSentences.
func ListSentences(set string, bind func(Registrar)) ([]Sentence, error) {
	return engine.ListSentences(set, bind)
}
