package reference

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// Seam is what a server hands its deviations at Open (Deviations.Open):
// the settings and credentials they read, and the parts of the correct
// service they build on, so that a deviation changes one step and keeps
// the others. It is valid for the server's life.
type Seam struct{ s *Server }

// Profile is the server's profile: headers, what is signed and how.
func (x Seam) Profile() *firmakit.Profile { return x.s.Profile }

// Config holds the server's merchants, credentials and templates.
func (x Seam) Config() *Config { return x.s.Config }

// Now reads the server's clock.
func (x Seam) Now() time.Time { return x.s.Clock.Now() }

// Logger is the server's logger.
func (x Seam) Logger() *slog.Logger { return x.s.Logger }

// MaxBody is the server's body limit in bytes; RetrySchedule its waits
// before each retry of a notification.
func (x Seam) MaxBody() int64                 { return x.s.MaxBody }
func (x Seam) RetrySchedule() []time.Duration { return x.s.RetrySchedule }

// DemoDelay is the server's wait between a 201 and its demo
// notification.
func (x Seam) DemoDelay() time.Duration { return x.s.DemoDelay }

// RequestBody is the body the authentication middleware read for c.
func (Seam) RequestBody(c echo.Context) []byte { return requestBody(c) }

// DocumentURL is the link to a contract's demo document, as a SIGNED
// notification carries it.
func (x Seam) DocumentURL(signatureID string) string { return x.s.documentURL(signatureID) }

// Authenticate returns the server's authentication middleware with verify
// in place of checks 1 to 4: the body is read within MaxBody, kept for the
// endpoints with the credential, and a refusal answered with its label, as
// the correct middleware does; a refusal gets no diagnostic.
func (x Seam) Authenticate(verify Verifier) echo.MiddlewareFunc {
	return AuthConfig{Profile: x.s.Profile, Now: x.s.Clock.Now, MaxBody: x.s.MaxBody}.withDefaults().middleware(verify)
}

// JSONObject is check 5 of defaults.md A on a body: the JSON object it
// holds, or the *APIError 400 that refuses it.
func (Seam) JSONObject(r *http.Request, body []byte) (json.RawMessage, error) {
	return jsonObject(r, body)
}

// ErrorAnswer runs the correct error handler on err into a buffer and
// returns what it would have written, leaving the response unwritten, for
// an error handler that writes the answer another way. It returns ok false,
// having let correct write, when the response is committed already or the
// request is a HEAD: there is no body to change.
func (Seam) ErrorAnswer(correct echo.HTTPErrorHandler, err error, c echo.Context) (status int, header http.Header, body []byte, ok bool) {
	res := c.Response()
	if res.Committed || c.Request().Method == http.MethodHead {
		correct(err, c)
		return 0, nil, nil, false
	}
	w := res.Writer
	buf := &bufferWriter{header: http.Header{}}
	res.Writer = buf
	correct(err, c)
	res.Writer = w
	status = res.Status
	res.Committed, res.Status, res.Size = false, 0, 0
	return status, buf.header, buf.body.Bytes(), true
}

// bufferWriter is an http.ResponseWriter that keeps what it is given.
type bufferWriter struct {
	header http.Header
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(int)             {}
func (b *bufferWriter) Flush()                      {}
