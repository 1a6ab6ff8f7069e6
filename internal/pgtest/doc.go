// Package pgtest runs a throwaway PostgreSQL server for tests: initdb into
// a temporary directory, postgres on a free loopback port, a fresh
// database per test, the server stopped when the package's tests end.
//
// It uses the server of Debian's postgresql package (or whatever initdb
// and postgres are on PATH). initdb refuses to run as root, so as root the
// server runs as the user nobody. A test package wires it in with
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// and gets a database with pgtest.NewDatabase. When the server cannot be
// started, NewDatabase returns ErrUnavailable, whose message says how to
// install it: tests fail on it, they do not skip.
package pgtest
