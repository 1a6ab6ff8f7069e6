package reference

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/apierror"
	"github.com/firmakit/firmakit/internal/connlimit"
	"github.com/firmakit/firmakit/internal/graceful"
	"github.com/firmakit/firmakit/internal/guard"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/labstack/echo/v4"
)

// Defaults of a reference server; each is a field of Server.
const (
	DefaultAddr      = "127.0.0.1:8080"
	DefaultDemoDelay = 500 * time.Millisecond
	DefaultMaxBody   = 1 << 20
	DefaultMaxConns  = 1024
)

// MaxHeaderBytes bounds a request's line and headers; past it net/http
// answers 431, which the server rewrites in the API's shape.
const MaxHeaderBytes = 64 << 10

// DefaultRetrySchedule is the wait before each retry of a notification
// that was not answered 2xx (defaults.md B).
var DefaultRetrySchedule = []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}

// Server is the reference merchant service. Set its fields, then Open it;
// zero fields take the defaults above and the bundled profile and demo
// merchants.
type Server struct {
	Addr    string            // listen address; "127.0.0.1:0" picks a free port
	Profile *firmakit.Profile // what is signed and how
	Config  *Config           // merchants, credentials, templates
	// PublicURL is the base of the links the server hands out (the demo
	// document_url); it defaults to the address it listens on.
	PublicURL string
	Logger    *slog.Logger
	MaxBody   int64 // bodies over this get 413

	// DemoDelay is the wait between a 201 and its demo notification.
	DemoDelay time.Duration
	// RetrySchedule is the wait before each retry; nil takes the
	// profile's webhook.retries (else the default), an empty non-nil slice
	// disables retries.
	RetrySchedule []time.Duration
	// DeliveryTimeout bounds one delivery attempt: only a 2xx within it is
	// a delivery (default: the profile's webhook.timeout, else 10 s).
	DeliveryTimeout time.Duration
	// MaxDeliveries is how many notifications are sent at once (default
	// DefaultMaxDeliveries); the others wait in a queue, in the order they
	// became due, and are sent late: each attempt says how long it waited.
	MaxDeliveries int
	// MaxPending is how many notifications may wait at once, scheduled,
	// queued or being sent (default DefaultMaxPending); a demo
	// notification past it is not sent, recorded as failed and logged.
	MaxPending int
	// MaxKeptDeliveries is how many delivery records are kept (default
	// DefaultMaxKeptDeliveries). Past it the record that ended first is
	// dropped; when every kept record is still pending, the new record is
	// dropped instead and its notification still sent. Drops are counted
	// (DeliveryStats) and logged.
	MaxKeptDeliveries int
	// Clock is the server's one clock: request expiry, created_at, the
	// signature's t, and the pace of deliveries (demo delay, retries,
	// attempt times); default the real clock.
	Clock Clock
	// OnDelivery, when set, gets a copy of a delivery's record each time
	// it changes: once scheduled (or refused), then after every attempt.
	// It runs on the goroutine that made the change and must return soon.
	OnDelivery func(Delivery)
	// MaxConns is how many connections the server holds at once (default
	// DefaultMaxConns); past it the one idle the longest is closed, or
	// else the slowest request body (coming for 1 s at least).
	MaxConns int
	// ShutdownGrace bounds how long Close waits for pending notifications.
	ShutdownGrace time.Duration
	// HTTPClient sends the notifications.
	HTTPClient *http.Client
	// Explain adds a "diagnostic" object (firmakit.Diagnostic) to the
	// answers of requests refused by authentication, checks 1 to 4 of
	// defaults.md A: what the server received, the string to sign it
	// built and the most likely cause. Status and message are unchanged.
	// The deliberate faults of the verifier take no diagnostic.
	Explain bool
	// MaxRequests is how many received requests the log keeps (default
	// DefaultMaxRequests); see Requests.
	MaxRequests int
	// OnCreated, when set, is told of each contract created, once its 201
	// is written: 'firmakit up' passes it to the receiver, which then
	// knows each notification's delay. It runs on the request's goroutine
	// and must return soon.
	OnCreated func(merchantID, signatureID, createdAt string)
	// Token guards the inspection paths (/_sandbox/*): what the server
	// received and sent. When empty and the server may be reached from
	// outside (a PublicURL, a non-loopback listen address), Open generates
	// one. Without one, a request that came through a proxy or tunnel (it
	// carries Forwarded, X-Forwarded-For, Via…) does not reach them. The
	// API paths a merchant's client calls never need it.
	Token string
	// Deviations are the server's deliberate departures from the
	// interface (packages faults and liberties have them), for measuring
	// whether a conformance suite notices them, or passes what the
	// documents allow; nil is the correct service.
	Deviations *Deviations
	// Documents, when set, is called once by Open with the server's public
	// URL; each document it returns is served at its path (firmakit serve
	// publishes the OpenAPI document of the interface so). An error fails Open.
	Documents func(publicURL string) ([]Document, error)

	echo       *echo.Echo
	handler    http.Handler // echo behind the path decoding
	srv        *http.Server
	ln         net.Listener
	limited    *connlimit.Listener
	deliveries *dispatcher
	signatures *signatureStore
	requests   *RequestLog
	// requestsOnce makes requests, at Open or at the first call of
	// Requests, whichever comes first.
	requestsOnce sync.Once
	closeOnce    sync.Once
	conns        graceful.Tracker
	// dev is Deviations with every area set: a nil one to its no-op.
	dev Deviations
	// publicURL is the PublicURL that was given, if any: its host is
	// allowed as Host and Origin besides loopback.
	publicURL string
	// documents are what Documents returned.
	documents []Document
}

