package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/firmakit/firmakit/internal/freeport"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := freeport.Addr()
	require.NoError(t, err)
	return addr
}

// runJudged is run with the scenario results rewritten by judge before
// they are reported, standing in for a verdict of the steps.
func runJudged(t *testing.T, judge func([]reports.ScenarioResult) []reports.ScenarioResult, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, judge: judge}
	code := m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// lastLines returns the last n lines of an output.
func lastLines(out string, n int) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < n {
		return lines
	}
	return lines[len(lines)-n:]
}

// junitDoc is what the tests read of a JUnit file.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Status  string `xml:"status,attr"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc junitDoc
	require.NoError(t, xml.Unmarshal(b, &doc), string(b))
	return doc
}

func readCertificate(t *testing.T, dir string) reports.Certificate {
	t.Helper()
	var c reports.Certificate
	b, err := os.ReadFile(filepath.Join(dir, "certificate.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

func TestCertifyBundledReference(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, nil, "certify", "--lang", "en", "--tags", "@AUTH-OK,@DEMO-REASON", "--report", dir,
		"--format", "firmakit,junit:"+filepath.Join(dir, "own.xml"))
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Equal(t, []string{"verdict: passed: every selected scenario passed, 7 of 7", "firmakit: 7 scenarios: 7 passed, 0 failed, 0 not run"},
		lastLines(out, 2), "the verdict, then the counts, last")
	for _, f := range []string{"junit.xml", "cucumber.json", "report.html", "certificate.json", "own.xml"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	c := readCertificate(t, dir)
	assert.Equal(t, reports.Passed, c.Result)
	assert.Equal(t, 7, c.Summary.Passed, "six scenarios and the run's ledger")
	assert.Equal(t, "merchant_demo", c.Target.MerchantID)
	assert.Empty(t, c.NotRun)
	for _, f := range []string{"junit.xml", "own.xml"} {
		doc := readJUnit(t, filepath.Join(dir, f))
		assert.Equal(t, 7, doc.Tests, f)
		require.Len(t, doc.Suites, 3, "a testsuite per feature file, and the ledger")
		assert.Equal(t, "firmakit.verdict", doc.Suites[0].Properties[0].Name, "written by firmakit, not godog")
		assert.Equal(t, reports.Passed, doc.Suites[0].Properties[0].Value)
	}
}

// A foreign target is any service: here a 'firmakit serve' of its own,
// whose notifications go to the suite's in-process receiver. Without the
// disabled and other credentials, those scenarios are not run, the run is
// incomplete (exit 4, never 0), and everything says how to run them or
// leave them out; @reference scenarios are left out by default.
func TestCertifyForeignTargetWithOwnReceiver(t *testing.T) {
	hook := freeAddr(t)
	urls := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", "http://"+hook+"/hooks/merchant_demo", "--log-level", "warn")
	dir := t.TempDir()
	const tags = "@AUTH-DISABLED-KEY,@AUTH-OTHER-MERCHANT-KEY,@AUTH-WRONG-SECRET,@DEMO-NOTIFICATION"
	code, out, errOut := run(t, nil, "certify", "--target", urls["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--webhook-secret", "whsec_test_demo", "--listen", hook, "--lang", "es", "--tags", tags, "--report", dir)
	require.Equal(t, ExitIncomplete, code, out+errOut)
	assert.Empty(t, errOut, "the counts stay the last line: nothing follows on standard error")
	assert.Contains(t, out, "2 scenarios not run: no disabled credential given (--disabled-key, --disabled-secret); to leave them out: --tags '"+tags+" && ~@needs-disabled-credential'\n")
	assert.Contains(t, out, "2 scenarios not run: no other merchant's credential given (--other-key, --other-secret); to leave them out: --tags '"+tags+" && ~@needs-other-merchant'\n")
	assert.Equal(t, []string{
		"verdict: incomplete: 4 of 12 scenarios not run; give --disabled-key and --disabled-secret, --other-key and --other-secret, " +
			"or leave them out with --tags '" + tags + " && ~@needs-disabled-credential && ~@needs-other-merchant'",
		"firmakit: 12 scenarios: 8 passed, 0 failed, 4 not run",
	}, lastLines(out, 2))

	c := readCertificate(t, dir)
	assert.Equal(t, reports.Incomplete, c.Result)
	assert.Equal(t, 4, c.Summary.NotRun, "not run is never counted as passed")
	assert.Equal(t, 8, c.Summary.Passed)
	require.Len(t, c.NotRun, 2)
	assert.Equal(t, []string{"--disabled-key", "--disabled-secret"}, c.NotRun[0].Flags)
	assert.Equal(t, tags+" && ~@needs-disabled-credential", c.NotRun[0].LeaveOut)
	assert.Equal(t, []string{"AUTH-OTHER-MERCHANT-KEY"}, c.NotRun[1].Requirements)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<div class="banner incomplete">Incompleto: no se ejecutaron todos los escenarios seleccionados`, "a run of --lang es, in Spanish")
	assert.NotContains(t, string(page), "Todos los escenarios seleccionados pasaron")
	doc := readJUnit(t, filepath.Join(dir, "junit.xml"))
	assert.Equal(t, 12, doc.Tests)
	assert.Equal(t, 4, doc.Skipped)
	var skipped []string
	for _, s := range doc.Suites {
		for _, tc := range s.Cases {
			assert.Empty(t, tc.Status, "no godog status attribute")
			if tc.Skipped != nil {
				skipped = append(skipped, tc.Name+": "+tc.Skipped.Message)
			}
		}
	}
	assert.Contains(t, skipped, "se rechaza una clave deshabilitada (endpoint=check): no disabled credential given (--disabled-key, --disabled-secret)")

	// Leaving them out as told gives a run that passes.
	code, out, errOut = run(t, nil, "certify", "--target", urls["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--webhook-secret", "whsec_test_demo", "--listen", hook, "--lang", "es",
		"--tags", tags+" && ~@needs-disabled-credential && ~@needs-other-merchant")
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Equal(t, "firmakit: 8 scenarios: 8 passed, 0 failed, 0 not run", lastLines(out, 1)[0])
}

func TestCertifyForeignTargetWithRemoteReceiver(t *testing.T) {
	recv := startInProcess(t, nil, "receive", "--listen", "127.0.0.1:0", "--db", ":memory:", "--log-level", "warn")
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", recv["receiver"]+"/hooks/merchant_demo", "--log-level", "warn")
	code, out, errOut := run(t, map[string]string{
		"FIRMAKIT_TARGET": ref["reference"], "FIRMAKIT_KEY": "test_key_demo", "FIRMAKIT_SECRET": "test_secret_demo",
		"FIRMAKIT_WEBHOOK_SECRET": "whsec_test_demo", "FIRMAKIT_RECEIVER": recv["receiver"],
		"FIRMAKIT_DISABLED_KEY": "test_key_disabled", "FIRMAKIT_DISABLED_SECRET": "test_secret_disabled",
	}, "certify", "--lang", "en", "--tags", "@DEMO-SIGNED-DOCUMENT-URL,@DEMO-NOT-DEMO,@AUTH-DISABLED-KEY")
	require.Equal(t, ExitOK, code, out+errOut)
	assert.Contains(t, out, "firmakit: 14 scenarios: 14 passed, 0 failed, 0 not run")
	assert.Contains(t, out, "notifications read from the receiver at "+recv["receiver"])
}

func TestCertifyFailsAgainstAWrongTarget(t *testing.T) {
	// The target's demo merchant signs notifications with another secret
	// than the one the suite is told: the signature check must fail.
	hook := freeAddr(t)
	urls := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--webhook-url", "http://"+hook+"/hooks/merchant_demo", "--log-level", "warn")
	code, out, _ := run(t, nil, "certify", "--target", urls["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--webhook-secret", "whsec_not_the_one", "--listen", hook, "--lang", "en", "--tags", "@DEMO-NOTIFICATION")
	assert.Equal(t, ExitFailed, code)
	assert.Contains(t, out, "expected a valid X-Service-Signature header for the webhook secret")
	assert.True(t, strings.HasPrefix(lastLines(out, 2)[0], "verdict: failed: 5 of 6 scenarios failed (@DEMO-NOTIFICATION)"), out)
}

// TestCertifyExitCodes runs certify in-process from one passing run and
// changes one thing per case, for every exit code certify gives. The
// steps' judgement is stood in for where a healthy run cannot give it.
func TestCertifyExitCodes(t *testing.T) {
	mark := func(status string, rows ...int) func([]reports.ScenarioResult) []reports.ScenarioResult {
		return func(res []reports.ScenarioResult) []reports.ScenarioResult {
			for _, i := range rows {
				res[i].Status, res[i].Error = status, "as the test says"
			}
			return res
		}
	}
	base := []string{"certify", "--lang", "en", "--tags", "@AUTH-OK"}
	for _, tc := range []struct {
		name    string
		args    []string // replace base when set
		judge   func([]reports.ScenarioResult) []reports.ScenarioResult
		code    int
		verdict string // start of the line before the last; "" when nothing ran
	}{
		{"every scenario passed", nil, nil, ExitOK, "verdict: passed: every selected scenario passed, 3 of 3"},
		{"one passed with a warning", nil, warning("AUTH-OK", "", nil), ExitOK, "verdict: passed with 1 warning: every selected scenario passed, 3 of 3"},
		{"one passed with a warning, under --strict", append(append([]string{}, base...), "--strict"), warning("AUTH-OK", "", nil), ExitFailed,
			"verdict: failed: 1 of 3 scenarios failed (@AUTH-OK)"},
		{"one failed", nil, mark(reports.Failed, 1), ExitFailed, "verdict: failed: 1 of 3 scenarios failed (@AUTH-OK)"},
		{"a tag no scenario carries", []string{"certify", "--lang", "en", "--tags", "@NOPE"}, nil, ExitUsage, ""},
		{"an unreachable target", []string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w",
			"--lang", "en", "--tags", "@AUTH-OK"}, nil, ExitUnreachable, ""},
		{"one not run", nil, mark(reports.NotRun, 2), ExitIncomplete, "verdict: incomplete: 1 of 3 scenarios not run; leave them out with --tags '@AUTH-OK && ~@AUTH-OK'"},
		{"one inconclusive", nil, mark(reports.Inconclusive, 0), ExitInconclusive, "verdict: inconclusive: 1 of 3 scenarios could not be judged (@AUTH-OK)"},
		{"inconclusive and not run", nil, func(r []reports.ScenarioResult) []reports.ScenarioResult {
			return mark(reports.NotRun, 1)(mark(reports.Inconclusive, 0)(r))
		}, ExitInconclusive, "verdict: inconclusive: 1 of 3 scenarios"},
		{"failed, inconclusive and not run", nil, func(r []reports.ScenarioResult) []reports.ScenarioResult {
			return mark(reports.Failed, 2)(mark(reports.NotRun, 1)(mark(reports.Inconclusive, 0)(r)))
		}, ExitFailed, "verdict: failed: 1 of 3 scenarios failed (@AUTH-OK); each failure names the step, what was sent and what came back; also 1 inconclusive, 1 not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := base
			if tc.args != nil {
				args = tc.args
			}
			code, out, errOut := runJudged(t, tc.judge, args...)
			assert.Equal(t, tc.code, code, out+errOut)
			if tc.verdict == "" {
				assert.NotContains(t, out, "verdict:")
				return
			}
			assert.Empty(t, errOut, "the counts are the last line")
			last := lastLines(out, 2)
			require.Len(t, last, 2)
			assert.True(t, strings.HasPrefix(last[0], tc.verdict), "%q", last[0])
			assert.True(t, strings.HasPrefix(last[1], "firmakit: 3 scenarios: "), "the counts are the last line: %q", last[1])
		})
	}
}

// TestCertifyRefusesASelectionOfNothing: exit 2 before anything starts,
// naming the known tags closest to what was asked.
func TestCertifyRefusesASelectionOfNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a tag no scenario carries", []string{"--tags", "@NOPE"}, `--tags: tag expression "@NOPE": no scenario carries @NOPE`},
		{"a misspelt tag", []string{"--tags", "@AUTH-OKK"}, "the closest known tags: @AUTH-OK, "},
		{"a misspelt kind", []string{"--tags", "~@refrence"}, "the closest known tags: @reference, "},
		{"a malformed expression", []string{"--tags", "@AUTH-OK or @DEMO-REASON"}, `is not one tag: godog reads @a,@b as a or b`},
		{"a stray comma", []string{"--tags", "@AUTH-OK,"}, "an empty term"},
		{"tags that never meet", []string{"--tags", "@AUTH-OK && @DEMO-REASON"}, "selects no scenario of --lang all"},
		{"a tag from the environment", []string{}, `tag expression "@WIP"`},
		{"against a target too", []string{"--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w", "--tags", "@NOPE"},
			"no scenario carries @NOPE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			if len(tc.args) == 0 {
				env["FIRMAKIT_TAGS"] = "@WIP"
			}
			code, out, errOut := run(t, env, append([]string{"certify"}, tc.args...)...)
			assert.Equal(t, ExitUsage, code)
			assert.Contains(t, errOut, tc.want)
			assert.Empty(t, out, "nothing started, nothing ran")
		})
	}
}

// TestCertifyFlagsThatNeedATarget starts from runs certify accepts and
// adds one flag per case that means nothing with the others.
func TestCertifyFlagsThatNeedATarget(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "firmakit.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("listen: 0.0.0.0:8090\nlang: en\n"), 0o600))
	cfgLang := filepath.Join(t.TempDir(), "lang.yaml")
	require.NoError(t, os.WriteFile(cfgLang, []byte("lang: en\n"), 0o600))
	// Accepted as they are: the bundled reference (with a config file and
	// an empty environment value, neither naming a target flag), and an
	// unreachable target (exit 3: the flags were accepted).
	local := []string{"certify", "--lang", "en", "--tags", "@AUTH-OK", "--config", cfgLang}
	code, out, errOut := run(t, map[string]string{"FIRMAKIT_LISTEN": ""}, local...)
	require.Equal(t, ExitOK, code, out+errOut)
	target := []string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w", "--tags", "@AUTH-OK"}
	code, _, errOut = run(t, nil, target...)
	require.Equal(t, ExitUnreachable, code, errOut)
	code, _, errOut = run(t, nil, append(target, "--receiver", "http://127.0.0.1:9", "--receiver-token", "t", "--disabled-key", "a", "--disabled-secret", "b")...)
	require.Equal(t, ExitUnreachable, code, errOut)

	values := map[string]string{"template-data": "a=b", "receiver": "http://127.0.0.1:9", "template-docx": "x.docx"}
	for _, name := range targetOnly {
		t.Run("--"+name+" without --target", func(t *testing.T) {
			v := values[name]
			if v == "" {
				v = "x"
			}
			code, out, errOut := run(t, nil, append(append([]string{}, local...), "--"+name, v)...)
			assert.Equal(t, ExitUsage, code)
			assert.Contains(t, errOut, "--"+name+" only means something with --target")
			assert.Empty(t, out)
		})
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"a default value given explicitly", nil, append(append([]string{}, local...), "--listen", "127.0.0.1:0"), "--listen only means something with --target"},
		{"from the environment", map[string]string{"FIRMAKIT_DISABLED_KEY": "k"}, local, "--disabled-key (from FIRMAKIT_DISABLED_KEY) only means something with --target"},
		{"from a config file", nil, []string{"certify", "--tags", "@AUTH-OK", "--config", cfg}, "--listen (from config " + cfg + ") only means something with --target"},
		{"a receiver token without a receiver", nil, append(append([]string{}, target...), "--receiver-token", "t"), "--receiver-token is the token of a running 'firmakit receive'"},
		{"--listen with --receiver", nil, append(append([]string{}, target...), "--receiver", "http://127.0.0.1:9", "--listen", "127.0.0.1:0"),
			"--listen is for the in-process receiver, which is not started when --receiver names a running one"},
		{"--public-url with --receiver", map[string]string{"FIRMAKIT_RECEIVER": "http://127.0.0.1:9"}, append(append([]string{}, target...), "--public-url", "https://x"),
			"--public-url is for the in-process receiver, which is not started when --receiver (from FIRMAKIT_RECEIVER) names a running one"},
		{"half a disabled credential", nil, append(append([]string{}, target...), "--disabled-key", "k"), "--disabled-key needs --disabled-secret"},
		{"half another merchant's credential", nil, append(append([]string{}, target...), "--other-secret", "s"), "--other-secret needs --other-key"},
		{"half a sender", nil, append(append([]string{}, target...), "--sender-name", "Comercio"), "--sender-name needs --sender-email"},
		{"a sender without a target", nil, []string{"certify", "--sender-email", "a@b.test"}, "--sender-email only means something with --target"},
		{"a template title without a template", nil, append(append([]string{}, target...), "--template-title", "T"), "--template-title is the title of --template"},
		{"a template title with a Word file", nil, append(append([]string{}, target...), "--template", "t", "--template-title", "T", "--template-docx", "x.docx"),
			"with --template-docx the title comes from the Word file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.env, tc.args...)
			assert.Equal(t, ExitUsage, code)
			assert.Contains(t, errOut, tc.want)
			assert.Empty(t, out)
		})
	}
}

func TestCertifyUsageAndReachability(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"certify", "--target", "http://127.0.0.1:9"}, ExitUsage, "--key and --secret are required with --target"},
		{[]string{"certify", "--lang", "fr"}, ExitUsage, `language "fr": want es, en or all`},
		{[]string{"certify", "--concurrency", "0"}, ExitUsage, "--concurrency must be at least 1"},
		{[]string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w"}, ExitUnreachable, "target http://127.0.0.1:9 is unreachable"},
		{[]string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s"}, ExitUsage, "--webhook-secret is required"},
		{[]string{"certify", "--target", "http://127.0.0.1:9", "--key", "k", "--secret", "s", "--webhook-secret", "w", "--template", "t"}, ExitUsage, "--template-signers is required"},
	} {
		code, out, errOut := run(t, nil, tc.args...)
		assert.Equal(t, tc.code, code, tc.args)
		assert.Contains(t, out+errOut, tc.want)
	}
	ref := startInProcess(t, nil, "serve", "--addr", "127.0.0.1:0", "--log-level", "warn")
	code, _, errOut := run(t, nil, "certify", "--target", ref["reference"], "--key", "test_key_demo", "--secret", "test_secret_demo", "--webhook-secret", "w",
		"--receiver", "http://127.0.0.1:9")
	assert.Equal(t, ExitUnreachable, code)
	assert.Contains(t, errOut, "receiver http://127.0.0.1:9")
}

// steps.Select and certify agree on what a bad selection is.
func TestCertifySelectionIsSteps(t *testing.T) {
	_, err := steps.Select("all", "@NOPE")
	require.Error(t, err)
	_, _, errOut := run(t, nil, "certify", "--tags", "@NOPE")
	assert.Contains(t, errOut, err.Error())
}

// TestCertifyEscapesWhatAHostileTargetSends: a target whose answers hold
// escape sequences, a carriage return and a line of their own reaches
// certify's output, not a terminal here, escaped: no ESC byte, and no
// line the target wrote.
func TestCertifyEscapesWhatAHostileTargetSends(t *testing.T) {
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "\x1b[2J\x1b]0;owned\a\x1b[31mOWNED\r\nverdict: passed\u202e\x9b\n")
	}))
	defer hostile.Close()
	code, out, errOut := run(t, nil, "certify", "--target", hostile.URL, "--key", "test_key_demo", "--secret", "test_secret_demo",
		"--webhook-secret", "w", "--listen", freeAddr(t), "--lang", "en", "--tags", "@AUTH-OK", "--skip-preflight")
	assert.Equal(t, ExitFailed, code, errOut)
	for _, b := range []string{"\x1b", "\a", "\r", "\u202e", "\u009b"} {
		assert.NotContains(t, out+errOut, b, "a raw %q reached the output", b)
	}
	assert.Contains(t, out, `\x1b[2J\x1b]0;owned\x07\x1b[31mOWNED\r\nverdict: passed\u202e\x9b`)
	for _, line := range strings.Split(out, "\n") {
		assert.False(t, strings.HasPrefix(strings.TrimSpace(line), "verdict: passed"), "a line of the target's: %q", line)
	}
}
