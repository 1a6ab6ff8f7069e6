package jsonform_test

import (
	"encoding/json"
	"testing"

	"github.com/firmakit/firmakit/internal/jsonform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscapeNonASCII(t *testing.T) {
	in := []byte(`{"título":"Ñuñez 😀","a":1}`)
	out := jsonform.EscapeNonASCII(in)
	assert.Equal(t, `{"t\u00edtulo":"\u00d1u\u00f1ez \ud83d\ude00","a":1}`, string(out))
	var a, b any
	require.NoError(t, json.Unmarshal(in, &a))
	require.NoError(t, json.Unmarshal(out, &b))
	assert.Equal(t, a, b, "the same JSON value")
}

func TestReversedKeys(t *testing.T) {
	var v any
	require.NoError(t, json.Unmarshal([]byte(`{"a":1,"c":[{"x":"<y>","b":null}],"b":true}`), &v))
	out, err := jsonform.ReversedKeys(v)
	require.NoError(t, err)
	assert.Equal(t, `{"c": [{"x": "\u003cy\u003e", "b": null}], "b": true, "a": 1}`, string(out))
	var back any
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, v, back, "the same JSON value")
}
