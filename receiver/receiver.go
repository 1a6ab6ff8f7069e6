package receiver

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/apierror"
	"github.com/firmakit/firmakit/internal/connlimit"
	"github.com/firmakit/firmakit/internal/graceful"
	"github.com/firmakit/firmakit/internal/guard"
	"github.com/labstack/echo/v4"
)

//go:embed dashboard
var dashboardFS embed.FS

// Defaults of a receiver; each is a field of Receiver.
const (
	DefaultAddr      = "127.0.0.1:8090"
	DefaultDB        = "firmakit-receiver.db"
	DefaultMaxBody   = 1 << 20
	DefaultMaxEvents = 100000
	// DefaultMaxMemory is the byte budget of an in-memory (":memory:")
	// store: past it, the oldest records are dropped.
	DefaultMaxMemory = 128 << 20
	// DefaultMaxConns is how many connections a receiver holds at once;
	// past it, the connection idle the longest, or else the slowest body,
	// is closed to make room.
	DefaultMaxConns    = 1024
	DefaultIdleTimeout = 30 * time.Second
)

// Timeouts of the receiver's HTTP server: a request's header within 10 s
// (or the idle timeout, if shorter), the whole request within 30 s, the
// answer within 30 s. A handler that needs longer (a long poll, an export,
// a delayed programmed answer) extends its own deadlines; websockets set a
// deadline per frame.
const readHeaderTimeout = 10 * time.Second

// maxHeaderBytes bounds a request's line and headers; past it net/http
// answers 431, rewritten in the API's shape.
const maxHeaderBytes = 64 << 10

// The read and write timeouts are variables only so that tests can shorten
// them; each receiver takes them at Open.
var (
	readTimeout  = 30 * time.Second
	writeTimeout = 30 * time.Second
)

// largeBody is the size from which a body waits its turn to be read:
// at most largeReaders of them are held in memory at once.
const (
	largeBody    = 64 << 10
	largeReaders = 16
	largeWait    = 10 * time.Second
)

// ErrTimeout is returned by Wait when no record matched in time.
var ErrTimeout = errors.New("no matching notification arrived in time")

