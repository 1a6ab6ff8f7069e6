package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/firmakit/firmakit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An unknown or misspelt flag gets one line on standard error, for every
// command: what was wrong, the flag meant when one is close, and where
// the flags are listed; never the whole usage.
func TestUnknownFlagIsOneLine(t *testing.T) {
	m := &Main{}
	for _, c := range m.commands() {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, nil, c.name, "--bogus-flag")
			assert.Equal(t, ExitUsage, code)
			assert.Empty(t, out)
			assert.Equal(t, fmt.Sprintf("firmakit %s: unknown flag --bogus-flag; 'firmakit help %s' lists the flags\n", c.name, c.name), errOut)
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"certify", "--concurency", "2"}, "firmakit certify: unknown flag --concurency: did you mean --concurrency? 'firmakit help certify' lists the flags\n"},
		{[]string{"certify", "--targt=http://x"}, "firmakit certify: unknown flag --targt: did you mean --target? 'firmakit help certify' lists the flags\n"},
		{[]string{"serve", "-adr", "x"}, "firmakit serve: unknown flag --adr: did you mean --addr? 'firmakit help serve' lists the flags\n"},
		{[]string{"receive", "--lisen", "x"}, "firmakit receive: unknown flag --lisen: did you mean --listen? 'firmakit help receive' lists the flags\n"},
		{[]string{"certify", "--target"}, "firmakit certify: --target needs a value, as in --target=VALUE; 'firmakit help certify' lists the flags\n"},
		{[]string{"certify", "--concurrency", "many"}, "firmakit certify: --concurrency \"many\": want a whole number\n"},
		{[]string{"serve", "--demo-delay", "soon"}, "firmakit serve: --demo-delay \"soon\": want a duration such as 500ms, 2s or 1m\n"},
		{[]string{"receive", "--strict=maybe"}, "firmakit receive: --strict \"maybe\": want true or false\n"},
		{[]string{"certfy"}, "firmakit: unknown command \"certfy\" (did you mean \"certify\"?); 'firmakit help' lists the commands\n"},
		{[]string{"nope"}, "firmakit: unknown command \"nope\"; 'firmakit help' lists the commands\n"},
		{[]string{"--lang", "en"}, "firmakit: --lang: flags come after the command, as in 'firmakit certify --lang en'; 'firmakit help' lists the commands\n"},
	} {
		code, out, errOut := run(t, nil, tc.args...)
		assert.Equal(t, ExitUsage, code, tc.args)
		assert.Empty(t, out, tc.args)
		assert.Equal(t, tc.want, errOut, tc.args)
	}
}

// A value from the environment or a config file that does not fit its
// flag names the variable (or key), the value and what the flag wants;
// a text value, which may be a secret, is never shown.
func TestEnvironmentAndConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"FIRMAKIT_CONCURRENCY": "abc"}, []string{"certify"}, `firmakit certify: FIRMAKIT_CONCURRENCY="abc" (for --concurrency): want a whole number`},
		{map[string]string{"FIRMAKIT_STRICT": "yes please"}, []string{"receive"}, `firmakit receive: FIRMAKIT_STRICT="yes please" (for --strict): want true or false`},
		{map[string]string{"FIRMAKIT_DEMO_DELAY": "500"}, []string{"serve"}, `firmakit serve: FIRMAKIT_DEMO_DELAY="500" (for --demo-delay): want a duration such as 500ms, 2s or 1m`},
		{map[string]string{"FIRMAKIT_RETRY_SCHEDULE": "1s,later"}, []string{"serve"}, `firmakit serve: FIRMAKIT_RETRY_SCHEDULE="1s,later" (for --retry-schedule): "later" is not a duration such as 1s (want durations such as 1s,2s,4s, or none)`},
	} {
		code, out, errOut := run(t, tc.env, tc.args...)
		assert.Equal(t, ExitUsage, code, tc.env)
		assert.Empty(t, out)
		assert.Equal(t, tc.want+"\n", errOut)
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("concurrency: lots\n"), 0o600))
	code, _, errOut := run(t, nil, "certify", "--config", cfg)
	assert.Equal(t, ExitUsage, code)
	assert.Equal(t, fmt.Sprintf("firmakit certify: config %s: concurrency: \"lots\": want a whole number\n", cfg), errOut)
	require.NoError(t, os.WriteFile(cfg, []byte("concurency: 2\n"), 0o600))
	_, _, errOut = run(t, nil, "certify", "--config", cfg)
	assert.Contains(t, errOut, `unknown key "concurency" for this command; did you mean "concurrency"?`)
}

