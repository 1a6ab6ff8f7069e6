package firmakit

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookSignature returns the value of the webhook signature header for
// body sent at t, with one signature entry per secret (rotation).
func (p *Profile) WebhookSignature(secrets []string, t time.Time, body []byte) string {
	return p.WebhookSignatureAt(secrets, strconv.FormatInt(t.Unix(), 10), body)
}

// WebhookSignatureAt is WebhookSignature with the timestamp written as
// given, which need not be a Unix time. It is for checking receivers: a
// header whose timestamp is not a number, signed over that very text,
// must still be refused.
func (p *Profile) WebhookSignatureAt(secrets []string, ts string, body []byte) string {
	return p.webhookSignatureValue(secrets, "", ts, body)
}

// webhookSignatureValue writes the signature header's value for the
// scheme: key=value fields, or prefixed entries. Under an asymmetric
// scheme a key that cannot sign (a public key) adds no entry.
func (p *Profile) webhookSignatureValue(secrets []string, id, ts string, body []byte) string {
	w := p.Webhook
	enc := w.encoding()
	var sigs []string
	for _, s := range secrets {
		if sig := p.webhookSig(s, id, ts, body); sig != nil {
			sigs = append(sigs, enc.encode(sig))
		}
	}
	f := WebhookHeaderForm{}
	if w.TimestampFrom == "field" {
		f.Timestamps = []string{ts}
	}
	key := w.SignatureKey
	if w.SignatureFormat == "entries" {
		key = w.SignaturePrefix
		if w.SignatureSeparator == "" && len(sigs) > 1 {
			// One entry only: the scheme has no room for a second secret.
			sigs = sigs[:1]
		}
	}
	for _, s := range sigs {
		f.Entries = append(f.Entries, WebhookEntry{key, s})
	}
	v, _ := p.WebhookHeaderValue(f)
	return v
}

// Asymmetric reports whether the scheme signs with a private key and
// verifies with the public one (hash ed25519: Standard Webhooks' v1a), so
// that a receiver holds nothing that can sign.
func (w *WebhookProfile) Asymmetric() bool { return strings.EqualFold(w.Hash, HashEd25519) }

// HashEd25519 is the webhook.hash of an asymmetric scheme: an Ed25519
// signature over the signed content instead of an HMAC.
const HashEd25519 = "ed25519"

// encoding is how the scheme writes a signature's bytes.
func (w *WebhookProfile) encoding() encoding {
	e, err := encodingOf(w.Encoding)
	if err != nil {
		// Profiles are validated when loaded; reaching this is a programming error.
		panic("firmakit: " + err.Error())
	}
	return e
}

// webhookSig is one signature's bytes under the scheme with one key: the
// HMAC under the secret, or the Ed25519 signature with the private key.
// It is nil when the key cannot sign (a public key).
func (p *Profile) webhookSig(secret, id, ts string, body []byte) []byte {
	w := p.Webhook
	if w.Asymmetric() {
		priv, _ := ed25519KeyOrDerived(secret)
		if priv == nil {
			return nil
		}
		return ed25519.Sign(priv, p.webhookContent(id, ts, body))
	}
	return p.webhookMAC(cachedMAC(w.Hash, w.Encoding), w.keyOrRaw(secret), id, ts, body)
}

// webhookMAC takes the MAC over the scheme's signed content.
func (p *Profile) webhookMAC(m mac, key []byte, id, ts string, body []byte) []byte {
	var parts [3][]byte
	n := 0
	for _, part := range p.Webhook.SignedContent {
		if n == len(parts) {
			break
		}
		switch part {
		case WebhookPartID:
			parts[n] = []byte(id)
		case WebhookPartTimestamp:
			parts[n] = []byte(ts)
		default:
			parts[n] = body
		}
		n++
	}
	return m.sum(key, p.Webhook.PayloadSeparator, parts[:n]...)
}

// webhookContent is the signed content's bytes: its parts joined by the
// payload separator.
func (p *Profile) webhookContent(id, ts string, body []byte) []byte {
	var b []byte
	for i, part := range p.Webhook.SignedContent {
		if i > 0 {
			b = append(b, p.Webhook.PayloadSeparator...)
		}
		switch part {
		case WebhookPartID:
			b = append(b, id...)
		case WebhookPartTimestamp:
			b = append(b, ts...)
		default:
			b = append(b, body...)
		}
	}
	return b
}

// WebhookMACText is one signature as the scheme writes it (hex or base64),
// without its key or prefix: the MAC under secret over the scheme's signed
// content of id, ts and body. It is for writing notifications signed
// otherwise than the scheme says, which a receiver must refuse.
// Under an asymmetric scheme it is the Ed25519 signature with the key's
// private half, and "" for a public key, which cannot sign.
func (p *Profile) WebhookMACText(secret, id, ts string, body []byte) string {
	sig := p.webhookSig(secret, id, ts, body)
	if sig == nil {
		return ""
	}
	return p.Webhook.encoding().encode(sig)
}

