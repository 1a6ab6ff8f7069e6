// Package liberties is the reference server's deliberate liberties: each
// one departs from the reference's own choices in a way the two documents
// allow, or leave open, as real implementations do (the standard
// library's 404, 405 and redirects, a lenient parser of a form no client
// sends, refusals in other words, extra keys, another JSON layout, a
// configured delay or schedule), through the server's Deviations, the
// seam of the faults. They are the faults' twins: a named fault must fail
// the conformance suite, a named liberty must pass it (with warnings at
// most), so that the suite's precision is measured as its power is. Each
// cites why it is allowed.
//
// The table of liberties and New are in liberties.go; the hooks of each
// area of reference.Deviations in the file of that area, as the faults'.
package liberties
