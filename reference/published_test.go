package reference_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server serves its documents at their paths, made from its public
// URL once it listens; a document that cannot be made fails Open.
func TestDocumentsAreServed(t *testing.T) {
	var gotURL string
	s := &reference.Server{Addr: "127.0.0.1:0", Documents: func(publicURL string) ([]reference.Document, error) {
		gotURL = publicURL
		return []reference.Document{{Path: "/openapi.json", ContentType: "application/json", Body: []byte(`{"servers":[{"url":"` + publicURL + `"}]}`)}}, nil
	}}
	require.NoError(t, s.Open())
	defer s.Close()
	assert.Equal(t, s.URL(), gotURL)
	resp, err := http.Get(s.URL() + "/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"servers":[{"url":"`+s.URL()+`"}]}`, string(b))

	bad := &reference.Server{Addr: "127.0.0.1:0", Documents: func(string) ([]reference.Document, error) {
		return nil, errors.New("no document")
	}}
	assert.EqualError(t, bad.Open(), "reference server: no document")
}

// Each demo state that carries a reason has one; the others none.
func TestDemoReason(t *testing.T) {
	for _, st := range firmakit.States {
		assert.Equal(t, st.HasReason(), reference.DemoReason(st) != "", st)
	}
}
