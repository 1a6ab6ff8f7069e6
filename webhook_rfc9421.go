package firmakit

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FormatRFC9421 is the webhook.signature_format of RFC 9421 HTTP Message
// Signatures: a Signature-Input and a Signature dictionary (RFC 8941),
// each signature over the covered components of the request (the
// profile's components, content-digest among them, RFC 9530), with its
// created time and keyid as parameters.
const FormatRFC9421 = "rfc9421"

// IsRFC9421 reports whether the scheme is RFC 9421's.
func (w *WebhookProfile) IsRFC9421() bool { return w.SignatureFormat == FormatRFC9421 }

// validateRFC9421 refuses an RFC 9421 scheme that signs nothing a
// receiver can rely on, naming the field to change.
func (w *WebhookProfile) validateRFC9421() error {
	if strings.TrimSpace(w.SignatureHeader) == "" || strings.TrimSpace(w.SignatureInputHeader) == "" {
		return fmt.Errorf("webhook.signature_header and webhook.signature_input_header name RFC 9421's two fields (Signature, Signature-Input)")
	}
	if !sfKey(w.SignatureKey) {
		return fmt.Errorf("webhook.signature_key is the signature's label, a structured-field key such as sig1 (lower-case letters, digits, _ - . *), not %q", w.SignatureKey)
	}
	if len(w.Components) == 0 {
		return fmt.Errorf("webhook.components is empty: an RFC 9421 signature covers components such as \"@method\", \"@path\", \"content-digest\", \"content-type\"")
	}
	for _, c := range w.Components {
		if err := checkComponent(c); err != nil {
			return fmt.Errorf("webhook.components: %v", err)
		}
	}
	if !slices.Contains(w.Components, "content-digest") {
		return fmt.Errorf("webhook.components must name content-digest: an RFC 9421 signature covers the body through its digest (RFC 9530)")
	}
	switch {
	case w.TimestampFrom == "field" && w.TimestampKey == "created", w.TimestampFrom == "none":
	default:
		return fmt.Errorf("webhook.timestamp_from is field with timestamp_key created (the signature's created parameter), or none")
	}
	if w.IDFrom != "none" {
		return fmt.Errorf("webhook.id_from is none under rfc9421: the event id is in the body, which content-digest covers")
	}
	if !strings.EqualFold(w.Hash, "sha256") && !w.Asymmetric() {
		return fmt.Errorf("webhook.hash is sha256 (hmac-sha256) or ed25519 under rfc9421")
	}
	if w.Encoding != "base64" {
		return fmt.Errorf("webhook.encoding is base64 under rfc9421: a signature is a structured-field byte sequence")
	}
	return nil
}

// sfKey reports whether s is a structured-field dictionary key (RFC 8941
// §3.1.2).
func sfKey(s string) bool {
	if s == "" || !(s[0] == '*' || 'a' <= s[0] && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("_-.*", c) >= 0) {
			return false
		}
	}
	return true
}

// httpSigAlg is the RFC 9421 algorithm of the scheme.
func (w *WebhookProfile) httpSigAlg() string {
	if w.Asymmetric() {
		return HTTPSigEd25519
	}
	return HTTPSigHMACSHA256
}

// splitKeyID reads a key text of an RFC 9421 scheme: "ID:KEY" gives the
// key its keyid; a text without ":" (base64, whsk_/whpk_) or PEM has none.
func splitKeyID(text string) (id, key string) {
	if strings.HasPrefix(strings.TrimSpace(text), "-----BEGIN") {
		return "", text
	}
	if i := strings.IndexByte(text, ':'); i > 0 && !strings.ContainsAny(text[:i], " \t\"\\") {
		return text[:i], text[i+1:]
	}
	return "", text
}

// httpSigKey is the key a key text stands for; its ID is the text's own
// keyid, "" when it has none (such a key is tried whatever keyid a
// signature names).
func (w *WebhookProfile) httpSigKey(text string) HTTPSigKey {
	id, material := splitKeyID(text)
	if w.Asymmetric() {
		priv, pub := ed25519KeyOrDerived(material)
		return HTTPSigKey{ID: id, Alg: HTTPSigEd25519, Private: priv, Public: pub}
	}
	return HTTPSigKey{ID: id, Alg: HTTPSigHMACSHA256, Secret: w.keyOrRaw(material)}
}

// signingKeyID is the keyid a signature made with a key text carries: the
// text's own, or else the key's name (KeyName).
func (p *Profile) signingKeyID(text string) string {
	if id, _ := splitKeyID(text); id != "" {
		return id
	}
	return p.keyFingerprint(text)
}

// webhookLabel is the label of the i-th signature of a notification:
// the scheme's, then "-2", "-3"… for the keys of a rotation.
func (w *WebhookProfile) webhookLabel(i int) string {
	if i == 0 {
		return w.SignatureKey
	}
	return w.SignatureKey + "-" + strconv.Itoa(i+1)
}

// webhookTarget is where an RFC 9421 signature says a notification goes
// when the caller gives no request: a POST to "/".
var webhookTarget = &url.URL{Scheme: "http", Host: "localhost", Path: "/"}

// SignWebhookRequest signs a notification about to be posted: the
// scheme's headers set on r.Header. Under RFC 9421 the signatures cover
// r's method and URL (absolute, as a client request has it) and the
// headers the scheme names; Content-Digest is set from body, and
// Content-Type to application/json when covered and absent.
func (p *Profile) SignWebhookRequest(r *http.Request, id string, secrets []string, t time.Time, body []byte) {
	if !p.Webhook.IsRFC9421() {
		p.SignWebhook(r.Header, id, secrets, t, body)
		return
	}
	p.signRFC9421(r.Header, r.Method, r.URL, secrets, t, body)
}