func TestProfileTypoNamesTheField(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.yaml")
	require.NoError(t, os.WriteFile(p, []byte("request:\n  key_heder: X-Api-Key\n"), 0o600))
	for _, args := range [][]string{{"profile", "--check", p}, {"certify", "--profile", p}, {"serve", "--profile", p}} {
		code, out, errOut := run(t, nil, args...)
		assert.Equal(t, ExitUsage, code, args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, `line 2: request has no field "key_heder"; its fields are key_header, timestamp_header,`, args)
		assert.NotContains(t, errOut, "firmakit.RequestProfile")
	}
}

func TestVersion(t *testing.T) {
	_, byCommand, _ := run(t, nil, "version")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		code, out, errOut := run(t, nil, args...)
		assert.Equal(t, ExitOK, code)
		assert.Empty(t, errOut)
		assert.Equal(t, byCommand, out)
	}
	assert.True(t, strings.HasPrefix(byCommand, "firmakit "))

	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	rev := "b2d7cdb0f1e2d3c4b5a6978877665544332211ff"
	for _, tc := range []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		want          string
	}{
		{"make build", "v1.2.0-3-gb2d7cdb-dirty", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0"}}, "v1.2.0-3-gb2d7cdb-dirty"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.1.0"}}, "v1.1.0"},
		{"go build in a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261122103000-b2d7cdb0f1e2+dirty"}}, "v0.0.0-20261122103000-b2d7cdb0f1e2+dirty"},
		{"a revision, clean", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", rev, "vcs.modified", "false")}, "b2d7cdb0f1e2"},
		{"a revision, modified", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", rev, "vcs.modified", "true")}, "b2d7cdb0f1e2-dirty"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build info", "", nil, "devel"},
	} {
		assert.Equal(t, tc.want, versionOf(tc.ldflags, tc.bi, tc.bi != nil), tc.name)
	}
}

// holdPort listens on a free loopback port for the test, so that
// something else cannot.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// Every command gives the exit code of the README's table. An address in
// use, or one this machine cannot listen on, is a configuration error
// (2) that names the flag to change.
func TestExitCodesOfEveryCommand(t *testing.T) {
	busy := holdPort(t)
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--log-level", "warn")
	target := []string{"--target", ref["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo", "--webhook-secret", "whsec_test_demo"}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"serve: address in use", []string{"serve", "--addr", busy}, ExitUsage, "cannot listen on " + busy + ": the address is already in use (another firmakit, or another program, listens there); stop it, or choose another address with --addr"},
		{"serve: not an address", []string{"serve", "--addr", "nonsense"}, ExitUsage, `cannot listen on "nonsense"`},
		{"receive: address in use", []string{"receive", "--listen", busy, "--db", ":memory:"}, ExitUsage, "choose another address with --listen"},
		{"receive: a --db it cannot create", []string{"receive", "--listen", "127.0.0.1:0", "--db", filepath.Join(dir, "no", "such", "dir", "r.db")}, ExitUsage, "give --db a file this user can create or open, or --db :memory:"},
		{"up: --addr in use", []string{"up", "--addr", busy, "--listen", "127.0.0.1:0", "--log-level", "warn"}, ExitUsage, "choose another address with --addr"},
		{"up: --listen in use", []string{"up", "--addr", "127.0.0.1:0", "--listen", busy, "--log-level", "warn"}, ExitUsage, "choose another address with --listen"},
		{"certify: --listen in use", append([]string{"certify", "--listen", busy, "--lang", "en", "--tags", "@AUTH-OK"}, target...), ExitUsage, "choose another address with --listen"},
		{"certify: an unknown --format", []string{"certify", "--format", "prety"}, ExitUsage, `--format "prety": no format "prety" (did you mean "pretty"?)`},
		{"certify: an unknown --format after a good one", []string{"certify", "--format", "firmakit,xml:out.xml"}, ExitUsage, `no format "xml"`},
		{"certify: --report-lang", []string{"certify", "--report-lang", "fr"}, ExitUsage, `--report-lang "fr": want es or en`},
		{"certify: --report-lang without --report", []string{"certify", "--report-lang", "es"}, ExitUsage, "--report-lang is the language of report.html: give --report DIR too"},
		{"certify: an unreachable target", []string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w"}, ExitUnreachable, "target http://127.0.0.1:9 is unreachable"},
		{"certify: not a URL", []string{"certify", "--target", "127.0.0.1:8080", "--key", "k", "--secret", "s", "--webhook-secret", "w"}, ExitUsage, `--target "127.0.0.1:8080" is not an http(s) URL`},
		{"demo: an unreachable target", []string{"demo", "SIGNED", "--target", "http://127.0.0.1:9"}, ExitUnreachable, "127.0.0.1:9"},
		{"demo: no state", []string{"demo"}, ExitUsage, "want exactly one state"},
		{"report: no file", []string{"report", "verify", filepath.Join(dir, "none.json")}, ExitUsage, "no such file"},
		{"report: no subcommand", []string{"report"}, ExitUsage, "want: firmakit report verify certificate.json"},
		{"features: unknown", []string{"features", "nope"}, ExitUsage, "unknown features command"},
		{"sign: no URL", []string{"sign"}, ExitUsage, "--url is required"},
		{"version", []string{"version"}, ExitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, out+errOut)
			if tc.want != "" {
				assert.Contains(t, errOut, tc.want)
				assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
			}
		})
	}
}