// WebhookSignedText is the text a signature covers under the scheme: its
// signed content of id, ts and body joined by the payload separator.
func (p *Profile) WebhookSignedText(id, ts string, body []byte) string {
	parts := make([]string, 0, len(p.Webhook.SignedContent))
	for _, part := range p.Webhook.SignedContent {
		switch part {
		case WebhookPartID:
			parts = append(parts, id)
		case WebhookPartTimestamp:
			parts = append(parts, ts)
		default:
			parts = append(parts, string(body))
		}
	}
	return strings.Join(parts, p.Webhook.PayloadSeparator)
}

// HasTimestamp reports whether the scheme signs a timestamp; without one
// a receiver cannot tell a replayed notification from a fresh one.
func (w *WebhookProfile) HasTimestamp() bool { return w.TimestampFrom != "none" }

// HasID reports whether the scheme sends a message id header.
func (w *WebhookProfile) HasID() bool { return w.IDFrom == "header" }

// WebhookKey decodes a webhook secret into the HMAC key as the scheme
// says: its bytes (raw), or base64 after an optional "whsec_" prefix.
// It returns an error saying what the secret should look like.
func (w *WebhookProfile) WebhookKey(secret string) ([]byte, error) {
	if w.SecretEncoding != "whsec-base64" {
		return []byte(secret), nil
	}
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(k) == 0 {
		return nil, fmt.Errorf("a %s secret is whsec_ followed by base64", w.SignatureHeader)
	}
	return k, nil
}

// keyOrRaw is the key of a secret for signing and verifying alike: a
// secret that does not decode as the scheme says (the demo merchant's
// whsec_test_demo under whsec-base64) is taken as its raw bytes on both
// sides, so firmakit's own parts agree; the scheme's libraries refuse it.
func (w *WebhookProfile) keyOrRaw(secret string) []byte {
	if k, err := w.WebhookKey(secret); err == nil {
		return k
	}
	return []byte(secret)
}

// SignWebhook sets on h the headers that sign a notification under the
// profile's scheme: the id and timestamp headers when the scheme has
// them, and the signature header with one entry per secret (rotation).
// id is the message id (the event id); schemes without one ignore it.
//
// An RFC 9421 signature covers the request too: SignWebhookRequest takes
// it, and SignWebhook signs as for a POST to "/".
func (p *Profile) SignWebhook(h http.Header, id string, secrets []string, t time.Time, body []byte) {
	w := p.Webhook
	if w.IsRFC9421() {
		p.signRFC9421(h, http.MethodPost, webhookTarget, secrets, t, body)
		return
	}
	ts := strconv.FormatInt(t.Unix(), 10)
	if w.HasID() {
		h.Set(w.IDHeader, id)
	}
	if w.TimestampFrom == "header" {
		h.Set(w.TimestampHeader, ts)
	}
	h.Set(w.SignatureHeader, p.webhookSignatureValue(secrets, id, ts, body))
}

// WebhookSignatureHeaders returns the header names that carry a
// notification's signature under the scheme: signature, timestamp, id.
func (p *Profile) WebhookSignatureHeaders() []string {
	w := p.Webhook
	names := []string{w.SignatureHeader}
	if w.IsRFC9421() {
		return append(names, w.SignatureInputHeader, "Content-Digest")
	}
	if w.TimestampFrom == "header" {
		names = append(names, w.TimestampHeader)
	}
	if w.HasID() {
		names = append(names, w.IDHeader)
	}
	return names
}

// VerifyWebhookHeaders checks a notification under the profile's scheme:
// h holds the headers received, body the raw bytes. It accepts the
// notification when any signature entry matches any secret. Errors wrap
// ErrMissingHeaders (a header of the scheme is absent), ErrMalformedHeader,
// ErrTooOld, ErrTooNew or ErrMalformedTimestamp (each also ErrExpired)
// or ErrInvalidSignature. A scheme without a timestamp cannot refuse a
// replay: HasTimestamp says so.
func (p *Profile) VerifyWebhookHeaders(h http.Header, body []byte, secrets []string, now time.Time) error {
	_, err := p.VerifyWebhookKey(h, body, secrets, now)
	return err
}