// Receiver takes notifications on /hooks/{channel}, keeps them and serves
// them. Set its fields, then Open it.
type Receiver struct {
	Addr string // listen address; "127.0.0.1:0" picks a free port
	// DB is the database: a file, ":memory:", or a PostgreSQL URL
	// (postgres://…), which several receivers may share as replicas.
	DB string
	// NoNotify, on PostgreSQL, sends no NOTIFY after a committed batch:
	// only for a receiver that is its database's one replica, as the
	// others' waits and streams would not wake for its records (their
	// lists still show them).
	NoNotify bool
	Profile  *firmakit.Profile // how notifications are signed; default bundled
	// ChannelProfiles gives a channel a scheme of its own (a preset such
	// as github, or a profile file), so one receiver serves a Stripe
	// channel and a GitHub channel side by side. Other channels use Profile.
	ChannelProfiles map[string]*firmakit.Profile
	// Secrets are the webhook secrets per channel, several for rotation;
	// the channel "*" applies to every channel. Nil: the demo merchant's.
	Secrets map[string][]string
	// Strict answers 401 to every notification whose signature check is not valid.
	Strict bool
	// Token guards the dashboard, the API and the stream; hooks stay open.
	// When empty and the receiver may be reached from outside (a
	// PublicURL, a non-loopback listen address), Open generates one.
	// Without one, a request that came through a proxy or tunnel (it
	// carries Forwarded, X-Forwarded-For, Via…) reaches only the hooks.
	Token     string
	MaxBody   int64         // larger bodies get 413, recorded without the body
	MaxEvents int64         // retention: records kept at most (0: no limit)
	MaxAge    time.Duration // retention: age kept at most (0: no limit)
	// MaxBytes is retention by size: the bytes the records may take
	// (bodies, headers, indexes); past it the oldest are dropped. For a
	// file that is disk; for ":memory:" it is memory, where each 4 KiB
	// database page takes an 8 KiB allocation, so about half of it holds
	// records. 0: DefaultMaxMemory for ":memory:", no limit for a file;
	// negative: no limit.
	MaxBytes int64
	// MaxContracts is how many contract notes (POST /api/contracts) are
	// kept, the newest (default DefaultMaxContracts).
	MaxContracts int
	// MaxConns is how many connections are held at once (default
	// DefaultMaxConns); past it the one idle the longest is closed, or
	// else the slowest request body (coming for 1 s at least), so that
	// neither idle connections nor trickled bodies keep a notification
	// out. Websocket streams may take half of them at most, delayed
	// programmed answers a quarter, forwards an eighth.
	MaxConns int
	// IdleTimeout closes a keep-alive connection idle this long, and a new
	// one that has not sent its request header by then (default
	// DefaultIdleTimeout; the header wait is 10 s at most).
	IdleTimeout time.Duration
	// Now is the receiver's clock: receive times, signature timestamps
	// and retention by age. Default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// PingInterval is how often idle websockets are pinged (default 20 s).
	PingInterval time.Duration
	// StreamBuffer is how many records a websocket client may lag behind
	// before it is cut off (default 1024).
	StreamBuffer int
	// PublicURL is how senders reach the receiver; default its own URL.
	PublicURL string
	// Demo, when set, lets the dashboard create demo contracts of a state.
	Demo func(ctx context.Context, state firmakit.State) (*firmakit.Envelope, error)
	// ForwardTo, when set, is a merchant's own endpoint, reached from
	// here while it is being developed. Every notification received is
	// forwarded to it unchanged (its raw body, its signature header and
	// its Content-Type, in a POST to exactly this URL; never to a URL a
	// request names, and redirects are not followed). What the endpoint
	// answered is kept on the record (Record.Forward), and its status is
	// the answer to the sender, so that the service retries as it would in
	// production; an endpoint that cannot be reached, answers a redirect
	// or takes longer than the profile's webhook.timeout gets the sender a
	// 502 or 504, with the reason on the record. A programmed answer
	// (FailNext) still replaces the status answered. Strict cannot be set
	// with it: the endpoint decides. A body over MaxBody is not forwarded.
	// At most an eighth of MaxConns forwards wait for the endpoint at
	// once; past that a notification is stored and answered 503 at once.
	ForwardTo string
	// ForwardTimeout bounds each forward, its answer's body included: the
	// sender's answer never waits for the endpoint longer (default the
	// profile's webhook.timeout, the delivery timeout).
	ForwardTimeout time.Duration
	// AllowPrivateReplay lets a replay (POST /api/events/{id}/replay) go
	// to loopback, link-local, private, CGNAT, multicast and unspecified
	// addresses; without it those are refused (ErrPrivateDestination),
	// checked on every address a name resolves to, again when dialling. A
	// replay to the receiver itself is refused in any case
	// (ErrSelfDestination).
	AllowPrivateReplay bool
	// Requests, when set, is the log of the requests a service received,
	// shown on GET /api/requests and /api/requests/stream ('firmakit up'
	// sets the reference server's).
	Requests RequestFeed

	store     backend
	hub       *hub
	ln        *connlimit.Listener
	down      *downListener // the socket under ln, which Refuse closes a while
	upMu      sync.Mutex
	upCh      chan struct{} // closed when up again after Refuse
	srv       *http.Server
	echo      *echo.Echo
	answers   answerBook
	closeOnce sync.Once
	streams   sync.WaitGroup
	// streamsClosed, under streamsMu, is set once Close waits for the
	// streams: none is added after (openStream).
	streamsMu     sync.Mutex
	streamsClosed bool
	nstreams      atomic.Int64
	stop          chan struct{}
	conns         graceful.Tracker
	large         chan struct{} // a slot per large body being read
	pages         chan struct{} // a slot per list or export page being read and written
	backlogs      chan struct{} // a slot per stream backlog page being read and written
	delayed       chan struct{} // a slot per programmed answer being held back (delayedSlots)
	forwards      chan struct{} // a slot per forward waiting for the endpoint (forwardSlots)
	// forwardsRefused counts the notifications answered at once, not
	// forwarded, because every forward slot was taken.
	forwardsRefused atomic.Int64
	taking          taking // the notifications being taken in, for Settle
	// readTimeout and writeTimeout are the server's, taken from the
	// package's at Open.
	readTimeout, writeTimeout time.Duration
	// guard holds the Host, Origin and token rules (see newGuard).
	guard *guard.Guard
	// publicURL is the PublicURL that was given, if any: its host is
	// allowed as Host and Origin besides loopback.
	publicURL string
	// forwarder forwards notifications to ForwardTo; replayer sends
	// replays. Each dials only what its policy allows.
	forwarder, replayer *http.Client
	replays             *destinations
	// lookupIP resolves a destination's name (default the system's
	// resolver); tests replace it.
	lookupIP func(ctx context.Context, host string) ([]net.IP, error)
}

