package reference_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldBytes sums the bytes of every string and slice element v reaches:
// what a logged entry holds beyond its fixed fields.
func heldBytes(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return heldBytes(v.Elem())
	case reflect.Struct:
		n := 0
		for i := 0; i < v.NumField(); i++ {
			n += heldBytes(v.Field(i))
		}
		return n
	case reflect.Slice, reflect.Array:
		n := 0
		for i := 0; i < v.Len(); i++ {
			n += heldBytes(v.Index(i)) + int(v.Type().Elem().Size())
		}
		return n
	}
	return 0
}

// maxHeldPerEntry bounds what one logged request holds, whatever its
// client sent; the log holds DefaultMaxRequests of them.
const maxHeldPerEntry = 16 << 10

// TestRequestLogWorstCase sends requests crafted to make their logged
// entry as large as possible under --explain (bytes that escape to four
// times their size in the target, the headers and the body; causes that
// quote the target), and measures what the log holds and what a page of
// 1,000 such entries weighs. Run with -v for the figures.
func TestRequestLogWorstCase(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.Explain = true })
	p := firmakit.BundledProfile()
	now := time.Now()
	ts := strconv.FormatInt(now.Unix(), 10)
	ff := func(n int) string { return strings.Repeat("\xff", n) }
	const path = "/v1/check/merchant_demo"
	longQuery := path + "?" + ff(8<<10)
	for _, tc := range []struct {
		name           string
		target         string
		key, sig, body string
	}{
		{"unknown key, escaping everywhere", longQuery, "k" + ff(4<<10), ff(8 << 10), strings.Repeat("\x00", 1<<20)},
		{"query not signed", longQuery, "test_key_demo", p.RequestSignature("test_secret_demo", firmakit.RequestParts{Timestamp: ts, Method: "POST", RequestTarget: path, KeyID: "test_key_demo", Body: []byte("{}")}), "{}"},
		{"path decoded", "/v1/check/merchant%5Fdemo?" + strings.Repeat("%ff", 3<<10), "test_key_demo", p.RequestSignature("test_secret_demo", firmakit.RequestParts{
			Timestamp: ts, Method: "POST", RequestTarget: path + "?" + ff(3<<10), KeyID: "test_key_demo", Body: []byte("{}")}), "{}"},
		{"secret or bytes, large body", longQuery, "test_key_demo", strings.Repeat("0", 64), strings.Repeat("\x01", 1<<20)},
	} {
		req := httptest.NewRequest("POST", path, strings.NewReader(tc.body))
		req.Host = "127.0.0.1" // the server answers loopback names only
		req.RequestURI = tc.target
		req.Header.Set("X-Service-Key", tc.key)
		req.Header.Set("X-Service-Timestamp", ts)
		req.Header.Set("X-Service-Signature", tc.sig)
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		require.Contains(t, []int{400, 401}, w.Code, tc.name)
		e := s.Requests().Newest(1)[0]
		require.NotNil(t, e.Diagnostic, tc.name)
		held := heldBytes(reflect.ValueOf(e))
		t.Logf("%s: %s, the logged entry holds %d bytes", tc.name, e.Diagnostic.CauseCode, held)
		assert.LessOrEqual(t, held, maxHeldPerEntry, tc.name)
		assert.LessOrEqual(t, len(e.Diagnostic.StringToSign), firmakit.MaxLoggedStringToSign+2, tc.name)
	}

	// A full log of the largest entries, read in one page of 1,000.
	worst, largest := firmakit.ReceivedRequest{}, 0
	for _, e := range s.Requests().Since(0, 100) {
		if n := heldBytes(reflect.ValueOf(e)); n > largest {
			worst, largest = e, n
		}
	}
	full := MustOpenServer(t, nil)
	for i := 0; i < reference.DefaultMaxRequests; i++ {
		full.Requests().Add(worst)
	}
	status, pg, raw := page(t, full, "?limit=1000")
	require.Equal(t, 200, status)
	t.Logf("worst entry %d bytes held: %d entries hold %.1f MiB; a page of ?limit=1000 is %d bytes, %d entries",
		largest, reference.DefaultMaxRequests, float64(largest*reference.DefaultMaxRequests)/(1<<20), len(raw), pg.Count)
	assert.LessOrEqual(t, len(raw), firmakit.MaxRequestsPageBytes+64<<10, "a page stops at about 2 MiB")
	assert.Less(t, pg.Count, reference.DefaultMaxRequests, "so it holds fewer than asked")
	assert.Equal(t, reference.DefaultMaxRequests, pg.Total)
	// The client pages on from the last id it got.
	_, next, _ := page(t, full, fmt.Sprintf("?after=%d&limit=1000", pg.Requests[pg.Count-1].ID))
	assert.Greater(t, next.Count, 0)
}