// VerifyWebhookKey is VerifyWebhookHeaders that also says which key
// verified the notification: its index in secrets (-1 with an error).
// KeyName names that key without giving it away.
//
// An RFC 9421 signature covers the request too: VerifyWebhookRequest
// takes it, and VerifyWebhookKey checks as for a POST to "/".
func (p *Profile) VerifyWebhookKey(h http.Header, body []byte, secrets []string, now time.Time) (int, error) {
	w := p.Webhook
	if w.IsRFC9421() {
		return p.verifyRFC9421(h, http.MethodPost, webhookTarget, body, secrets, now)
	}
	sig := h.Get(w.SignatureHeader)
	if strings.TrimSpace(sig) == "" {
		return -1, fmt.Errorf("%w: no %s header", ErrMissingHeaders, w.SignatureHeader)
	}
	if w.SignatureFormat == "fields" && w.TimestampFrom == "field" && !w.HasID() {
		return p.verifyWebhook(sig, body, secrets, now)
	}
	var id, ts string
	if w.HasID() {
		if id = h.Get(w.IDHeader); id == "" {
			return -1, fmt.Errorf("%w: no %s header", ErrMissingHeaders, w.IDHeader)
		}
	}
	var sigs []string
	if w.SignatureFormat == "fields" {
		parsed, err := p.ParseWebhookHeader(sig)
		if err != nil {
			return -1, err
		}
		sigs, ts = parsed.Signatures, parsed.Timestamp
	} else {
		var err error
		if sigs, err = p.parseWebhookEntries(sig); err != nil {
			return -1, err
		}
	}
	if w.TimestampFrom == "header" {
		if ts = h.Get(w.TimestampHeader); ts == "" {
			return -1, fmt.Errorf("%w: no %s header", ErrMissingHeaders, w.TimestampHeader)
		}
	}
	if w.HasTimestamp() {
		if err := checkTimestamp(ts, now, w.Tolerance); err != nil {
			return -1, err
		}
	}
	return p.matchWebhook(sigs, id, ts, body, secrets)
}

// parseWebhookEntries splits an entries-format signature header into the
// signatures that carry the scheme's prefix; entries of other versions
// ("v2,...") are ignored, as senders may add schemes.
func (p *Profile) parseWebhookEntries(v string) ([]string, error) {
	w := p.Webhook
	if len(v) > 8192 {
		return nil, fmt.Errorf("%w: header is %d bytes long", ErrMalformedHeader, len(v))
	}
	items := []string{v}
	if w.SignatureSeparator != "" {
		items = strings.Split(v, w.SignatureSeparator)
	}
	var sigs []string
	for _, item := range items {
		item = strings.TrimSpace(item)
		if rest, ok := strings.CutPrefix(item, w.SignaturePrefix); ok && rest != "" {
			sigs = append(sigs, rest)
		}
	}
	if len(sigs) == 0 {
		return nil, fmt.Errorf("%w: no %s<signature> entry in %s", ErrMalformedHeader, w.SignaturePrefix, w.SignatureHeader)
	}
	return sigs, nil
}

// matchWebhook returns the index in secrets of the key that verifies one
// of sigs: the HMAC under it equals the signature, or, under an
// asymmetric scheme, the Ed25519 signature verifies with its public half.
func (p *Profile) matchWebhook(sigs []string, id, ts string, body []byte, secrets []string) (int, error) {
	w := p.Webhook
	if w.Asymmetric() {
		content := p.webhookContent(id, ts, body)
		enc := w.encoding()
		for i, s := range secrets {
			_, pub := ed25519KeyOrDerived(s)
			for _, sig := range sigs {
				if b, err := enc.decode(sig); err == nil && len(b) == ed25519.SignatureSize && ed25519.Verify(pub, content, b) {
					return i, nil
				}
			}
		}
	} else {
		m := cachedMAC(w.Hash, w.Encoding)
		for i, s := range secrets {
			want := p.webhookMAC(m, w.keyOrRaw(s), id, ts, body)
			for _, sig := range sigs {
				if m.equal(want, sig) {
					return i, nil
				}
			}
		}
	}
	what := "signature(s)"
	if w.SignatureFormat == "entries" && w.SignaturePrefix != "" {
		what = w.SignaturePrefix + " signature(s) in " + w.SignatureHeader
	}
	return -1, fmt.Errorf("%w: none of %d %s matches", ErrInvalidSignature, len(sigs), what)
}

// WebhookHeader is a parsed webhook signature header.
type WebhookHeader struct {
	Timestamp  string
	Signatures []string
}

