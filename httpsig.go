package firmakit

// HTTP Message Signatures (RFC 9421) over requests, with the hmac-sha256
// and ed25519 algorithms, and the Content-Digest field (RFC 9530) that
// lets such a signature cover the body. The Structured Field dictionaries
// of Signature-Input, Signature and Content-Digest (RFC 8941, now RFC
// 9651) are parsed and written by github.com/dunglas/httpsfv, not by hand.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
)

// The signature algorithms of RFC 9421 §3.3 that firmakit signs and
// verifies with, as the alg parameter names them.
const (
	HTTPSigHMACSHA256 = "hmac-sha256"
	HTTPSigEd25519    = "ed25519"
)

// HTTPSigKey is one key of an RFC 9421 signature.
type HTTPSigKey struct {
	ID      string             // keyid; "" when the key has none
	Alg     string             // HTTPSigHMACSHA256 or HTTPSigEd25519
	Secret  []byte             // hmac-sha256
	Private ed25519.PrivateKey // ed25519, to sign (verifying may use it too: derive the public key)
	Public  ed25519.PublicKey  // ed25519, to verify
}

// HTTPSigMessage is the request the covered components are read from.
type HTTPSigMessage struct {
	Method string
	URL    *url.URL // the absolute target URI (scheme, host, path, query)
	Header http.Header
}

// HTTPSigOptions says what HTTPSigSign covers and which signature
// parameters it writes, in the order created, expires, keyid, nonce, alg,
// tag (keyid comes from the key).
type HTTPSigOptions struct {
	Label      string    // dictionary key, "sig1" when empty
	Components []string  // covered component identifiers, e.g. "@method", "@path", "content-digest", "content-type"
	Created    time.Time // written as created=<unix>; zero: omitted
	Expires    time.Time // zero: omitted
	Nonce, Tag string    // omitted when empty
	WriteAlg   bool      // write the alg parameter (RFC B.2.5/B.2.6 do not)
}

// HTTPSigVerifyOptions says which signature HTTPSigVerify looks at and what
// it must cover.
type HTTPSigVerifyOptions struct {
	Label     string        // only this signature; "" any signature in the headers
	Required  []string      // components that must be covered (e.g. "@method", "@path", "content-digest"); a signature covering fewer is refused
	Tolerance time.Duration // |now - created| must be within it; 0: created not required nor checked
	Now       time.Time     // the clock; zero: time.Now()
	// InputHeader and SignatureHeader name the two fields; defaults
	// "Signature-Input", "Signature".
	InputHeader, SignatureHeader string
}

// HTTPSigResult tells which signature verified and with which key.
type HTTPSigResult struct {
	Label   string
	KeyID   string // the keyid parameter, "" when none
	Key     int    // index in keys of the key that verified
	Created time.Time
}

const (
	httpSigDefaultLabel = "sig1"
	// httpSigMaxHeader bounds what is parsed of Signature-Input and
	// Signature, as the webhook headers are bounded.
	httpSigMaxHeader = 8192
)

// The known Content-Digest algorithms (RFC 9530 §5, the "standard" ones).
var contentDigestAlgs = []struct {
	name string
	sum  func([]byte) []byte
}{
	{"sha-256", func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }},
	{"sha-512", func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }},
}

// ContentDigest is the Content-Digest value of body: sha-256=:<base64>:
func ContentDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
}

