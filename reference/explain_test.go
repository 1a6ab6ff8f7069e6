package reference_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/internal/reftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raw sends c and returns the status and the answer's bytes.
func (c call) raw(t testing.TB, base string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	require.NoError(t, err)
	for k, v := range c.header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// signedWith is a check request signed now with key and secret.
func signedWith(key, secret, path, body string) call {
	p := firmakit.BundledProfile()
	return call{method: "POST", path: path, body: []byte(body),
		header: p.SignedHeaders(key, secret, "POST", path, []byte(body), time.Now())}
}

// explained is an answer with its diagnostic.
type explained struct {
	StatusCode int                  `json:"status_code"`
	Message    string               `json:"message"`
	Diagnostic *firmakit.Diagnostic `json:"diagnostic"`
}

func TestExplainOffAnswersAsBefore(t *testing.T) {
	s := MustOpenServer(t, nil)
	status, b := signedWith("test_key_demo", "not_the_secret", "/v1/check/merchant_demo", "{}").raw(t, s.URL())
	assert.Equal(t, 401, status)
	assert.Equal(t, `{"status_code":401,"message":"Invalid signature"}`+"\n", string(b))
	assert.Nil(t, s.Requests().Newest(1)[0].Diagnostic, "no diagnostic is logged either")
}

func TestExplainAddsADiagnosticOnly(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.Explain = true })
	const check = "/v1/check/merchant_demo"
	p := firmakit.BundledProfile()
	noKey := signedWith("test_key_demo", "test_secret_demo", check, "{}")
	noKey.header.Del("X-Service-Key")
	old := signedWith("test_key_demo", "test_secret_demo", check, "{}")
	old.header.Set("X-Service-Timestamp", strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10))
	for _, tc := range []struct {
		name    string
		call    call
		status  int
		message string
		cause   string
	}{
		{"wrong secret", signedWith("test_key_demo", "not_the_secret", check, `{"a":1}`), 401, "Invalid signature", firmakit.CauseSecretOrBytes},
		{"no key", noKey, 400, "Missing headers", firmakit.CauseMissingHeaders},
		{"an hour old", old, 401, "Request expired", firmakit.CauseClockSkew},
		{"unknown key", signedWith("test_key_nope", "whatever", check, "{}"), 401, "Invalid credentials", firmakit.CauseUnknownKey},
		{"query not signed", func() call {
			c := signedWith("test_key_demo", "test_secret_demo", check, "{}")
			c.path += "?lang=es"
			return c
		}(), 401, "Invalid signature", firmakit.CauseQueryNotSigned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, b := tc.call.raw(t, s.URL())
			require.Equal(t, tc.status, status, string(b))
			var got explained
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&got), string(b))
			assert.Equal(t, tc.status, got.StatusCode)
			assert.Equal(t, tc.message, got.Message)
			require.NotNil(t, got.Diagnostic, string(b))
			d := got.Diagnostic
			assert.Equal(t, tc.cause, d.CauseCode, d.Cause)
			assert.Equal(t, "POST", d.Method)
			assert.Equal(t, tc.call.path, d.RequestTarget)
			for _, secret := range []string{"test_secret_demo", "not_the_secret", "whatever"} {
				assert.NotContains(t, string(b), secret)
			}
			// The signature the server expected: never in the answer.
			ts := tc.call.header.Get("X-Service-Timestamp")
			want := p.RequestSignature("test_secret_demo", firmakit.RequestParts{Timestamp: ts, Method: "POST",
				RequestTarget: tc.call.path, KeyID: tc.call.header.Get("X-Service-Key"), Body: tc.call.body})
			if want != tc.call.header.Get("X-Service-Signature") {
				assert.NotContains(t, string(b), want)
			}
			if d.StringToSign != "" {
				sts := p.StringToSign(firmakit.RequestParts{Timestamp: ts, Method: "POST", RequestTarget: tc.call.path,
					KeyID: tc.call.header.Get("X-Service-Key"), Body: tc.call.body})
				assert.Equal(t, firmakit.EscapeStringToSign(sts), d.StringToSign)
				assert.Equal(t, len(sts), d.StringToSignBytes)
			}
			logged := s.Requests().Newest(1)[0]
			assert.Equal(t, firmakit.AuthRefused, logged.Auth)
			// The log keeps the copy anyone may read: the same but for the
			// signature, the body and which of check 3's causes.
			ld := logged.Diagnostic
			require.NotNil(t, ld)
			assert.Equal(t, d.RequestTarget, ld.RequestTarget)
			assert.Equal(t, d.BodySHA256, ld.BodySHA256)
			assert.Equal(t, d.StringToSignBytes, ld.StringToSignBytes)
			assert.True(t, strings.HasPrefix(d.StringToSign, strings.TrimSuffix(ld.StringToSign, `"`)), ld.StringToSign)
			if sig := tc.call.header.Get("X-Service-Signature"); sig != "" {
				assert.Equal(t, fmt.Sprintf("(%d characters, not logged)", len(sig)), ld.Headers[2].Value)
			}
			if tc.cause == firmakit.CauseUnknownKey {
				assert.Equal(t, firmakit.CauseInvalidCredentials, ld.CauseCode)
			} else {
				assert.Equal(t, d.CauseCode, ld.CauseCode)
			}
		})
	}

	// A body the checks never reached is read for the diagnostic only.
	status, b := signedWith("test_key_nope", "x", check, `{"n":12}`).raw(t, s.URL())
	require.Equal(t, 401, status)
	var got explained
	require.NoError(t, json.Unmarshal(b, &got))
	assert.True(t, got.Diagnostic.BodyRead)
	assert.Equal(t, 8, *got.Diagnostic.BodyBytes)
	assert.Contains(t, got.Diagnostic.BodyNote, "read for this diagnostic only")

	// Answers other than the four refusals are unchanged.
	status, b = signed(check, "{}").raw(t, s.URL())
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"status_code":200,"message":"Authenticated"}`+"\n", string(b))
	status, b = signed(check, "[]").raw(t, s.URL())
	assert.Equal(t, 400, status)
	assert.Equal(t, `{"status_code":400,"message":"Body must be a JSON object, got an array"}`+"\n", string(b))
	big := strings.Repeat(" ", reference.DefaultMaxBody+1)
	status, b = signed(check, big).raw(t, s.URL())
	assert.Equal(t, 413, status)
	assert.NotContains(t, string(b), "diagnostic")
}

// TestRequestLogCannotBeReplayed: a client signs {} and sends {"a":1};
// anyone may read the log, and must not find there a signature to send
// again with the message it is valid for, nor the body.
func TestRequestLogCannotBeReplayed(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.Explain = true })
	const check = "/v1/check/merchant_demo"
	victim := signedWith("test_key_demo", "test_secret_demo", check, "{}")
	victim.body = []byte(`{"a":"personal data 4111"}`)
	status, b := victim.raw(t, s.URL())
	require.Equal(t, 401, status, string(b))
	var got explained
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, firmakit.CauseBodyDiffers, got.Diagnostic.CauseCode)
	assert.Equal(t, victim.header.Get("X-Service-Signature"), got.Diagnostic.Headers[2].Value, "the client itself gets all")

	status, pg, raw := page(t, s, "?limit=1")
	require.Equal(t, 200, status)
	require.Len(t, pg.Requests, 1)
	assert.NotContains(t, raw, victim.header.Get("X-Service-Signature"))
	assert.NotContains(t, raw, "personal data")
	d := pg.Requests[0].Diagnostic
	require.NotNil(t, d)
	// The attacker copies what the log shows and sends the message signed.
	replay := call{method: "POST", path: pg.Requests[0].RequestTarget, body: []byte("{}"), header: http.Header{}}
	for _, h := range d.Headers {
		replay.header.Set(h.Name, h.Value)
	}
	status, b = replay.raw(t, s.URL())
	assert.Equal(t, 401, status, "replayed from the log: %s", b)
}

func TestRequestLogRecordsEveryAPIRequest(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)
	s := MustOpenServer(t, func(s *reference.Server) { s.Clock = reftest.StoppedClock(func() time.Time { return now }) })
	const check = "/v1/check/merchant_demo"
	p := firmakit.BundledProfile()
	sign := func(path, body string) call {
		return call{method: "POST", path: path, body: []byte(body),
			header: p.SignedHeaders("test_key_demo", "test_secret_demo", "POST", path, []byte(body), now)}
	}
	bad := sign(check, "{}")
	bad.header.Set("X-Service-Signature", strings.Repeat("0", 64))
	calls := []struct {
		call    call
		status  int
		verdict string
		message string
		bytes   int64
	}{
		{sign(check, "{}"), 200, "accepted", "Authenticated", 2},
		{bad, 401, "refused", "Invalid signature", 2},
		{sign(check, "[1]"), 400, "accepted", "Body must be a JSON object, got an array", 3},
		{sign("/v9/check/merchant_demo", "{}"), 404, "not_checked", `Unknown api version: "v9" (accepted: v1)`, 2},
		{call{method: "GET", path: check}, 405, "not_checked", "Method not allowed: GET /v1/check/merchant_demo; this endpoint takes POST", 0},
		{sign("/v1/signature/merchant_demo", "{}"), 400, "accepted", "title is required", 2},
		{sign(check, strings.Repeat(" ", reference.DefaultMaxBody+1)), 413, "refused", "Request body too large: 1048577 bytes, the limit is 1048576 bytes", reference.DefaultMaxBody + 1},
	}
	for _, c := range calls {
		status, b := c.call.raw(t, s.URL())
		require.Equal(t, c.status, status, string(b))
	}
	// Routes that are not the API's are not logged.
	for _, path := range []string{"/healthz", "/_sandbox/queue", "/_sandbox/requests", "/nope"} {
		resp, err := http.Get(s.URL() + path)
		require.NoError(t, err)
		resp.Body.Close()
	}
	log := s.Requests()
	require.Equal(t, len(calls), log.Len())
	assert.Equal(t, uint64(len(calls)), log.Last())
	for i, e := range log.Since(0, 100) {
		c := calls[i]
		assert.Equal(t, uint64(i+1), e.ID)
		assert.Equal(t, "2026-11-22T10:00:00.123456Z", e.ReceivedAt)
		assert.Equal(t, c.call.method, e.Method)
		assert.Equal(t, c.call.path, e.RequestTarget)
		assert.Equal(t, "merchant_demo", e.MerchantID)
		assert.Equal(t, c.call.header.Get("X-Service-Key"), e.KeyID)
		assert.Equal(t, c.status, e.Status, c.call.path)
		assert.Equal(t, c.verdict, e.Auth, "%d %s", c.status, e.Message)
		assert.Equal(t, c.message, e.Message)
		assert.Equal(t, c.bytes, e.BodyBytes, e.Message)
		assert.True(t, strings.HasPrefix(e.RemoteAddr, "127.0.0.1:"), e.RemoteAddr)
		assert.Nil(t, e.Diagnostic)
	}
}

// page reads GET /_sandbox/requests with a query.
func page(t *testing.T, s *reference.Server, query string) (int, firmakit.RequestsPage, string) {
	t.Helper()
	resp, err := http.Get(s.URL() + "/_sandbox/requests" + query)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out firmakit.RequestsPage
	if resp.StatusCode == 200 {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&out), string(b))
	}
	return resp.StatusCode, out, string(b)
}

func ids(reqs []firmakit.ReceivedRequest) []uint64 {
	out := []uint64{}
	for _, r := range reqs {
		out = append(out, r.ID)
	}
	return out
}

func TestSandboxRequests(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.MaxRequests = 5 })
	status, pg, body := page(t, s, "")
	require.Equal(t, 200, status)
	assert.Equal(t, `{"requests":[],"count":0,"total":0,"last_id":0}`+"\n", body)
	for i := 0; i < 7; i++ {
		signed("/v1/check/merchant_demo", "{}").raw(t, s.URL())
	}
	_, pg, _ = page(t, s, "")
	assert.Equal(t, []uint64{7, 6, 5, 4, 3}, ids(pg.Requests), "newest first; the ring keeps 5")
	assert.Equal(t, 5, pg.Count)
	assert.Equal(t, 5, pg.Total)
	assert.Equal(t, uint64(7), pg.LastID)
	_, pg, _ = page(t, s, "?limit=2")
	assert.Equal(t, []uint64{7, 6}, ids(pg.Requests))
	_, pg, _ = page(t, s, "?after=0&limit=2")
	assert.Equal(t, []uint64{3, 4}, ids(pg.Requests), "after an id that was dropped: from the oldest kept")
	_, pg, _ = page(t, s, "?after=4")
	assert.Equal(t, []uint64{5, 6, 7}, ids(pg.Requests), "ascending")
	_, pg, _ = page(t, s, "?after=7")
	assert.Equal(t, []uint64{}, ids(pg.Requests))
	assert.Equal(t, 0, pg.Count)
	for _, q := range []string{"?after=-1", "?after=x", "?limit=0", "?limit=1001", "?limit=ten"} {
		status, _, body := page(t, s, q)
		assert.Equal(t, 400, status, q)
		var e firmakit.APIResponse
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		assert.Equal(t, 400, e.StatusCode)
		assert.Regexp(t, `^(after must be a request id|limit must be a whole number from 1 to 1000)`, e.Message)
	}
}

// TestRequestLogSubscribers: readers that follow the log with Changed and
// Since get every entry once, in order, while writers add concurrently.
func TestRequestLogSubscribers(t *testing.T) {
	log := reference.NewRequestLog(10000)
	const writers, each = 4, 500
	var wg sync.WaitGroup
	got := make([][]uint64, 3)
	for r := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last uint64
			for last < writers*each {
				changed := log.Changed()
				news := log.Since(last, 100)
				for _, e := range news {
					got[r] = append(got[r], e.ID)
					last = e.ID
				}
				if len(news) == 0 {
					<-changed
				}
			}
		}()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				log.Add(firmakit.ReceivedRequest{RequestTarget: fmt.Sprint(w, i)})
			}
		}()
	}
	wg.Wait()
	for _, ids := range got {
		require.Len(t, ids, writers*each)
		for i, id := range ids {
			require.Equal(t, uint64(i+1), id, "no gap, no duplicate")
		}
	}
}

func TestOnCreatedIsToldOfEachContract(t *testing.T) {
	type created struct{ merchant, id, at string }
	got := make(chan created, 1)
	s := MustOpenServer(t, func(s *reference.Server) {
		s.OnCreated = func(m, id, at string) { got <- created{m, id, at} }
	})
	status, out, raw := signed("/v1/signature/merchant_demo", createBody).do(t, s.URL())
	require.Equal(t, 201, status, raw)
	c := <-got
	assert.Equal(t, created{"merchant_demo", out.Data.SignatureID, out.Data.CreatedAt}, c)
	status, _, _ = signed("/v1/signature/merchant_demo", `{"title":""}`).do(t, s.URL())
	require.Equal(t, 400, status)
	assert.Empty(t, got, "a refused contract is not told")
}
