package reference

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// explainedBody is an authentication refusal with its diagnostic: the
// answer of defaults.md A, status_code and message unchanged, plus
// "diagnostic" (Server.Explain).
type explainedBody struct {
	StatusCode int                  `json:"status_code"`
	Message    string               `json:"message"`
	Diagnostic *firmakit.Diagnostic `json:"diagnostic"`
}

// Diagnostic returns the diagnostic the authentication middleware made of
// a refused request when AuthConfig.Explain is set, nil otherwise.
func Diagnostic(c echo.Context) *firmakit.Diagnostic {
	d, _ := c.Get(string(diagnosticKey)).(*firmakit.Diagnostic)
	return d
}

// explain puts the diagnostic of a refusal of checks 1 to 4 on the
// context. A body the checks did not reach is read now, within MaxBody:
// the answer is decided already, so reading it cannot change it.
func (cfg AuthConfig) explain(c echo.Context, err error, now time.Time, body []byte, read bool) {
	refused := false
	for _, s := range []error{firmakit.ErrMissingHeaders, firmakit.ErrExpired, firmakit.ErrInvalidCredentials, firmakit.ErrInvalidSignature} {
		refused = refused || errors.Is(err, s)
	}
	if !refused {
		return // a body too large or unreadable: its own answer says it all
	}
	r := c.Request()
	seen := firmakit.RequestSeen{Method: r.Method, RequestTarget: firmakit.RequestTarget(r), MerchantID: c.Param(cfg.MerchantParam),
		Header: r.Header, Body: body, BodyRead: read}
	if !read {
		seen.Body, seen.BodyRead, seen.BodyNote = readForDiagnostic(c.Response(), r.Body, r.ContentLength, cfg.MaxBody)
	}
	c.Set(string(diagnosticKey), cfg.Profile.DiagnoseRequest(seen, err, cfg.Lookup, now))
}

// DiagnosticReadWait bounds the read of a body that authentication did
// not reach, for a diagnostic: a client that sends its headers and stalls
// gets its refusal after this wait, not after the server's read timeout.
const DiagnosticReadWait = 2 * time.Second

// What a diagnostic says of a body it did not read.
const (
	noteNotRead      = "not read: "
	noteOverDeclared = noteNotRead + "its Content-Length, %d bytes, is over the limit of %d bytes"
	noteTooSlow      = noteNotRead + "the client did not send it within %s"
	noteOverLimit    = noteNotRead + "over the limit of %d bytes"
)

// readForDiagnostic reads a body that authentication did not reach, up to
// limit bytes and within DiagnosticReadWait, and says how it was read or
// why it was not. When the body came whole, the connection's read
// deadline is lifted again (net/http sets the next request's); otherwise
// the short one stays, so that nothing waits long on that client again
// (net/http then closes the connection after the answer).
func readForDiagnostic(w http.ResponseWriter, body io.Reader, declared, limit int64) ([]byte, bool, string) {
	if declared > limit {
		return nil, false, fmt.Sprintf(noteOverDeclared, declared, limit)
	}
	rc := http.NewResponseController(w)
	deadlineSet := rc.SetReadDeadline(time.Now().Add(DiagnosticReadWait)) == nil
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil, false, fmt.Sprintf(noteTooSlow, DiagnosticReadWait)
	case err != nil:
		return nil, false, noteNotRead + err.Error()
	}
	if int64(len(b)) > limit {
		return nil, false, fmt.Sprintf(noteOverLimit, limit)
	}
	if deadlineSet {
		_ = rc.SetReadDeadline(time.Time{})
	}
	return b, true, "read for this diagnostic only: the service reads a body once the headers, the timestamp and the credentials pass (checks 1 to 3)"
}

// errorBodyOf gives the body of an error answer: with the diagnostic of
// an explained refusal, nil for the plain body.
func errorBodyOf(c echo.Context, api *APIError) any {
	d := Diagnostic(c)
	if d == nil {
		return nil
	}
	return explainedBody{StatusCode: api.Status, Message: api.Message, Diagnostic: d}
}
