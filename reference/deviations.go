package reference

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/labstack/echo/v4"
)

// Deviations are a server's deliberate departures from the interface, one
// small interface for each area of the service; a nil area is its no-op,
// the correct service. The deliberate faults (package faults) fill them to
// measure whether a conformance suite notices each departure, the
// liberties (package liberties) to show that it passes what the documents
// allow: one mechanism, two meanings. A hook is given what the correct
// server did and returns it, changed or not.
type Deviations struct {
	Auth         AuthDeviations
	Validation   ValidationDeviations
	Envelope     EnvelopeDeviations
	Notification NotificationDeviations
	Delivery     DeliveryDeviations
	// Open, when set, is called by Server.Open once the server's settings
	// are final and before its routes are made, with the seam the hooks
	// build on; an error stops Open.
	Open func(Seam) error
}

// AuthDeviations change what happens before an endpoint's own job: the
// body limit, authentication (checks 1 to 4 of defaults.md A), the routes,
// the error answers, and check 5 (the body as a JSON object) with the
// check endpoint's 200.
type AuthDeviations interface {
	// MaxBody is the body limit in bytes, given the server's; Open sets
	// Server.MaxBody to it.
	MaxBody(n int64) int64
	// Auth returns the authentication middleware to use instead of correct
	// (Seam.Authenticate makes one around another Verifier).
	Auth(correct echo.MiddlewareFunc) echo.MiddlewareFunc
	// CheckVersion returns the check path's version check to use instead
	// of correct; Routes adds routes the service must not have.
	CheckVersion(correct echo.MiddlewareFunc) echo.MiddlewareFunc
	Routes(e *echo.Echo, endpoints Endpoints)
	// ErrorHandler returns the error handler to use instead of correct.
	ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler
	// Body returns the authenticated body that check 5 reads, given it, or
	// a refusal of it.
	Body(c echo.Context, body []byte) ([]byte, error)
	// Check answers the check endpoint, given its body and check 5's
	// refusal (nil: the body is accepted): it returns the refusal to
	// answer, or writes the 200 itself and tells that it did.
	Check(c echo.Context, body []byte, refusal error) (bool, error)
}

// ValidationDeviations change the checks of a create-signature request
// (defaults.md C).
type ValidationDeviations interface {
	// Request may change a request's members before validation.
	Request(obj map[string]json.RawMessage)
	// Waives tells whether validation skips one of its Rule checks.
	Waives(rule Rule) bool
	// Template stands in for a template the merchant does not have (nil:
	// none).
	Template(name string) *firmakit.Template
	// Refusal returns the refusal to answer instead of refusal.
	Refusal(refusal error) error
}

// EnvelopeDeviations change a new contract and its 201 (interface §2.2).
type EnvelopeDeviations interface {
	// Envelope may change a new contract before it is stored.
	Envelope(env *firmakit.Envelope)
	// Created may write the 201 itself and tells whether it did, with the
	// write's error.
	Created(c echo.Context, env firmakit.Envelope, req firmakit.CreateSignatureRequest) (bool, error)
}

// NotificationDeviations change what a demo title gets: whether and when a
// notification is sent, and its payload (interface §6, defaults.md B and D).
type NotificationDeviations interface {
	// DemoState reads a title's demo state from the correct reading (st,
	// ok); DemoNotifications is how many notifications a demo title gets
	// (n is one).
	DemoState(title string, st firmakit.State, ok bool) (firmakit.State, bool)
	DemoNotifications(n int) int
	// DemoDelay is the wait between a 201 and its demo notification, given
	// the server's; Open sets Server.DemoDelay to it.
	DemoDelay(d time.Duration) time.Duration
	// Notification may change a notification before it is encoded,
	// Payload after.
	Notification(n *firmakit.Notification, env firmakit.Envelope)
	Payload(body []byte, n firmakit.Notification) []byte
}

// DeliveryDeviations change how a notification is delivered: its
// signature and headers, what counts as delivered, the retries
// (defaults.md B).
type DeliveryDeviations interface {
	// Timeout is how long an attempt waits for its answer, given the
	// server's; Open sets Server.DeliveryTimeout to it.
	Timeout(d time.Duration) time.Duration
	// Attempt may change a signed delivery request: its headers, its
	// signature, the bytes it sends; secrets are the merchant's.
	Attempt(req *http.Request, body string, secrets []string)
	// Delivered tells whether an attempt answered status counts as
	// delivered, given the correct reading ok; Retried whether an attempt
	// of d that was not delivered is retried, given the correct answer ok
	// (d.Attempts holds every attempt so far, that one last). A retry
	// past the server's schedule waits its last delay.
	Delivered(status int, ok bool) bool
	Retried(d *Delivery, status int, err error, ok bool) bool
	// RetryWait is the wait before a retry of d, which it may change
	// (the dispatcher's lock is held).
	RetryWait(d *Delivery, wait time.Duration) time.Duration
	// Redelivery tells whether, and after how long, a delivered event is
	// delivered once more.
	Redelivery() (time.Duration, bool)
}

