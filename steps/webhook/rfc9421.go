package webhook

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/firmakit/firmakit"
)

// Under RFC 9421 a signature is a pair, its parameters in Signature-Input
// and its bytes in Signature, both under one label, and it covers the
// request's method and URL and its Content-Digest. The suite's
// deliveries and generated neighbours carry such a pair as an entry's
// value, parameters and signature joined by rfcSep; render writes the two
// fields, each pair under a label of its own.

// rfcSep joins an RFC 9421 signature's parameters and its byte sequence
// in an entry's value.
const rfcSep = "\x00"

// rfcMessage is what an RFC 9421 signature of a delivery to the endpoint
// covers: a POST to its URL with the content type and digest sent.
func rfcMessage(e *Endpoint, contentType string, body []byte) (*url.URL, http.Header) {
	u, err := url.Parse(e.URL)
	if err != nil {
		u = &url.URL{Scheme: "http", Host: "endpoint.invalid", Path: "/"}
	}
	return u, http.Header{"Content-Type": {contentType}, "Content-Digest": {firmakit.ContentDigest(body)}}
}

// rfcPair is a signature of the message with secret over components,
// with created written as given ("" for none): an entry's value.
func rfcPair(p *firmakit.Profile, u *url.URL, h http.Header, secret, created string, components []string) string {
	params := p.RFC9421Params(components, created, p.RFC9421KeyID(secret))
	_, sig, err := p.RFC9421SignParams(h, http.MethodPost, u, secret, "x", params, components)
	if err != nil {
		return params + rfcSep + "::"
	}
	return params + rfcSep + strings.TrimPrefix(sig, "x=")
}

// rfcSplit takes an entry's value apart into parameters and signature.
func rfcSplit(v string) (params, sig string) {
	params, sig, _ = strings.Cut(v, rfcSep)
	return params, sig
}

// renderRFC9421 writes a header form under an RFC 9421 scheme: each
// signature under its own label (sig1, sig1-2, …) in both fields, an
// unknown entry in the Signature field alone, spaces after the commas
// where asked, and the Content-Digest of the body. A t apart from a
// signature's parameters, or "=" spaced, is no form the scheme has.
func renderRFC9421(p *firmakit.Profile, f headerForm, digest string) ([]sentHeader, bool) {
	wp := p.Webhook
	if f.tPos != "" || f.spaced == "around-equals" {
		return nil, false
	}
	sep := ","
	if f.spaced == "after-comma" {
		sep = ", "
	}
	var inputs, sigs []string
	for i, e := range f.sigs {
		label := rfcLabel(wp, i)
		params, sig := rfcSplit(e.value)
		inputs = append(inputs, label+"="+params)
		sigs = append(sigs, label+"="+sig)
	}
	for _, e := range f.extra {
		sigs = append(sigs, strings.TrimSuffix(e.key, ",")+"="+e.value)
	}
	return []sentHeader{{wp.SignatureHeader, strings.Join(sigs, sep)}, {wp.SignatureInputHeader, strings.Join(inputs, sep)},
		{"Content-Digest", digest}}, true
}

// rfcLabel is the label of the i-th signature, as the service writes them.
func rfcLabel(wp firmakit.WebhookProfile, i int) string {
	if i == 0 {
		return wp.SignatureKey
	}
	return wp.SignatureKey + "-" + strconv.Itoa(i+1)
}

// rfc9421Headers makes the headers of a scenario's delivery under an RFC
// 9421 scheme, as headers does under the others, and the signature base
// the valid signature covers.
func (w *webhookSteps) rfc9421Headers(ws *webhookScenario, body []byte, t int64) ([]sentHeader, string) {
	p := w.E.profile()
	wp := p.Webhook
	contentType := "application/json"
	if ws.httpForm == "content-type-charset" {
		contentType = "application/json; charset=utf-8"
	}
	u, h := rfcMessage(w.E, contentType, body)
	created := timestampText(t, ws.tsForm)
	comps := wp.Components
	pair := func(secret, created string, comps []string) string { return rfcPair(p, u, h, secret, created, comps) }
	var pairs []string
	switch ws.sign {
	case "none":
	case "other":
		pairs = []string{pair(randomSecret("whsec_other_"), created, comps)}
	case "rotation":
		pairs = []string{pair(w.E.Secret, created, comps), pair(randomSecret("whsec_retired_"), created, comps)}
		if ws.valid == 2 {
			pairs[0], pairs[1] = pairs[1], pairs[0]
		}
	default:
		pairs = []string{pair(w.E.Secret, created, comps)}
	}
	noSigField, noInput := ws.sign == "none", ws.sign == "none"
	var rawSig *string
	valid := ""
	if len(pairs) > 0 {
		valid = pairs[0]
	}
	params, sig := rfcSplit(valid)
	switch ws.forged {
	case "v1-empty":
		pairs = []string{params + rfcSep + "::"}
	case "v1-shortened":
		b64 := strings.Trim(sig, ":")
		pairs = []string{params + rfcSep + ":" + b64[:len(b64)/2] + ":"}
	case "v1-lengthened":
		pairs = []string{params + rfcSep + ":" + wp.LengthenSignature(strings.Trim(sig, ":")) + ":"}
	case "body-only":
		pairs = []string{pair(w.E.Secret, created, []string{"content-digest"})}
	case "no-t-body-only":
		pairs = []string{pair(w.E.Secret, "", []string{"content-digest"})}
	}
	switch ws.malformed {
	case "no-timestamp":
		pairs = []string{pair(w.E.Secret, "", comps)}
	case "no-signature":
		noSigField = true
	case "empty":
		raw := ""
		rawSig = &raw
	case "not-key-value":
		raw := sig
		rawSig = &raw
	}
	if ws.shiftAfter != 0 && len(pairs) > 0 {
		shifted := p.RFC9421Params(comps, strconv.FormatInt(t+ws.shiftAfter, 10), p.RFC9421KeyID(w.E.Secret))
		pairs[0] = shifted + rfcSep + sig
	}
	entries := make([]entry, len(pairs))
	for i, v := range pairs {
		entries[i] = entry{wp.SignatureKey, v}
	}
	hs, _ := renderRFC9421(p, headerForm{sigs: entries}, h.Get("Content-Digest"))
	var out []sentHeader
	for _, x := range hs {
		switch {
		case x.name == wp.SignatureHeader && rawSig != nil:
			x.value = *rawSig
		case x.name == wp.SignatureHeader && noSigField, x.name == wp.SignatureInputHeader && noInput:
			continue
		}
		out = append(out, x)
	}
	base, _ := firmakit.HTTPSigBase(firmakit.HTTPSigMessage{Method: http.MethodPost, URL: u, Header: h}, comps, params)
	return out, base
}
