// Package reference is firmakit's reference implementation of the merchant
// service: the verification and create-signature endpoints, signed demo
// notifications with retries, and the demo documents they link to.
//
// Deliberate departures from the interface plug in from outside through
// Deviations, one small interface per area of the service (auth,
// validation, envelope, notification, delivery), each with its no-op; a
// server without them is the correct service. Packages faults and
// liberties have them, and get the server's Seam at Open.
package reference