// TestSandboxRequestsPageIsBoundedByBytes: a page stops adding entries
// past MaxRequestsPageBytes, at least one always, and after= pages on
// with nothing skipped.
func TestSandboxRequestsPageIsBoundedByBytes(t *testing.T) {
	s := MustOpenServer(t, nil)
	big := "/" + strings.Repeat("<", 100<<10) // 600 KB of JSON once escaped
	for i := 0; i < 10; i++ {
		s.Requests().Add(firmakit.ReceivedRequest{RequestTarget: big})
	}
	_, pg, raw := page(t, s, "?after=0&limit=1000")
	assert.Equal(t, []uint64{1, 2, 3}, ids(pg.Requests), "%d bytes", len(raw))
	assert.Equal(t, 3, pg.Count)
	assert.Equal(t, uint64(10), pg.LastID, "so the client knows there is more")
	_, pg, _ = page(t, s, "?after=3&limit=1000")
	assert.Equal(t, []uint64{4, 5, 6}, ids(pg.Requests))
	_, pg, _ = page(t, s, "?limit=1000")
	assert.Equal(t, []uint64{10, 9, 8}, ids(pg.Requests), "newest first, the same bound")
	huge := firmakit.ReceivedRequest{RequestTarget: strings.Repeat("<", 1<<20)}
	s.Requests().Add(huge)
	_, pg, _ = page(t, s, "?limit=5")
	assert.Equal(t, []uint64{11}, ids(pg.Requests), "one entry at least, whatever its size")
}

func TestRequestLogNegativeLimit(t *testing.T) {
	log := reference.NewRequestLog(4)
	log.Add(firmakit.ReceivedRequest{})
	assert.NotPanics(t, func() {
		assert.Empty(t, log.Since(0, -1))
		assert.Empty(t, log.Newest(-1))
		assert.Empty(t, log.Since(0, 0))
	})
}

// TestExplainDoesNotWaitForAStalledBody: a client sends the headers of a
// refused request, announces a body and sends none. Under --explain the
// diagnostic reads the body for a short while only, so the refusal comes
// well before the server's 30 s read timeout, and says why the body is
// missing.
func TestExplainDoesNotWaitForAStalledBody(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.Explain = true })
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/check/merchant_demo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"+
		"X-Service-Key: test_key_nope\r\nX-Service-Timestamp: %d\r\nX-Service-Signature: %s\r\n\r\n{\"a\":", time.Now().Unix(), strings.Repeat("0", 64))
	// Only to end the test if the server never answers; not a measure.
	conn.SetReadDeadline(time.Now().Add(5 * time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode)
	var got explained
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
	require.NotNil(t, got.Diagnostic)
	assert.Equal(t, firmakit.CauseUnknownKey, got.Diagnostic.CauseCode)
	assert.False(t, got.Diagnostic.BodyRead)
	assert.Equal(t, "not read: the client did not send it within 2s", got.Diagnostic.BodyNote)
	assert.Contains(t, got.Diagnostic.StringToSignNote, "the body was not read")
}

// TestExplainReadsABodyThatComes: the short deadline does not stand in the
// way of a body that is sent, nor of the next request on the connection.
func TestExplainReadsABodyThatComes(t *testing.T) {
	s := MustOpenServer(t, func(s *reference.Server) { s.Explain = true })
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	for i := 0; i < 3; i++ {
		c := signedWith("test_key_nope", "x", "/v1/check/merchant_demo", `{"n":1}`)
		req, err := http.NewRequest("POST", s.URL()+c.path, bytes.NewReader(c.body))
		require.NoError(t, err)
		req.Header = c.header
		resp, err := client.Do(req)
		require.NoError(t, err)
		var got explained
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
		resp.Body.Close()
		require.NotNil(t, got.Diagnostic)
		assert.True(t, got.Diagnostic.BodyRead, i)
	}
}
