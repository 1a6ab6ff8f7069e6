// Package features holds the conformance suite's Gherkin features, in
// Spanish (es/) and English (en/), the interface document they trace to,
// and the traceability of its rules to scenarios.
package features

import "embed"

// FS holds es/*.feature, en/*.feature, the interface document and the
// requirements map, embedded so that the binary needs no checkout.
//
//go:embed es/*.feature en/*.feature service-interface.md requirements.yaml
var FS embed.FS