// CheckContentDigest checks a Content-Digest value against body (RFC 9530):
// sha-256 and sha-512 are known; at least one known algorithm must be
// present, and every known one must match; unknown algorithms are ignored.
// Errors wrap ErrMalformedHeader (not a dictionary, value not a byte
// sequence, no known algorithm) or ErrInvalidSignature (digest mismatch),
// naming the algorithm.
func CheckContentDigest(v string, body []byte) error {
	if len(v) > httpSigMaxHeader {
		return fmt.Errorf("%w: Content-Digest is %d bytes long", ErrMalformedHeader, len(v))
	}
	d, err := httpsfv.UnmarshalDictionary([]string{v})
	if err != nil {
		return fmt.Errorf("%w: Content-Digest is not a structured-field dictionary: %v", ErrMalformedHeader, err)
	}
	known := 0
	for _, alg := range contentDigestAlgs {
		m, ok := d.Get(alg.name)
		if !ok {
			continue
		}
		known++
		item, isItem := m.(httpsfv.Item)
		got, isBytes := item.Value.([]byte)
		if !isItem || !isBytes {
			return fmt.Errorf("%w: Content-Digest %s is not a byte sequence (:base64:)", ErrMalformedHeader, alg.name)
		}
		if !bytes.Equal(got, alg.sum(body)) {
			return fmt.Errorf("%w: Content-Digest %s does not match the body", ErrInvalidSignature, alg.name)
		}
	}
	if known == 0 {
		names := d.Names()
		if len(names) == 0 {
			return fmt.Errorf("%w: Content-Digest is empty (want sha-256 or sha-512)", ErrMalformedHeader)
		}
		return fmt.Errorf("%w: Content-Digest has no known algorithm (want sha-256 or sha-512, got %s)", ErrMalformedHeader, ClipBytes(strings.Join(names, ", "), 80))
	}
	return nil
}

// HTTPSigBase is the signature base (RFC 9421 §2.5) of m for the covered
// components and the serialized signature parameters (the inner list with
// its parameters, as in Signature-Input after "label="). params must list
// exactly components; it is parsed and written again as RFC 8941
// serializes it, as a verifier does. It returns an error when a component
// is not supported or not lower-case, is given twice, or is absent from m.
func HTTPSigBase(m HTTPSigMessage, components []string, params string) (string, error) {
	l, err := httpsfv.UnmarshalList([]string{params})
	if err != nil || len(l) != 1 {
		return "", fmt.Errorf("signature parameters %q are not one inner list", ClipBytes(params, 80))
	}
	il, ok := l[0].(httpsfv.InnerList)
	if !ok {
		return "", fmt.Errorf("signature parameters %q are not an inner list", ClipBytes(params, 80))
	}
	listed, err := innerListComponents(il)
	if err != nil {
		return "", err
	}
	if !slices.Equal(listed, components) {
		return "", fmt.Errorf("signature parameters cover (%s), components are (%s)", strings.Join(listed, " "), strings.Join(components, " "))
	}
	ser, err := httpsfv.Marshal(il)
	if err != nil {
		return "", fmt.Errorf("signature parameters: %v", err)
	}
	return signatureBase(m, components, ser)
}

// HTTPSigSign returns the Signature-Input and Signature header values.
// It returns an error when the label, a component or a parameter cannot be
// written, when a covered component is absent from m, or when the key is
// not usable for its algorithm.
func HTTPSigSign(m HTTPSigMessage, o HTTPSigOptions, k HTTPSigKey) (input, signature string, err error) {
	label := o.Label
	if label == "" {
		label = httpSigDefaultLabel
	}
	for i, c := range o.Components {
		if err := checkComponent(c); err != nil {
			return "", "", err
		}
		if slices.Contains(o.Components[:i], c) {
			return "", "", fmt.Errorf("component %q is covered twice", c)
		}
	}
	items := make([]httpsfv.Item, len(o.Components))
	for i, c := range o.Components {
		items[i] = httpsfv.NewItem(c)
	}
	p := httpsfv.NewParams()
	if !o.Created.IsZero() {
		p.Add("created", o.Created.Unix())
	}
	if !o.Expires.IsZero() {
		p.Add("expires", o.Expires.Unix())
	}
	if k.ID != "" {
		p.Add("keyid", k.ID)
	}
	if o.Nonce != "" {
		p.Add("nonce", o.Nonce)
	}
	if o.WriteAlg {
		p.Add("alg", k.Alg)
	}
	if o.Tag != "" {
		p.Add("tag", o.Tag)
	}
	il := httpsfv.InnerList{Items: items, Params: p}
	params, err := httpsfv.Marshal(il)
	if err != nil {
		return "", "", fmt.Errorf("signature parameters cannot be written: %v", err)
	}
	in := httpsfv.NewDictionary()
	in.Add(label, il)
	if input, err = httpsfv.Marshal(in); err != nil {
		return "", "", fmt.Errorf("label %q is not a structured-field key (lower-case letters, digits, _ - . *): %v", label, err)
	}
	base, err := signatureBase(m, o.Components, params)
	if err != nil {
		return "", "", err
	}
	var sig []byte
	switch k.Alg {
	case HTTPSigHMACSHA256:
		if len(k.Secret) == 0 {
			return "", "", errors.New("hmac-sha256 key has no secret")
		}
		sig = httpSigMAC(k.Secret, base)
	case HTTPSigEd25519:
		if len(k.Private) != ed25519.PrivateKeySize {
			return "", "", fmt.Errorf("ed25519 private key is %d bytes, want %d", len(k.Private), ed25519.PrivateKeySize)
		}
		sig = ed25519.Sign(k.Private, []byte(base))
	default:
		return "", "", fmt.Errorf("key algorithm %q is not supported (want %s or %s)", k.Alg, HTTPSigHMACSHA256, HTTPSigEd25519)
	}
	out := httpsfv.NewDictionary()
	out.Add(label, httpsfv.NewItem(sig))
	if signature, err = httpsfv.Marshal(out); err != nil {
		return "", "", err
	}
	return input, signature, nil
}

