package firmakit_test

import (
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
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
