// Package apierror is the one error type and the one error handler of
// firmakit's servers. A server says how its error body looks (a Shape):
// the reference answers {"status_code", "message"}, the receiver
// {"error"}. The same shape is used by the handler of echo errors, by the
// wrapper that decodes paths before routing (DecodePaths) and by the
// listener that rewrites the few answers net/http writes on its own
// (Listen), so that a client gets JSON wherever the server can reach.
package apierror