// Open starts listening synchronously, so that URL is known when it
// returns, and serves in a goroutine.
func (s *Server) Open() error {
	if s.Addr == "" {
		s.Addr = DefaultAddr
	}
	if s.Profile == nil {
		s.Profile = firmakit.BundledProfile()
	}
	if s.Config == nil {
		s.Config = DemoConfig()
	}
	for _, m := range s.Config.Merchants {
		for _, sec := range m.WebhookSecrets {
			if err := s.Profile.Webhook.CheckWebhookKey(sec, true); err != nil {
				return fmt.Errorf("merchant %s: webhook_secrets: %w", m.ID, err)
			}
		}
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	// A merchant's request and a webhook endpoint's answer reach the log.
	s.Logger = slog.New(firmakit.SafeLogs(s.Logger.Handler()))
	if s.MaxBody <= 0 {
		s.MaxBody = DefaultMaxBody
	}
	if s.DemoDelay == 0 {
		s.DemoDelay = DefaultDemoDelay
	}
	if s.RetrySchedule == nil {
		s.RetrySchedule = DefaultRetrySchedule
		if len(s.Profile.Webhook.Retries) > 0 {
			s.RetrySchedule = s.Profile.Webhook.Retries
		}
	}
	if s.DeliveryTimeout <= 0 {
		s.DeliveryTimeout = 10 * time.Second
		if s.Profile.Webhook.Timeout > 0 {
			s.DeliveryTimeout = s.Profile.Webhook.Timeout
		}
	}
	if s.ShutdownGrace <= 0 {
		s.ShutdownGrace = 5 * time.Second
	}
	if s.MaxDeliveries <= 0 {
		s.MaxDeliveries = DefaultMaxDeliveries
	}
	if s.MaxPending <= 0 {
		s.MaxPending = DefaultMaxPending
	}
	if s.MaxKeptDeliveries <= 0 {
		s.MaxKeptDeliveries = DefaultMaxKeptDeliveries
	}
	if s.Clock == nil {
		s.Clock = realClock{}
	}
	if s.MaxConns <= 0 {
		s.MaxConns = DefaultMaxConns
	}
	if err := s.openDeviations(); err != nil {
		return err
	}
	if s.HTTPClient == nil {
		// A redirect is an answer other than 2xx, to be retried, not
		// followed. What an endpoint answers costs a bounded amount
		// (package peer): its headers here, 64 KiB of body read and
		// dropped, the delivery timeout; with up to MaxDeliveries at once.
		s.HTTPClient = &http.Client{Timeout: s.DeliveryTimeout, Transport: peer.Bound(&http.Transport{
			MaxIdleConnsPerHost: s.MaxDeliveries, IdleConnTimeout: 30 * time.Second,
		}), CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("reference server: %w", err)
	}
	s.ln = ln
	if s.Token == "" && (!guard.IsLoopback(ln.Addr()) || s.PublicURL != "") {
		s.Token = guard.NewToken()
	}
	if s.PublicURL == "" {
		s.PublicURL = s.URL()
	} else {
		s.publicURL = strings.TrimRight(s.PublicURL, "/")
	}
	s.PublicURL = strings.TrimRight(s.PublicURL, "/")
	if err := s.openDocuments(); err != nil {
		ln.Close()
		return fmt.Errorf("reference server: %w", err)
	}
	s.signatures = newSignatureStore(10000)
	s.Requests()
	s.deliveries = newDispatcher(s)
	s.echo = s.routes()
	s.handler = apierror.DecodePaths(s.echo, errorBody)
	// net/http answers some malformed requests before any handler: the
	// inner listener rewrites those answers in the API's shape.
	s.limited = connlimit.Listen(apierror.Listen(ln, errorBody, MaxHeaderBytes), s.MaxConns)
	s.srv = &http.Server{Handler: s.limited.WatchBodies(s.handler), ConnContext: s.limited.ConnContext, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 30 * time.Second, MaxHeaderBytes: MaxHeaderBytes,
		ConnState: func(c net.Conn, st http.ConnState) { s.conns.Hook(c, st); s.limited.Hook(c, st) }}
	go func() {
		if err := s.srv.Serve(s.limited); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.Logger.Error("reference server stopped", "err", err)
		}
	}()
	s.Logger.Info("reference server listening", "url", s.URL())
	return nil
}

// openDeviations takes the server's deviations, the no-ops where none
// are given: the settings they change, then their Open with the seam.
func (s *Server) openDeviations() error {
	s.dev = s.Deviations.withNops()
	s.MaxBody = s.dev.Auth.MaxBody(s.MaxBody)
	s.DemoDelay = s.dev.Notification.DemoDelay(s.DemoDelay)
	s.DeliveryTimeout = s.dev.Delivery.Timeout(s.DeliveryTimeout)
	if s.dev.Open == nil {
		return nil
	}
	return s.dev.Open(Seam{s})
}

// documentURL is the link to a contract's demo document.
func (s *Server) documentURL(signatureID string) string {
	return s.PublicURL + "/demo/documents/" + signatureID + ".pdf"
}

// URL returns the base URL the server listens on.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// Handler returns the server's HTTP handler (after Open), for tests and
// benchmarks that drive it without a network.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops taking requests, then finishes pending notifications within
// ShutdownGrace; those it could not finish are logged one by one, never
// dropped silently.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.srv == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.ShutdownGrace)
		defer cancel()
		err = graceful.Shutdown(s.srv, &s.conns, 2*time.Second)
		s.deliveries.close(ctx)
	})
	return err
}

