// Package guard keeps firmakit's local servers (the receiver and the
// reference) to the people they are meant for: a Host check against DNS
// rebinding, a token for what only the developer should read or change,
// a refusal of what a browser sends for another site's page, and the
// recognition of requests that came through a proxy or a tunnel, which
// need the token even when the server listens on loopback.
package guard
