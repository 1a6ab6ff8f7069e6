// Package stdservice is an independent implementation of the merchant
// signature service, written from the two published documents alone
// (shared/spec/service-interface.md and the bundled profile in
// shared/spec/defaults.md) with nothing but the Go standard library.
//
// It does not import firmakit and was written without reading firmakit's
// reference server, receiver or steps. It exists to measure the precision of
// the conformance suite: every rule the documents state is followed, and
// wherever they leave a choice open this package takes the choice a typical
// Go developer would take with net/http, so a suite that fails it is failing
// a correct implementation. The choices it takes are:
//
//   - Routing is net/http's ServeMux with method and wildcard patterns. Other
//     methods get ServeMux's own 405 (text/plain, with Allow); unknown paths
//     get its own 404 and unclean paths its own redirect.
//   - The check path accepts the configured API versions (v1 by default);
//     another version segment is a JSON 404 before any authentication.
//   - The timestamp is read with strconv.ParseInt, so a leading sign ("+")
//     is accepted; a timestamp exactly 300 s away is still accepted.
//   - The body is read (with http.MaxBytesReader, limit 1 MiB) after the key
//     check and before the signature check, so a missing header wins over an
//     oversized body, and an oversized body wins over a wrong signature.
//   - The request Content-Type is not checked; JSON is parsed with
//     encoding/json (duplicate keys: the last wins; unknown top-level fields
//     of the create body are ignored; JSON null is the same as absent).
//   - Create refusals use their own wording ("<field>: <fault>") and carry an
//     extra "field" key; optional fields sent as "" count as absent.
//   - A document may be listed twice; e-mail addresses are checked with
//     net/mail (a bare address, no display name); data values may be
//     strings, numbers or booleans, not null, objects or arrays.
//   - DemoConfig gives merchant_other its own sender and the same template,
//     since the documents give it neither.
//   - Responses are written by json.Encoder, which escapes <, > and & as
//     \u003c, \u003e and \u0026 and ends the body with a newline.
//   - document_url is built from PublicURL or, when it is empty, from the
//     Host of the create request.
//   - Webhook deliveries do not follow redirects (a 3xx is a failed attempt),
//     sign each attempt with a fresh t, and keep the same body and event_id.
package stdservice
