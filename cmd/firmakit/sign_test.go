package main

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each flag that sends a request as a faulty client would gets the answer
// of the check it breaks (defaults.md A), through the printed curl line.
func TestSignSendsAFaultyClientsRequest(t *testing.T) {
	url, _ := serveInProcess(t, nil, "--addr", "127.0.0.1:0")
	_, err := exec.LookPath("curl")
	require.NoError(t, err, "curl is needed to run the printed line")
	const (
		ok      = `{"status_code":200,"message":"Authenticated"}`
		missing = `{"status_code":400,"message":"Missing headers"}`
		expired = `{"status_code":401,"message":"Request expired"}`
		invalid = `{"status_code":401,"message":"Invalid signature"}`
		unknown = `{"status_code":401,"message":"Invalid credentials"}`
		notJSON = `"status_code":400`
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--omit", "key"}, missing},
		{[]string{"--empty", "signature"}, missing},
		{[]string{"--empty", "timestamp", "--omit", "signature"}, missing},
		{[]string{"--timestamp-offset", "-10m"}, expired},
		{[]string{"--timestamp-offset", "1h"}, expired},
		{[]string{"--timestamp-offset", "-4m"}, ok},
		{[]string{"--timestamp-text", "{now}.5"}, expired},
		{[]string{"--timestamp-text", "0{now}"}, ok},
		{[]string{"--signature-form", "upper"}, ok},
		{[]string{"--signature-form", "base64"}, invalid},
		{[]string{"--signature-form", "cut"}, invalid},
		{[]string{"--signature-form", "sha256-prefix"}, invalid},
		{[]string{"--signature-form", "wrong"}, invalid},
		{[]string{"--signature-form", "wrong", "--key", "test_key_demox"}, unknown},
		{[]string{"--body", "not json"}, notJSON},
	} {
		t.Run(tc.args[0]+" "+tc.args[1], func(t *testing.T) {
			code, line, errOut := run(t, nil, append([]string{"sign", "--curl", "--url", url + "/v1/check/merchant_demo"}, tc.args...)...)
			require.Equal(t, ExitOK, code, errOut)
			out, err := exec.Command("sh", "-c", line).CombinedOutput()
			require.NoError(t, err, string(out))
			assert.Contains(t, string(out), tc.want, line)
		})
	}
	for _, args := range [][]string{
		{"--omit", "body"},
		{"--signature-form", "lower"},
		{"--webhook-secret", "whsec_x", "--omit", "key"},
	} {
		code, _, errOut := run(t, nil, append([]string{"sign", "--url", url + "/v1/check/merchant_demo"}, args...)...)
		assert.Equal(t, ExitUsage, code, "%v: %s", args, errOut)
	}
}
