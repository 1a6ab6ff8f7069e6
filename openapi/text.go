package openapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
)

// The descriptions of the document: what OpenAPI cannot say as schema,
// said in words from the profile, with the test vectors computed under it.

func (b *builder) description() string {
	r := b.p.Request
	return strings.Join([]string{
		"The merchant API for digital contract signatures, as firmakit describes it under the profile " + quote(b.p.Name) +
			": the interface (`service-interface.md`) where it shows the behaviour, the profile where the interface leaves it open " +
			"(header names, signing, the create body, the notification payload). Written by `firmakit openapi`; `firmakit serve` " +
			"publishes the one of the profile it serves at `/openapi.json` and `/openapi.yaml`.",
		"**What this document cannot say.** OpenAPI has no way to express an HMAC: the security schemes below name the three headers " +
			quote(r.KeyHeader) + ", " + quote(r.TimestampHeader) + " and " + quote(r.SignatureHeader) +
			", but a client must compute the signature itself over the exact bytes it sends, and a tool that only reads this document " +
			"cannot check it. Nor can it say the order of the service's checks, that a timestamp expires, when a notification is sent, " +
			"how it is signed, or how it is retried: those are in the descriptions, and `firmakit certify` checks them " +
			"([Signing a request](" + DocsURL + "signing.md), [What OpenAPI cannot say](" + DocsURL + "openapi.md)).",
		b.vectorText(),
		"`x-firmakit-requirement` on an operation, an answer or a notification's schema names the requirement tags of the " +
			"scenarios that check it: `AUTH-OK` is the scenario tagged `@AUTH-OK` in firmakit's `features/`.",
	}, "\n\n")
}

// vectorText is the request test vector (defaults.md A) under the profile:
// the demo merchant's published credential, its check path, body {}.
func (b *builder) vectorText() string {
	demo := firmakit.Demo()
	rp := firmakit.RequestParts{Timestamp: strconv.Itoa(vectorTime), Method: http.MethodPost,
		RequestTarget: "/" + demo.APIVersion + "/check/" + demo.MerchantID, KeyID: demo.Credential.KeyID, Body: []byte("{}")}
	r := b.p.Request
	return fmt.Sprintf("**Test vector** (the bundled demo merchant's published credential, never for production): "+
		"secret `%s`, `POST %s` with body `{}` at %s `%s` and %s `%s` signs the string `%s`, giving %s `%s`.",
		demo.Credential.Secret, rp.RequestTarget, quote(r.TimestampHeader), rp.Timestamp, quote(r.KeyHeader), rp.KeyID,
		strings.Trim(strconv.Quote(string(b.p.StringToSign(rp))), `"`), quote(r.SignatureHeader), b.p.RequestSignature(demo.Credential.Secret, rp))
}

// stringToSignText says the string to sign of the profile, part by part.
func (b *builder) stringToSignText() string {
	r := b.p.Request
	var parts []string
	for _, p := range r.StringToSign {
		switch p {
		case firmakit.PartTimestamp:
			parts = append(parts, "the "+quote(r.TimestampHeader)+" header's value, exactly as sent")
		case firmakit.PartMethod:
			parts = append(parts, "the method, upper case (`POST`)")
		case firmakit.PartRequestTarget:
			parts = append(parts, "the path exactly as sent (percent-encoding kept), plus `?` and the raw query when there is one")
		case firmakit.PartPath:
			parts = append(parts, "the path exactly as sent (percent-encoding kept), without the query")
		case firmakit.PartKey:
			parts = append(parts, "the "+quote(r.KeyHeader)+" header's value")
		case firmakit.PartBody:
			parts = append(parts, "the body's bytes exactly as sent, never a re-serialised JSON value")
		}
	}
	return "The string to sign is these parts joined by " + separatorText(r.Separator) + ": " + strings.Join(parts, "; ") + "."
}

// separatorText names a separator for a reader: as Go escapes it in a
// code span, or in words when it is blank.
func separatorText(sep string) string {
	switch sep {
	case "":
		return "nothing"
	case " ":
		return "a space"
	}
	return "`" + strings.Trim(strconv.Quote(sep), `"`) + "`"
}

func encodingText(enc string) string {
	switch strings.ToLower(enc) {
	case "hex":
		return "lowercase hex"
	case "base64url":
		return "base64url"
	}
	return "base64"
}

