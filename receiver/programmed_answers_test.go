package receiver_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// send posts a signed notification and returns the status, or the error
// for goroutines to report back.
func send(rv *receiver.Receiver, channel string, body []byte) (int, error) {
	req, _ := http.NewRequest("POST", rv.URL()+"/hooks/"+channel, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// FailNext on a Receiver and on a Client of a remote one: the suite holds
// either behind one interface.
var _ interface {
	FailNext(ctx context.Context, channel, signatureID string, status, count int) error
} = (*receiver.Client)(nil)

func TestAnswersPerContract(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	ctx := context.Background()
	// sig-a: the first delivery gets 503; sig-b: the first two get 500,
	// one set through the Go method, one through a Client of the HTTP API.
	require.NoError(t, rv.FailNext(ctx, "merchant_demo", "sig-a", 503, 1))
	client := &receiver.Client{URL: rv.URL()}
	require.NoError(t, client.FailNext(ctx, "merchant_demo", "sig-b", 500, 2))
	_, rules := getRules(t, rv, "merchant_demo")
	require.Len(t, rules, 2)
	assert.Equal(t, map[string]any{"signature_id": "sig-a", "status": float64(503), "remaining": float64(1)}, rules[0])
	assert.Equal(t, map[string]any{"signature_id": "sig-b", "status": float64(500), "remaining": float64(2)}, rules[1])

	// Three deliveries of one event per contract, all at once, with two
	// other contracts on the same channel.
	type result struct {
		sig    string
		status int
		err    error
	}
	contracts := []string{"sig-a", "sig-b", "sig-c", "sig-d"}
	results := make(chan result, 3*len(contracts))
	for _, sig := range contracts {
		for i := 0; i < 3; i++ {
			go func() {
				st, err := send(rv, "merchant_demo", notification(firmakit.StateSigned, "ev-"+sig, sig))
				results <- result{sig, st, err}
			}()
		}
	}
	got := map[string][]int{}
	for range 3 * len(contracts) {
		r := <-results
		require.NoError(t, r.err)
		got[r.sig] = append(got[r.sig], r.status)
	}
	for _, s := range got {
		sort.Ints(s)
	}
	assert.Equal(t, map[string][]int{"sig-a": {200, 200, 503}, "sig-b": {200, 500, 500}, "sig-c": {200, 200, 200}, "sig-d": {200, 200, 200}}, got)
	_, rules = getRules(t, rv, "merchant_demo")
	assert.Empty(t, rules, "spent rules go")

	// Each record keeps what was answered: the first attempt's 503 and the
	// retries' 200 on the same event_id.
	recs, err := rv.List(ctx, receiver.Filter{SignatureID: "sig-a", Limit: 10})
	require.NoError(t, err)
	require.Len(t, recs, 3)
	answered := []int{}
	for _, r := range recs {
		answered = append(answered, r.Status)
		assert.Equal(t, "ev-sig-a", r.EventID)
	}
	sort.Ints(answered)
	assert.Equal(t, []int{200, 200, 503}, answered)
	var rec map[string]any
	getJSON(t, fmt.Sprintf("%s/api/events/%d", rv.URL(), recs[0].ID), &rec)
	assert.Contains(t, rec, "answer_status", "the status answered, in the JSON")

	// A contract's rule wins over the channel's; DELETE ?signature_id=
	// clears one contract's rule only.
	st, out := call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", `{"status":202}`, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, 200, st, out)
	st, out = call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", `{"status":503,"signature_id":"sig-e"}`, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, 200, st, out)
	require.NoError(t, rv.FailNext(ctx, "merchant_demo", "sig-f", 500, 0))
	rule, rules := getRules(t, rv, "merchant_demo")
	assert.Equal(t, float64(202), rule["status"], "the channel-wide rule")
	require.Len(t, rules, 3)
	assert.Equal(t, []any{nil, "sig-e", "sig-f"}, []any{rules[0]["signature_id"], rules[1]["signature_id"], rules[2]["signature_id"]})
	for sig, want := range map[string]int{"sig-e": 503, "sig-f": 500, "sig-g": 202} {
		st, err := send(rv, "merchant_demo", notification(firmakit.StateSigned, "x-"+sig, sig))
		require.NoError(t, err)
		assert.Equal(t, want, st, sig)
	}
	st, _ = call(t, rv, "DELETE", "/api/channels/merchant_demo/responses?signature_id=sig-e", "", "", nil)
	require.Equal(t, 204, st)
	st, _ = send(rv, "merchant_demo", notification(firmakit.StateSigned, "y", "sig-e"))
	assert.Equal(t, 202, st, "sig-e now gets the channel's answer")
	st, _ = send(rv, "merchant_demo", notification(firmakit.StateSigned, "y", "sig-f"))
	assert.Equal(t, 500, st, "sig-f's rule is still there")
	st, _ = call(t, rv, "DELETE", "/api/channels/merchant_demo/responses", "", "", nil)
	require.Equal(t, 204, st)
	_, rules = getRules(t, rv, "merchant_demo")
	assert.Empty(t, rules)

	// Refusals.
	assert.ErrorContains(t, rv.FailNext(ctx, "merchant_demo", "s", 99, 1), "status must be an HTTP status")
	for _, interim := range []int{100, 101, 103, 199} {
		assert.ErrorContains(t, rv.FailNext(ctx, "merchant_demo", "", interim, 1), "100-199 are interim answers", interim)
		st, out := call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", fmt.Sprintf(`{"status":%d}`, interim), map[string]string{"Content-Type": "application/json"})
		assert.Equal(t, 400, st, interim)
		assert.Contains(t, out["error"], "from 200 to 599", interim)
	}
	rule, rules = getRules(t, rv, "merchant_demo")
	assert.Nil(t, rule, "no 1xx rule was set")
	assert.Empty(t, rules)
	assert.ErrorContains(t, rv.FailNext(ctx, "merchant_demo", "s", 500, -1), "count must be from 0 (until cleared) to 1000000")
	assert.ErrorContains(t, client.FailNext(ctx, "merchant_demo", "s", 99, 1), "receiver answered 400")
	st, _ = call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", `{"status":503,"signature":"x"}`, map[string]string{"Content-Type": "application/json"})
	assert.Equal(t, 400, st, "unknown fields are refused")
}

// AnswerNext on a Receiver and on a Client: a status held back for a
// while, and a connection closed without an answer, each recorded.
func TestAnswerDelayAndHangUp(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	ctx := context.Background()
	client := &receiver.Client{URL: rv.URL()}
	const held = 300 * time.Millisecond
	require.NoError(t, rv.AnswerNext(ctx, "merchant_demo", "sig-late", receiver.Answer{Status: 204, Delay: held}, 1))
	require.NoError(t, client.AnswerNext(ctx, "merchant_demo", "sig-gone", receiver.Answer{HangUp: true}, 1))
	assert.Error(t, rv.AnswerNext(ctx, "merchant_demo", "sig-x", receiver.Answer{Status: 200, Delay: 2 * time.Minute}, 1))
	assert.Error(t, rv.AnswerNext(ctx, "merchant_demo", "sig-x", receiver.Answer{Status: 42}, 1))

	start := time.Now()
	st, err := send(rv, "merchant_demo", notification(firmakit.StateSigned, "ev-late", "sig-late"))
	require.NoError(t, err)
	assert.Equal(t, 204, st)
	assert.GreaterOrEqual(t, time.Since(start), held, "the answer is held back")

	_, err = send(rv, "merchant_demo", notification(firmakit.StateSigned, "ev-gone", "sig-gone"))
	require.Error(t, err, "the connection closes without an answer")
	st, err = send(rv, "merchant_demo", notification(firmakit.StateSigned, "ev-gone", "sig-gone"))
	require.NoError(t, err)
	assert.Equal(t, 200, st, "the rule is spent")

	recs, err := rv.List(ctx, receiver.Filter{SignatureID: "sig-gone", Limit: 10})
	require.NoError(t, err)
	answered := []int{}
	for _, r := range recs {
		answered = append(answered, r.Status)
	}
	sort.Ints(answered)
	assert.Equal(t, []int{0, 200}, answered, "a hang-up is recorded as status 0")
	recs, err = rv.List(ctx, receiver.Filter{SignatureID: "sig-late", Limit: 10})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, 204, recs[0].Status)
}
