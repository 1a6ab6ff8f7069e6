package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// 'features sentences' prints every step of both sets in both languages,
// with what its parameters take; --json gives the same for tools.
func TestFeaturesSentences(t *testing.T) {
	code, out, _ := run(t, nil, "features", "sentences")
	require.Equal(t, ExitOK, code)
	assert.Contains(t, out, "# service set")
	assert.Contains(t, out, "# webhook set")
	assert.Contains(t, out, "en: the response is (\\d+) \"([^\"]*)\"\nes: la respuesta es (\\d+) \"([^\"]*)\"\n    parameter 1: a whole number\n    parameter 2: any text\n")
	assert.Equal(t, 151, strings.Count(out, "\nen: ")+strings.Count(out[:4], "en: "))
	code, out, _ = run(t, nil, "features", "sentences", "--set", "webhook", "--json")
	require.Equal(t, ExitOK, code)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Len(t, list, 35)
	code, _, errOut := run(t, nil, "features", "sentences", "--set", "payout")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `--set "payout": want service, webhook or all`)
}
