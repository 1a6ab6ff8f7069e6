package main

import (
	"flag"
	"fmt"

	"github.com/firmakit/firmakit/steps/engine"
)

// networkFlags adds certify's flags for the way to the target: pacing,
// retries, timeouts and TLS.
func networkFlags(fs *flag.FlagSet) *engine.Network {
	n := &engine.Network{}
	fs.StringVar(&n.Rate, "rate", "auto", fmt.Sprintf("requests per second to the target, across all scenarios; auto: unlimited for the bundled reference, "+
		"against a --target %d/s doubled every second until the target shows a limit; 0: unlimited until it does. "+
		"A 429 halves the rate, a Retry-After or RateLimit-* header is obeyed (waits capped at %s)", engine.DefaultStartRate, engine.DefaultMaxWait))
	fs.IntVar(&n.Retries, "retries", engine.DefaultRetries, "times a request is sent again, signed anew, after a transient answer (429, a gateway's 502/503/504, "+
		"a broken connection, a timeout); then its scenario is inconclusive")
	fs.DurationVar(&n.Timeout, "request-timeout", engine.DefaultRequestTimeout, "timeout of one request to the target, answer included; then it is sent again")
	fs.StringVar(&n.CACert, "ca-cert", "", "PEM file of a CA to trust for the target's TLS certificate, beside the system's")
	fs.StringVar(&n.ClientCert, "client-cert", "", "PEM client certificate, for a gateway that asks for mutual TLS (with --client-key)")
	fs.StringVar(&n.ClientKey, "client-key", "", "PEM key of --client-cert")
	return n
}

// networkLine is the recap's line on what the run's requests met: always
// against a --target (what the run cost the sandbox), for the bundled
// reference only when something was retried or limited.
func networkLine(p *engine.Pacer, target bool) string {
	st := p.Stats()
	if !target && st.Retried == 0 && st.GaveUp == 0 && st.RateLimited == 0 {
		return ""
	}
	return st.String()
}
