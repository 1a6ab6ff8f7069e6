package webhook

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// VectorsVersion is the version of the Vectors format; it changes
// when a field changes meaning or goes away, not when cases are added.
const VectorsVersion = 1

// Vectors are the webhook set's deliveries, made for one secret and
// one reference time, as fixed test vectors: a merchant's unit tests feed
// each case to their verifier with its clock at ReferenceTime, and it
// must accept or refuse as Expect says, without firmakit or a network.
type Vectors struct {
	Version int `json:"version"`
	// Profile names the profile the cases follow; SignatureHeader,
	// ToleranceS and PayloadSeparator are the parts of it a verifier needs.
	Profile          string `json:"profile"`
	SignatureHeader  string `json:"signature_header"`
	PayloadSeparator string `json:"payload_separator"`
	ToleranceS       int64  `json:"tolerance_s"`
	Secret           string `json:"secret"`
	// PublicKey, under an Ed25519 scheme, is the public key (whpk_…) of
	// Secret, the secret key the cases are signed with: a verifier holds
	// only it.
	PublicKey string `json:"public_key,omitempty"`
	// URL, under an RFC 9421 scheme, is where the cases are posted (with
	// POST): their signatures cover its path.
	URL string `json:"url,omitempty"`
	// ReferenceTime is the verifier's clock, Unix seconds.
	ReferenceTime int64    `json:"reference_time"`
	Cases         []Vector `json:"cases"`
}

// Vector is one delivery of a scenario.
type Vector struct {
	// Code is stable across versions: the requirement tag, the example
	// row ("WH-SIGNATURE-FORM/form=v0-only") and, for a scenario of
	// several deliveries, "#n".
	Code     string `json:"code"`
	Scenario string `json:"scenario"`
	// Expect is "accept" (answer 2xx) or "refuse" (anything else).
	Expect string `json:"expect"`
	// Lenient, with Expect "refuse", tells that accepting the case is
	// only a warning: a t written otherwise than the service writes it,
	// naming the reference time and signed as written, lets nobody in.
	// A verifier may accept it; refusing it is the profile's letter.
	Lenient bool   `json:"lenient,omitempty"`
	Why     string `json:"why,omitempty"`
	// Headers are the request's headers as sent, names as written.
	Headers map[string]string `json:"headers"`
	// Body is the raw body, byte for byte (always UTF-8).
	Body string `json:"body"`
	// SignedString is what a verifier signs for this delivery (under RFC
	// 9421, the signature base of the valid signature): the
	// header's t, the separator and the raw body; "" when the header has
	// no t.
	SignedString string `json:"signed_string"`
}

// vectorBodyLimit leaves out of the vectors the forgeries sent past
// the largest buffer size (64 KiB + 1): they test an endpoint's paths,
// and would make the vectors megabytes.
const vectorBodyLimit = 64 << 10

// answerAll is the transport of a vectors run: it answers every delivery
// 204 without sending it anywhere, so that every scenario runs to its end.
type answerAll struct{}

func (answerAll) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

// MakeVectors runs the webhook set (English: the Spanish scenarios
// send the same) against no endpoint, with its clock stopped at at, and
// returns each delivery as a test vector. It returns an error when the
// set cannot run.
func MakeVectors(p *firmakit.Profile, secret, merchantID string, at time.Time) (*Vectors, error) {
	at = at.Truncate(time.Second)
	e := &Endpoint{URL: "http://endpoint.invalid/webhook", Secret: secret, MerchantID: merchantID, Profile: p,
		Now: func() time.Time { return at }, HTTPClient: &http.Client{Transport: answerAll{}}}
	s := &Suite{Endpoint: e, RunOptions: engine.RunOptions{Lang: "en", Concurrency: 8, Output: io.Discard}}
	if _, err := s.Run(); err != nil {
		return nil, err
	}
	v := &Vectors{Version: VectorsVersion, Profile: p.Name, SignatureHeader: p.Webhook.SignatureHeader,
		PayloadSeparator: p.Webhook.PayloadSeparator, ToleranceS: int64(p.Webhook.Tolerance / time.Second),
		Secret: secret, ReferenceTime: at.Unix()}
	if p.Webhook.Asymmetric() {
		v.PublicKey = p.KeyName(secret)
	}
	if p.Webhook.IsRFC9421() {
		v.URL = e.URL
	}
	results, observed := s.facts()
	for i, r := range results {
		o := observed[i]
		if r.Status == reports.NotRun && strings.HasPrefix(r.Error, "not applicable: ") {
			continue // a case the scheme cannot write
		}
		if r.Status == reports.NotRun || o.Expect == "" {
			return nil, fmt.Errorf("%s %s did not run to its end: %s", r.Requirement, r.Row, r.Error)
		}
		code := r.Requirement
		if r.Row != "" {
			code += "/" + strings.ReplaceAll(r.Row, ", ", ",")
		}
		for n, d := range o.sent {
			if d.cut || len(d.body) > vectorBodyLimit {
				continue // not a whole delivery; a large forgery's path is an endpoint's, not a verifier's
			}
			c := Vector{Code: code, Scenario: r.Name, Expect: o.Expect, Lenient: o.Lenient, Why: o.why, Body: string(d.body),
				Headers: map[string]string{"Content-Type": d.contentType}}
			if d.expect != "" {
				c.Expect = d.expect
			}
			if len(o.sent) > 1 {
				c.Code = fmt.Sprintf("%s#%d", code, n+1)
			}
			for _, h := range d.headers {
				if v, ok := c.Headers[h.name]; ok {
					c.Headers[h.name] = v + ", " + h.value // a header sent twice, as a server joins it
					continue
				}
				c.Headers[h.name] = h.value
			}
			if h, ok := d.signatureHeader(p); ok && p.Webhook.TimestampFrom == "field" && !p.Webhook.IsRFC9421() {
				if ts, ok := headerTimestamp(p, h); ok {
					c.SignedString = ts + p.Webhook.PayloadSeparator + string(d.body)
				}
			} else if ok {
				c.SignedString = d.signed
			}
			v.Cases = append(v.Cases, c)
		}
	}
	return v, nil
}

// headerTimestamp is the value of the first t entry of a header, however
// malformed the rest.
func headerTimestamp(p *firmakit.Profile, h string) (string, bool) {
	for _, item := range strings.Split(h, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(item), "="); ok && k == p.Webhook.TimestampKey {
			return v, true
		}
	}
	return "", false
}
