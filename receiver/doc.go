// Package receiver takes webhook notifications, verifies their signatures,
// keeps them in an embedded SQLite database and streams them to clients:
// the conformance suite (which waits on them), remote callers of its JSON
// API, and the live dashboard.
package receiver
