package stdservice

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Header names of the bundled profile.
const (
	HeaderKey       = "X-Service-Key"
	HeaderTimestamp = "X-Service-Timestamp"
	HeaderSignature = "X-Service-Signature"
)

// MaxBodyBytes is the largest request body accepted (1 MiB).
const MaxBodyBytes = 1 << 20

// Labels of the authentication failures; the documents fix them word for word.
const (
	msgMissingHeaders     = "Missing headers"
	msgRequestExpired     = "Request expired"
	msgInvalidCredentials = "Invalid credentials"
	msgInvalidSignature   = "Invalid signature"
)

// Credential is one API key of a merchant.
type Credential struct {
	Key      string
	Secret   string
	Disabled bool
}

// Template is a contract template delivered out of band: its name is used in
// the create body's documents, its signer and data keys must be supplied.
type Template struct {
	Name     string
	Title    string
	Signers  []string
	DataKeys []string
}

// Merchant is one merchant of the service with its credentials, the sender
// shown in envelopes and its templates.
type Merchant struct {
	ID          string
	SenderName  string
	SenderEmail string
	Credentials []Credential
	Templates   []Template
}

// Config configures a Service. Zero durations take the documented defaults.
type Config struct {
	Merchants []Merchant
	// APIVersions are the version segments accepted on the check path;
	// empty means v1 only.
	APIVersions []string
	// WebhookURL returns the signature_webhook of a merchant; nil, or an
	// empty result, means notifications are recorded as failed.
	WebhookURL func(merchantID string) string
	// WebhookSecrets sign notifications, one v1 entry each (for rotation).
	WebhookSecrets []string
	// Now is the service's only clock; nil means time.Now.
	Now func() time.Time
	// Tolerance is how far a request timestamp may be from Now (300 s).
	Tolerance time.Duration
	// DemoDelay is the wait between the 201 and a demo notification (500 ms).
	DemoDelay time.Duration
	// RetryWaits are the waits before each retry; nil means 1, 2, 4, 8 and
	// 16 s, an empty non-nil slice means no retry.
	RetryWaits []time.Duration
	// DeliveryTimeout bounds one delivery attempt (10 s).
	DeliveryTimeout time.Duration
	// PublicURL is the base of document_url; empty means the create
	// request's scheme and Host.
	PublicURL string
	// Client sends notifications; nil means a client that does not follow
	// redirects.
	Client *http.Client
}

// DemoConfig returns the bundled demo data of defaults.md F. The webhook
// address is not part of it: set WebhookURL before use.
func DemoConfig() Config {
	arriendo := Template{
		Name:     "contrato_arriendo",
		Title:    "Contrato de arriendo",
		Signers:  []string{"signer_1", "signer_2"},
		DataKeys: []string{"nombre_arrendatario", "monto_mensual"},
	}
	return Config{
		Merchants: []Merchant{
			{
				ID:          "merchant_demo",
				SenderName:  "Comercio Demo",
				SenderEmail: "contratos@comercio-demo.test",
				Credentials: []Credential{
					{Key: "test_key_demo", Secret: "test_secret_demo"},
					{Key: "test_key_disabled", Secret: "test_secret_disabled", Disabled: true},
				},
				Templates: []Template{arriendo},
			},
			{
				ID:          "merchant_other",
				SenderName:  "Comercio Otro",
				SenderEmail: "contratos@comercio-otro.test",
				Credentials: []Credential{{Key: "test_key_other", Secret: "test_secret_other"}},
				Templates:   []Template{arriendo},
			},
		},
		APIVersions:    []string{"v1"},
		WebhookSecrets: []string{"whsec_test_demo"},
	}
}

type credential struct {
	merchantID string
	secret     string
	disabled   bool
}

// Service is the HTTP service. It is an http.Handler; Close stops the
// notifications still pending.
type Service struct {
	cfg       Config
	mux       *http.ServeMux
	client    *http.Client
	merchants map[string]*Merchant
	creds     map[string]credential
	versions  map[string]bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	documents  map[string]string // signature id of a signed contract -> title
	deliveries []*Delivery
}

