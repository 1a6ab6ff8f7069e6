package reference_test

import (
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/require"
)

func TestAuthRefusesAMissingLookupAtConstruction(t *testing.T) {
	require.PanicsWithError(t, "reference: AuthConfig.Lookup is required: Auth cannot find credentials without it", func() {
		reference.Auth(reference.AuthConfig{})
	})
	require.NotPanics(t, func() {
		reference.Auth(reference.AuthConfig{Lookup: func(string) (firmakit.Credential, bool) { return firmakit.Credential{}, false }})
	})
}
