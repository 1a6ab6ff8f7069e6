// Package engine is the run engine both suites run on: the service
// suite (package steps) and the webhook endpoint suite (package
// steps/webhook). It holds what a run does around godog and what a
// scenario's steps share whatever they test: how a failing assertion
// cites its rule (Breaks) and a warning its basis (Warn), how a
// scenario's result is built (Result) and named (PickleKey, RowKey), how
// this process's own lateness is measured (LagMonitor) and excuses a
// timing (ExcusedBy), and how step sentences are registered and listed
// (Registrar, ListSentences).
//
// The engine imports neither suite: a suite brings its steps, the engine
// runs them.
package engine
