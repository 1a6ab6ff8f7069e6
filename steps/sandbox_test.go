package steps_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/internal/gateway"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	refaults "github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatewayLatency is what the test gateways add each way: a sandbox's
// round trip, small enough to keep the runs short.
const gatewayLatency = 20 * time.Millisecond

// behindGateway starts a reference server with faults (none: the correct
// one) and its receiver, puts g in front of the reference and returns a
// target that reaches it through g, paced as certify paces a --target.
// The notifications go straight to the receiver, as a sandbox's do.
func behindGateway(t *testing.T, g *gateway.Server, faults ...string) *steps.Target {
	t.Helper()
	ref, rv := startReference(t, func(ref *reference.Server, _ *receiver.Receiver) { ref.Deviations = mustFaults(t, faults) })
	g.Upstream = ref.URL()
	require.NoError(t, g.Open())
	t.Cleanup(func() { g.Close() })
	target := steps.DemoTarget(g.URL(), rv, true)
	target.Pacer = steps.NewPacer(steps.DefaultStartRate, 0)
	// The documents are on the reference's host, behind the gateway's.
	target.DocumentHost = "127.0.0.1"
	return target
}

// withoutOperatorRows is the tag expression tags (empty: all) without
// the scenarios whose rows send an operator's neighbours: hundreds of
// requests more, which a gateway's rate limit of 20 a second spreads over
// minutes, for rows whose verdict the whole-suite tests without a gateway
// judge. What these tests check is the gateway's part: pacing,
// retries, a verdict that holds.
func withoutOperatorRows(t *testing.T, tags string) string {
	t.Helper()
	scs, err := features.Scenarios(features.FS, "en")
	require.NoError(t, err)
	byOperator := map[string]bool{}
	for _, sc := range scs {
		for _, ex := range sc.Examples {
			if strings.Contains(ex, "| operator") {
				byOperator["@"+sc.Requirement] = true
			}
		}
	}
	require.NotEmpty(t, byOperator, "the features have rows by operator")
	if tags != "" {
		// A list of requirement tags (any of them): the list without them.
		var keep []string
		for _, tag := range strings.Split(tags, ",") {
			if !byOperator[tag] {
				keep = append(keep, tag)
			}
		}
		return strings.Join(keep, ",")
	}
	var out []string
	for tag := range byOperator {
		out = append(out, "~"+tag)
	}
	sort.Strings(out)
	return strings.Join(out, " && ")
}

// unreliableGateway is a gateway like a sandbox's on a bad day: a rate
// limit that says when to come back, 3% of 502s and 3% of resets, and
// latency each way.
func unreliableGateway() *gateway.Server {
	return &gateway.Server{Rate: 20, Burst: 10, RetryAfter: true, BadGateway: 0.03, Reset: 0.03, Latency: gatewayLatency, Seed: 1}
}

// TestAPersistent502IsJudged: a service whose own answer to one request
// is a 502 HTML page, every time, fails that scenario once the retries
// are spent; a 502 is not a license to pass.
func TestAPersistent502IsJudged(t *testing.T) {
	ref, rv := startReference(t, nil)
	up, err := url.Parse(ref.URL())
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(up)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 1<<20 {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	target := steps.DemoTarget(srv.URL, rv, true)
	target.Pacer = steps.NewPacer(steps.DefaultStartRate, 0)
	s := &steps.Suite{Target: target, RunOptions: steps.RunOptions{Lang: "en", Tags: "@AUTH-BODY-LIMIT"}}
	_, err = s.Run()
	require.NoError(t, err)
	assert.Equal(t, reports.Failed, s.Verdict(), unpassed(s))
	var failed []reports.ScenarioResult
	for _, r := range s.Results() {
		if r.Status == reports.Failed {
			failed = append(failed, r)
		}
	}
	require.Len(t, failed, 2, "the 1 MiB rows of both endpoints: %s", unpassed(s))
	for _, f := range failed {
		assert.Contains(t, f.Example, "1048576")
		assert.Contains(t, f.Error, "the same 502 came back to each of 5 attempts")
	}
	assert.Equal(t, 2, s.Count(reports.Passed), "the 413 rows passed: %s", unpassed(s))
	assert.Equal(t, 10, target.Pacer.Stats().Transient["gateway 502"])
}

// mustFaults returns the deviations of the named faults.
func mustFaults(t testing.TB, names []string) *reference.Deviations {
	t.Helper()
	d, err := refaults.New(names)
	require.NoError(t, err)
	return d
}