// ParseWebhookHeader splits a webhook signature header into its timestamp
// and signatures. Entries with other keys (a future "v2", say) are ignored,
// as senders may add schemes. It returns ErrMalformedHeader when the header
// has no timestamp, two of them, or no signature.
func (p *Profile) ParseWebhookHeader(v string) (WebhookHeader, error) {
	var h WebhookHeader
	if len(v) > 8192 {
		return h, fmt.Errorf("%w: header is %d bytes long", ErrMalformedHeader, len(v))
	}
	seenTS := false
	for _, item := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return h, fmt.Errorf("%w: entry %q is not key=value", ErrMalformedHeader, ClipBytes(item, 40))
		}
		switch k {
		case p.Webhook.TimestampKey:
			if p.Webhook.TimestampFrom != "field" {
				continue
			}
			if seenTS {
				return h, fmt.Errorf("%w: timestamp given twice", ErrMalformedHeader)
			}
			seenTS = true
			h.Timestamp = val
		case p.Webhook.SignatureKey:
			if val != "" {
				h.Signatures = append(h.Signatures, val)
			}
		}
	}
	if !seenTS && p.Webhook.TimestampFrom == "field" {
		return h, fmt.Errorf("%w: no %s= timestamp", ErrMalformedHeader, p.Webhook.TimestampKey)
	}
	if len(h.Signatures) == 0 {
		return h, fmt.Errorf("%w: no %s= signature", ErrMalformedHeader, p.Webhook.SignatureKey)
	}
	return h, nil
}

// VerifyWebhook checks a notification: header is the signature header's
// value, body the raw bytes received. It accepts the notification when any
// signature entry matches any secret. Errors wrap ErrMissingHeaders (empty
// header), ErrMalformedHeader, ErrExpired (timestamp outside the tolerance,
// either way: ErrTooOld, ErrTooNew or ErrMalformedTimestamp) or
// ErrInvalidSignature (no entry matches). It reads one header, so it is
// for the fields schemes (bundled, stripe); VerifyWebhookHeaders takes
// any scheme.
func (p *Profile) VerifyWebhook(header string, body []byte, secrets []string, now time.Time) error {
	_, err := p.verifyWebhook(header, body, secrets, now)
	return err
}

func (p *Profile) verifyWebhook(header string, body []byte, secrets []string, now time.Time) (int, error) {
	if strings.TrimSpace(header) == "" {
		return -1, fmt.Errorf("%w: no %s header", ErrMissingHeaders, p.Webhook.SignatureHeader)
	}
	h, err := p.ParseWebhookHeader(header)
	if err != nil {
		return -1, err
	}
	if err := checkTimestamp(h.Timestamp, now, p.Webhook.Tolerance); err != nil {
		return -1, err
	}
	return p.matchWebhook(h.Signatures, "", h.Timestamp, body, secrets)
}

// CheckWebhookSignatureForm reports how a signature entry departs from
// the profile's form: the encoding (lower-case for hex) and the size of
// the hash. It does not check the value.
func (p *Profile) CheckWebhookSignatureForm(sig string) error {
	w := p.Webhook
	if strings.EqualFold(w.Encoding, "hex") && sig != strings.ToLower(sig) {
		return fmt.Errorf("to be lower-case hex")
	}
	b, err := w.encoding().decode(sig)
	if err != nil {
		return fmt.Errorf("to be %s", w.Encoding)
	}
	want := ed25519.SignatureSize
	if !w.Asymmetric() {
		want = cachedMAC(w.Hash, w.Encoding).size
	}
	if len(b) != want {
		return fmt.Errorf("to be a %s of %d bytes, it has %d", w.Hash, want, len(b))
	}
	return nil
}

// LengthenSignature is a signature as the scheme writes it with one byte
// more: the valid bytes and their first again, encoded. A receiver that
// decodes leniently still sees a value longer than the algorithm gives.
func (w *WebhookProfile) LengthenSignature(sig string) string {
	enc := w.encoding()
	b, err := enc.decode(sig)
	if err != nil || len(b) == 0 {
		return sig + sig[:min(2, len(sig))]
	}
	return enc.encode(append(b, b[0]))
}

// KeyName names one of a scheme's keys without giving it away, for a
// record to say which key verified it: an Ed25519 key by its public key
// (whpk_…, which is public), an HMAC secret by the first 8 hex digits of
// the SHA-256 of its key ("secret 1a2b3c4d").
//
// Under RFC 9421 a key text's own keyid ("ID:KEY") is its name.
func (p *Profile) KeyName(secret string) string {
	if p.Webhook.IsRFC9421() {
		id, material := splitKeyID(secret)
		if id != "" {
			return id
		}
		secret = material
	}
	return p.keyFingerprint(secret)
}

// keyFingerprint names a key by what it is, as KeyName says.
func (p *Profile) keyFingerprint(secret string) string {
	if p.Webhook.Asymmetric() {
		_, pub := ed25519KeyOrDerived(secret)
		return Ed25519PublicPrefix + base64.StdEncoding.EncodeToString(pub)
	}
	sum := sha256.Sum256(p.Webhook.keyOrRaw(secret))
	return "secret " + hex.EncodeToString(sum[:4])
}
