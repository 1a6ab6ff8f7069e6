// Package features holds firmakit's Gherkin features, in Spanish and
// English, the documents they trace to, and the traceability of those
// documents' rules to scenarios. There are two feature sets (see Sets):
// the service's (es/, en/), run by firmakit certify against a service, and
// the webhook endpoint's (webhook/es/, webhook/en/), run by firmakit
// certify-webhook against a merchant's endpoint.
package features