// Open opens the database, listens synchronously and serves in a goroutine.
func (rv *Receiver) Open() error {
	if err := rv.setDefaults(); err != nil {
		return err
	}
	rv.hub = newHub()
	rv.stop = make(chan struct{})
	rv.large = make(chan struct{}, largeReaders)
	rv.pages, rv.backlogs = make(chan struct{}, pageReaders), make(chan struct{}, streamReaders)
	rv.delayed = make(chan struct{}, delayedSlots(rv.MaxConns))
	rv.forwards = make(chan struct{}, forwardSlots(rv.MaxConns))
	rv.readTimeout, rv.writeTimeout = readTimeout, writeTimeout
	st, book, err := openBackend(backendConfig{dsn: rv.DB, maxEvents: rv.MaxEvents, maxAge: rv.MaxAge, maxBytes: max(rv.MaxBytes, 0),
		maxContracts: rv.MaxContracts, now: rv.Now, log: rv.Logger, published: rv.hub.publish, noNotify: rv.NoNotify})
	if err != nil {
		return fmt.Errorf("receiver: %w", err)
	}
	rv.store, rv.answers = st, book
	ln, err := net.Listen("tcp", rv.Addr)
	if err != nil {
		st.close()
		return fmt.Errorf("receiver: %w", err)
	}
	// net/http answers some malformed requests before any handler: the
	// inner listener rewrites those answers in the API's shape.
	rv.down = newDownListener(ln, func() *slog.Logger { return rv.Logger })
	rv.ln = connlimit.Listen(apierror.Listen(rv.down, errorBody, maxHeaderBytes), rv.MaxConns)
	if rv.Token == "" && (!guard.IsLoopback(ln.Addr()) || rv.publicURL != "") {
		rv.Token = guard.NewToken()
	}
	// Where the receiver sends: a replay only where its policy allows,
	// forwarding where the command line said (never to itself).
	rv.replays = &destinations{allowPrivate: rv.AllowPrivateReplay, self: rv.selfAddrs, lookupIP: rv.lookupIP}
	rv.replayer = rv.replays.client(10 * time.Second)
	if rv.ForwardTo != "" {
		forwards := &destinations{allowPrivate: true, self: rv.selfAddrs, lookupIP: rv.lookupIP}
		if err := forwards.checkURL(context.Background(), rv.ForwardTo); errors.Is(err, ErrSelfDestination) {
			ln.Close()
			st.close()
			return fmt.Errorf("receiver: forward URL %q is the receiver itself: each notification would be forwarded to itself again and again", rv.ForwardTo)
		}
		rv.forwarder = forwards.client(0)
		rv.forwarder.Transport.(*http.Transport).MaxIdleConnsPerHost = 16
	}
	if rv.PublicURL == "" {
		rv.PublicURL = rv.URL()
	}
	rv.PublicURL = strings.TrimRight(rv.PublicURL, "/")
	rv.serve()
	rv.Logger.Info("receiver listening", "url", rv.URL(), "db", RedactDB(rv.DB))
	return nil
}

