package receiver

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/httpserve"
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
)

// ErrTimeout is returned by Wait when no record matched in time.
var ErrTimeout = errors.New("no matching notification arrived in time")

// Receiver takes notifications on /hooks/{channel}, keeps them and serves
// them. Set its fields, then Open it.
type Receiver struct {
	Addr    string            // listen address; "127.0.0.1:0" picks a free port
	DB      string            // database file, or ":memory:"
	Profile *firmakit.Profile // how notifications are signed; default bundled
	// Secrets are the webhook secrets per channel, several for rotation;
	// the channel "*" applies to every channel. Nil: the demo merchant's.
	Secrets map[string][]string
	// Strict answers 401 to every notification whose verdict is not valid.
	Strict bool
	// Token guards the dashboard and the API. When empty and the receiver
	// listens on a non-loopback address, Open generates one.
	Token     string
	MaxBody   int64         // larger bodies get 413, recorded without the body
	MaxEvents int64         // retention: records kept at most (0: no limit)
	MaxAge    time.Duration // retention: age kept at most (0: no limit)
	Now       func() time.Time
	Logger    *slog.Logger
	// PingInterval is how often idle websockets are pinged (default 20 s).
	PingInterval time.Duration
	// StreamBuffer is how many records a websocket client may lag behind
	// before it is cut off (default 1024).
	StreamBuffer int
	// PublicURL is how senders reach the receiver; default its own URL.
	PublicURL string
	// Demo, when set, lets the dashboard create demo contracts of a state.
	Demo func(ctx context.Context, state firmakit.State) (*firmakit.Envelope, error)

	store     *store
	hub       *hub
	ln        net.Listener
	srv       *http.Server
	echo      *echo.Echo
	answers   sync.Map // channel -> *answerRule
	closeOnce sync.Once
	streams   sync.WaitGroup
	stop      chan struct{}
	conns     httpserve.Tracker
}

// Open opens the database, listens synchronously and serves in a goroutine.
func (rv *Receiver) Open() error {
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
		rv.Secrets = map[string][]string{"merchant_demo": {"whsec_test_demo"}}
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
	if rv.PingInterval <= 0 {
		rv.PingInterval = 20 * time.Second
	}
	if rv.StreamBuffer <= 0 {
		rv.StreamBuffer = 1024
	}
	rv.hub = newHub()
	rv.stop = make(chan struct{})
	st, err := openStore(rv.DB, rv.MaxEvents, rv.MaxAge, rv.Now, rv.hub.publish)
	if err != nil {
		return fmt.Errorf("receiver: %w", err)
	}
	rv.store = st
	ln, err := net.Listen("tcp", rv.Addr)
	if err != nil {
		st.close()
		return fmt.Errorf("receiver: %w", err)
	}
	rv.ln = ln
	if rv.Token == "" && !isLoopback(ln.Addr()) {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		rv.Token = hex.EncodeToString(b)
	}
	if rv.PublicURL == "" {
		rv.PublicURL = rv.URL()
	}
	rv.PublicURL = strings.TrimRight(rv.PublicURL, "/")
	rv.echo = rv.routes()
	rv.srv = &http.Server{Handler: rv.echo, ReadHeaderTimeout: 10 * time.Second, ConnState: rv.conns.Hook}
	go func() {
		if err := rv.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			rv.Logger.Error("receiver stopped", "err", err)
		}
	}()
	rv.Logger.Info("receiver listening", "url", rv.URL(), "db", rv.DB)
	return nil
}

func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
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
		err = httpserve.Shutdown(rv.srv, &rv.conns, 2*time.Second)
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
		found, err := rv.store.list(ctx, f)
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

