// Package faults is the reference server's deliberate faults: each one
// departs from exactly one rule of the interface or of the bundled
// profile, through the server's Deviations, so that a conformance suite's
// power can be measured by whether it notices. Nothing else should run
// them.
//
// The table of faults and New are in faults.go; the hooks of each area of
// reference.Deviations in the file of that area (auth.go, validation.go,
// envelope.go, notification.go), their tests beside them.
package faults