// Deliveries returns a copy of every delivery record kept, oldest first.
func (s *Server) Deliveries() []Delivery {
	out, _ := s.deliveries.page(deliveryFilter{}, 0, s.MaxKeptDeliveries)
	return out
}

// DeliveryStats tells where the server's notifications stand: waiting,
// queued, being sent, and the records kept and dropped.
func (s *Server) DeliveryStats() DeliveryStats { return s.deliveries.stats() }

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.dev.Auth.ErrorHandler(apierror.Handler(apierror.Config{Shape: errorBody, Logger: s.Logger, Echo: s.echoError, Body: errorBodyOf}))
	// The receiver's rules (package guard): without a token, only loopback
	// names and the public URL's host reach anything; the inspection
	// paths need the token when there is one, and refuse a proxied
	// request when there is none, and what a browser sends for another
	// site's page.
	g := &guard.Guard{Name: "reference server", Token: s.Token, PublicURL: s.publicURL, Self: s.URL,
		HostHint: func(string) string {
			return msgHostHint
		},
		TokenMessage: msgTokenRequired,
		ProxyHint:    msgProxyHint}
	e.Pre(g.CheckHost)
	e.Use(s.recordRequests, s.recoverer)
	inspect := []echo.MiddlewareFunc{g.RefuseCrossSite, g.RequireToken}
	auth := Auth(AuthConfig{Profile: s.Profile, Lookup: s.Config.Credential, Now: s.Clock.Now, MaxBody: s.MaxBody, Explain: s.Explain})
	auth = markAuth(s.dev.Auth.Auth(auth))
	e.POST("/:api_version/check/:merchant_id", s.handleCheck, s.dev.Auth.CheckVersion(s.requireVersion), requireMerchantSegment, auth)
	e.POST("/v1/signature/:merchant_id", s.handleCreateSignature, requireMerchantSegment, auth)
	s.dev.Auth.Routes(e, Endpoints{Check: s.handleCheck, Create: s.handleCreateSignature, NotFound: handleNotFound,
		Version: s.requireVersion, MerchantSegment: requireMerchantSegment, Auth: auth})
	e.GET("/demo/documents/:file", s.handleDemoDocument)
	e.GET("/_sandbox/deliveries", s.handleDeliveries, inspect...)
	e.GET("/_sandbox/requests", s.handleRequests, inspect...)
	e.GET("/_sandbox/queue", func(c echo.Context) error { return c.JSON(http.StatusOK, s.deliveries.stats()) }, inspect...)
	s.documentRoutes(e)
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	return e
}