// List returns stored records matching f.
func (rv *Receiver) List(ctx context.Context, f Filter) ([]*Record, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	return rv.store.list(ctx, f)
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

// answerRule is a programmed answer of a channel.
type answerRule struct {
	mu        sync.Mutex
	Status    int    `json:"status"`
	Delay     string `json:"delay,omitempty"`
	Remaining int    `json:"remaining"` // 0: until cleared
	delay     time.Duration
}

// take returns the programmed status and delay for one request, if any.
func (rv *Receiver) take(channel string) (int, time.Duration, bool) {
	v, ok := rv.answers.Load(channel)
	if !ok {
		return 0, 0, false
	}
	r := v.(*answerRule)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Remaining < 0 {
		return 0, 0, false
	}
	if r.Remaining > 0 {
		r.Remaining--
		if r.Remaining == 0 {
			r.Remaining = -1
			rv.answers.CompareAndDelete(channel, r)
		}
	}
	return r.Status, r.delay, true
}

func (rv *Receiver) secretsFor(channel string) []string {
	return append(append([]string(nil), rv.Secrets[channel]...), rv.Secrets["*"]...)
}

// verdict checks a notification's signature under the profile.
func (rv *Receiver) verdict(channel string, h http.Header, body []byte) (string, string) {
	sig := h.Get(rv.Profile.Webhook.SignatureHeader)
	if strings.TrimSpace(sig) == "" {
		return VerdictMissing, "no " + rv.Profile.Webhook.SignatureHeader + " header"
	}
	secrets := rv.secretsFor(channel)
	if len(secrets) == 0 {
		return VerdictUnverified, "no webhook secret is known for channel " + channel
	}
	err := rv.Profile.VerifyWebhook(sig, body, secrets, rv.Now())
	switch {
	case err == nil:
		return VerdictValid, ""
	case errors.Is(err, firmakit.ErrMalformedHeader):
		return VerdictInvalid, err.Error()
	case errors.Is(err, firmakit.ErrExpired):
		detail := strings.TrimPrefix(err.Error(), firmakit.ErrExpired.Error()+": ")
		if strings.Contains(detail, "future") {
			return VerdictInvalid, "future timestamp: " + detail
		}
		if strings.Contains(detail, "not a Unix time") {
			return VerdictInvalid, "malformed header: " + detail
		}
		return VerdictInvalid, "stale timestamp: " + detail
	default:
		return VerdictInvalid, "no matching signature: " + strings.TrimPrefix(err.Error(), firmakit.ErrInvalidSignature.Error()+": ")
	}
}

func (rv *Receiver) handleHook(c echo.Context) error {
	req := c.Request()
	channel := c.Param("channel")
	if channel == "" || len(channel) > 200 || !utf8.ValidString(channel) {
		return apiError(http.StatusBadRequest, "the channel must be 1 to 200 bytes of UTF-8: /hooks/{channel}")
	}
	rec := &Record{
		Channel: channel, Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery,
		Header: req.Header.Clone(), ReceivedAt: rv.Now().UTC(), RemoteAddr: req.RemoteAddr,
	}
	status := http.StatusOK
	var answerErr string
	body, n, tooLarge, err := readLimited(req, rv.MaxBody)
	switch {
	case tooLarge:
		rec.BodyDropped, rec.Size, rec.Body = true, n, []byte{}
		rec.Verdict, rec.Reason = VerdictInvalid, fmt.Sprintf("body over the %d-byte limit, not kept", rv.MaxBody)
		status, answerErr = http.StatusRequestEntityTooLarge, fmt.Sprintf("body too large: the limit is %d bytes", rv.MaxBody)
	case err != nil:
		return apiError(http.StatusBadRequest, "the body could not be read: "+err.Error())
	default:
		rec.Body, rec.Size = body, int64(len(body))
		rec.Verdict, rec.Reason = rv.verdict(channel, req.Header, body)
		if n, _, derr := rv.Profile.DecodeNotification(body); derr == nil {
			rec.EventID, rec.SignatureID, rec.State, rec.CreatedAt = clip(n.EventID), clip(n.SignatureID), clip(string(n.Status)), clip(n.CreatedAt)
		}
	}
	var delay time.Duration
	if status == http.StatusOK {
		if rv.Strict && rec.Verdict != VerdictValid {
			status, answerErr = http.StatusUnauthorized, "signature "+rec.Verdict+": "+rec.Reason
		} else if st, d, ok := rv.take(channel); ok {
			status, delay = st, d
		}
	}
	rec.Status = status
	rec.headerJSON, _ = json.Marshal(rec.Header)
	rec.wire = &lazyJSON{}
	if err := rv.store.insert(req.Context(), rec); err != nil {
		rv.Logger.Error("notification not stored", "channel", channel, "err", err)
		return apiError(http.StatusServiceUnavailable, "the notification could not be stored; send it again")
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
			return nil
		}
	}
	out := map[string]any{"received": rec.ID}
	if answerErr != "" {
		out["error"] = answerErr
	}
	return c.JSON(status, out)
}

// clip bounds what is extracted from an untrusted body for indexing.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

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
