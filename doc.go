// Package firmakit holds what every part of firmakit shares: the profile
// (header names, what is signed, tolerances), request and webhook signing and
// verification, and the types of the service's interface.
package firmakit