// HTTPSigVerify verifies the RFC 9421 signatures of m with keys. When
// o.Label is "", any signature of the headers may verify; the first in
// order that does is returned. A keyid parameter selects the keys with that
// ID, or, when no key has it, the keys without ID; an alg parameter skips
// the keys of another algorithm. Errors wrap ErrMissingHeaders (a header, or
// the signature labelled o.Label, is absent), ErrMalformedHeader (a
// dictionary does not parse, the labels of the two headers differ, a
// component is not supported, a required component is not covered, a
// covered field is absent from m, created or expires is not an integer),
// ErrTooOld or ErrTooNew (created outside o.Tolerance, expires past) or
// ErrInvalidSignature (no key verifies). With several signatures and none
// verifying, the first one's error is returned.
//
// HTTPSigVerify has no body: when "content-digest" is covered, the caller
// checks the Content-Digest header against the body with
// CheckContentDigest, else the signature proves nothing of the body.
func HTTPSigVerify(m HTTPSigMessage, keys []HTTPSigKey, o HTTPSigVerifyOptions) (HTTPSigResult, error) {
	inName, sigName := o.InputHeader, o.SignatureHeader
	if inName == "" {
		inName = "Signature-Input"
	}
	if sigName == "" {
		sigName = "Signature"
	}
	inVals, sigVals := headerLines(m.Header, inName), headerLines(m.Header, sigName)
	var missing []string
	if IsBlank(strings.Join(inVals, "")) {
		missing = append(missing, inName)
	}
	if IsBlank(strings.Join(sigVals, "")) {
		missing = append(missing, sigName)
	}
	if len(missing) > 0 {
		return HTTPSigResult{}, fmt.Errorf("%w: %s", ErrMissingHeaders, strings.Join(missing, ", "))
	}
	inputs, err := parseSigDictionary(inName, inVals)
	if err != nil {
		return HTTPSigResult{}, err
	}
	sigs, err := parseSigDictionary(sigName, sigVals)
	if err != nil {
		return HTTPSigResult{}, err
	}
	for _, l := range inputs.Names() {
		if _, ok := sigs.Get(l); !ok {
			return HTTPSigResult{}, fmt.Errorf("%w: label %q is in %s but not in %s", ErrMalformedHeader, ClipBytes(l, 40), inName, sigName)
		}
	}
	for _, l := range sigs.Names() {
		if _, ok := inputs.Get(l); !ok {
			return HTTPSigResult{}, fmt.Errorf("%w: label %q is in %s but not in %s", ErrMalformedHeader, ClipBytes(l, 40), sigName, inName)
		}
	}
	labels := inputs.Names()
	if o.Label != "" {
		if _, ok := inputs.Get(o.Label); !ok {
			return HTTPSigResult{}, fmt.Errorf("%w: no signature labelled %q (labels: %s)", ErrMissingHeaders, ClipBytes(o.Label, 40), ClipBytes(strings.Join(labels, ", "), 80))
		}
		labels = []string{o.Label}
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	var first error
	for _, l := range labels {
		in, _ := inputs.Get(l)
		sg, _ := sigs.Get(l)
		r, err := verifyOne(m, keys, o, now, l, in, sg)
		if err == nil {
			return r, nil
		}
		if first == nil {
			first = err
		}
	}
	return HTTPSigResult{}, first
}

// verifyOne checks the signature labelled l: its form, its times, then
// each key it may be signed with.
func verifyOne(m HTTPSigMessage, keys []HTTPSigKey, o HTTPSigVerifyOptions, now time.Time, l string, in, sg httpsfv.Member) (HTTPSigResult, error) {
	name := ClipBytes(l, 40) // for messages
	il, ok := in.(httpsfv.InnerList)
	if !ok {
		return HTTPSigResult{}, fmt.Errorf("%w: signature %q: Signature-Input is not an inner list of components", ErrMalformedHeader, name)
	}
	sigItem, _ := sg.(httpsfv.Item)
	sig, ok := sigItem.Value.([]byte)
	if !ok {
		return HTTPSigResult{}, fmt.Errorf("%w: signature %q: Signature is not a byte sequence (:base64:)", ErrMalformedHeader, name)
	}
	components, err := innerListComponents(il)
	if err != nil {
		return HTTPSigResult{}, fmt.Errorf("%w: signature %q: %v", ErrMalformedHeader, name, err)
	}
	for _, r := range o.Required {
		if !slices.Contains(components, r) {
			return HTTPSigResult{}, fmt.Errorf("%w: signature %q does not cover the required component %q", ErrMalformedHeader, name, r)
		}
	}
	r := HTTPSigResult{Label: l, Key: -1}
	var alg string
	var hasKeyID bool
	for _, param := range []string{"created", "expires", "keyid", "alg", "nonce", "tag"} {
		v, ok := il.Params.Get(param)
		if !ok {
			continue
		}
		switch param {
		case "created", "expires":
			n, isInt := v.(int64)
			if !isInt {
				return r, fmt.Errorf("%w: signature %q: parameter %s is not an integer", ErrMalformedHeader, name, param)
			}
			if param == "created" {
				r.Created = time.Unix(n, 0)
			} else if now.Unix() > n {
				return r, fmt.Errorf("%w: signature %q expired %ds ago (expires=%d)", ErrTooOld, name, now.Unix()-n, n)
			}
		default:
			s, isString := v.(string)
			if !isString {
				return r, fmt.Errorf("%w: signature %q: parameter %s is not a string", ErrMalformedHeader, name, param)
			}
			switch param {
			case "keyid":
				r.KeyID, hasKeyID = s, true
			case "alg":
				alg = s
			}
		}
	}
	if o.Tolerance > 0 {
		if r.Created.IsZero() {
			return r, fmt.Errorf("%w: signature %q has no created parameter", ErrMalformedHeader, name)
		}
		skew := now.Unix() - r.Created.Unix()
		tol := int64(o.Tolerance / time.Second)
		switch {
		case skew > tol:
			return r, fmt.Errorf("%w: signature %q was created %ds ago (tolerance %ds)", ErrTooOld, name, skew, tol)
		case -skew > tol:
			return r, fmt.Errorf("%w: signature %q is created %ds in the future (tolerance %ds)", ErrTooNew, name, -skew, tol)
		}
	}
	params, err := httpsfv.Marshal(il)
	if err != nil {
		return r, fmt.Errorf("%w: signature %q: parameters cannot be serialized: %v", ErrMalformedHeader, name, err)
	}
	base, err := signatureBase(m, components, params)
	if err != nil {
		return r, fmt.Errorf("%w: signature %q: %v", ErrMalformedHeader, name, err)
	}
	candidates := keysFor(keys, r.KeyID, hasKeyID)
	tried := 0
	for _, i := range candidates {
		k := keys[i]
		if alg != "" && k.Alg != alg {
			continue
		}
		tried++
		if httpSigKeyVerifies(k, base, sig) {
			r.Key = i
			return r, nil
		}
	}
	who := "no keyid"
	if hasKeyID {
		who = fmt.Sprintf("keyid %q", ClipBytes(r.KeyID, 80))
	}
	if alg != "" {
		who += fmt.Sprintf(", alg %q", ClipBytes(alg, 40))
	}
	return r, fmt.Errorf("%w: signature %q (%s) matches no key: tried %d of %d", ErrInvalidSignature, name, who, tried, len(keys))
}

// keysFor returns the indexes of the keys a signature may be checked with:
// those with its keyid, else those without ID; all keys when it has none.
func keysFor(keys []HTTPSigKey, keyID string, hasKeyID bool) []int {
	var named, anonymous, all []int
	for i, k := range keys {
		all = append(all, i)
		switch k.ID {
		case keyID:
			named = append(named, i)
		case "":
			anonymous = append(anonymous, i)
		}
	}
	switch {
	case !hasKeyID:
		return all
	case keyID == "":
		return anonymous
	case len(named) > 0:
		return named
	}
	return anonymous
}

// httpSigKeyVerifies tells whether sig is k's signature of base; a key
// unusable for its algorithm verifies nothing. HMACs are compared in
// constant time.
func httpSigKeyVerifies(k HTTPSigKey, base string, sig []byte) bool {
	switch k.Alg {
	case HTTPSigHMACSHA256:
		return len(k.Secret) > 0 && hmac.Equal(httpSigMAC(k.Secret, base), sig)
	case HTTPSigEd25519:
		pub := k.Public
		if len(pub) == 0 && len(k.Private) == ed25519.PrivateKeySize {
			pub = k.Private.Public().(ed25519.PublicKey)
		}
		return len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, []byte(base), sig)
	}
	return false
}