// The pre-flight sends one signed check request before the suite and,
// when it fails, says once what is wrong instead of hundreds of failures.
func TestCertifyPreflight(t *testing.T) {
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--log-level", "warn")
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, `{"status_code":502,"message":"upstream down"}`)
	}))
	t.Cleanup(broken.Close)
	otherHeaders := filepath.Join(t.TempDir(), "profile.yaml")
	require.NoError(t, os.WriteFile(otherHeaders, []byte("request: {key_header: X-Api-Key, timestamp_header: X-Api-Timestamp, signature_header: X-Api-Signature}\n"), 0o600))
	certify := func(target, key, secret string, more ...string) []string {
		return append([]string{"certify", "--target", target, "--key", key, "--secret", secret, "--webhook-secret", "whsec_test_demo",
			"--listen", "127.0.0.1:0", "--lang", "en", "--tags", "@AUTH-OK"}, more...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"a wrong secret", certify(ref["reference"], "test_key_demo", "wrong"), ExitFailed,
			[]string{`answered 401 "Invalid signature": the target knows the key "test_key_demo" but not this signature: --secret is not that key's secret`,
				"firmakit sign --url " + ref["reference"] + "/v1/check/merchant_demo --key test_key_demo"}},
		{"an unknown key", certify(ref["reference"], "test_key_nope", "x"), ExitFailed,
			[]string{`answered 401 "Invalid credentials": the target does not accept the key "test_key_nope" for merchant "merchant_demo"`}},
		{"a base URL with the version in it", certify(ref["reference"]+"/v1", "test_key_demo", "test_secret_demo"), ExitFailed,
			[]string{"answered 404", "--target is probably wrong"}},
		{"another merchant", certify(ref["reference"], "test_key_demo", "test_secret_demo", "--merchant", "merchant_other"), ExitFailed,
			[]string{`answered 401 "Invalid credentials"`, `for merchant "merchant_other"`}},
		{"other header names", certify(ref["reference"], "test_key_demo", "test_secret_demo", "--profile", otherHeaders), ExitFailed,
			[]string{`answered 400 "Missing headers": the target does not find the authentication headers X-Api-Key, X-Api-Timestamp and X-Api-Signature`, "--profile"}},
		{"a failing target", certify(broken.URL, "k", "s"), ExitFailed,
			[]string{`answered 502 "upstream down": the target failed on a plain signed check request`}},
		{"nothing there", certify("http://127.0.0.1:9", "k", "s"), ExitUnreachable,
			[]string{"target http://127.0.0.1:9 is unreachable", "connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, out+errOut)
			assert.NotContains(t, out, "verdict:", "the suite did not run")
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one diagnosis: %s", errOut)
			for _, w := range tc.want {
				assert.Contains(t, errOut, w)
			}
			if tc.code == ExitFailed {
				assert.Contains(t, errOut, "--skip-preflight runs it anyway")
			}
		})
	}

	// It passes against a right configuration, and says so; with
	// --skip-preflight a wrong secret runs the suite, which fails and says
	// the likely cause once.
	code, out, errOut := run(t, nil, certify(ref["reference"], "test_key_demo", "test_secret_demo")...)
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "pre-flight: POST "+ref["reference"]+"/v1/check/merchant_demo signed with --key test_key_demo answered 200 \"Authenticated\"; round trip ")
	code, out, _ = run(t, nil, certify(ref["reference"], "test_key_demo", "wrong", "--skip-preflight")...)
	assert.Equal(t, ExitFailed, code)
	assert.NotContains(t, out, "pre-flight")
	assert.Contains(t, out, "failed: 1 requirement, 3 scenario runs\n")
	assert.Regexp(t, `\n  @AUTH-OK +3  expected 200 "Authenticated", got 401 "Invalid signature"\n`, out)
	assert.Contains(t, out, "likely cause of 3 failures: Signed requests got 401 Invalid signature")
	assert.True(t, strings.HasPrefix(lastLines(out, 1)[0], "firmakit: 3 scenarios: 0 passed, 3 failed"), "the counts stay last")
}

