// Package graceful shuts HTTP servers down without waiting on
// connections that never carried a request.
package graceful
