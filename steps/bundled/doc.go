// Package bundled starts the bundled reference server and a receiver,
// in-process on loopback, and describes them as a steps.Target: what
// 'firmakit certify' runs against when no --target is given, for a QA
// team's own godog suite to run firmakit's sentences against.
package bundled
