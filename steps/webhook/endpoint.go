package webhook

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/google/uuid"
)

// Endpoint is a merchant's webhook endpoint under test, and what firmakit
// needs to play the service for it.
type Endpoint struct {
	// URL is where the notifications are posted: the merchant's
	// signature_webhook.
	URL string
	// Secret is the webhook secret the endpoint verifies notifications
	// with.
	Secret string
	// MerchantID is written in the notifications (default merchant_demo).
	MerchantID string
	// Profile says how notifications are written and signed (default the
	// bundled profile); its webhook.timeout is the delivery timeout.
	Profile *firmakit.Profile
	// HTTPClient posts the notifications. The default follows no
	// redirect, as the service posts to the configured URL only, and gives
	// up DeliveryGrace after the delivery timeout.
	HTTPClient *http.Client
	// Now is the clock notifications are signed with (default time.Now).
	Now func() time.Time
	// SignatureIDs are contracts the merchant's system knows, used in
	// turn as the notifications' signature_id; none: a new id each time,
	// which an endpoint that looks contracts up answers 404.
	SignatureIDs []string
	// MaxInFlight bounds the deliveries in flight at once, over every
	// scenario of a run (default DefaultMaxInFlight): the suite's
	// generated rows are many, and an endpoint is a merchant's server,
	// not a load test's target.
	MaxInFlight int

	// slots are the run's room for deliveries in flight, made by
	// Suite.Run before any scenario starts; again tells that the
	// scenarios run again alone.
	slots chan struct{}
	again bool
}

// DefaultMaxInFlight is Endpoint.MaxInFlight's default: enough that a
// run against an endpoint that takes seconds to answer lasts about its
// slowest scenario's own waits, not the sum of every delivery's. An
// answer late while other deliveries were in flight is no verdict: the
// scenario runs again alone (Suite.Run), one delivery at a time.
const DefaultMaxInFlight = 128

// makeSlots makes the run's room for deliveries in flight.
func (e *Endpoint) makeSlots() {
	e.again = false
	n := e.MaxInFlight
	if n <= 0 {
		n = DefaultMaxInFlight
	}
	e.slots = make(chan struct{}, n)
}

// slot waits for room for one more delivery in flight and returns what
// gives it back, and how many deliveries are in flight with this one;
// an error when ctx ends first.
func (e *Endpoint) slot(ctx context.Context) (release func(), crowd int, err error) {
	slots := e.slots
	if slots == nil {
		return func() {}, 1, nil
	}
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, len(slots), nil
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
}

// alone lets one delivery be in flight at a time: for the scenarios run
// again because an answer came late, or none came, while others were in
// flight, or because the endpoint could not be reached once.
func (e *Endpoint) alone() { e.slots, e.again = make(chan struct{}, 1), true }

// signatureID is the contract of a new notification: one of those
// given, at random, so that every scenario may meet each.
func (e *Endpoint) signatureID() string {
	if len(e.SignatureIDs) == 0 {
		return uuid.NewString()
	}
	return e.SignatureIDs[rand.IntN(len(e.SignatureIDs))]
}

// DeliveryGrace is how long past the delivery timeout the suite still
// waits for an answer, so that a late answer is told apart from none.
const DeliveryGrace = 2 * time.Second

// Validate reports what the endpoint lacks to run the webhook suite.
func (e *Endpoint) Validate() error {
	_, err := firmakit.ParseHTTPURL(e.URL)
	switch {
	case e.URL == "":
		return fmt.Errorf("no endpoint URL")
	case err != nil:
		return fmt.Errorf("endpoint %q is not an http(s) URL", e.URL)
	case e.Secret == "":
		return fmt.Errorf("no webhook secret: give the secret the endpoint verifies notifications with")
	}
	return nil
}

// profile is the endpoint's profile; Suite.Run sets the default
// before any scenario runs, so that scenarios only ever read it.
func (e *Endpoint) profile() *firmakit.Profile {
	if e.Profile == nil {
		return firmakit.BundledProfile()
	}
	return e.Profile
}

func (e *Endpoint) merchantID() string {
	if e.MerchantID == "" {
		return firmakit.Demo().MerchantID
	}
	return e.MerchantID
}

func (e *Endpoint) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// timeout is the profile's delivery timeout: a 2xx within it is a
// delivery.
func (e *Endpoint) timeout() time.Duration { return e.profile().Webhook.Timeout }

// endpointTransport is the default client's: an endpoint's answer
// headers are bounded (package peer); the steps keep 4 KiB of its body.
// It keeps as many idle connections to the endpoint as deliveries may be
// in flight, so that a run reuses its connections instead of opening one
// a delivery.
// No limit on idle connections in all: past net/http's default of 100,
// closing the oldest idle one broke a delivery about to reuse it
// ("putIdleConn: too many idle connections"), which a POST cannot retry.
var endpointTransport = func() *http.Transport {
	t := peer.Transport()
	t.MaxIdleConnsPerHost = DefaultMaxInFlight
	t.MaxIdleConns = 0
	return t
}()

func (e *Endpoint) client() *http.Client {
	if e.HTTPClient != nil {
		return e.HTTPClient
	}
	return &http.Client{Timeout: e.timeout() + DeliveryGrace, Transport: endpointTransport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
