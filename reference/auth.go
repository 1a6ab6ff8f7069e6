package reference

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// AuthConfig configures the authentication middleware.
type AuthConfig struct {
	// Profile names the headers and the string to sign; default: bundled.
	Profile *firmakit.Profile
	// Lookup finds credentials by key id. Required.
	Lookup firmakit.CredentialLookup
	// Now is the server's clock; default time.Now.
	Now func() time.Time
	// MaxBody is the largest body read, in bytes; default 1 MiB. A larger
	// one is answered 413 before anything parses it.
	MaxBody int64
	// MerchantParam is the path parameter naming the merchant; default "merchant_id".
	MerchantParam string
	// Explain adds a firmakit.Diagnostic to the context of a request
	// refused by checks 1 to 4 (Diagnostic returns it), for the error
	// handler to add to the answer. It never changes the answer's status
	// nor its message.
	Explain bool
}

// errNoLookup is why Auth refuses a configuration without Lookup.
var errNoLookup = errors.New("reference: AuthConfig.Lookup is required: Auth cannot find credentials without it")

type ctxKey string

const (
	bodyKey       ctxKey = "firmakit.body"
	credentialKey ctxKey = "firmakit.credential"
	diagnosticKey ctxKey = "firmakit.diagnostic"
	authRanKey    ctxKey = "firmakit.auth_ran"
)

// Verifier runs checks 1 to 4 of defaults.md A on the request of c at
// now and returns the credential that signed it. read returns the body,
// read once within the body limit; the checks call it once the headers,
// the time and the credentials have passed. A refusal is an error of
// firmakit's request verification (ErrMissingHeaders, ErrExpired,
// ErrInvalidCredentials, ErrInvalidSignature), answered with its label,
// or an *APIError, answered as it is.
type Verifier func(c echo.Context, now time.Time, read func() ([]byte, error)) (firmakit.Credential, error)

// Auth returns echo middleware that runs checks 1 to 4 of defaults.md A
// in order and answers the first failure with its status and exact label.
// The body is read only after the headers, the time and the credentials
// have passed; the endpoints get it with the credential. It panics when
// cfg.Lookup is nil, so that a server without credentials cannot start.
func Auth(cfg AuthConfig) echo.MiddlewareFunc {
	if cfg.Lookup == nil {
		panic(errNoLookup)
	}
	cfg = cfg.withDefaults()
	return cfg.middleware(func(c echo.Context, now time.Time, read func() ([]byte, error)) (firmakit.Credential, error) {
		r := c.Request()
		return cfg.Profile.VerifyRequest(r.Method, firmakit.RequestTarget(r), c.Param(cfg.MerchantParam),
			r.Header, cfg.Lookup, now, read)
	})
}

// withDefaults fills the zero fields of cfg with their defaults.
func (cfg AuthConfig) withDefaults() AuthConfig {
	if cfg.Profile == nil {
		cfg.Profile = firmakit.BundledProfile()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MerchantParam == "" {
		cfg.MerchantParam = "merchant_id"
	}
	return cfg
}

// middleware is authentication by verify: the body read within MaxBody,
// a refusal answered with its label (and explained when cfg.Explain is
// set), the body and the credential kept for the endpoints.
func (cfg AuthConfig) middleware(verify Verifier) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			var body []byte
			bodyRead := false
			read := func() ([]byte, error) {
				b, err := readBody(c.Response(), r, cfg.MaxBody)
				body, bodyRead = b, err == nil
				return b, err
			}
			now := cfg.Now()
			cred, err := verify(c, now, read)
			if err != nil {
				if cfg.Explain {
					cfg.explain(c, err, now, body, bodyRead)
				}
				return authError(err)
			}
			c.Set(string(bodyKey), body)
			c.Set(string(credentialKey), cred)
			return next(c)
		}
	}
}

// requestBody returns the body the authentication middleware read, as
// the body deviations left it.
func requestBody(c echo.Context) []byte {
	b, _ := c.Get(string(bodyKey)).([]byte)
	return b
}

// What a client is told of a body the service does not read.
const (
	msgBodyOverLimit  = "Request body too large: %d bytes, the limit is %d bytes"
	msgBodyTooLarge   = "Request body too large: the limit is %d bytes"
	msgBodyUnreadable = "Request body could not be read: "
)

// readBody reads a request body of at most limit bytes; a larger one is
// an *APIError 413, a body that cannot be read a 400.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &APIError{Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf(msgBodyOverLimit, r.ContentLength, limit)}
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &APIError{Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf(msgBodyTooLarge, limit)}
	case err != nil:
		return nil, &APIError{Status: http.StatusBadRequest, Message: msgBodyUnreadable + err.Error(), Err: err}
	}
	return b, nil
}

// authError maps a verification error to its answer: the exact label of
// defaults.md A, with the detail kept for logs only.
func authError(err error) error {
	var api *APIError
	if errors.As(err, &api) {
		return api
	}
	if r, ok := firmakit.RefusalOf(err); ok {
		return &APIError{Status: r.Status, Message: r.Label(), Err: err}
	}
	return &APIError{Status: http.StatusUnauthorized, Message: firmakit.ErrInvalidSignature.Error(), Err: err}
}
