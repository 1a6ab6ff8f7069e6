// Package features holds the conformance suite's Gherkin features, in
// Spanish (es/) and English (en/), the interface document they trace to,
// and the traceability of its rules to scenarios.
package features

import "embed"

// FS holds es/*.feature, en/*.feature, the interface document, the
// bundled profile (defaults.md) and the
// requirements map, embedded so that the binary needs no checkout.
//
//go:embed es/*.feature en/*.feature service-interface.md defaults.md requirements.yaml
var FS embed.FS