// On a terminal, a run that takes longer than a second keeps a status line
// of how far it has got, shows the first failure of each requirement, and
// ends with the recap and the counts, last.
func TestCertifyProgressOnATerminal(t *testing.T) {
	hook := freeAddr(t)
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", "http://"+hook+"/hooks/merchant_demo",
		"--fault", "auth-disabled-key-accepted", "--log-level", "error")
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" },
		isTerminal: func(io.Writer) (bool, int) { return true, 100 }}
	code := m.Run(context.Background(), []string{"certify", "--target", ref["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--disabled-key", "test_key_disabled", "--disabled-secret", "test_secret_disabled", "--webhook-secret", "whsec_test_demo",
		"--listen", hook, "--lang", "en", "--tags", "@AUTH-DISABLED-KEY,@DEMO-NOTIFICATION"})
	require.Equal(t, ExitFailed, code, out.String()+errOut.String())
	s := out.String()
	assert.Regexp(t, `\r\x1b\[K  \d+ of 7 done, 2 failed, \d+\.\ds`, s, "a status line redrawn in place")
	assert.Contains(t, s, "FAIL    en  @AUTH-DISABLED-KEY a disabled key is refused (endpoint=", "the first failure of the requirement")
	assert.Equal(t, 1, strings.Count(s, "FAIL    en  @AUTH-DISABLED-KEY"), "once per requirement")
	assert.NotContains(t, s, "ok      en", "passed scenarios are counted, not listed")
	assert.Contains(t, s, "failed: 1 requirement, 2 scenario runs\n")
	assert.Equal(t, "firmakit: 8 scenarios: 6 passed, 2 failed, 0 not run", lastLines(s, 1)[0])
	assert.NotContains(t, lastLines(s, 1)[0], "\r", "the status line is gone at the end")
}

// certify --report writes the page in the language asked, names the
// bundled reference server, and its certificate verifies; an edited
// certificate does not, and the command says what changed.
func TestCertifyReportLanguageAndVerify(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, nil, "certify", "--lang", "es", "--tags", "@AUTH-OK", "--report", dir)
	require.Equal(t, ExitOK, code, out+errOut)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<html lang="es">`, "--lang es gives a Spanish page")
	assert.Contains(t, string(page), "servidor de referencia incluido")
	assert.NotRegexp(t, `127\.0\.0\.1:\d+`, string(page), "no random port")
	assert.Contains(t, out, "report: "+filepath.Join(dir, "report.html")+" (also "+filepath.Join(dir, "certificate.json"))
	c := readCertificate(t, dir)
	assert.Equal(t, reports.BundledTarget, c.Target.Label)
	assert.Empty(t, c.Target.URL)

	cert := filepath.Join(dir, "certificate.json")
	code, out, errOut = run(t, nil, "report", "verify", cert)
	require.Equal(t, ExitOK, code, errOut)
	assert.Regexp(t, `^`+regexp.QuoteMeta(cert)+` holds: its sha256 [0-9a-f]{64} matches its content \(RFC 8785`, out)

	var doc map[string]any
	b, err := os.ReadFile(cert)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	doc["summary"].(map[string]any)["failed"] = 0.0
	doc["summary"].(map[string]any)["passed"] = 99.0
	edited, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cert, edited, 0o644))
	code, out, errOut = run(t, nil, "report", "verify", cert)
	assert.Equal(t, ExitFailed, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, cert+" does not hold: changed since certify wrote it: summary (the digest recorded is ")

	dir2 := t.TempDir()
	code, out, errOut = run(t, nil, "certify", "--lang", "es", "--tags", "@AUTH-OK", "--report", dir2, "--report-lang", "en")
	require.Equal(t, ExitOK, code, out+errOut)
	page, err = os.ReadFile(filepath.Join(dir2, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<html lang="en">`, "--report-lang wins")
	assert.Contains(t, string(page), "se acepta una solicitud firmada", "the Spanish scenarios keep their text")
}

// Against a target, certify's own receiver listens on a fixed, documented
// port unless --listen says otherwise.
func TestCertifyListensOnAFixedPort(t *testing.T) {
	assert.Equal(t, "127.0.0.1:8091", DefaultCertifyListen)
	code, out, _ := run(t, nil, "help", "certify")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, `(default "127.0.0.1:8091")`)
}

// TestCertifyPreflightSaysTheFirstRefusal: a target behind a balancer
// whose second backend refuses (another secret, another clock) is not
// passed by the pre-flight on the strength of the first answer.
func TestCertifyPreflightSaysTheFirstRefusal(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) == 1 {
			_, _ = io.WriteString(w, `{"status_code":200,"message":"Authenticated"}`)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"status_code":401,"message":"Invalid signature"}`)
	}))
	defer srv.Close()
	code, out, errOut := run(t, nil, "certify", "--target", srv.URL, "--key", "k", "--secret", "s", "--webhook-secret", "w",
		"--listen", "127.0.0.1:0", "--lang", "en", "--tags", "@AUTH-OK")
	assert.Equal(t, ExitFailed, code, out+errOut)
	assert.Contains(t, out+errOut, `answered 401 "Invalid signature"`)
	assert.Equal(t, int32(2), n.Load(), "the pre-flight stops at the first refusal, and the suite does not run")
}
