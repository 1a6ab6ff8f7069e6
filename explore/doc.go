// Package explore sends generated requests to a target beside the
// conformance suite and checks what holds for every input, whatever it is
// (defaults.md A, C): no answer is a 5xx; every error body is the API's
// JSON shape with status_code equal to the HTTP status; the first failing
// check of the documented order decides the answer; a valid request is
// accepted.
//
// The requests are drawn by pgregory.net/rapid from the interface's two
// endpoints and a set of mutation operators (a header dropped or empty, a
// timestamp stale, ahead or not digits, another merchant's or an unknown
// key, the signature written otherwise, a body that is not JSON, an array,
// over 1 MiB, with invalid UTF-8, a create body missing its title, with an
// unknown data key, a bad e-mail, …), each signed under the target's
// profile with its credentials. A failure is shrunk by rapid to its
// smallest request and reported as a 'firmakit sign --curl' command line
// that sends it again and as the example row of a scenario that would pin
// it; the same seed draws the same sequence of requests.
//
// Only what a sentence of the documents states is judged, and each
// finding cites that sentence. An answer the documents leave open is no
// finding, and neither is a request that got no answer of the target's
// own (a transport error, a gateway's 429 or 502).
package explore