// setDefaults fills what was left unset with its documented default and
// checks the URLs given.
func (rv *Receiver) setDefaults() error {
	if rv.Addr == "" {
		rv.Addr = DefaultAddr
	}
	if rv.DB == "" {
		rv.DB = DefaultDB
	}
	if rv.Profile == nil {
		rv.Profile = firmakit.BundledProfile()
	}
	if rv.Secrets == nil {
		demo := firmakit.Demo()
		rv.Secrets = map[string][]string{demo.MerchantID: demo.WebhookSecrets, demo.OtherMerchantID: demo.OtherWebhookSecrets}
	}
	if rv.MaxBody <= 0 {
		rv.MaxBody = DefaultMaxBody
	}
	if rv.Now == nil {
		rv.Now = time.Now
	}
	if rv.Logger == nil {
		rv.Logger = slog.New(slog.DiscardHandler)
	}
	// A sender's channel name and event id reach the log.
	rv.Logger = slog.New(firmakit.SafeLogs(rv.Logger.Handler()))
	if rv.PingInterval <= 0 {
		rv.PingInterval = 20 * time.Second
	}
	if rv.StreamBuffer <= 0 {
		rv.StreamBuffer = 1024
	}
	if rv.MaxBytes == 0 && rv.DB == ":memory:" {
		rv.MaxBytes = DefaultMaxMemory
	}
	if rv.MaxConns <= 0 {
		rv.MaxConns = DefaultMaxConns
	}
	if rv.IdleTimeout <= 0 {
		rv.IdleTimeout = DefaultIdleTimeout
	}
	if rv.ForwardTo != "" {
		if err := checkForwardTo(rv.ForwardTo, rv.Strict); err != nil {
			return err
		}
	}
	if rv.ForwardTimeout <= 0 {
		rv.ForwardTimeout = rv.Profile.Webhook.Timeout
	}
	if rv.PublicURL != "" {
		_, err := firmakit.ParseHTTPURL(rv.PublicURL)
		if err != nil {
			return fmt.Errorf("receiver: public URL %q is not an http(s) URL", rv.PublicURL)
		}
		rv.publicURL = strings.TrimRight(rv.PublicURL, "/")
	}
	if rv.lookupIP == nil {
		rv.lookupIP = func(ctx context.Context, host string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", host)
		}
	}
	return nil
}

// serve starts serving the routes on the receiver's listener, with its
// timeouts and connection bounds.
func (rv *Receiver) serve() {
	rv.echo = rv.routes()
	rv.srv = &http.Server{Handler: rv.ln.WatchBodies(apierror.DecodePaths(rv.echo, errorBody)), ConnContext: rv.ln.ConnContext,
		ReadHeaderTimeout: min(readHeaderTimeout, rv.IdleTimeout), ReadTimeout: rv.readTimeout,
		WriteTimeout: rv.writeTimeout, IdleTimeout: rv.IdleTimeout, MaxHeaderBytes: maxHeaderBytes,
		ConnState: func(c net.Conn, s http.ConnState) { rv.conns.Hook(c, s); rv.ln.Hook(c, s) }}
	go func() {
		if err := rv.srv.Serve(rv.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			rv.Logger.Error("receiver stopped", "err", err)
		}
	}()
}

// selfAddrs are the receiver's own listen address and public URL, which
// nothing it sends may reach.
func (rv *Receiver) selfAddrs() (net.Addr, string) {
	if rv.ln == nil {
		return nil, rv.publicURL
	}
	return rv.ln.Addr(), rv.publicURL
}

// URL returns the base URL the receiver listens on.
func (rv *Receiver) URL() string {
	if rv.ln == nil {
		return ""
	}
	return "http://" + rv.ln.Addr().String()
}

// HookURL returns the public URL senders post a channel's notifications to.
func (rv *Receiver) HookURL(channel string) string { return rv.PublicURL + "/hooks/" + channel }

// Close stops serving, ends the streams and closes the database after the
// last queued record is committed.
func (rv *Receiver) Close() error {
	var err error
	rv.closeOnce.Do(func() {
		if rv.srv == nil {
			return
		}
		close(rv.stop)
		err = graceful.Shutdown(rv.srv, &rv.conns, 2*time.Second)
		rv.streamsMu.Lock()
		rv.streamsClosed = true
		rv.streamsMu.Unlock()
		rv.hub.closeAll()
		rv.streams.Wait()
		rv.store.close()
	})
	return err
}

