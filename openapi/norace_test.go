//go:build !race

package openapi_test

// trafficLang is the language of TestCertifyTrafficConformsToTheDocument:
// both without the race detector (see race_test.go).
const trafficLang = "all"
