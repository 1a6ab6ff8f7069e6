package engine

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/internal/peer"
)

// Network is the way to a target as certify's flags give it; its errors
// name those flags.
type Network struct {
	// Rate is the requests a second across all scenarios: "auto"
	// (unlimited for the bundled reference, against a target
	// DefaultStartRate doubled every second until the target shows a
	// limit), "0" (unlimited until it does), or a number.
	Rate string
	// Retries is how many times a transient answer's request is sent
	// again (0: none, unlike Target.Retries); Timeout bounds one request.
	Retries int
	Timeout time.Duration
	// CACert is a PEM file of a CA to trust beside the system's;
	// ClientCert and ClientKey, PEM files of a client certificate for
	// a gateway that asks for mutual TLS.
	CACert, ClientCert, ClientKey string
}

// Build makes a run's HTTP client, pacer and Target.Retries; foreign
// tells a run against another service than the bundled reference. The
// client takes proxies from the environment (HTTPS_PROXY, NO_PROXY),
// speaks HTTP/2 where TLS offers it, follows no redirect, and bounds what
// the target's answers spend (package peer).
func (n Network) Build(foreign bool) (*http.Client, *Pacer, int, error) {
	var pacer *Pacer
	switch r := strings.TrimSpace(n.Rate); {
	case r == "auto" && foreign:
		pacer = NewPacer(DefaultStartRate, 0)
	case r == "auto":
		pacer = NewPacer(0, 0)
	default:
		v, err := strconv.ParseFloat(r, 64)
		if err != nil || v < 0 || v != v || v > 1e6 {
			return nil, nil, 0, fmt.Errorf("--rate %q: want requests per second (e.g. 20, 0.5), 0 for unlimited, or auto", r)
		}
		pacer = NewPacer(v, v)
	}
	if n.Retries < 0 {
		return nil, nil, 0, errors.New("--retries must be 0 or more")
	}
	retries := n.Retries
	if retries == 0 {
		retries = -1 // Target.Retries: negative is none
	}
	if n.Timeout <= 0 {
		return nil, nil, 0, errors.New("--request-timeout must be more than 0")
	}
	tr := peer.Transport()
	tr.MaxIdleConnsPerHost = 64
	if n.CACert != "" || n.ClientCert != "" || n.ClientKey != "" {
		cfg, err := n.tls()
		if err != nil {
			return nil, nil, 0, err
		}
		tr.TLSClientConfig = cfg
	}
	return &http.Client{Transport: tr, Timeout: n.Timeout, CheckRedirect: NoRedirect}, pacer, retries, nil
}

// tls is the TLS configuration of CACert, ClientCert and ClientKey.
func (n Network) tls() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if n.CACert != "" {
		pem, err := os.ReadFile(n.CACert)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-cert %s: no PEM certificate in it", n.CACert)
		}
		cfg.RootCAs = pool
	}
	switch {
	case (n.ClientCert == "") != (n.ClientKey == ""):
		return nil, errors.New("--client-cert and --client-key go together: give both")
	case n.ClientCert != "":
		cert, err := tls.LoadX509KeyPair(n.ClientCert, n.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("--client-cert/--client-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// NoRedirect is an http.Client's CheckRedirect that follows none: a
// redirect is the answer under test.
func NoRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// DefaultRetries is how many times a request whose answer was transient
// (a 429, a gateway's 5xx, a broken connection, a timeout) is sent again
// before its scenario is inconclusive.
const DefaultRetries = 4

// DefaultRequestTimeout bounds one request to the target, from sending to
// the last byte of the answer: a black-holed connection becomes a retry,
// then an inconclusive scenario, never a hung run.
const DefaultRequestTimeout = 15 * time.Second