// Wait returns the first record, already stored or yet to come, that
// matches f, or ErrTimeout when ctx ends first.
func (rv *Receiver) Wait(ctx context.Context, f Filter) (*Record, error) {
	for {
		sub := rv.hub.subscribe(256, f.Match)
		f.Limit, f.Newest = 1, false
		found, _, err := rv.store.list(ctx, f, listBytes)
		if err != nil {
			rv.hub.unsubscribe(sub)
			if ctx.Err() != nil {
				return nil, ErrTimeout
			}
			return nil, err
		}
		if len(found) > 0 {
			rv.hub.unsubscribe(sub)
			return found[0], nil
		}
		select {
		case r, ok := <-sub.ch:
			rv.hub.unsubscribe(sub)
			if ok {
				sub.took(r)
				return r, nil
			}
			select {
			case <-rv.stop:
				return nil, errors.New("receiver closed")
			default:
			}
			// Cut off for lagging: look in storage again.
		case <-ctx.Done():
			rv.hub.unsubscribe(sub)
			return nil, ErrTimeout
		}
	}
}

// List returns stored records matching f: at most f.Limit of them, and
// fewer when their bodies pass 32 MiB (page on with AfterID).
func (rv *Receiver) List(ctx context.Context, f Filter) ([]*Record, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	recs, _, err := rv.store.list(ctx, f, listBytes)
	return recs, err
}

// NoteContract tells the receiver when a contract was created, so that its
// notifications show the delay since then.
func (rv *Receiver) NoteContract(ctx context.Context, signatureID, createdAt string) error {
	if _, err := time.Parse(time.RFC3339Nano, createdAt); err != nil {
		return fmt.Errorf("created_at %q is not an RFC 3339 time", createdAt)
	}
	return rv.store.noteContract(ctx, signatureID, createdAt)
}

// Count returns how many records are stored.
func (rv *Receiver) Count(ctx context.Context) (int64, error) { return rv.store.count(ctx) }

// extend gives a call that legitimately runs long d more than the usual
// deadlines. The read deadline matters too: when it passes, the server
// ends the request's context, even with the body long read.
func (rv *Receiver) extend(c echo.Context, d time.Duration) {
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Now().Add(d + rv.readTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(d + rv.writeTimeout))
}

func (rv *Receiver) secretsFor(channel string) []string {
	return append(append([]string(nil), rv.Secrets[channel]...), rv.Secrets["*"]...)
}

// profileFor returns the profile a channel's notifications are signed
// under: its own from ChannelProfiles, else the receiver's.
func (rv *Receiver) profileFor(channel string) *firmakit.Profile {
	if p := rv.ChannelProfiles[channel]; p != nil {
		return p
	}
	return rv.Profile
}

// checkSignature checks a notification's signature under the channel's profile.
// When that is not the receiver's own profile, the reason starts with the
// scheme's name, so a record says which scheme judged it.
// It also names the key that verified a valid one.
func (rv *Receiver) checkSignature(channel string, req *http.Request, body []byte) (string, string, string) {
	p := rv.profileFor(channel)
	secrets := rv.secretsFor(channel)
	v, why, key := rv.checkSignatureUnder(p, channel, rv.asSent(req), body, secrets)
	if p != rv.Profile && why != "" {
		why = p.Name + ": " + why
	}
	by := ""
	if key >= 0 {
		by = p.KeyName(secrets[key])
	}
	return v, why, by
}

// asSent is the request as its sender addressed it, for a signature
// that covers the URL (RFC 9421): behind the PublicURL that was given,
// that URL and the request target; else the request as received.
func (rv *Receiver) asSent(req *http.Request) *http.Request {
	if rv.publicURL == "" {
		return req
	}
	u, err := url.Parse(rv.publicURL + firmakit.RequestTarget(req))
	if err != nil {
		return req
	}
	r := *req
	r.URL = u
	return &r
}

