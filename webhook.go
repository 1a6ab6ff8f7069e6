package firmakit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/internal/textclip"
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
	w := p.Webhook
	m := cachedMAC(w.Hash, w.Encoding)
	var b strings.Builder
	b.WriteString(w.TimestampKey + "=" + ts)
	for _, s := range secrets {
		b.WriteString("," + w.SignatureKey + "=")
		b.WriteString(m.enc.encode(m.sum([]byte(s), w.PayloadSeparator, []byte(ts), body)))
	}
	return b.String()
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
			return h, fmt.Errorf("%w: entry %q is not key=value", ErrMalformedHeader, textclip.Bytes(item, 40))
		}
		switch k {
		case p.Webhook.TimestampKey:
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
	if !seenTS {
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
// either way) or ErrInvalidSignature (no entry matches).
func (p *Profile) VerifyWebhook(header string, body []byte, secrets []string, now time.Time) error {
	if strings.TrimSpace(header) == "" {
		return fmt.Errorf("%w: no %s header", ErrMissingHeaders, p.Webhook.SignatureHeader)
	}
	h, err := p.ParseWebhookHeader(header)
	if err != nil {
		return err
	}
	if err := checkTimestamp(h.Timestamp, now, p.Webhook.Tolerance); err != nil {
		return err
	}
	w := p.Webhook
	m := cachedMAC(w.Hash, w.Encoding)
	for _, s := range secrets {
		want := m.sum([]byte(s), w.PayloadSeparator, []byte(h.Timestamp), body)
		for _, sig := range h.Signatures {
			if m.equal(want, sig) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: none of %d signature(s) matches", ErrInvalidSignature, len(h.Signatures))
}

// CheckWebhookSignatureForm reports how a signature entry departs from
// the profile's form: the encoding (lower-case for hex) and the size of
// the hash. It does not check the value.
func (p *Profile) CheckWebhookSignatureForm(sig string) error {
	w := p.Webhook
	m := cachedMAC(w.Hash, w.Encoding)
	want := m.size
	if strings.EqualFold(w.Encoding, "hex") && sig != strings.ToLower(sig) {
		return fmt.Errorf("to be lower-case hex")
	}
	b, err := m.enc.decode(sig)
	if err != nil {
		return fmt.Errorf("to be %s", w.Encoding)
	}
	if len(b) != want {
		return fmt.Errorf("to be a %s of %d bytes, it has %d", w.Hash, want, len(b))
	}
	return nil
}
