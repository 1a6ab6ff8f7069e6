package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// explainedAnswer is a refusal of a server run with --explain.
type explainedAnswer struct {
	StatusCode int                  `json:"status_code"`
	Message    string               `json:"message"`
	Diagnostic *firmakit.Diagnostic `json:"diagnostic"`
}

// signLine is the string to sign that 'firmakit sign' prints.
var signLine = regexp.MustCompile(`(?m)^string to sign \((\d+) bytes, sha256 over hex\): (.*)$`)

// TestSignPrintsWhatTheDiagnosticShows: a merchant signs a request with
// 'firmakit sign' and a wrong secret, sends it to 'firmakit serve
// --explain' and finds the printed string to sign in the diagnostic, byte
// for byte, with the same length.
func TestSignPrintsWhatTheDiagnosticShows(t *testing.T) {
	url, out := serveInProcess(t, nil, "--addr", "127.0.0.1:0", "--explain")
	target := "/v1/check/merchant_demo?lang=es&q=%C3%B1"
	body := "{\n\t\"ñandú\": \"say \\\"hi\\\"\"}\n"
	code, headers, errOut := run(t, nil, "sign", "--url", url+target, "--body", body, "--secret", "not_the_secret")
	require.Equal(t, ExitOK, code, errOut)
	m := signLine.FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)

	req, err := http.NewRequest("POST", url+target, strings.NewReader(body))
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSpace(headers), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		require.True(t, ok, line)
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	require.Equal(t, 401, resp.StatusCode, string(raw))
	var got explainedAnswer
	require.NoError(t, json.Unmarshal(raw, &got), string(raw))
	assert.Equal(t, "Invalid signature", got.Message)
	require.NotNil(t, got.Diagnostic, string(raw))
	assert.Equal(t, m[2], got.Diagnostic.StringToSign, "the same escaped string")
	assert.Equal(t, m[1], strconv.Itoa(got.Diagnostic.StringToSignBytes), "the same length")
	assert.Equal(t, firmakit.CauseSecretOrBytes, got.Diagnostic.CauseCode)

	// Neither the secret nor the signature the server expected is shown.
	sts, err := strconv.Unquote(m[2])
	require.NoError(t, err)
	p := firmakit.BundledProfile()
	ts := req.Header.Get("X-Service-Timestamp")
	require.Equal(t, ts+"\nPOST\n"+target+"\n"+body, sts)
	expected := p.RequestSignature("test_secret_demo", firmakit.RequestParts{Timestamp: ts, Method: "POST", RequestTarget: target, Body: []byte(body)})
	for _, s := range []string{"test_secret_demo", "not_the_secret", expected} {
		assert.NotContains(t, string(raw), s)
		assert.NotContains(t, out.String(), s)
	}
}

// waitDelay waits for the notification of a contract on a receiver and
// returns its delay_ms (nil when the receiver does not know the contract).
func waitDelay(t *testing.T, receiverURL, token, signatureID string) *float64 {
	t.Helper()
	for {
		resp, err := http.Get(receiverURL + "/api/events/wait?signature_id=" + signatureID + "&token=" + token)
		require.NoError(t, err)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusRequestTimeout {
			continue
		}
		require.Equal(t, 200, resp.StatusCode, string(raw))
		var rec struct {
			DelayMS *float64 `json:"delay_ms"`
		}
		require.NoError(t, json.Unmarshal(raw, &rec))
		return rec.DelayMS
	}
}

var createdID = regexp.MustCompile(`signature_id ([0-9a-f-]{36})`)

// TestUpShowsRequestsAndDelays: under 'firmakit up --explain', a contract
// that 'firmakit demo' creates gets its delay on the receiver, and the
// receiver shows the requests the reference received, refusals explained.
func TestUpShowsRequestsAndDelays(t *testing.T) {
	urls := startInProcess(t, nil, "up", "--addr", "127.0.0.1:0", "--listen", "127.0.0.1:0", "--log-level", "warn",
		"--demo-delay", "10ms", "--explain")
	code, out, errOut := run(t, nil, "demo", "SIGNED", "--target", urls["reference"])
	require.Equal(t, ExitOK, code, errOut)
	id := createdID.FindStringSubmatch(out)
	require.NotNil(t, id, out)
	delay := waitDelay(t, urls["receiver"], "", id[1])
	require.NotNil(t, delay, "the reference told the receiver when the contract was created")
	assert.GreaterOrEqual(t, *delay, 0.0)

	code, _, errOut = run(t, nil, "demo", "SIGNED", "--target", urls["reference"], "--secret", "not_the_secret")
	require.Equal(t, ExitFailed, code)
	assert.Contains(t, errOut, `"diagnostic":`, "the refusal is explained")

	var info map[string]any
	resp, err := http.Get(urls["receiver"] + "/api/info")
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&info))
	resp.Body.Close()
	assert.Equal(t, true, info["requests"])
	resp, err = http.Get(urls["receiver"] + "/api/requests?after=0")
	require.NoError(t, err)
	var pg firmakit.RequestsPage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pg))
	resp.Body.Close()
	require.Len(t, pg.Requests, 2)
	assert.Equal(t, firmakit.AuthAccepted, pg.Requests[0].Auth)
	assert.Equal(t, 201, pg.Requests[0].Status)
	assert.Equal(t, "/v1/signature/merchant_demo", pg.Requests[0].RequestTarget)
	assert.Nil(t, pg.Requests[0].Diagnostic)
	assert.Equal(t, firmakit.AuthRefused, pg.Requests[1].Auth)
	assert.Equal(t, "Invalid signature", pg.Requests[1].Message)
	require.NotNil(t, pg.Requests[1].Diagnostic)
	assert.Equal(t, firmakit.CauseSecretOrBytes, pg.Requests[1].Diagnostic.CauseCode)
}

// TestDemoTellsAStandaloneReceiver: 'firmakit demo --receiver' tells a
// receiver that no reference feeds when the contract was created; a
// receiver that cannot be told is a warning, not a failed demo.
func TestDemoTellsAStandaloneReceiver(t *testing.T) {
	rv := startInProcess(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--token", "tok")
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--demo-delay", "10ms",
		"--webhook-url", rv["receiver"]+"/hooks/merchant_demo")
	code, out, errOut := run(t, nil, "demo", "SIGNED", "--target", ref["reference"], "--receiver", rv["receiver"], "--receiver-token", "tok")
	require.Equal(t, ExitOK, code, errOut)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "told the receiver at "+rv["receiver"])
	id := createdID.FindStringSubmatch(out)
	require.NotNil(t, id, out)
	require.NotNil(t, waitDelay(t, rv["receiver"], "tok", id[1]), "the receiver knows the contract's created_at")

	code, out, errOut = run(t, nil, "demo", "CANCELED", "--target", ref["reference"], "--receiver", rv["receiver"])
	require.Equal(t, ExitOK, code, "the contract was created: the demo did its job")
	assert.Contains(t, out, `created "DEMO_CANCELED`)
	assert.Contains(t, errOut, "warning: the receiver at "+rv["receiver"]+" was not told of the contract, so it shows no delay: receiver answered 401")
	assert.NotContains(t, errOut, "tok\"")
}
