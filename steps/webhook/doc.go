// Package webhook is the suite that 'firmakit certify-webhook' runs
// against a merchant's webhook endpoint: firmakit plays the service,
// signs the webhook set's notifications (features/webhook) under the
// profile, posts them, and judges the endpoint's answers. It binds the
// set's sentences, probes the endpoint before and after the run, names
// the likely mistakes its failures point at (hints), and writes the set's
// deliveries as fixed test vectors. The run itself (godog's pass,
// selection, reruns, the deadline, the result log) is package steps',
// shared with the service suite through engine.RunOptions.
package webhook
