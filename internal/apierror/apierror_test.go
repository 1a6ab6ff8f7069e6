package apierror_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/apierror"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type body struct {
	StatusCode int    `json:"status_code"`
	Message    string `json:"message"`
}

func shape(status int, msg string) any { return body{status, msg} }

var errCause = errors.New("cause")

func TestHandler(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = apierror.Handler(apierror.Config{Shape: shape,
		Echo: func(c echo.Context, he *echo.HTTPError) *apierror.Error {
			if he.Code == http.StatusNotFound {
				return apierror.New(404, "Not found: "+c.Request().URL.Path)
			}
			return nil
		}})
	e.POST("/api", func(c echo.Context) error {
		return &apierror.Error{Status: 409, Message: "Conflict: try again", Err: errCause}
	})
	e.POST("/wrapped", func(c echo.Context) error { return fmt.Errorf("context: %w", apierror.New(400, "Bad: x")) })
	e.POST("/bug", func(c echo.Context) error { return errors.New("a bug") })
	for _, tc := range []struct {
		method, path string
		status       int
		message      string
	}{
		{"POST", "/api", 409, "Conflict: try again"},
		{"POST", "/wrapped", 400, "Bad: x"},
		{"POST", "/bug", 500, "Internal error"},
		{"POST", "/nope", 404, "Not found: /nope"},
		{"GET", "/api", 405, "Method Not Allowed"},
	} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		var b body
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &b), rec.Body.String())
		assert.Equal(t, tc.status, rec.Code, tc.path)
		assert.Equal(t, body{tc.status, tc.message}, b, tc.path)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("HEAD", "/nope", nil))
	assert.Equal(t, 404, rec.Code)
	assert.Empty(t, rec.Body.String(), "a HEAD answer has no body")
}

func TestErrorUnwraps(t *testing.T) {
	err := fmt.Errorf("x: %w", &apierror.Error{Status: 401, Message: "Invalid signature", Err: errCause})
	assert.ErrorIs(t, err, errCause)
	assert.Equal(t, "x: 401 Invalid signature", err.Error())
}

func TestHandlerRefusesNoShape(t *testing.T) {
	assert.Panics(t, func() { apierror.Handler(apierror.Config{}) })
}

func TestDecodePaths(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = apierror.Handler(apierror.Config{Shape: shape})
	e.POST("/:v/check/:m", func(c echo.Context) error {
		return c.String(200, c.Param("v")+" "+c.Param("m")+" "+c.Request().RequestURI)
	})
	h := apierror.DecodePaths(e, shape)
	for _, tc := range []struct{ target, want string }{
		{"/v1/check/merchant_demo", "v1 merchant_demo /v1/check/merchant_demo"},
		{"/v1/check/merchant%5Fdemo", "v1 merchant_demo /v1/check/merchant%5Fdemo"},
		{"/%76%31/check/merchant_demo", "v1 merchant_demo /%76%31/check/merchant_demo"},
		{"/v1/%63heck/m%C3%B1", "v1 mñ /v1/%63heck/m%C3%B1"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", tc.target, nil))
		assert.Equal(t, 200, rec.Code, tc.target)
		assert.Equal(t, tc.want, rec.Body.String(), "decoded for routing, raw in RequestURI")
	}
	// echo alone routes on the raw path: the wrapper is what decodes.
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("POST", "/%76%31/check/merchant%5Fdemo", nil))
	assert.Equal(t, "%76%31 merchant%5Fdemo /%76%31/check/merchant%5Fdemo", rec.Body.String())

	// A URL that reached the handler with an escape that does not decode.
	req := httptest.NewRequest("POST", "/v1/check/x", nil)
	req.URL.RawPath = "/v1/check/%zz"
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, 400, rec.Code)
	assert.JSONEq(t, `{"status_code":400,"message":"Malformed request target \"/v1/check/%zz\": invalid percent-encoding \"%zz\"; write a literal % as %25"}`, rec.Body.String())
}

