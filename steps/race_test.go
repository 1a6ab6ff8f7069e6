//go:build race

package steps_test

// raceDetector tells that the tests run under the race detector.
const raceDetector = true
