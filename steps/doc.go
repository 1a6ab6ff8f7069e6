// Package steps binds the conformance suite's Gherkin sentences, Spanish
// and English, to code that talks to a target service and to the receiver
// its notifications land on.
package steps
