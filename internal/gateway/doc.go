// Package gateway is a reverse proxy that behaves like the API gateway in
// front of a merchant's sandbox on the internet: it rate-limits with 429s,
// answers some requests with an HTML 502, resets some connections, adds
// latency each way and can terminate TLS with HTTP/2. Project tests and
// benchmarks put it in front of the bundled reference server to show how
// the conformance suite copes with such a target.
//
// It serves on loopback only and forwards to loopback only: Open refuses
// anything else, and its dialer refuses any address that is not loopback,
// so no load or failure it makes can leave the machine.
package gateway
