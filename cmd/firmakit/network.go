package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/internal/peer"
	"github.com/firmakit/firmakit/steps"
)

// netFlags are certify's flags for the way to the target: pacing,
// retries, timeouts and TLS.
type netFlags struct {
	rate                         *string
	retries                      *int
	timeout                      *time.Duration
	caCert, clientCert, clientKe *string
}

func networkFlags(fs *flag.FlagSet) *netFlags {
	return &netFlags{
		rate: fs.String("rate", "auto", fmt.Sprintf("requests per second to the target, across all scenarios; auto: unlimited for the bundled reference, "+
			"against a --target %d/s doubled every second until the target shows a limit; 0: unlimited until it does. "+
			"A 429 halves the rate, a Retry-After or RateLimit-* header is obeyed (waits capped at %s)", steps.DefaultStartRate, steps.DefaultMaxWait)),
		retries: fs.Int("retries", steps.DefaultRetries, "times a request is sent again, signed anew, after a transient answer (429, a gateway's 502/503/504, "+
			"a broken connection, a timeout); then its scenario is inconclusive"),
		timeout:    fs.Duration("request-timeout", steps.DefaultRequestTimeout, "timeout of one request to the target, answer included; then it is sent again"),
		caCert:     fs.String("ca-cert", "", "PEM file of a CA to trust for the target's TLS certificate, beside the system's"),
		clientCert: fs.String("client-cert", "", "PEM client certificate, for a gateway that asks for mutual TLS (with --client-key)"),
		clientKe:   fs.String("client-key", "", "PEM key of --client-cert"),
	}
}

// build makes the HTTP client, the pacer and the retry count of a run;
// target tells a run against a --target (else the bundled reference).
// The client takes proxies from the environment (HTTPS_PROXY, NO_PROXY)
// and speaks HTTP/2 where TLS offers it.
func (f *netFlags) build(target bool) (*http.Client, *steps.Pacer, int, error) {
	var pacer *steps.Pacer
	switch r := strings.TrimSpace(*f.rate); {
	case r == "auto" && target:
		pacer = steps.NewPacer(steps.DefaultStartRate, 0)
	case r == "auto":
		pacer = steps.NewPacer(0, 0)
	default:
		n, err := strconv.ParseFloat(r, 64)
		if err != nil || n < 0 || n != n || n > 1e6 {
			return nil, nil, 0, usageError("--rate %q: want requests per second (e.g. 20, 0.5), 0 for unlimited, or auto", r)
		}
		pacer = steps.NewPacer(n, n)
	}
	if *f.retries < 0 {
		return nil, nil, 0, usageError("--retries must be 0 or more")
	}
	retries := *f.retries
	if retries == 0 {
		retries = -1 // steps.Target: negative is none
	}
	if *f.timeout <= 0 {
		return nil, nil, 0, usageError("--request-timeout must be more than 0")
	}
	// Whatever the target answers costs a bounded amount (package peer):
	// its headers here, the body kept by the steps, the time by Timeout.
	tr := peer.Transport()
	tr.MaxIdleConnsPerHost = 64
	if *f.caCert != "" || *f.clientCert != "" || *f.clientKe != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if *f.caCert != "" {
			pem, err := os.ReadFile(*f.caCert)
			if err != nil {
				return nil, nil, 0, usageError("--ca-cert: %v", err)
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, nil, 0, usageError("--ca-cert %s: no PEM certificate in it", *f.caCert)
			}
			cfg.RootCAs = pool
		}
		switch {
		case (*f.clientCert == "") != (*f.clientKe == ""):
			return nil, nil, 0, usageError("--client-cert and --client-key go together: give both")
		case *f.clientCert != "":
			cert, err := tls.LoadX509KeyPair(*f.clientCert, *f.clientKe)
			if err != nil {
				return nil, nil, 0, usageError("--client-cert/--client-key: %v", err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		tr.TLSClientConfig = cfg
	}
	return &http.Client{Transport: tr, Timeout: *f.timeout, CheckRedirect: steps.NoRedirect}, pacer, retries, nil
}

// networkLine is the recap's line on what the run's requests met: always
// against a --target (what the run cost the sandbox), for the bundled
// reference only when something was retried or limited.
func networkLine(t *steps.Target, target bool) string {
	st := t.Pacer.Stats()
	if !target && st.Retried == 0 && st.GaveUp == 0 && st.RateLimited == 0 {
		return ""
	}
	return st.String()
}