func (rv *Receiver) checkSignatureUnder(p *firmakit.Profile, channel string, req *http.Request, body []byte, secrets []string) (string, string, int) {
	w := p.Webhook
	if strings.TrimSpace(req.Header.Get(w.SignatureHeader)) == "" {
		return CheckMissing, "no " + w.SignatureHeader + " header", -1
	}
	if len(secrets) == 0 {
		return CheckUnverified, "no webhook secret is known for channel " + channel, -1
	}
	key, err := p.VerifyWebhookRequest(req, body, secrets, rv.Now())
	switch {
	case err == nil && !w.HasTimestamp():
		return CheckValid, "replay cannot be judged: " + p.Name + " signs no timestamp", key
	case err == nil:
		return CheckValid, "", key
	case errors.Is(err, firmakit.ErrMalformedHeader), errors.Is(err, firmakit.ErrMissingHeaders):
		return CheckInvalid, err.Error(), -1
	case errors.Is(err, firmakit.ErrTooNew):
		return CheckInvalid, "future timestamp: " + strings.TrimPrefix(err.Error(), firmakit.ErrExpired.Error()+": "), -1
	case errors.Is(err, firmakit.ErrMalformedTimestamp):
		return CheckInvalid, "malformed header: " + strings.TrimPrefix(err.Error(), firmakit.ErrExpired.Error()+": "), -1
	case errors.Is(err, firmakit.ErrTooOld):
		return CheckInvalid, "stale timestamp: " + strings.TrimPrefix(err.Error(), firmakit.ErrExpired.Error()+": "), -1
	default:
		return CheckInvalid, "no matching signature: " + strings.TrimPrefix(err.Error(), firmakit.ErrInvalidSignature.Error()+": "), -1
	}
}

func (rv *Receiver) handleHook(c echo.Context) error {
	req := c.Request()
	taken := rv.taking.begin(time.Now())
	defer taken()
	channel := c.Param("channel")
	if channel == "" || len(channel) > 200 || !utf8.ValidString(channel) {
		return apiError(http.StatusBadRequest, msgChannel)
	}
	if req.ContentLength < 0 || req.ContentLength >= largeBody && req.ContentLength <= rv.MaxBody {
		release, err := rv.largeSlot(req)
		if release == nil {
			return err
		}
		defer release()
	}
	rec, a, err := rv.readHook(req, channel)
	if err != nil {
		return err
	}
	insertCtx := req.Context()
	if a.status == http.StatusOK && rv.ForwardTo != "" {
		if release, ok := rv.forwardSlot(); ok {
			// The endpoint's answer is the answer; the record is kept even
			// when the sender gives up waiting for it.
			rv.extend(c, rv.ForwardTimeout)
			rec.Forward, a.status = rv.forward(req.Context(), channel, req.Header, rec.Body)
			release()
			a.err = rec.Forward.Error
			var cancel context.CancelFunc
			insertCtx, cancel = context.WithTimeout(context.WithoutCancel(req.Context()), 10*time.Second)
			defer cancel()
			rv.logForward(channel, rec)
		} else {
			rec.Forward = &Forward{URL: rv.ForwardTo, Error: fmt.Sprintf(msgTooManyForwards, cap(rv.forwards))}
			a.status, a.err = http.StatusServiceUnavailable, rec.Forward.Error
		}
	}
	if a.status == http.StatusOK || rec.Forward != nil {
		if err := rv.judge(req.Context(), rec, &a); err != nil {
			return err
		}
	}
	if a.delay > 0 {
		release := rv.delaySlot(&a)
		defer release()
	}
	rec.Status = a.status
	if a.hangUp {
		rec.Status = 0
	}
	rec.headerJSON, _ = json.Marshal(rec.Header)
	rec.wire = &lazyJSON{}
	err = rv.store.insert(insertCtx, rec)
	taken()
	if err != nil {
		rv.Logger.Error("notification not stored", "channel", channel, "err", err)
		return apiError(http.StatusServiceUnavailable, msgNotStored)
	}
	return rv.answerHook(c, rec, a)
}

// hookAnswer is what a notification is answered: a status and the error
// said with it, or a delay first, or no answer at all (hangUp).
type hookAnswer struct {
	status int
	err    string
	delay  time.Duration
	hangUp bool
	reset  bool // hang up with a TCP RST
}

// delayedSlots is how many programmed answers may be held back at once: a
// quarter of the connections. A request being answered is never closed
// to make room (connlimit), so without a cap of their own, delayed
// answers to a flood of notifications on one channel (1,040 posts to a
// channel that delays each 20 s) would hold every connection, and a
// notification on another channel or /healthz would not get in. With
// streams taking half at most and forwards an eighth (forwardSlots), an
// eighth stays for everything else.
func delayedSlots(maxConns int) int { return max(maxConns/4, 1) }

