package steps_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/firmakit/firmakit"

	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startReference opens a receiver and a reference server whose demo
// merchant notifies it, both in-process on loopback.
func startReference(t *testing.T, change func(*reference.Server, *receiver.Receiver)) (*reference.Server, *receiver.Receiver) {
	t.Helper()
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:"}
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig()}
	if change != nil {
		change(ref, rv)
	}
	require.NoError(t, rv.Open())
	t.Cleanup(func() { rv.Close() })
	require.NoError(t, ref.Config.SetWebhook("merchant_demo", rv.HookURL("merchant_demo")))
	require.NoError(t, ref.Open())
	t.Cleanup(func() { ref.Close() })
	return ref, rv
}

// TestConformanceSuite runs every scenario, Spanish and English, against
// the bundled reference server: strict, concurrent, in random order.
func TestConformanceSuite(t *testing.T) {
	ref, rv := startReference(t, nil)
	s := &steps.Suite{Target: steps.DemoTarget(ref.URL(), rv, true), Lang: "all", Randomize: -1, TestingT: t}
	status, err := s.Run()
	require.NoError(t, err)
	require.Equal(t, 0, status, "the suite failed against the reference server")
	require.Empty(t, s.NotRun(), "every scenario runs against the reference")
	assert.Equal(t, 0, s.Count(reports.NotRun))
	assert.Equal(t, len(s.Results()), s.Count(reports.Passed))
	assert.Equal(t, 168, len(s.Results()), "both languages, every example row")
}

// TestConformanceSuiteUnderAnotherProfile runs the suite with a profile
// that renames every header and signs base64 SHA-512, against a reference
// server and a receiver that read the same profile file.
func TestConformanceSuiteUnderAnotherProfile(t *testing.T) {
	p, err := firmakit.LoadProfile("testdata/profile-sha512.yaml")
	require.NoError(t, err)
	ref, rv := startReference(t, func(ref *reference.Server, rv *receiver.Receiver) {
		ref.Profile, rv.Profile = p, p
	})
	target := steps.DemoTarget(ref.URL(), rv, true)
	target.Profile = p
	s := &steps.Suite{Target: target, Lang: "all", Randomize: -1, TestingT: t}
	status, err := s.Run()
	require.NoError(t, err)
	require.Equal(t, 0, status)

	// The notifications really were signed and shaped under that profile.
	recs, err := rv.List(context.Background(), receiver.Filter{State: "SIGNED", Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	assert.Empty(t, recs[0].Header.Get("X-Service-Signature"))
	assert.Regexp(t, `^ts=\d+,s1=[A-Za-z0-9_-]{86}==$`, recs[0].Header.Get("X-Api-Webhook-Signature"))
	assert.Contains(t, string(recs[0].Body), `"state":"SIGNED"`)
	assert.Contains(t, string(recs[0].Body), `"pdf_url":"http`)
	assert.Equal(t, receiver.VerdictValid, recs[0].Verdict)
}

// TestSuiteFailsAgainstAMismatchedProfile shows the suite is not green by
// construction: a reference that signs under the bundled profile fails a
// suite that expects another one.
func TestSuiteFailsAgainstAMismatchedProfile(t *testing.T) {
	p, err := firmakit.LoadProfile("testdata/profile-sha512.yaml")
	require.NoError(t, err)
	ref, rv := startReference(t, nil)
	target := steps.DemoTarget(ref.URL(), rv, true)
	target.Profile = p
	var out bytes.Buffer
	s := &steps.Suite{Target: target, Lang: "en", Tags: "@AUTH-OK", Output: &out}
	status, err := s.Run()
	require.NoError(t, err)
	assert.Equal(t, 1, status)
	assert.Contains(t, out.String(), `expected 200 with status_code 200 and message "Authenticated", got 400 {"status_code":400,"message":"Missing headers"}`)
	assert.Contains(t, out.String(), "X-Api-Key: \"test_key_demo\"")
}

// TestSuiteFailsOnAWrongDemoDelay: a service that notifies too early or
// too late fails the demo scenarios, however loaded the machine is.
func TestSuiteFailsOnAWrongDemoDelay(t *testing.T) {
	for _, tc := range []struct {
		delay time.Duration
		want  string
	}{
		{time.Millisecond, "expected the SIGNED notification 300 to 1500 ms after the 201, it came"},
		{2 * time.Second, "expected a SIGNED notification for signature_id"},
	} {
		t.Run(tc.delay.String(), func(t *testing.T) {
			ref, rv := startReference(t, func(ref *reference.Server, _ *receiver.Receiver) { ref.DemoDelay = tc.delay })
			var out bytes.Buffer
			s := &steps.Suite{Target: steps.DemoTarget(ref.URL(), rv, true), Lang: "en", Tags: "@DEMO-SIGNED-DOCUMENT-URL", Output: &out}
			status, err := s.Run()
			require.NoError(t, err)
			assert.Equal(t, 1, status)
			assert.Equal(t, 1, s.Count(reports.Failed))
			assert.Contains(t, out.String(), tc.want)
		})
	}
}
