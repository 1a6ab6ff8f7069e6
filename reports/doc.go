// Package reports turns a conformance run into what people and pipelines
// read: the run's verdict, a self-contained HTML report, a machine-readable
// certificate and JUnit XML, next to the Cucumber JSON that godog writes.
package reports