// forwardSlots is how many forwards may wait for the endpoint at once:
// an eighth of the connections. A forward holds its sender's connection
// until the endpoint answers or the forward timeout passes, and a request
// being answered is never closed to make room (connlimit), so without a
// cap of their own, 1,100 notifications forwarded to an endpoint that
// never answers would hold every connection for 10 s, and a notification
// on another channel would not get in. With streams taking half at most
// and delayed answers a quarter, an eighth stays for everything else.
func forwardSlots(maxConns int) int { return max(maxConns/8, 1) }

// forwardSlot takes a slot for a forward, without waiting, and returns
// its release; false when every slot is taken (counted for /api/stats).
func (rv *Receiver) forwardSlot() (func(), bool) {
	select {
	case rv.forwards <- struct{}{}:
		return func() { <-rv.forwards }, true
	default:
		rv.forwardsRefused.Add(1)
		return nil, false
	}
}

// delaySlot takes a slot for a's delay, without waiting, and returns its
// release. When every slot is taken, a is answered at once instead: 503,
// saying why (a sender retries it as it would a delay past its timeout).
func (rv *Receiver) delaySlot(a *hookAnswer) func() {
	select {
	case rv.delayed <- struct{}{}:
		return func() { <-rv.delayed }
	default:
		*a = hookAnswer{status: http.StatusServiceUnavailable, err: fmt.Sprintf(msgTooManyDelayed, cap(rv.delayed))}
		return func() {}
	}
}

// largeSlot waits for one of the few slots large bodies are read in, so
// that memory stays bounded however many senders there are. It returns
// the slot's release, or nil and the answer (none when the sender left).
func (rv *Receiver) largeSlot(req *http.Request) (func(), error) {
	t := time.NewTimer(largeWait)
	defer t.Stop()
	select {
	case rv.large <- struct{}{}:
		return func() { <-rv.large }, nil
	case <-t.C:
		return nil, apiError(http.StatusServiceUnavailable, msgBusyReading)
	case <-req.Context().Done():
		return nil, nil
	}
}

// readHook reads a notification into its record: the request as sent, its
// body (or why it was not kept), the signature's check under the
// channel's scheme and the fields the API filters by.
func (rv *Receiver) readHook(req *http.Request, channel string) (*Record, hookAnswer, error) {
	// The path exactly as sent: routing saw it decoded.
	path, _, _ := strings.Cut(firmakit.RequestTarget(req), "?")
	rec := &Record{
		Channel: channel, Method: req.Method, Path: path, Query: req.URL.RawQuery,
		Header: req.Header.Clone(), ReceivedAt: rv.Now().UTC(), RemoteAddr: req.RemoteAddr,
	}
	a := hookAnswer{status: http.StatusOK}
	body, n, tooLarge, err := readLimited(req, rv.MaxBody)
	switch {
	case tooLarge:
		rec.BodyDropped, rec.Size, rec.Body = true, n, []byte{}
		rec.Check, rec.Reason = CheckInvalid, fmt.Sprintf(reasonBodyTooLarge, rv.MaxBody)
		a.status, a.err = http.StatusRequestEntityTooLarge, fmt.Sprintf(msgBodyTooLarge, rv.MaxBody)
	case err != nil:
		return nil, a, apiError(http.StatusBadRequest, msgBodyUnreadable+err.Error())
	default:
		rec.Body, rec.Size = body, int64(len(body))
		rec.Check, rec.Reason, rec.VerifiedBy = rv.checkSignature(channel, req, body)
		if n, _, derr := rv.Profile.DecodeNotification(body); derr == nil {
			rec.EventID, rec.SignatureID, rec.State, rec.CreatedAt = indexed(n.EventID), indexed(n.SignatureID), indexed(string(n.Status)), indexed(n.CreatedAt)
		}
	}
	return rec, a, nil
}

