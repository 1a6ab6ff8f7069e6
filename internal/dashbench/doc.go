// Package dashbench drives the receiver's dashboard in a browser while
// notifications stream in, and measures what a person would feel: frames
// per second, and the time from a click on a row to its detail on screen.
// The receiver's browser test runs it briefly and checks what is
// deterministic; `go run ./cmd/bench dashboard` runs it longer and
// checks the figures.
package dashbench