// New builds a Service from cfg, filling the documented defaults. When two
// credentials share a key, the first one wins.
func New(cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = 300 * time.Second
	}
	if cfg.DemoDelay <= 0 {
		cfg.DemoDelay = 500 * time.Millisecond
	}
	if cfg.RetryWaits == nil {
		cfg.RetryWaits = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	}
	if cfg.DeliveryTimeout <= 0 {
		cfg.DeliveryTimeout = 10 * time.Second
	}
	if len(cfg.APIVersions) == 0 {
		cfg.APIVersions = []string{"v1"}
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	s := &Service{
		cfg:       cfg,
		client:    cfg.Client,
		merchants: map[string]*Merchant{},
		creds:     map[string]credential{},
		versions:  map[string]bool{},
		documents: map[string]string{},
	}
	if s.client == nil {
		s.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	for _, v := range cfg.APIVersions {
		s.versions[v] = true
	}
	for i := range cfg.Merchants {
		m := &cfg.Merchants[i]
		s.merchants[m.ID] = m
		for _, c := range m.Credentials {
			if _, dup := s.creds[c.Key]; !dup {
				s.creds[c.Key] = credential{merchantID: m.ID, secret: c.Secret, disabled: c.Disabled}
			}
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())

	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /{version}/check/{merchant}", s.handleCheck)
	s.mux.HandleFunc("POST /v1/signature/{merchant}", s.handleCreate)
	s.mux.HandleFunc("GET /demo/documents/{file}", s.handleDocument)
	return s
}

// ServeHTTP serves the API.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// Close cancels the notifications not yet delivered and waits for their
// goroutines to end. It always returns nil.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

type errorBody struct {
	StatusCode int    `json:"status_code"`
	Message    string `json:"message"`
	Field      string `json:"field,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{StatusCode: status, Message: msg})
}

// RequestSignature is the lowercase hex HMAC-SHA256 that signs a request:
// "<timestamp>\n<METHOD>\n<request target>\n<raw body>".
func RequestSignature(secret, timestamp, method, target string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	io.WriteString(mac, timestamp+"\n"+method+"\n"+target+"\n")
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// WebhookSignature is the lowercase hex HMAC-SHA256 of "<t>.<raw body>".
func WebhookSignature(secret string, t int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	io.WriteString(mac, strconv.FormatInt(t, 10)+".")
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// requestTarget is the request target as it came on the wire: the raw path
// with its raw query. An absolute-form target keeps only its path and query.
func requestTarget(r *http.Request) string {
	t := r.RequestURI
	if strings.HasPrefix(t, "/") {
		return t
	}
	if i := strings.Index(t, "://"); i >= 0 {
		rest := t[i+3:]
		if j := strings.IndexAny(rest, "/?"); j >= 0 {
			if rest[j] == '?' {
				return "/" + rest[j:]
			}
			return rest[j:]
		}
		return "/"
	}
	return r.URL.RequestURI()
}

// authenticate runs the checks of defaults.md A in their order and returns
// the raw body when they all pass; otherwise it has written the answer.
func (s *Service) authenticate(w http.ResponseWriter, r *http.Request, merchantID string) ([]byte, bool) {
	key := r.Header.Get(HeaderKey)
	ts := r.Header.Get(HeaderTimestamp)
	sig := r.Header.Get(HeaderSignature)
	if key == "" || ts == "" || sig == "" {
		writeError(w, http.StatusBadRequest, msgMissingHeaders)
		return nil, false
	}

	sec, err := strconv.ParseInt(ts, 10, 64)
	now := s.cfg.Now().Unix()
	tol := int64(s.cfg.Tolerance / time.Second)
	if err != nil || sec < now-tol || sec > now+tol {
		writeError(w, http.StatusUnauthorized, msgRequestExpired)
		return nil, false
	}

	cred, ok := s.creds[key]
	if !ok || cred.disabled || cred.merchantID != merchantID {
		writeError(w, http.StatusUnauthorized, msgInvalidCredentials)
		return nil, false
	}

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body is larger than 1 MiB")
		} else {
			writeError(w, http.StatusBadRequest, "request body could not be read")
		}
		return nil, false
	}

	got, err := hex.DecodeString(sig)
	if err != nil {
		writeError(w, http.StatusUnauthorized, msgInvalidSignature)
		return nil, false
	}
	want, _ := hex.DecodeString(RequestSignature(cred.secret, ts, r.Method, requestTarget(r), body))
	if !hmac.Equal(got, want) {
		writeError(w, http.StatusUnauthorized, msgInvalidSignature)
		return nil, false
	}
	return body, true
}

// parseObject reads body as exactly one JSON object.
func parseObject(body []byte) (map[string]json.RawMessage, string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, "request body is empty: a JSON object is required"
		}
		return nil, "request body is not valid JSON: " + err.Error()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, "request body must be a single JSON object: unexpected data after it"
	}
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '{' {
		return nil, "request body must be a JSON object"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, "request body is not valid JSON: " + err.Error()
	}
	return obj, ""
}

func (s *Service) handleCheck(w http.ResponseWriter, r *http.Request) {
	if v := r.PathValue("version"); !s.versions[v] {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown api version %q", v))
		return
	}
	body, ok := s.authenticate(w, r, r.PathValue("merchant"))
	if !ok {
		return
	}
	if _, msg := parseObject(body); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	writeJSON(w, http.StatusOK, errorBody{StatusCode: http.StatusOK, Message: "Authenticated"})
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails since Go 1.24
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

const timeLayout = "2006-01-02T15:04:05.000Z"

func (s *Service) timestamp() string {
	return s.cfg.Now().UTC().Format(timeLayout)
}

// baseURL is where this service is reached, for the links it hands out.
func (s *Service) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			host = a.String()
		}
	}
	return scheme + "://" + host
}
