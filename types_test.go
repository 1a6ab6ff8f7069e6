package firmakit_test

import (
	"encoding/json"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewCreateRequest(t *testing.T) {
	data := map[string]string{"k": "v"}
	tmpl := firmakit.Template{Name: "t", Signers: []string{"signer_1", "signer_2", "signer_3", "signer_4", "signer_5"}}
	req := firmakit.NewCreateRequest(tmpl, data, "title")
	data["k"] = "changed"
	assert.Equal(t, map[string]string{"k": "v"}, req.Data, "the data is copied, not shared")
	assert.Len(t, req.Signers, 5)
	assert.Equal(t, req.Signers[0].Name, req.Signers[4].Name, "names go round")
	assert.Equal(t, "firmante5@example.com", req.Signers[4].Email)
	assert.Empty(t, req.Routing, "the service's default routing")
}

// A received request's authentication is written as "check" and, until
// VerdictSunset, as "verdict" too; one written by an earlier version,
// with "verdict" only, reads the same.
func TestReceivedRequestCheckAndFormerName(t *testing.T) {
	r := firmakit.ReceivedRequest{ID: 7, Method: "POST", Status: 401, Auth: firmakit.AuthRefused, Message: "Invalid signature"}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "refused", m["check"])
	require.Equal(t, "refused", m["verdict"], "the former name until "+firmakit.VerdictSunset)
	var back firmakit.ReceivedRequest
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, r, back)
	var old firmakit.ReceivedRequest
	require.NoError(t, json.Unmarshal([]byte(`{"id":3,"verdict":"accepted","status":201}`), &old))
	require.Equal(t, firmakit.AuthAccepted, old.Auth)
	require.Equal(t, 201, old.Status)
	require.Error(t, json.Unmarshal([]byte(`{"id":"x"}`), &old))
}