// serve runs h behind Listen on loopback and returns its address.
func serve(t *testing.T, h http.Handler, maxHeader int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: h, MaxHeaderBytes: maxHeader, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(apierror.Listen(ln, shape, maxHeader))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// raw sends raw bytes and reads one answer.
func raw(t *testing.T, addr, request string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = io.WriteString(c, request)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestListenAnswersNetHTTPRefusalsInShape(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok " + r.RequestURI)) })
	addr := serve(t, ok, 4096)
	const host = "Host: x\r\n"
	valid := "POST /v1/check/merchant_demo HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n"
	resp, got := raw(t, addr, valid)
	require.Equal(t, 200, resp.StatusCode)
	require.Equal(t, "ok /v1/check/merchant_demo", got, "a valid request passes untouched")

	for _, tc := range []struct {
		name, request string
		status        int
		message       string
	}{
		{"invalid escape in the path", strings.Replace(valid, "merchant_demo", "%zz", 1), 400,
			`Malformed request target "/v1/check/%zz": invalid percent-encoding "%zz"; write a literal % as %25`},
		{"truncated escape", strings.Replace(valid, "merchant_demo", "m%5", 1), 400,
			`Malformed request target "/v1/check/m%5": invalid percent-encoding "%5"; write a literal % as %25`},
		{"method with a character outside a token", strings.Replace(valid, "POST", "PO@ST", 1), 400,
			`Invalid method "PO@ST": a method is letters such as POST`},
		{"request line without a version", "POST /v1/check/merchant_demo\r\n" + host + "\r\n", 400,
			`Malformed request line "POST /v1/check/merchant_demo": send METHOD /path HTTP/1.1`},
		{"header too large", strings.Replace(valid, host, host+"X-Big: "+strings.Repeat("a", 10000)+"\r\n", 1), 431,
			"Request header fields too large: the request line and headers may take at most 4096 bytes"},
		{"no Host", strings.Replace(valid, host, "", 1), 400, "Bad request: missing required Host header"},
		{"invalid header name", strings.Replace(valid, host, host+"Bad Name: x\r\n", 1), 400, "Bad request: invalid header name"},
		{"unknown transfer encoding", strings.Replace(valid, "Content-Length: 0", "Transfer-Encoding: gzip", 1), 501,
			"Unsupported Transfer-Encoding: send the body with a Content-Length, or chunked"},
		{"unknown expectation", strings.Replace(valid, host, host+"Expect: 200-ok\r\n", 1), 417,
			"Expectation failed: the only Expect header this server takes is 100-continue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := raw(t, addr, tc.request)
			assert.Equal(t, tc.status, resp.StatusCode, got)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var b body
			require.NoError(t, json.Unmarshal([]byte(got), &b), got)
			assert.Equal(t, body{tc.status, tc.message}, b)
		})
	}

	// A refused request after a good one on the same connection is
	// diagnosed from its own request line.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	br := bufio.NewReader(c)
	_, err = io.WriteString(c, valid)
	require.NoError(t, err)
	resp, err = http.ReadResponse(br, nil)
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	require.Equal(t, 200, resp.StatusCode)
	_, err = io.WriteString(c, strings.Replace(valid, "merchant_demo", "%zz", 1))
	require.NoError(t, err)
	resp, err = http.ReadResponse(br, nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, 400, resp.StatusCode)
	assert.Contains(t, string(b), `invalid percent-encoding \"%zz\"`)
}

// fixedConn reads the same request forever and discards what is written.
type fixedConn struct {
	net.Conn
	req []byte
}

func (c fixedConn) Read(p []byte) (int, error)  { return copy(p, c.req), nil }
func (c fixedConn) Write(p []byte) (int, error) { return len(p), nil }

type oneConn struct {
	net.Listener
	c net.Conn
}

func (l oneConn) Accept() (net.Conn, error) { return l.c, nil }

// BenchmarkListenConn is what the listener adds to a request and its
// answer: one read of the request head, one write of a response.
func BenchmarkListenConn(b *testing.B) {
	req := []byte("POST /v1/check/merchant_demo HTTP/1.1\r\nHost: x\r\nX-Service-Key: test_key_demo\r\nX-Service-Timestamp: 1763805600\r\nX-Service-Signature: 93ba2faf7e5ececabf3335c35cd0cfb586a26c6a9152dc955176a85397188c5b\r\nContent-Length: 2\r\n\r\n{}")
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Sat, 22 Nov 2026 10:00:00 GMT\r\nContent-Length: 46\r\n\r\n{\"status_code\":200,\"message\":\"Authenticated\"}\n")
	c, _ := apierror.Listen(oneConn{c: fixedConn{req: req}}, shape, 4096).Accept()
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		c.Read(buf)
		c.Write(resp)
	}
}
