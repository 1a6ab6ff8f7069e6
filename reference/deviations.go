package reference

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// Deviations are the points where a deliberately faulty service departs
// from the interface: authentication and its routes, the body checks,
// validation, the envelope, the notification's payload and signature,
// delivery timing and retries, error bodies. The correct server runs
// NopDeviations, which changes nothing; the deliberate faults (Faults)
// implement it to measure whether a conformance suite notices each
// departure. A hook is given what the correct server did and returns it,
// changed or not.
type Deviations interface {
	// Open is called by Server.Open once the server's defaults are set,
	// before its routes are made; an error stops Open.
	Open(s *Server) error
	// Auth returns the authentication middleware to use instead of the
	// correct one, and likewise CheckVersion the check path's version
	// check; Routes adds routes the service must not have.
	Auth(correct echo.MiddlewareFunc) echo.MiddlewareFunc
	CheckVersion(correct echo.MiddlewareFunc) echo.MiddlewareFunc
	Routes(e *echo.Echo, endpoints Endpoints)
	// ErrorHandler returns the error handler to use instead of correct.
	ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler

	// Body may refuse an authenticated body before check 5 reads it.
	Body(c echo.Context) error
	// CheckRefusal returns check 5's refusal on the check endpoint, nil
	// to accept the body; CheckAnswered may write the check endpoint's 200
	// itself and tells whether it did.
	CheckRefusal(c echo.Context, refusal error) error
	CheckAnswered(c echo.Context) bool

	// Request may change a create request's members before validation;
	// Waives tells whether validation skips one of its Rule checks;
	// Template stands in for a template the merchant does not have (nil:
	// none); Refusal returns the refusal to answer instead of refusal.
	Request(obj map[string]json.RawMessage)
	Waives(rule Rule) bool
	Template(name string) *firmakit.Template
	Refusal(refusal error) error

	// Envelope may change a new contract before it is stored; Created may
	// write the 201 itself and tells whether it did, with the write's error.
	Envelope(env *firmakit.Envelope)
	Created(c echo.Context, env firmakit.Envelope, req firmakit.CreateSignatureRequest) (bool, error)

	// DemoState reads a title's demo state from the correct reading;
	// DemoNotifications is how many notifications a demo title gets (n
	// is one) and DemoDelay the wait before them.
	DemoState(title string, st firmakit.State, ok bool) (firmakit.State, bool)
	DemoNotifications(n int) int
	DemoDelay(d time.Duration) time.Duration
	// Notification may change a notification before it is encoded,
	// Payload after.
	Notification(n *firmakit.Notification, env firmakit.Envelope)
	Payload(body []byte, n firmakit.Notification) []byte

	// DeliveryTimeout is how long an attempt waits for its answer.
	DeliveryTimeout(d time.Duration) time.Duration
	// Attempt may change a signed delivery request: its headers, its
	// signature, the bytes it sends; secrets are the merchant's.
	Attempt(req *http.Request, body string, secrets []string)
	// Delivered tells whether an attempt answered status counts as
	// delivered, given the correct reading ok; Retried whether an attempt
	// that was not delivered is retried, given the correct answer ok.
	Delivered(status int, ok bool) bool
	Retried(status int, err error, ok bool) bool
	// RetryWait is the wait before a retry of d, which it may change
	// (the dispatcher's lock is held).
	RetryWait(d *Delivery, wait time.Duration) time.Duration
	// Redelivery tells whether, and after how long, a delivered event is
	// delivered once more.
	Redelivery() (time.Duration, bool)
}

// Endpoints are the merchant endpoints' handlers and middleware, for
// Deviations.Routes to add them under other routes.
type Endpoints struct {
	Check, Create echo.HandlerFunc
	// Version refuses an api_version the merchant does not accept,
	// MerchantSegment a {merchant_id} that is empty or spans segments.
	Version, MerchantSegment echo.MiddlewareFunc
	// Auth is the authentication middleware in use.
	Auth echo.MiddlewareFunc
}

// Rule is a check of a create-signature request that a deviation may skip.
type Rule int

// The checks of defaults.md C that Deviations.Waives may skip.
const (
	RuleRouting      Rule = iota + 1 // routing is parallel or sequential
	RuleKnownSigner                  // each signer is a key of the templates
	RuleSignerOnce                   // each signer is listed once
	RuleSignerEmail                  // each signer's e-mail is an address
	RuleEverySigner                  // every template signer is given
	RuleSignerOrder                  // recipients are ordered signer_1, signer_2, …
	RuleEveryDataKey                 // every template data key is given
	RuleKnownDataKey                 // each data key is one of the templates'
)

// NopDeviations is the correct service: every hook returns what it is
// given. Embed it to change only some hooks.
type NopDeviations struct{}

var _ Deviations = NopDeviations{}

func (NopDeviations) Open(*Server) error                                           { return nil }
func (NopDeviations) Auth(correct echo.MiddlewareFunc) echo.MiddlewareFunc         { return correct }
func (NopDeviations) CheckVersion(correct echo.MiddlewareFunc) echo.MiddlewareFunc { return correct }
func (NopDeviations) Routes(*echo.Echo, Endpoints)                                 {}
func (NopDeviations) ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	return correct
}
func (NopDeviations) Body(echo.Context) error                          { return nil }
func (NopDeviations) CheckRefusal(_ echo.Context, refusal error) error { return refusal }
func (NopDeviations) CheckAnswered(echo.Context) bool                  { return false }
func (NopDeviations) Request(map[string]json.RawMessage)               {}
func (NopDeviations) Waives(Rule) bool                                 { return false }
func (NopDeviations) Template(string) *firmakit.Template               { return nil }
func (NopDeviations) Refusal(refusal error) error                      { return refusal }
func (NopDeviations) Envelope(*firmakit.Envelope)                      {}
func (NopDeviations) Created(echo.Context, firmakit.Envelope, firmakit.CreateSignatureRequest) (bool, error) {
	return false, nil
}
func (NopDeviations) DemoState(_ string, st firmakit.State, ok bool) (firmakit.State, bool) {
	return st, ok
}
func (NopDeviations) DemoNotifications(n int) int                             { return n }
func (NopDeviations) DemoDelay(d time.Duration) time.Duration                 { return d }
func (NopDeviations) Notification(*firmakit.Notification, firmakit.Envelope)  {}
func (NopDeviations) Payload(body []byte, _ firmakit.Notification) []byte     { return body }
func (NopDeviations) DeliveryTimeout(d time.Duration) time.Duration           { return d }
func (NopDeviations) Attempt(*http.Request, string, []string)                 {}
func (NopDeviations) Delivered(_ int, ok bool) bool                           { return ok }
func (NopDeviations) Retried(_ int, _ error, ok bool) bool                    { return ok }
func (NopDeviations) RetryWait(_ *Delivery, wait time.Duration) time.Duration { return wait }
func (NopDeviations) Redelivery() (time.Duration, bool)                       { return 0, false }