func (b *builder) securitySchemes() map[string]*SecurityScheme {
	r := b.p.Request
	// answer writes the status and label of check n (firmakit.Refusals).
	answer := func(n int) string {
		ref, _ := firmakit.RefusalAt(n)
		return fmt.Sprintf("%d `%s`", ref.Status, ref.Label())
	}
	missing := " Absent or empty: " + answer(1) + "."
	return map[string]*SecurityScheme{
		schemeKey: {Type: "apiKey", In: "header", Name: r.KeyHeader,
			Description: "The id of one credential of the merchant (issued by the service). Unknown, disabled or another merchant's: " +
				answer(3) + "." + missing},
		schemeTimestamp: {Type: "apiKey", In: "header", Name: r.TimestampHeader,
			Description: "Unix time in whole seconds, base-10 ASCII digits. Not a number, or more than " + seconds(r.Tolerance) +
				" from the service's clock (past or future): " + answer(2) + "." + missing},
		schemeSignature: {Type: "apiKey", In: "header", Name: r.SignatureHeader,
			Description: fmt.Sprintf("%s of HMAC-%s(credential secret, string to sign). %s Not decodable, or not the expected MAC: %s.%s "+
				"OpenAPI cannot express this: see [Signing a request](%ssigning.md).\n\n%s",
				capitalize(encodingText(r.Encoding)), strings.ToUpper(r.Hash), b.stringToSignText(), answer(4), missing, DocsURL, b.vectorText())},
		schemeNotification: {Type: "apiKey", In: "header", Name: b.p.Webhook.SignatureHeader,
			Description: "The service signs every notification it sends to the merchant's `signature_webhook`; the merchant's endpoint verifies it " +
				"before it answers 2xx. " + b.webhookSignatureText()},
	}
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// webhookSignatureText says how the scheme writes the signature header.
func (b *builder) webhookSignatureText() string {
	w := b.p.Webhook
	if w.IsRFC9421() {
		return b.rfc9421Text()
	}
	var signed []string
	for _, part := range w.SignedContent {
		switch part {
		case firmakit.WebhookPartID:
			signed = append(signed, "the message id ("+quote(w.IDHeader)+")")
		case firmakit.WebhookPartTimestamp:
			signed = append(signed, "the timestamp")
		default:
			signed = append(signed, "the raw body")
		}
	}
	over := signed[len(signed)-1]
	if len(signed) > 1 {
		over = strings.Join(signed[:len(signed)-1], ", ") + " and " + over + ", joined by " + separatorText(w.PayloadSeparator)
	}
	key := "the webhook secret's bytes"
	if w.SecretEncoding == "whsec-base64" {
		key = "the webhook secret, base64 after `whsec_`"
	}
	mac := fmt.Sprintf("the %s HMAC-%s under %s over %s", encodingText(w.Encoding), strings.ToUpper(w.Hash), key, over)
	if w.Asymmetric() {
		mac = fmt.Sprintf("the %s Ed25519 signature with the service's secret key over %s, which a receiver verifies with the public key (`whpk_<base64>`; it cannot sign)", encodingText(w.Encoding), over)
	}
	var form string
	if w.SignatureFormat == "fields" {
		form = fmt.Sprintf("`%s=<mac>`, one per active webhook secret (rotation), comma-separated", w.SignatureKey)
		if w.TimestampFrom == "field" {
			form = fmt.Sprintf("`%s=<unix seconds>`, then ", w.TimestampKey) + form
		}
	} else {
		form = fmt.Sprintf("`%s<mac>`", w.SignaturePrefix)
		if w.SignatureSeparator != "" {
			form += ", one per active webhook secret (rotation), separated by " + separatorText(w.SignatureSeparator)
		}
	}
	text := "The notification's signature: " + form + ", where `<mac>` is " + mac + ". A receiver accepts the notification when any signature matches"
	if w.HasTimestamp() {
		text += fmt.Sprintf(", and refuses a timestamp more than %s from its own clock (a replay).", seconds(w.Tolerance))
	} else {
		text += "; the scheme signs no timestamp, so a receiver cannot tell a replay."
	}
	return text
}

// rfc9421Text says how an RFC 9421 scheme signs a notification.
func (b *builder) rfc9421Text() string {
	w := b.p.Webhook
	comps := make([]string, len(w.Components))
	for i, c := range w.Components {
		comps[i] = strconv.Quote(c)
	}
	created := ""
	if w.HasTimestamp() {
		created = ";created=<unix seconds>"
	}
	alg, sig := "hmac-sha256", "the HMAC-SHA256 under the webhook secret (base64 after an optional `whsec_`)"
	if w.Asymmetric() {
		alg, sig = "ed25519", "the Ed25519 signature with the service's secret key, which a receiver verifies with the public key (`whpk_<base64>`; it cannot sign)"
	}
	text := fmt.Sprintf("RFC 9421 HTTP Message Signatures: `%s: %s=(%s)%s;keyid=\"<key id>\";alg=\"%s\"` and `%s: %s=:<base64>:`, "+
		"one signature per active key (rotation: %s, %s-2, …), where `<base64>` is %s of the signature base (RFC 9421 §2.5) of those components; "+
		"`Content-Digest` is `sha-256=:<base64>:` of the raw body (RFC 9530). A receiver accepts the notification when a signature verifies with a key it holds "+
		"(the one its keyid names, if it knows that id), covers those components, and the Content-Digest matches the body",
		w.SignatureInputHeader, w.SignatureKey, strings.Join(comps, " "), created, alg, w.SignatureHeader, w.SignatureKey, w.SignatureKey, w.SignatureKey, sig)
	if w.HasTimestamp() {
		text += fmt.Sprintf("; it refuses a created more than %s from its own clock (a replay).", seconds(w.Tolerance))
	} else {
		text += "; the scheme signs no time, so a receiver cannot tell a replay."
	}
	return text
}

func (b *builder) retryText() string {
	var waits []string
	for _, d := range b.retries() {
		waits = append(waits, seconds(d))
	}
	return "(the same event id) after " + strings.Join(waits, ", ") + ", then records it as failed"
}

// exampleWebhookURL is where the examples' notifications are posted, for
// a scheme whose signature covers the request (RFC 9421).
const exampleWebhookURL = "https://merchant.example/webhooks/signatures"

// signedExample is the headers of a notification of body signed with the
// demo merchant's webhook secret at the vectors' time, posted to
// exampleWebhookURL.
func (b *builder) signedExample(body []byte) http.Header {
	u, _ := url.Parse(exampleWebhookURL)
	r := &http.Request{Method: http.MethodPost, URL: u, Header: http.Header{"Content-Type": {"application/json"}}}
	b.p.SignWebhookRequest(r, exampleEventID, firmakit.Demo().WebhookSecrets[:1], time.Unix(vectorTime, 0), body)
	return r.Header
}

// vectorTarget names where the vector is posted when its signature
// covers the request.
func (b *builder) vectorTarget() string {
	if b.p.Webhook.IsRFC9421() {
		return ", posted to `" + exampleWebhookURL + "`,"
	}
	return ""
}

// deliveryText is the notification's description: when it is sent, how it
// is signed and delivered, and the webhook test vector.
func (b *builder) deliveryText() string {
	h := b.signedExample([]byte(vectorBody))
	var headers []string
	for _, name := range b.p.WebhookSignatureHeaders() {
		headers = append(headers, fmt.Sprintf("`%s: %s`", name, first(h, name)))
	}
	return strings.Join([]string{
		"The service POSTs a notification (JSON, `Content-Type: application/json`) to the `signature_webhook` configured for the merchant " +
			"about a contract's progress: one of the states CREATED, BOUNCED, REJECTED, CANCELED, SIGNED, in the field " + quote(b.p.Notification.Status) +
			". In demo mode (a title starting `DEMO_<STATE>`) exactly one notification of that state comes about 500 ms after the 201; " +
			"any other title gets none. Keys with no value for a state are absent, never null.",
		b.webhookSignatureText(),
		fmt.Sprintf("**Delivery.** A 2xx answer within %s is a delivery. Otherwise the service sends the same event %s. "+
			"The event id stays the same on every retry, so that a receiver can drop duplicates.", seconds(b.timeout()), b.retryText()),
		fmt.Sprintf("**Test vector**: webhook secret `%s`, time %d, body `%s`%s give %s.", firmakit.Demo().WebhookSecrets[0], vectorTime, vectorBody,
			b.vectorTarget(), strings.Join(headers, ", ")),
		"What OpenAPI cannot say here, and `firmakit certify` checks: that the signature matches, the delay of a demo notification, " +
			"the retries and their schedule; `firmakit certify-webhook` checks a merchant's endpoint against forged and replayed notifications.",
	}, "\n\n")
}

func first(h map[string][]string, name string) string {
	return http.Header(h).Get(name)
}
