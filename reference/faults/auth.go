package faults

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/labstack/echo/v4"
)

// authFaults are the faults' AuthDeviations: authentication (checks 1
// to 4 of defaults.md A), the body limit and check 5, the error answers,
// and the merchant endpoints' methods and paths.
type authFaults struct{ *service }

var _ reference.AuthDeviations = authFaults{}

// Values the auth faults put where a correct server puts something else.
const (
	faultyMaxBody      = 64 << 20 // "no limit": far above any request the suite sends
	faultySmallMaxBody = 512 << 10
)

// ---- the verifier ----

// verifierFaults change how a request is verified; any of them swaps the
// correct checks for verify.
var verifierFaults = []string{
	faultAuthEmptyHeaderAccepted, faultAuthMissingHeaders401, faultAuthMissingHeaderLabel,
	faultAuthFutureTimestampAccepted, faultAuthOldTimestampAccepted, faultAuthTolerance600s, faultAuthTolerance60s,
	faultAuthTimestampMilliseconds, faultAuthTimestampLenient, faultAuthDisabledKeyAccepted,
	faultAuthOtherMerchantKeyAccepted, faultAuthUnknownKeyInvalidSignature, faultAuthUppercaseSignatureRefused,
	faultAuthMethodNotSigned, faultAuthQueryNotSigned, faultAuthTargetDecoded, faultAuthBodyReserialised,
	faultAuthTimestampNotSigned, faultAuthSignaturePrefixCompared, faultAuthSignatureBeforeCredentials,
	faultAuthCredentialsBeforeTimestamp, faultAuthTimestampBeforeHeaders, faultAuthJSONBeforeSignature,
	faultAuthMerchantCaseless, faultAuthTimestampLeadingZero, faultAuthTimestampSpacesIgnored,
}

// Auth returns auth unchanged unless a fault changes verification; then
// it returns the server's authentication around verify, so that a correct
// server never runs this code.
func (s authFaults) Auth(auth echo.MiddlewareFunc) echo.MiddlewareFunc {
	for _, f := range verifierFaults {
		if s.fault(f) {
			return s.seam.Authenticate(s.verify(s.faultSigningProfile()))
		}
	}
	if s.fault(faultNotification201Held) {
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			inner := auth(next)
			return func(c echo.Context) error {
				err := inner(c)
				// The answer waits in the server's buffer until the handler
				// returns: hold a demo contract's 201 past its notification.
				if !isCheck(c) && c.Response().Status == http.StatusCreated && s.heldTitle(c) {
					time.Sleep(s.seam.DemoDelay() + heldPast)
				}
				return err
			}
		}
	}
	if s.fault(faultAuthKeyPrefixMatched) || s.fault(faultAuthSignatureCleaned) || s.fault(faultAuthChunkedUnlimited) {
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			inner := auth(next)
			return func(c echo.Context) error {
				if err := s.beforeAuth(c.Request()); err != nil {
					return err
				}
				return inner(c)
			}
		}
	}
	if s.fault(faultAuthKeyCaseInsensitive) {
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			inner := auth(next)
			return func(c echo.Context) error {
				s.caselessKey(c.Request())
				return inner(c)
			}
		}
	}
	return auth
}

// heldPast is how long after its demo notification the 201-held fault
// lets a 201 go.
const heldPast = 200 * time.Millisecond

