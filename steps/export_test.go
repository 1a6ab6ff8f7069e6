package steps

import (
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/steps/engine"
)

// KnownTags returns every tag of the embedded features, both languages,
// with @, sorted: requirement, kind (@spec, @profile, @reference) and
// need tags, on scenarios, outlines' Examples or features.
func KnownTags() ([]string, error) {
	return engine.KnownTags(features.ServiceSet)
}