// APIError is an answer of the service other than success: it is written
// as {"status_code": Status, "message": Message}; Err is the cause, for
// logs. It is the one error type of firmakit's servers.
type APIError = apierror.Error

// errorBody is the shape of every error answer of the service (defaults.md A).
func errorBody(status int, message string) any {
	return firmakit.APIResponse{StatusCode: status, Message: message}
}

// echoError words echo's own errors (no route, wrong method, body too
// large) the way the service's other answers are worded.
func (s *Server) echoError(c echo.Context, he *echo.HTTPError) *APIError {
	r := c.Request()
	switch he.Code {
	case http.StatusMethodNotAllowed:
		var allowed []string
		for _, m := range strings.Split(c.Response().Header().Get("Allow"), ",") {
			if m = strings.TrimSpace(m); m != "" && m != http.MethodOptions {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) == 0 {
			allowed = []string{"another method"}
		}
		return apierror.New(he.Code, fmt.Sprintf(msgMethodNotAllowed,
			r.Method, firmakit.ClipRunes(r.URL.Path, 200), strings.Join(allowed, ", ")))
	case http.StatusNotFound:
		return notFound(r)
	case http.StatusRequestEntityTooLarge:
		return apierror.New(he.Code, fmt.Sprintf(msgBodyTooLarge, s.MaxBody))
	}
	return nil
}

// What a client is told of a request the service's routes do not take,
// and what the inspection paths' guard says.
const (
	msgMethodNotAllowed = "Method not allowed: %s %s; this endpoint takes %s"
	msgNotFound         = "Not found: %s %s is not an endpoint of this service (it has POST /{api_version}/check/{merchant_id} and POST /v1/signature/{merchant_id})"
	msgUnknownVersion   = "Unknown api version: %q (accepted: %s)"
	msgHostHint         = "to serve another name, start it with --public-url http://<that name>:<port>"
	msgTokenRequired    = "a token is required for /_sandbox/*: send Authorization: Bearer <token> or ?token=<token> (the token is printed when the server starts)"
	msgProxyHint        = "start it with --public-url https://<the public name> (it then creates a token and prints it) or with --sandbox-token T, and send Authorization: Bearer <token>; the API paths stay open"
)

// handleNotFound answers a request for a path the service does not have.
func handleNotFound(c echo.Context) error { return notFound(c.Request()) }

// notFound is the answer to a request for a path the service does not have.
func notFound(r *http.Request) *APIError {
	return apierror.New(http.StatusNotFound, NotFoundMessage(r.Method, r.URL.Path))
}

// NotFoundMessage is the message of the answer to a method and a path
// (decoded) that are no endpoint of the service.
func NotFoundMessage(method, path string) string {
	return fmt.Sprintf(msgNotFound, method, firmakit.ClipRunes(path, 200))
}

// recoverer turns a panic into a logged 500, so that a bug answers in the
// API's shape instead of dropping the connection.
func (s *Server) recoverer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return next(c)
	}
}

func (s *Server) requireVersion(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		v := c.Param("api_version")
		if !s.Config.AcceptsVersion(v) {
			return &APIError{Status: http.StatusNotFound, Message: fmt.Sprintf(msgUnknownVersion, firmakit.ClipRunes(v, 40), strings.Join(s.Config.APIVersions, ", "))}
		}
		return next(c)
	}
}

// requireMerchantSegment answers 404 when {merchant_id} is empty or spans
// several path segments: echo's last parameter takes the rest of the path,
// so /v1/check/m/extra would otherwise reach the handler as merchant "m/extra".
func requireMerchantSegment(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if m := c.Param("merchant_id"); m == "" || strings.Contains(m, "/") {
			return notFound(c.Request())
		}
		return next(c)
	}
}
