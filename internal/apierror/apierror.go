package apierror

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// Error is an answer of a server other than success: Status is the HTTP
// status, Message what the client reads (it says how to fix the request),
// Err the cause, for logs only.
type Error struct {
	Status  int
	Message string
	Err     error
}

// New returns an *Error without a cause.
func New(status int, msg string) *Error { return &Error{Status: status, Message: msg} }

// Error returns the status and the message sent to the client.
func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Message) }

// Unwrap returns the cause kept for logs, such as a sentinel of the root
// package, so that errors.Is sees through the answer.
func (e *Error) Unwrap() error { return e.Err }

// Shape gives the JSON body of an error answer.
type Shape func(status int, message string) any

// Config configures Handler.
type Config struct {
	// Shape gives the body; required.
	Shape Shape
	// Logger logs errors that are not an *Error (answered 500); default:
	// discarded.
	Logger *slog.Logger
	// Echo gives the answer to one of echo's own errors (no route, wrong
	// method, …); nil or a nil result: the status and its text.
	Echo func(c echo.Context, he *echo.HTTPError) *Error
	// Internal is the message of a 500; default "Internal error".
	Internal string
	// Body gives the body of an answer from the request's context (the
	// reference adds a diagnostic to an explained refusal); nil or a nil
	// result: Shape(e.Status, e.Message).
	Body func(c echo.Context, e *Error) any
}

// Handler returns echo's HTTPErrorHandler for a server: an *Error is
// answered as it is, an echo error through cfg.Echo, anything else is
// logged and answered 500 with cfg.Internal. A HEAD request gets the
// status without a body. It panics when cfg.Shape is nil, so that a server
// without a body shape cannot start.
func Handler(cfg Config) echo.HTTPErrorHandler {
	if cfg.Shape == nil {
		panic("apierror: Config.Shape is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Internal == "" {
		cfg.Internal = "Internal error"
	}
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		var api *Error
		var he *echo.HTTPError
		switch {
		case errors.As(err, &api):
		case errors.As(err, &he):
			if cfg.Echo != nil {
				api = cfg.Echo(c, he)
			}
			if api == nil {
				api = New(he.Code, http.StatusText(he.Code))
			}
		default:
			cfg.Logger.Error("internal error", "method", c.Request().Method, "path", firmakit.ClipBytes(c.Request().URL.Path, 200), "err", err)
			api = New(http.StatusInternalServerError, cfg.Internal)
		}
		if c.Request().Method == http.MethodHead {
			_ = c.NoContent(api.Status)
			return
		}
		if cfg.Body != nil {
			if b := cfg.Body(c, api); b != nil {
				_ = c.JSON(api.Status, b)
				return
			}
		}
		_ = c.JSON(api.Status, cfg.Shape(api.Status, api.Message))
	}
}

// Write answers e on a plain http.ResponseWriter, in shape, for code that
// runs outside echo.
func Write(w http.ResponseWriter, shape Shape, e *Error) {
	b, err := json.Marshal(shape(e.Status, e.Message))
	if err != nil {
		b = []byte(`{}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(b, '\n'))
}

// DecodePaths wraps a server's handler so that routing sees the decoded
// path: echo routes on the raw path when the request has one, so
// /v1/check/merchant%5Fdemo would reach a handler as merchant
// "merchant%5Fdemo" and /%76%31/check/… would miss its route. The raw
// request target stays in r.RequestURI, which is what signatures cover
// (firmakit.RequestTarget). An escape that does not decode is answered 400
// in shape; net/http refuses most of them before any handler runs (see
// Listen).
func DecodePaths(next http.Handler, shape Shape) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if raw := r.URL.RawPath; raw != "" {
			p, err := url.PathUnescape(raw)
			if err != nil {
				Write(w, shape, New(http.StatusBadRequest, badTargetMessage(raw, err)))
				return
			}
			r.URL.Path, r.URL.RawPath = p, ""
		}
		next.ServeHTTP(w, r)
	})
}

// badTargetMessage says what is wrong with a request target that does not
// parse.
func badTargetMessage(target string, err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ee url.EscapeError
	if errors.As(err, &ee) {
		return fmt.Sprintf("Malformed request target %q: invalid percent-encoding %q; write a literal %% as %%25", firmakit.ClipRunes(target, 200), string(ee))
	}
	return fmt.Sprintf("Malformed request target %q: %v", firmakit.ClipRunes(target, 200), err)
}
