// Command firmakit tests a merchant API for digital contract signatures:
// it runs the conformance suite against a service (certify) or a
// merchant's webhook endpoint (certify-webhook), the reference server
// (serve), the webhook receiver (receive) and helpers for merchants' own
// code.
package main
