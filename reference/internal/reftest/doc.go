// Package reftest is what the tests of the reference server and of its
// deviations (packages faults and liberties) share: a webhook endpoint
// that records what it gets, a stopped clock, and an Exchange, one server
// with its endpoint, to which requests go signed by the demo credential
// and from which answers and notifications come back. Only tests import
// it.
package reftest
