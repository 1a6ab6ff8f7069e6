package main

import (
	"time"
)

// DefaultMaxDuration bounds a run against a --target (certify) or an
// endpoint (certify-webhook) when --max-duration is not given. A run
// retries what is transient and waits out what a target asks (a
// Retry-After of 30 s to every request, say), then runs the inconclusive
// scenarios again, alone: by the code alone such a run could last hours,
// and a pipeline needs an end. A whole run against a sandbox takes a few
// minutes (see docs/certify.md), so 30 minutes leaves room for a slow one.
const DefaultMaxDuration = 30 * time.Minute

// maxDurationUsage is the start of --max-duration's usage line.
const maxDurationUsage = "bound of the whole run (pre-flight, suite, reruns); when it runs out, what was not judged yet is inconclusive (exit 5), never failed nor passed"

// checkMaxDuration refuses a negative --max-duration; 0 is no bound.
func checkMaxDuration(d time.Duration) error {
	if d < 0 {
		return usageError("--max-duration must be 0 (no bound) or more, such as 30m")
	}
	return nil
}
