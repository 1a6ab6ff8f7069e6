// Package openapi writes the service's interface, under a profile, as an
// OpenAPI 3.1 document: both merchant endpoints with their bodies and
// every answer the profile names, the authentication headers as security
// schemes, and the notifications under "webhooks". Each operation and
// answer names the requirement tags of the scenarios that check it
// (x-firmakit-requirement), read from the feature sets' traceability.
//
// OpenAPI cannot say how a request is signed, when a notification is
// sent, nor how an endpoint must judge one: the document says so in its
// descriptions, and firmakit's suites check those.
package openapi