// heldTitle tells whether the create request in c has a demo title.
func (s authFaults) heldTitle(c echo.Context) bool {
	body := s.seam.RequestBody(c)
	var req struct {
		Title string `json:"title"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	_, ok := firmakit.DemoState(req.Title)
	return ok
}

// beforeAuth changes a request before the correct authentication reads
// it, as the faults that misread it do: a key that starts with a known key
// written as that key (the key is not signed, so the request verifies), a
// signature header cleaned of a prefix and white space, and the body
// limit applied to Content-Length only (MaxBody lifts the server's).
func (s authFaults) beforeAuth(r *http.Request) error {
	p := s.seam.Profile()
	switch {
	case s.fault(faultAuthKeyPrefixMatched):
		key := r.Header.Get(p.Request.KeyHeader)
		cfg := s.seam.Config()
		if _, ok := cfg.Credential(key); ok || key == "" {
			return nil
		}
		for _, m := range cfg.Merchants {
			for _, c := range m.Credentials {
				if strings.HasPrefix(key, c.KeyID) {
					r.Header.Set(p.Request.KeyHeader, c.KeyID)
					return nil
				}
			}
		}
	case s.fault(faultAuthSignatureCleaned):
		sig := r.Header.Get(p.Request.SignatureHeader)
		if i := strings.LastIndexAny(sig, "=:"); i >= 0 && i < len(sig)-1 {
			sig = sig[i+1:]
		}
		sig = strings.Join(strings.Fields(sig), "")
		if sig != "" {
			r.Header.Set(p.Request.SignatureHeader, sig)
		}
	case s.fault(faultAuthChunkedUnlimited) && r.ContentLength > reference.DefaultMaxBody:
		return &reference.APIError{Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("Request body too large: the limit is %d bytes", reference.DefaultMaxBody)}
	}
	return nil
}

// caselessKey writes a key header that names a known key in another case
// as that key: the lookup of the key-case fault. The key is not signed, so
// the request verifies as before.
func (s authFaults) caselessKey(r *http.Request) {
	h := s.seam.Profile().Request.KeyHeader
	key := r.Header.Get(h)
	cfg := s.seam.Config()
	if _, ok := cfg.Credential(key); ok || key == "" {
		return
	}
	for _, m := range cfg.Merchants {
		for _, c := range m.Credentials {
			if strings.EqualFold(c.KeyID, key) {
				r.Header.Set(h, c.KeyID)
				return
			}
		}
	}
}

// verify is checks 1 to 4 of defaults.md A with the verifier faults (and
// check 5 when it is moved), each one switchable, in an order the faults
// may change. The HMAC is the root package's, under signing: the profile
// with the parts the faults leave out of the string to sign cut from it.
func (s authFaults) verify(signing *firmakit.Profile) reference.Verifier {
	return func(c echo.Context, now time.Time, read func() ([]byte, error)) (firmakit.Credential, error) {
		v := &verification{authFaults: s, signing: signing, c: c, now: now, read: read}
		v.auth, v.headerErr = s.seam.Profile().RequestAuthFrom(c.Request().Header)
		steps := []struct {
			name string
			run  func() error
		}{{"headers", v.headers}, {"timestamp", v.timestamp}, {"credentials", v.credentials}, {"signature", v.signature}}
		swap := func(x, y string) {
			var i, j int
			for k, st := range steps {
				switch st.name {
				case x:
					i = k
				case y:
					j = k
				}
			}
			steps[i], steps[j] = steps[j], steps[i]
		}
		if s.fault(faultAuthTimestampBeforeHeaders) {
			swap("headers", "timestamp")
		}
		if s.fault(faultAuthCredentialsBeforeTimestamp) {
			swap("timestamp", "credentials")
		}
		if s.fault(faultAuthSignatureBeforeCredentials) {
			swap("credentials", "signature")
		}
		for _, st := range steps {
			if err := st.run(); err != nil {
				return firmakit.Credential{}, err
			}
		}
		return v.cred, nil
	}
}

// verification is one request's checks under the verifier faults.
type verification struct {
	authFaults
	signing   *firmakit.Profile
	c         echo.Context
	now       time.Time
	read      func() ([]byte, error)
	auth      firmakit.RequestAuth
	headerErr error
	// cred is the credential the credentials check found; credDone tells
	// that it ran.
	cred     firmakit.Credential
	credDone bool
}

// headers is check 1.
func (v *verification) headers() error {
	r := v.c.Request()
	if v.headerErr == nil || (v.fault(faultAuthEmptyHeaderAccepted) && headersPresent(r.Header, v.seam.Profile())) {
		return nil
	}
	api := &reference.APIError{Status: http.StatusBadRequest, Message: firmakit.ErrMissingHeaders.Error(), Err: v.headerErr}
	if v.fault(faultAuthMissingHeaders401) {
		api.Status = http.StatusUnauthorized
	}
	if v.fault(faultAuthMissingHeaderLabel) {
		api.Message = "Missing header"
	}
	return api
}

// timestamp is check 2.
func (v *verification) timestamp() error { return v.faultyTimestamp(v.auth.Timestamp, v.now) }

// credentials is check 3.
func (v *verification) credentials() error {
	merchant := v.c.Param("merchant_id")
	cr, ok := v.seam.Config().Credential(v.auth.KeyID)
	switch {
	case !ok && v.fault(faultAuthUnknownKeyInvalidSignature):
		return fmt.Errorf("%w: unknown key", firmakit.ErrInvalidSignature)
	case !ok:
		return fmt.Errorf("%w: unknown key", firmakit.ErrInvalidCredentials)
	case cr.Disabled && !v.fault(faultAuthDisabledKeyAccepted):
		return fmt.Errorf("%w: key is disabled", firmakit.ErrInvalidCredentials)
	case cr.MerchantID != merchant && !v.fault(faultAuthOtherMerchantKeyAccepted) &&
		!(v.fault(faultAuthMerchantCaseless) && strings.EqualFold(cr.MerchantID, merchant)):
		return fmt.Errorf("%w: key belongs to another merchant", firmakit.ErrInvalidCredentials)
	}
	v.cred, v.credDone = cr, true
	return nil
}

// signature is check 4, with check 5 before it under its fault.
func (v *verification) signature() error {
	r := v.c.Request()
	body, err := v.read()
	if err != nil {
		return err
	}
	if v.fault(faultAuthJSONBeforeSignature) {
		if _, err := v.seam.JSONObject(r, body); err != nil {
			return err
		}
	}
	cr := v.cred
	if !v.credDone { // the signature is checked before the credentials
		var ok bool
		if cr, ok = v.seam.Config().Credential(v.auth.KeyID); !ok {
			return fmt.Errorf("%w: no secret for an unknown key", firmakit.ErrInvalidSignature)
		}
	}
	target := firmakit.RequestTarget(r)
	if v.fault(faultAuthTargetDecoded) {
		target = firmakit.DecodeRequestTarget(target)
	}
	if v.fault(faultAuthBodyReserialised) {
		body = reserialised(body)
	}
	want := v.signing.RequestSignature(cr.Secret, firmakit.RequestParts{
		Timestamp: v.auth.Timestamp, Method: r.Method, RequestTarget: target, KeyID: v.auth.KeyID, Body: body})
	if !v.faultySameSignature(want, v.auth.Signature) {
		return fmt.Errorf("%w: signature does not match the request", firmakit.ErrInvalidSignature)
	}
	return nil
}

// headersPresent tells whether the three headers are sent, be their
// values empty.
func headersPresent(h http.Header, p *firmakit.Profile) bool {
	for _, name := range []string{p.Request.KeyHeader, p.Request.TimestampHeader, p.Request.SignatureHeader} {
		if len(h.Values(name)) == 0 {
			return false
		}
	}
	return true
}

// faultyTimestamp is check 2 with the timestamp faults; nil when it passes.
func (s authFaults) faultyTimestamp(ts string, now time.Time) error {
	tol := s.seam.Profile().Request.Tolerance
	switch {
	case s.fault(faultAuthTolerance600s):
		tol = 600 * time.Second
	case s.fault(faultAuthTolerance60s):
		tol = 60 * time.Second
	}
	read := ts
	if s.fault(faultAuthTimestampSpacesIgnored) {
		read = strings.ReplaceAll(ts, " ", "")
	}
	digits := strings.TrimLeft(read, "0")
	sec, ok := int64(0), read != "" && len(digits) <= 18
	if s.fault(faultAuthTimestampLeadingZero) && len(digits) < len(read) {
		ok = false
	}
	for i := 0; ok && i < len(read); i++ {
		ok = '0' <= read[i] && read[i] <= '9'
	}
	if ok {
		sec, _ = strconv.ParseInt(digits, 10, 64)
	} else if s.fault(faultAuthTimestampLenient) {
		f, err := strconv.ParseFloat(strings.TrimSpace(ts), 64)
		if ok = err == nil && !math.IsNaN(f) && math.Abs(f) < 1e17; ok {
			sec = int64(f)
		}
	}
	if !ok {
		return fmt.Errorf("%w: timestamp %q is not a Unix time in seconds", firmakit.ErrExpired, firmakit.ClipRunes(ts, 40))
	}
	if s.fault(faultAuthTimestampMilliseconds) && sec >= 1e11 {
		sec /= 1000
	}
	skew, t := now.Unix()-sec, int64(tol/time.Second)
	switch {
	case skew > t && !s.fault(faultAuthOldTimestampAccepted):
		return fmt.Errorf("%w: timestamp is %ds old (tolerance %ds)", firmakit.ErrExpired, skew, t)
	case -skew > t && !s.fault(faultAuthFutureTimestampAccepted):
		return fmt.Errorf("%w: timestamp is %ds in the future (tolerance %ds)", firmakit.ErrExpired, -skew, t)
	}
	return nil
}

// faultSigningProfile returns the profile with the parts the faults leave
// out of the string to sign cut from it.
func (s authFaults) faultSigningProfile() *firmakit.Profile {
	p := *s.seam.Profile()
	p.Request.StringToSign = nil
	for _, part := range s.seam.Profile().Request.StringToSign {
		switch {
		case part == firmakit.PartMethod && s.fault(faultAuthMethodNotSigned),
			part == firmakit.PartTimestamp && s.fault(faultAuthTimestampNotSigned):
			continue
		case part == firmakit.PartRequestTarget && s.fault(faultAuthQueryNotSigned):
			part = firmakit.PartPath
		}
		p.Request.StringToSign = append(p.Request.StringToSign, part)
	}
	return &p
}

// faultySameSignature compares the expected and the sent signature as
// strings, in constant time, with the comparison faults.
func (s authFaults) faultySameSignature(want, got string) bool {
	norm := func(x string) string {
		switch strings.ToLower(s.seam.Profile().Request.Encoding) {
		case "hex":
			if !s.fault(faultAuthUppercaseSignatureRefused) {
				x = strings.ToLower(x)
			}
		default:
			x = strings.TrimRight(x, "=")
		}
		return x
	}
	w, g := norm(want), norm(got)
	if s.fault(faultAuthSignaturePrefixCompared) && len(w) >= 16 && len(g) >= 16 {
		w, g = w[:16], g[:16]
	}
	return subtle.ConstantTimeCompare([]byte(w), []byte(g)) == 1
}

// reserialised decodes a JSON body and encodes it again; a body that is
// not JSON stays as it is.
func reserialised(body []byte) []byte {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return body
	}
	b, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return b
}

// ---- bodies and error answers ----

// MaxBody is the body limit under the body-limit faults.
func (s authFaults) MaxBody(n int64) int64 {
	switch {
	case s.fault(faultAuthNoBodyLimit), s.fault(faultAuthChunkedUnlimited):
		return faultyMaxBody
	case s.fault(faultAuthBodyLimit512K):
		return faultySmallMaxBody
	case s.fault(faultAuthCreateBodyLimit2MiB):
		return 2 * reference.DefaultMaxBody
	}
	return n
}

// ErrorHandler returns the error handler with the error-body faults: the
// correct answer is written into a buffer, then its status and message
// are written again as the faults change them.
func (s authFaults) ErrorHandler(correct echo.HTTPErrorHandler) echo.HTTPErrorHandler {
	if !s.fault(faultAuthErrorStatusCodeMismatch) && !s.fault(faultAuthErrorTextPlain) {
		return correct
	}
	return func(err error, c echo.Context) {
		status, _, body, ok := s.seam.ErrorAnswer(correct, err, c)
		if !ok {
			return
		}
		var api firmakit.APIResponse
		if json.Unmarshal(body, &api) != nil {
			api.Message = http.StatusText(status)
		}
		code := status
		if s.fault(faultAuthErrorStatusCodeMismatch) {
			code = http.StatusBadRequest
		}
		b, _ := json.Marshal(firmakit.APIResponse{StatusCode: code, Message: api.Message})
		ct := echo.MIMEApplicationJSON
		if s.fault(faultAuthErrorTextPlain) {
			ct = echo.MIMETextPlainCharsetUTF8
		}
		_ = c.Blob(status, ct, append(b, '\n'))
	}
}

// Check gets the refusal of check 5 on the check endpoint and returns
// it, nil when a fault accepts the body, or an internal error; the 200 is
// the correct server's.
func (s authFaults) Check(_ echo.Context, body []byte, err error) (bool, error) {
	var api *reference.APIError
	if !errors.As(err, &api) || api.Status != http.StatusBadRequest || errors.Is(err, reference.ErrNotJSONContentType) {
		return false, err
	}
	valid := json.Valid(body)
	switch {
	case valid && s.fault(faultAuthNonObjectAccepted), !valid && s.fault(faultAuthNonJSONAccepted):
		return false, nil
	case !valid && s.fault(faultAuthTrailingDataAccepted) && firstValueIsObject(body):
		return false, nil
	case !valid && s.fault(faultAuthInvalidJSON500):
		return false, fmt.Errorf("check body: %s", api.Message) // not an *reference.APIError: answered 500
	}
	return false, err
}

// firstValueIsObject tells whether a body starts with a whole JSON object,
// whatever follows it.
func firstValueIsObject(body []byte) bool {
	var obj map[string]json.RawMessage
	return json.NewDecoder(bytes.NewReader(body)).Decode(&obj) == nil && obj != nil
}

// Body refuses, before check 5 reads it, a body or a Content-Type that
// the body faults refuse although it is valid, or gives check 5 the JSON
// that a JSON5 reader makes of the body.
func (s authFaults) Body(c echo.Context, body []byte) ([]byte, error) {
	ct := c.Request().Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	switch {
	case s.fault(faultAuthContentTypeExact) && ct != "" && ct != "application/json":
		return nil, &reference.APIError{Status: http.StatusBadRequest, Err: reference.ErrNotJSONContentType,
			Message: fmt.Sprintf("Content-Type %q is not application/json", firmakit.ClipRunes(ct, 80))}
	case s.fault(faultAuthContentTypeCase) && ct != "" && strings.TrimSpace(mt) != strings.ToLower(strings.TrimSpace(mt)):
		return nil, &reference.APIError{Status: http.StatusBadRequest, Err: reference.ErrNotJSONContentType,
			Message: fmt.Sprintf("Content-Type %q is not application/json", firmakit.ClipRunes(ct, 80))}
	case s.fault(faultAuthBodyPaddingRefused) && len(body) > 0 && body[0] != '{':
		return nil, bad("Body must start with {")
	case s.fault(faultAuthCreateBodyLimit2MiB) && isCheck(c) && int64(len(body)) > reference.DefaultMaxBody:
		return nil, &reference.APIError{Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("Request body too large: the limit is %d bytes", reference.DefaultMaxBody)}
	}
	if s.fault(faultAuthEscapedKeysUnread) && !isCheck(c) && escapedKey.Match(body) {
		return nil, bad("title is required")
	}
	if s.fault(faultAuthRawControlsAccepted) && !json.Valid(body) {
		if fixed := rawControls.ReplaceAll(body, []byte(" ")); json.Valid(fixed) {
			return fixed, nil
		}
	}
	if (s.fault(faultAuthCheckJSON5Accepted) && isCheck(c)) || (s.fault(faultAuthCreateJSON5Accepted) && !isCheck(c)) {
		if !json.Valid(body) {
			if plain, ok := fromJSON5(body); ok {
				return plain, nil
			}
		}
	}
	return body, nil
}

// escapedKey finds a JSON key written with an escape; rawControls the
// control characters JSON allows only escaped.
var (
	escapedKey  = regexp.MustCompile(`"[^"]*\\u[0-9a-fA-F]{4}[^"]*"\s*:`)
	rawControls = regexp.MustCompile(`[\x00-\x1f]`)
)

// isCheck tells whether a request is to the check endpoint.
func isCheck(c echo.Context) bool { return strings.Contains(c.Path(), "/check/") }

// fromJSON5 rewrites what a JSON5 reader takes as JSON: comments out,
// trailing commas out, single-quoted strings double-quoted, NaN as 0.
func fromJSON5(b []byte) ([]byte, bool) {
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(b) && b[j] != c {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return nil, false
			}
			inner := b[i+1 : j]
			if c == '\'' {
				inner = bytes.ReplaceAll(inner, []byte(`"`), []byte(`\"`))
			}
			out.WriteByte('"')
			out.Write(inner)
			out.WriteByte('"')
			i = j
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return nil, false
			}
			i += end + 3
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == ',':
			rest := bytes.TrimLeft(b[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
			out.WriteByte(c)
		case c == 'N' && bytes.HasPrefix(b[i:], []byte("NaN")):
			out.WriteByte('0')
			i += 2
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes(), json.Valid(out.Bytes())
}

// ---- routes ----

// otherMethods are the methods the merchant endpoints must not answer as
// they answer POST.
var otherMethods = []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete}

