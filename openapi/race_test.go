//go:build race

package openapi_test

// trafficLang is the language of TestCertifyTrafficConformsToTheDocument:
// under the race detector one (both languages send the same requests, so
// one races every path the traffic takes); make test runs it without
// -race too, in both.
const trafficLang = "en"