// httpSigMAC is hmac-sha256 of base through the one HMAC of firmakit.
func httpSigMAC(secret []byte, base string) []byte {
	return cachedMAC("sha256", "base64").sum(secret, "", []byte(base))
}

// parseSigDictionary parses the lines of Signature-Input or Signature.
func parseSigDictionary(name string, lines []string) (*httpsfv.Dictionary, error) {
	n := 0
	for _, v := range lines {
		n += len(v)
	}
	if n > httpSigMaxHeader {
		return nil, fmt.Errorf("%w: %s is %d bytes long", ErrMalformedHeader, name, n)
	}
	d, err := httpsfv.UnmarshalDictionary(lines)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a structured-field dictionary: %v", ErrMalformedHeader, name, err)
	}
	if len(d.Names()) == 0 {
		return nil, fmt.Errorf("%w: %s holds no signature", ErrMalformedHeader, name)
	}
	return d, nil
}

// innerListComponents returns the component identifiers of a signature's
// inner list, refusing what firmakit does not support.
func innerListComponents(il httpsfv.InnerList) ([]string, error) {
	out := make([]string, 0, len(il.Items))
	for i, it := range il.Items {
		s, ok := it.Value.(string)
		if !ok {
			return nil, fmt.Errorf("component %d is not a string (%s)", i+1, sfType(it.Value))
		}
		if it.Params != nil && len(it.Params.Names()) > 0 {
			return nil, fmt.Errorf("component %q has parameter ;%s, which firmakit does not support (no ;sf ;key ;bs ;req ;tr)", ClipBytes(s, 40), it.Params.Names()[0])
		}
		if err := checkComponent(s); err != nil {
			return nil, err
		}
		if slices.Contains(out, s) {
			return nil, fmt.Errorf("component %q is covered twice", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// sfType names the type of a bare item for a message.
func sfType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case float64:
		return "a decimal"
	case httpsfv.Token:
		return "a token"
	case []byte:
		return "a byte sequence"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// The derived components of RFC 9421 §2.2 that a request has and firmakit
// supports. @query-param (it needs a parameter) and @status (a response's)
// are not among them.
var derivedComponents = []string{"@method", "@target-uri", "@authority", "@scheme", "@request-target", "@path", "@query"}

// checkComponent refuses a component identifier that is not a supported
// derived component nor a lower-case field name.
func checkComponent(c string) error {
	if strings.HasPrefix(c, "@") {
		if !slices.Contains(derivedComponents, c) {
			return fmt.Errorf("derived component %q is not supported (want one of %s)", ClipBytes(c, 40), strings.Join(derivedComponents, " "))
		}
		return nil
	}
	if c == "" {
		return errors.New("a component name is empty")
	}
	for i := 0; i < len(c); i++ {
		b := c[i]
		if 'A' <= b && b <= 'Z' {
			return fmt.Errorf("component %q is not lower-case", ClipBytes(c, 40))
		}
		if !isTchar(b) {
			return fmt.Errorf("component %q is not a field name (byte 0x%02x)", ClipBytes(c, 40), b)
		}
	}
	return nil
}

// isTchar tells whether b may be in a field name (RFC 9110 token).
func isTchar(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// signatureBase writes the signature base of §2.5: one line per covered
// component, then "@signature-params" with params as given.
func signatureBase(m HTTPSigMessage, components []string, params string) (string, error) {
	var b strings.Builder
	for _, c := range components {
		if err := checkComponent(c); err != nil {
			return "", err
		}
		v, err := componentValue(m, c)
		if err != nil {
			return "", err
		}
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 && v[i] != '\t' || v[i] >= 0x7f {
				return "", fmt.Errorf("component %q has byte 0x%02x, which a signature base (US-ASCII, one line per component) cannot hold", c, v[i])
			}
		}
		b.WriteString(`"` + c + `": ` + v + "\n")
	}
	b.WriteString(`"@signature-params": ` + params)
	return b.String(), nil
}

// componentValue is the value of one covered component (§2.1, §2.2).
func componentValue(m HTTPSigMessage, c string) (string, error) {
	if !strings.HasPrefix(c, "@") {
		lines := headerLines(m.Header, c)
		if lines == nil {
			return "", fmt.Errorf("covered field %q is absent from the message", c)
		}
		vals := make([]string, len(lines))
		for i, l := range lines {
			vals[i] = strings.TrimSpace(unfold(l))
		}
		return strings.Join(vals, ", "), nil
	}
	if c == "@method" {
		if m.Method == "" {
			return "", errors.New("covered component \"@method\": the message has no method")
		}
		return m.Method, nil
	}
	u := m.URL
	if u == nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("covered component %q: the message has no absolute target URI", c)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	query := "?" + u.RawQuery
	target := path
	if u.RawQuery != "" || u.ForceQuery {
		target += query
	}
	switch c {
	case "@target-uri":
		return strings.ToLower(u.Scheme) + "://" + u.Host + target, nil
	case "@authority":
		host := strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		port := u.Port()
		if port != "" && !(port == "80" && strings.EqualFold(u.Scheme, "http")) && !(port == "443" && strings.EqualFold(u.Scheme, "https")) {
			host += ":" + port
		}
		return host, nil
	case "@scheme":
		return strings.ToLower(u.Scheme), nil
	case "@request-target":
		return target, nil
	case "@path":
		return path, nil
	case "@query":
		return query, nil
	}
	return "", fmt.Errorf("derived component %q is not supported", c)
}

// headerLines returns the field lines of name in h, nil when there is
// none: under the canonical key, else under any key that differs only in
// case (a header map filled by hand), in key order.
func headerLines(h http.Header, name string) []string {
	if v := h[textproto.CanonicalMIMEHeaderKey(name)]; len(v) > 0 {
		return v
	}
	var keys []string
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, name) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, h[k]...)
	}
	return out
}

// unfold replaces obsolete line folding (CRLF or LF then spaces or tabs)
// with one space (§2.1, RFC 9112 §5.2).
func unfold(v string) string {
	if !strings.ContainsAny(v, "\r\n") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		j := i
		if v[j] == '\r' && j+1 < len(v) && v[j+1] == '\n' {
			j++
		}
		if v[j] == '\n' && j+1 < len(v) && (v[j+1] == ' ' || v[j+1] == '\t') {
			for j+1 < len(v) && (v[j+1] == ' ' || v[j+1] == '\t') {
				j++
			}
			b.WriteByte(' ')
			i = j
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}