// CheckVersion returns the check path's version check, or under its fault
// a check that lets every version through.
func (s authFaults) CheckVersion(check echo.MiddlewareFunc) echo.MiddlewareFunc {
	if s.fault(faultAuthCheckAnyAPIVersion) {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	return check
}

// Routes adds the routes of the faults on methods and paths: the
// merchant endpoints under other methods, the create endpoint under any
// version segment (the validation faults of the path). echo prefers the
// static /v1/signature route, so a correct request still takes it.
func (s authFaults) Routes(e *echo.Echo, ep reference.Endpoints) {
	if s.fault(faultAuthMerchantCutAtSlash) {
		// The same routes again, which replaces them, with the merchant
		// segment read up to a slash its encoding hid.
		e.POST("/:api_version/check/:merchant_id", ep.Check, ep.Version, cutAtSlash, ep.MerchantSegment, ep.Auth)
		e.POST("/v1/signature/:merchant_id", ep.Create, cutAtSlash, ep.MerchantSegment, ep.Auth)
	}
	if s.fault(faultAuthCheckAnyMethod) {
		e.Match(otherMethods, "/:api_version/check/:merchant_id", ep.Check, ep.Version, ep.MerchantSegment, ep.Auth)
	}
	if s.fault(faultAuthCreateAnyMethod) {
		e.Match(otherMethods, "/v1/signature/:merchant_id", ep.Create, ep.MerchantSegment, ep.Auth)
	}
	switch {
	case s.fault(faultValidationCreateAnyVersion):
		e.POST("/:api_version/signature/:merchant_id", ep.Create, ep.MerchantSegment, ep.Auth)
	case s.fault(faultValidationOtherVersionDemo):
		e.POST("/:api_version/signature/:merchant_id", createThenNotFound(ep.Create, ep.NotFound), ep.MerchantSegment, ep.Auth)
	}
}

// cutAtSlash reads the merchant segment up to its first slash, decoded
// from %2F.
func cutAtSlash(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for i, name := range c.ParamNames() {
			if name == "merchant_id" {
				values := c.ParamValues()
				values[i], _, _ = strings.Cut(values[i], "/")
				c.SetParamValues(values...)
			}
		}
		return next(c)
	}
}

// createThenNotFound makes the contract as the create endpoint does, its
// notification included, and throws its answer away for a 404.
func createThenNotFound(create, notFound echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		w := c.Response().Writer
		c.Response().Writer = discardWriter{header: http.Header{}}
		err := create(c)
		c.Response().Writer = w
		c.Response().Committed, c.Response().Status, c.Response().Size = false, 0, 0
		if err != nil {
			return err
		}
		return notFound(c)
	}
}

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
func (d discardWriter) Flush()                      {}