// judge sets the answer of a notification otherwise taken: 401 for a bad
// signature under --strict, else the channel's programmed answer if one
// applies (a rule that cannot be read is a 503: never a 2xx it may not be).
func (rv *Receiver) judge(ctx context.Context, rec *Record, a *hookAnswer) error {
	if rv.Strict && rec.Check != CheckValid {
		a.status, a.err = http.StatusUnauthorized, "signature "+rec.Check+": "+rec.Reason
		return nil
	}
	p, ok, err := rv.answers.take(ctx, rec.Channel, rec.SignatureID)
	if err != nil {
		rv.Logger.Error("programmed answers not read", "channel", rec.Channel, "err", err)
		return apiError(http.StatusServiceUnavailable, msgNotStored)
	}
	if ok {
		a.status, a.delay, a.hangUp, a.reset = p.Status, p.Delay, p.HangUp, p.Reset
	}
	return nil
}

// answerHook answers a stored notification: after its delay, with its
// status and {"received": id}, or by closing the connection.
func (rv *Receiver) answerHook(c echo.Context, rec *Record, a hookAnswer) error {
	if a.delay > 0 {
		rv.extend(c, a.delay)
		select {
		case <-time.After(a.delay):
		case <-c.Request().Context().Done():
			return nil
		}
	}
	if a.hangUp {
		// No answer at all: the sender sees the connection close.
		if conn, _, err := http.NewResponseController(c.Response()).Hijack(); err == nil {
			if a.reset {
				resetOnClose(conn)
			}
			conn.Close()
			return nil
		}
		panic(http.ErrAbortHandler)
	}
	out := map[string]any{"received": rec.ID}
	if a.err != "" {
		out["error"] = a.err
	}
	if rec.Forward != nil {
		out["forward"] = rec.Forward
	}
	if !bodyAllowed(a.status) {
		return c.NoContent(a.status)
	}
	return c.JSON(a.status, out)
}

// bodyAllowed tells whether an answer of status may carry a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// logForward says what the endpoint did with a forwarded notification.
func (rv *Receiver) logForward(channel string, rec *Record) {
	f := rec.Forward
	log := rv.Logger.With("channel", channel, "event_id", rec.EventID, "url", f.URL, "latency_ms", f.LatencyMS)
	switch {
	case f.Error != "":
		log.Warn("notification not delivered to the endpoint", "status", f.Status, "err", f.Error)
	case f.Status < 200 || f.Status > 299:
		log.Warn("the endpoint refused a notification", "status", f.Status, "check", rec.Check)
	default:
		log.Info("notification forwarded", "status", f.Status, "check", rec.Check)
	}
}

// indexed bounds what is extracted from an untrusted body for indexing.
func indexed(s string) string { return firmakit.ClipBytes(s, 200) }

// readLimited reads at most limit bytes of the body; on a larger body it
// reports the size seen (the Content-Length when given).
func readLimited(req *http.Request, limit int64) ([]byte, int64, bool, error) {
	if req.ContentLength > limit {
		n, _ := io.Copy(io.Discard, io.LimitReader(req.Body, 64<<20))
		if n < req.ContentLength {
			n = req.ContentLength
		}
		return nil, n, true, nil
	}
	if req.ContentLength >= 0 {
		// One allocation of the announced size; the server stops the body
		// there.
		b := make([]byte, req.ContentLength)
		if _, err := io.ReadFull(req.Body, b); err != nil {
			return nil, 0, false, err
		}
		return b, int64(len(b)), false, nil
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
	if err != nil {
		return nil, 0, false, err
	}
	if int64(len(b)) > limit {
		n, _ := io.Copy(io.Discard, io.LimitReader(req.Body, 64<<20))
		return nil, int64(len(b)) + n, true, nil
	}
	return b, int64(len(b)), false, nil
}

func dashboardAssets() fs.FS {
	sub, err := fs.Sub(dashboardFS, "dashboard")
	if err != nil {
		panic(err)
	}
	return sub
}

// resetOnClose makes closing conn send a TCP RST rather than a FIN: with
// SO_LINGER 0, the kernel drops what is unsent and resets the connection.
// Under TLS or a wrapper (connlimit), the connection underneath is reset.
func resetOnClose(conn net.Conn) {
	for {
		w, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		conn = w.NetConn()
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
}