// Endpoints are the merchant endpoints' handlers and middleware, for
// AuthDeviations.Routes to add them under other routes.
type Endpoints struct {
	// Check and Create are the two endpoints; NotFound answers a path the
	// service does not have.
	Check, Create, NotFound echo.HandlerFunc
	// Version refuses an api_version the merchant does not accept,
	// MerchantSegment a {merchant_id} that is empty or spans segments.
	Version, MerchantSegment echo.MiddlewareFunc
	// Auth is the authentication middleware in use.
	Auth echo.MiddlewareFunc
}

// Rule is a check of a create-signature request that a deviation may skip.
type Rule int

// The checks of defaults.md C that ValidationDeviations.Waives may skip.
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

// withNops returns the deviations with every nil area set to its no-op.
func (d *Deviations) withNops() Deviations {
	var out Deviations
	if d != nil {
		out = *d
	}
	if out.Auth == nil {
		out.Auth = NopAuthDeviations{}
	}
	if out.Validation == nil {
		out.Validation = NopValidationDeviations{}
	}
	if out.Envelope == nil {
		out.Envelope = NopEnvelopeDeviations{}
	}
	if out.Notification == nil {
		out.Notification = NopNotificationDeviations{}
	}
	if out.Delivery == nil {
		out.Delivery = NopDeliveryDeviations{}
	}
	return out
}

// NopAuthDeviations is the correct authentication: every hook returns
// what it is given. Embed it to change only some hooks; likewise the
// other Nop…Deviations.
type NopAuthDeviations struct{}

var _ AuthDeviations = NopAuthDeviations{}

func (NopAuthDeviations) MaxBody(n int64) int64                                { return n }
func (NopAuthDeviations) Auth(correct echo.MiddlewareFunc) echo.MiddlewareFunc { return correct }
func (NopAuthDeviations) CheckVersion(correct echo.MiddlewareFunc) echo.MiddlewareFunc {
	return correct
}
func (NopAuthDeviations) Routes(*echo.Echo, Endpoints) {}
func (NopAuthDeviations) ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	return correct
}
func (NopAuthDeviations) Body(_ echo.Context, body []byte) ([]byte, error) { return body, nil }
func (NopAuthDeviations) Check(_ echo.Context, _ []byte, refusal error) (bool, error) {
	return false, refusal
}

// NopValidationDeviations is the correct validation.
type NopValidationDeviations struct{}

var _ ValidationDeviations = NopValidationDeviations{}

func (NopValidationDeviations) Request(map[string]json.RawMessage) {}
func (NopValidationDeviations) Waives(Rule) bool                   { return false }
func (NopValidationDeviations) Template(string) *firmakit.Template { return nil }
func (NopValidationDeviations) Refusal(refusal error) error        { return refusal }

// NopEnvelopeDeviations is the correct envelope and 201.
type NopEnvelopeDeviations struct{}

var _ EnvelopeDeviations = NopEnvelopeDeviations{}

func (NopEnvelopeDeviations) Envelope(*firmakit.Envelope) {}
func (NopEnvelopeDeviations) Created(echo.Context, firmakit.Envelope, firmakit.CreateSignatureRequest) (bool, error) {
	return false, nil
}

// NopNotificationDeviations is the correct demo notification.
type NopNotificationDeviations struct{}

var _ NotificationDeviations = NopNotificationDeviations{}

func (NopNotificationDeviations) DemoState(_ string, st firmakit.State, ok bool) (firmakit.State, bool) {
	return st, ok
}
func (NopNotificationDeviations) DemoNotifications(n int) int                            { return n }
func (NopNotificationDeviations) DemoDelay(d time.Duration) time.Duration                { return d }
func (NopNotificationDeviations) Notification(*firmakit.Notification, firmakit.Envelope) {}
func (NopNotificationDeviations) Payload(body []byte, _ firmakit.Notification) []byte    { return body }

// NopDeliveryDeviations is the correct delivery.
type NopDeliveryDeviations struct{}

var _ DeliveryDeviations = NopDeliveryDeviations{}

func (NopDeliveryDeviations) Timeout(d time.Duration) time.Duration                   { return d }
func (NopDeliveryDeviations) Attempt(*http.Request, string, []string)                 {}
func (NopDeliveryDeviations) Delivered(_ int, ok bool) bool                           { return ok }
func (NopDeliveryDeviations) Retried(_ *Delivery, _ int, _ error, ok bool) bool       { return ok }
func (NopDeliveryDeviations) RetryWait(_ *Delivery, wait time.Duration) time.Duration { return wait }
func (NopDeliveryDeviations) Redelivery() (time.Duration, bool)                       { return 0, false }
