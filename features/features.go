package features

import "embed"

// FS holds both feature sets (es/, en/ and webhook/es/, webhook/en/), the
// interface document, the bundled profile (defaults.md) and each set's
// requirements map, embedded so that the binary needs no checkout.
//
//go:embed es/*.feature en/*.feature service-interface.md defaults.md requirements.yaml
//go:embed webhook/es/*.feature webhook/en/*.feature webhook-requirements.yaml rules.yaml
var FS embed.FS