// signRFC9421 sets Content-Digest, Content-Type when covered and absent,
// and the two fields with one signature per key that can sign.
func (p *Profile) signRFC9421(h http.Header, method string, u *url.URL, secrets []string, t time.Time, body []byte) {
	w := p.Webhook
	if slices.Contains(w.Components, "content-digest") {
		h.Set("Content-Digest", ContentDigest(body))
	}
	if slices.Contains(w.Components, "content-type") && h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	var inputs, sigs []string
	for _, s := range secrets {
		in, sig, ok := p.RFC9421Signature(h, method, u, s, w.webhookLabel(len(inputs)), t)
		if ok {
			inputs, sigs = append(inputs, in), append(sigs, sig)
		}
	}
	h.Set(w.SignatureInputHeader, strings.Join(inputs, ", "))
	h.Set(w.SignatureHeader, strings.Join(sigs, ", "))
}

// RFC9421Signature is one signature of the scheme under label, made with
// a key text at t over the message: its Signature-Input and Signature
// members ("label=(…);created=…", "label=:…:"). It is false when the key
// cannot sign (a public key) or a covered component is absent.
func (p *Profile) RFC9421Signature(h http.Header, method string, u *url.URL, secret, label string, t time.Time) (input, signature string, ok bool) {
	w := p.Webhook
	k := w.httpSigKey(secret)
	if k.Alg == HTTPSigEd25519 && k.Private == nil {
		return "", "", false
	}
	k.ID = p.signingKeyID(secret)
	o := HTTPSigOptions{Label: label, Components: w.Components, WriteAlg: true}
	if w.HasTimestamp() {
		o.Created = t
	}
	in, sig, err := HTTPSigSign(HTTPSigMessage{Method: method, URL: u, Header: h}, o, k)
	if err != nil {
		return "", "", false
	}
	return in, sig, true
}

// RFC9421SignParams signs the signature base of the message for the
// given serialized signature parameters (the inner list and its
// parameters, written as they are, valid or not) with a key text, and
// returns the Signature-Input and Signature members under label. It is
// for writing what a sender should not send, which a receiver must
// refuse: a created that is no integer, fewer components than required.
func (p *Profile) RFC9421SignParams(h http.Header, method string, u *url.URL, secret, label, params string, components []string) (input, signature string, err error) {
	k := p.Webhook.httpSigKey(secret)
	if k.Alg == HTTPSigEd25519 && k.Private == nil {
		return "", "", fmt.Errorf("a public key cannot sign")
	}
	// Signed as written: the parameters are not parsed and written again.
	base, err := signatureBase(HTTPSigMessage{Method: method, URL: u, Header: h}, components, params)
	if err != nil {
		return "", "", err
	}
	var sig []byte
	if k.Alg == HTTPSigEd25519 {
		sig = ed25519.Sign(k.Private, []byte(base))
	} else {
		sig = httpSigMAC(k.Secret, base)
	}
	return label + "=" + params, label + "=:" + p.Webhook.encoding().encode(sig) + ":", nil
}

// RFC9421Params writes the signature parameters a scheme's signature
// carries: the covered components, then created (written as given, a
// Unix time or any text), keyid and alg.
func (p *Profile) RFC9421Params(components []string, created, keyID string) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, c := range components {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Quote(c))
	}
	b.WriteByte(')')
	if created != "" {
		b.WriteString(";created=" + created)
	}
	if keyID != "" {
		b.WriteString(";keyid=" + strconv.Quote(keyID))
	}
	b.WriteString(`;alg="` + p.Webhook.httpSigAlg() + `"`)
	return b.String()
}

// RFC9421KeyID is the keyid firmakit writes for a key text.
func (p *Profile) RFC9421KeyID(secret string) string { return p.signingKeyID(secret) }

// VerifyWebhookRequest checks a notification as received: r's headers,
// method and URL (an RFC 9421 signature covers them), body its raw bytes.
// It returns the index in secrets of the key that verified it. A server
// request's URL is rebuilt from its Host, its TLS and its request target;
// a caller behind a proxy sets r.URL to the absolute URL the sender
// posted to.
func (p *Profile) VerifyWebhookRequest(r *http.Request, body []byte, secrets []string, now time.Time) (int, error) {
	if !p.Webhook.IsRFC9421() {
		return p.VerifyWebhookKey(r.Header, body, secrets, now)
	}
	u := r.URL
	if u == nil || !u.IsAbs() {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		target := RequestTarget(r)
		parsed, err := url.Parse(scheme + "://" + r.Host + target)
		if err != nil {
			return -1, fmt.Errorf("%w: the request's URL %q does not parse", ErrMalformedHeader, ClipBytes(target, 60))
		}
		u = parsed
	}
	return p.verifyRFC9421(r.Header, r.Method, u, body, secrets, now)
}

func (p *Profile) verifyRFC9421(h http.Header, method string, u *url.URL, body []byte, secrets []string, now time.Time) (int, error) {
	w := p.Webhook
	keys := make([]HTTPSigKey, len(secrets))
	for i, s := range secrets {
		keys[i] = w.httpSigKey(s)
	}
	o := HTTPSigVerifyOptions{Required: w.Components, Now: now, InputHeader: w.SignatureInputHeader, SignatureHeader: w.SignatureHeader}
	if w.HasTimestamp() {
		o.Tolerance = w.Tolerance
	}
	res, err := HTTPSigVerify(HTTPSigMessage{Method: method, URL: u, Header: h}, keys, o)
	if err != nil {
		return -1, err
	}
	if slices.Contains(w.Components, "content-digest") {
		if err := CheckContentDigest(h.Get("Content-Digest"), body); err != nil {
			return -1, err
		}
	}
	return res.Key, nil
}
