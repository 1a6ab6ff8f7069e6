package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFeaturesCommand: check covers both feature sets, and list prints
// either set in either language.
func TestFeaturesCommand(t *testing.T) {
	code, out, errOut := run(t, nil, "features", "check")
	assert.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "in the service and the webhook feature sets")

	code, out, _ = run(t, nil, "features", "list", "--set", "webhook", "--lang", "es")
	assert.Equal(t, ExitOK, code)
	assert.True(t, strings.HasPrefix(out, "# webhook/es/notificaciones.feature\n# language: es\n"), out[:80])
	assert.Contains(t, out, "# webhook/es/rechazos.feature\n")
	assert.NotContains(t, out, "verificacion.feature")

	code, out, _ = run(t, nil, "features", "list")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "# en/verification.feature\n")
	assert.NotContains(t, out, "webhook/")

	code, _, errOut = run(t, nil, "features", "list", "--set", "payin")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `--set "payin": want service or webhook`)
}
