package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
)

func (m *Main) certifyCommand() command {
	return command{name: "certify", summary: "run the conformance suite against the bundled reference server or a target",
		usage: "firmakit certify [--target URL --key K --secret S [--receiver URL | --listen ADDR --public-url URL]] [--lang es|en|all] [--tags EXPR] [--strict] [--expected-failures FILE] [--report DIR [--report-lang es|en]]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			f := m.bindCertifyFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				return m.certify(ctx, f)
			}
		}}
}

// certifyFlags are certify's flags; foreign holds those of a run against
// a --target.
type certifyFlags struct {
	foreign                                                 foreignFlags
	lang, tags, format, reportDir, reportLang, expectedFile string
	concurrency                                             int
	seed                                                    int64
	strict                                                  bool
	maxDuration                                             time.Duration
	net                                                     *netFlags
	profile                                                 func() (*firmakit.Profile, error)
	logger                                                  func() (*slog.Logger, error)
}

func (m *Main) bindCertifyFlags(fs *flag.FlagSet) *certifyFlags {
	f := &certifyFlags{}
	t := &f.foreign
	fs.StringVar(&t.target, "target", "", "base URL of the service under test; empty: the bundled reference server, in-process")
	fs.StringVar(&t.apiVersion, "api-version", "v1", "version segment of the check path")
	fs.StringVar(&t.merchant, "merchant", firmakit.Demo().MerchantID, "merchant id")
	fs.StringVar(&t.key, "key", "", "the merchant's credential key (default with no --target: the demo key)")
	fs.StringVar(&t.secret, "secret", "", "its secret")
	fs.StringVar(&t.disabledKey, "disabled-key", "", "a disabled credential of the merchant; without it those scenarios are not run")
	fs.StringVar(&t.disabledSecret, "disabled-secret", "", "its secret")
	fs.StringVar(&t.otherKey, "other-key", "", "another merchant's credential; without it those scenarios are not run")
	fs.StringVar(&t.otherSecret, "other-secret", "", "its secret")
	fs.StringVar(&t.senderName, "sender-name", "", "the name the merchant is configured with, which its envelopes name as sender; without it those scenarios are not run")
	fs.StringVar(&t.senderEmail, "sender-email", "", "the merchant's configured sender e-mail")
	fs.StringVar(&t.documentHost, "document-host", "", "a host, besides the target's, where the target serves the documents its document_url links open")
	fs.Var((*listFlag)(&t.webhookSecrets), "webhook-secret", "webhook secret of the merchant (repeatable, for rotation)")
	fs.StringVar(&t.template, "template", "", "template name the create requests use (default: contrato_arriendo)")
	fs.StringVar(&t.templateTitle, "template-title", "", "the template's title")
	fs.StringVar(&t.templateSigners, "template-signers", "", "the template's signer keys, comma-separated")
	fs.StringVar(&t.templateDocx, "template-docx", "", "derive the template's name, title, signers and data keys from this .docx")
	fs.Var((*listFlag)(&t.templateData), "template-data", "a data value for the template, key=value (repeatable)")
	fs.StringVar(&t.receiverURL, "receiver", "", "URL of a running 'firmakit receive' where the target's notifications land")
	fs.StringVar(&t.receiverToken, "receiver-token", "", "its token, if it has one")
	fs.StringVar(&t.listen, "listen", DefaultCertifyListen, "address of the in-process receiver when no --receiver is given; the target's signature_webhook must reach it")
	fs.StringVar(&t.publicURL, "public-url", "", "URL the target reaches the in-process receiver at")
	fs.StringVar(&f.lang, "lang", "all", "features to run: es, en or all")
	fs.StringVar(&f.tags, "tags", "", "godog tag expression; default: all, or '~@reference' against a --target")
	fs.IntVar(&f.concurrency, "concurrency", 64, "scenarios run at once")
	fs.StringVar(&f.format, "format", "firmakit", "output: firmakit (a line per scenario), or godog formats: progress, pretty, junit, cucumber, … ('name:file' writes to a file)")
	fs.Int64Var(&f.seed, "seed", -1, "scenario order: -1 random, 0 file order, else that seed")
	fs.StringVar(&f.reportDir, "report", "", "write junit.xml, cucumber.json, report.html and certificate.json to this folder")
	fs.StringVar(&f.reportLang, "report-lang", "", "language of report.html: es or en (default: --lang, or en for all)")
	fs.BoolVar(&t.skipPreflight, "skip-preflight", false, "against a --target, run the suite even if the signed check request before it fails")
	fs.DurationVar(&f.maxDuration, "max-duration", 0, maxDurationUsage+"; default "+DefaultMaxDuration.String()+" against a --target, none for the bundled reference")
	f.net = networkFlags(fs)
	fs.StringVar(&f.expectedFile, "expected-failures", "", expectedFailuresUsage)
	fs.BoolVar(&f.strict, "strict", false, strictUsage)
	f.profile = profileFlag(fs)
	f.logger = m.logFlags(fs, "warn")
	return f
}

// certifyPlan is what certify's flags come to once checked, before
// anything starts.
type certifyPlan struct {
	profile   *firmakit.Profile
	log       *slog.Logger
	selection string
	expected  []reports.Expectation
	formats   string
	junitTo   string
}

// certify checks the flags, starts the bundled reference (or reaches the
// target), runs the suite and ends the run with its reports.
func (m *Main) certify(ctx context.Context, f *certifyFlags) error {
	plan, err := f.check(ctx)
	if err != nil {
		return err
	}
	bundled := f.foreign.target == ""
	client, pacer, retries, err := f.net.build(!bundled)
	if err != nil {
		return err
	}
	// The bound runs from here: the pre-flight, the suite, its reruns.
	var deadline time.Time
	if f.maxDuration > 0 {
		deadline = time.Now().Add(f.maxDuration)
	}
	var cleanup []func()
	defer func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}()
	var t *steps.Target
	if bundled {
		t, err = m.bundledTarget(ctx, plan, &cleanup)
	} else {
		fl := f.foreign
		fl.client, fl.pacer, fl.retries, fl.deadline = client, pacer, retries, deadline
		t, err = m.foreignTarget(ctx, plan.profile, fl, &cleanup, plan.log)
	}
	if err != nil {
		return err
	}
	t.HTTPClient, t.Pacer, t.Retries = client, pacer, retries
	return m.runCertify(f, plan, t, deadline)
}

// check refuses bad flags, a selection of nothing and expected failures
// it does not have, before anything starts.
func (f *certifyFlags) check(ctx context.Context) (*certifyPlan, error) {
	p, err := f.profile()
	if err != nil {
		return nil, err
	}
	if err := suiteSpeaks(p); err != nil {
		return nil, err
	}
	log, err := f.logger()
	if err != nil {
		return nil, err
	}
	if _, err := steps.Paths(f.lang); err != nil {
		return nil, usageError("--lang: %v", err)
	}
	if f.concurrency < 1 {
		return nil, usageError("--concurrency must be at least 1")
	}
	if err := checkCertifyFlags(givenFlags(ctx)); err != nil {
		return nil, err
	}
	if err := checkReportLang(f.reportLang, f.reportDir); err != nil {
		return nil, err
	}
	if err := checkFormats(f.format); err != nil {
		return nil, err
	}
	selection := f.tags
	if f.foreign.target != "" && selection == "" {
		selection = "~@reference"
	}
	if err := checkMaxDuration(f.maxDuration); err != nil {
		return nil, err
	}
	if _, given := givenFlags(ctx)["max-duration"]; !given && f.foreign.target != "" {
		f.maxDuration = DefaultMaxDuration
	}
	expected, err := selectExpected(steps.Selected, f.lang, selection, f.expectedFile)
	if err != nil {
		return nil, err
	}
	formats, junitTo := splitJUnit(f.format)
	return &certifyPlan{profile: p, log: log, selection: selection, expected: expected, formats: formats, junitTo: junitTo}, nil
}

// bundledTarget starts the bundled reference and a receiver, in-process
// on loopback, and returns them as the suite's target.
func (m *Main) bundledTarget(ctx context.Context, plan *certifyPlan, cleanup *[]func()) (*steps.Target, error) {
	p, log := plan.profile, plan.log
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Profile: p}
	if err := rv.Open(); err != nil {
		return nil, &exitError{ExitUnreachable, err}
	}
	*cleanup = append(*cleanup, func() { rv.Close() })
	// The suite answers 4xx, 5xx, late or not at all on purpose
	// (@DEMO-RETRY and the like): the reference's warnings about it are
	// part of the test, so only its errors are shown unless asked for more.
	refLog := log
	if !log.Enabled(ctx, slog.LevelInfo) {
		refLog = slog.New(minLevel{log.Handler(), slog.LevelError})
	}
	ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: reference.DemoConfig(), Logger: refLog}
	demoID := firmakit.Demo().MerchantID
	if err := ref.Config.SetWebhook(demoID, rv.HookURL(demoID)); err != nil {
		return nil, err
	}
	if err := ref.Open(); err != nil {
		return nil, &exitError{ExitUnreachable, err}
	}
	*cleanup = append(*cleanup, func() { ref.Close() })
	t := steps.DemoTarget(ref.URL(), rv, true)
	t.Profile = p
	fmt.Fprintf(m.Stdout, "firmakit certify: the bundled reference server at %s, notifications at %s\n", ref.URL(), rv.HookURL(demoID))
	return t, nil
}

// runCertify runs the suite against t, showing each scenario as it ends,
// and ends the run with its verdict and reports.
func (m *Main) runCertify(f *certifyFlags, plan *certifyPlan, t *steps.Target, deadline time.Time) error {
	shown := m.newDisplay(plan.formats)
	formats, err := withCucumber(shown.Formats, f.reportDir)
	if err != nil {
		return err
	}
	suite := &steps.Suite{Target: t, Lang: f.lang, Tags: plan.selection, Concurrency: f.concurrency, Format: formats,
		Output: shown.Output, Progress: shown.Lines, Randomize: f.seed, Deadline: deadline}
	fmt.Fprintf(m.Stdout, "profile %q; %s\n\n", plan.profile.Name, suite)
	total, _ := steps.Select(f.lang, plan.selection)
	suite.OnResult = shown.Start(total)
	start := time.Now()
	status, err := suite.Run()
	elapsed := time.Since(start)
	shown.Stop()
	var se *steps.SelectionError
	switch {
	case errors.As(err, &se):
		return usageError("--tags: %v", err)
	case err != nil:
		return usageError("%v", err)
	}
	if shown.Own() {
		fmt.Fprintln(m.Stdout)
	}
	bundled := f.foreign.target == ""
	run := reports.Run{Tool: "firmakit", Version: Version(), Target: t.URL, Bundled: bundled, MerchantID: t.MerchantID,
		Profile: plan.profile, Lang: f.lang, Tags: plan.selection, ReportLang: f.reportLang, Started: start, Elapsed: elapsed, Expected: plan.expected}
	results, status := judged(m.judge, suite.Results(), f.strict, plan.expected, status)
	return m.finishRun(ending{run: run, results: results, godogStatus: status, junitTo: plan.junitTo, reportDir: f.reportDir,
		cucumber: cucumberFiles(formats), width: shown.Width, causes: func(w io.Writer) { reports.WriteLikelyCauses(w, results) },
		network: networkLine(t, !bundled), outOfTime: outOfTime(suite.OutOfTime(), f.maxDuration)})
}

// ending is what a suite's run ends with on standard output: see
// finishRun.
type ending struct {
	run     reports.Run
	results []reports.ScenarioResult
	// godogStatus is the status the suite's Run returned.
	godogStatus int
	// junitTo is where --format sends JUnit XML: "" nowhere, "-"
	// standard output, else a file (splitJUnit); reportDir is --report.
	junitTo, reportDir string
	// cucumber are the files godog wrote Cucumber JSON to, which the
	// results' warnings and breaches are added to (cucumberFiles).
	cucumber []string
	// width bounds the recap's lines on a terminal (0: no bound).
	width int
	// causes says, after the recap, what the failures probably come from.
	causes func(io.Writer)
	// network says what the run's requests met on the way to the target
	// ("" when nothing worth saying).
	network string
	// outOfTime, when the run's --max-duration ran out, is that bound.
	outOfTime time.Duration
}

// finishRun ends the output of certify and certify-webhook, in this
// order: the JUnit XML when --format asked for it, a recap of what did not
// pass, of the warnings, and the likely causes, the scenarios not run and
// why, the wall time, where the reports are, then the verdict and the
// counts, last. It returns the run's exit (verdictError), or the error of
// writing a report.
func (m *Main) finishRun(e ending) error {
	run, results := e.run, e.results
	switch e.junitTo {
	case "":
	case "-":
		if err := reports.WriteJUnit(m.Stdout, run, results); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
	default:
		if err := reports.WriteJUnitFile(e.junitTo, run, results); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
	}
	reports.WriteRecap(m.Stdout, results, e.width)
	if e.causes != nil {
		e.causes(m.Stdout)
	}
	for _, g := range reports.NotRunGroups(run.Tags, results) {
		fmt.Fprintln(m.Stdout, g)
	}
	if e.network != "" {
		fmt.Fprintln(m.Stdout, e.network)
	}
	if e.outOfTime > 0 {
		n := 0
		for _, r := range results {
			if r.Status == reports.Inconclusive && r.Error == steps.NotJudgedInTime {
				n++
			}
		}
		fmt.Fprintf(m.Stdout, msgOutOfTime+"\n", e.outOfTime, n)
	}
	fmt.Fprintf(m.Stdout, "wall time %s\n", run.Elapsed.Round(time.Millisecond))
	for _, f := range e.cucumber {
		if err := reports.AnnotateCucumberFile(f, results); err != nil {
			return fmt.Errorf("cucumber: %w", err)
		}
	}
	if e.reportDir != "" {
		if err := reports.WriteAll(e.reportDir, run, results); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		in := func(f string) string { return filepath.Join(e.reportDir, f) }
		fmt.Fprintf(m.Stdout, "report: %s (also %s, %s, %s)\n", in("report.html"), in("certificate.json"), in("junit.xml"), in("cucumber.json"))
	}
	// The verdict, then the counts: the last line of the output.
	fmt.Fprintln(m.Stdout, "verdict: "+reports.Explain(run.Tags, results))
	fmt.Fprintln(m.Stdout, "firmakit: "+reports.Summarize(results).String())
	return verdictError(reports.Verdict(results), e.godogStatus)
}

// strictUsage is the help of --strict, shared by certify and
// certify-webhook.
const strictUsage = "make every warning fail its scenario (exit 1), for teams that want the profile's letter: " +
	"a warning is what the documents do not require, or a departure from the profile without consequence"

// judged is what a run's results come to: rewritten by judge when set (a
// test's stand-in for the steps), each warning a failure under --strict
// (reports.Strict), then the expected failures applied, so that an
// expected-failures entry can cover a scenario --strict failed. It returns
// the results and godog's status as expectFailures leaves it.
func judged(judge func([]reports.ScenarioResult) []reports.ScenarioResult, results []reports.ScenarioResult, strict bool,
	expected []reports.Expectation, status int) ([]reports.ScenarioResult, int) {
	if judge != nil {
		results = judge(results)
	}
	if strict {
		results = reports.Strict(results)
	}
	return expectFailures(results, expected, status)
}

// cucumberFiles are the files a format list sends godog's Cucumber JSON
// to ("cucumber:FILE"); one to standard output cannot be rewritten.
func cucumberFiles(formats string) []string {
	var files []string
	for _, f := range strings.Split(formats, ",") {
		if name, file, ok := strings.Cut(f, ":"); ok && strings.TrimSpace(name) == "cucumber" && file != "" {
			files = append(files, file)
		}
	}
	return files
}

// withCucumber adds godog's Cucumber JSON in --report's folder to a
// format list, making the folder; a list without --report is unchanged.
func withCucumber(formats, reportDir string) (string, error) {
	if reportDir == "" {
		return formats, nil
	}
	if err := os.MkdirAll(reportDir, 0o755); err != nil {
		return "", usageError("--report: %v", err)
	}
	return formats + ",cucumber:" + filepath.Join(reportDir, "cucumber.json"), nil
}

// checkReportLang refuses a --report-lang report.html has no language
// for, or one given without --report.
func checkReportLang(reportLang, reportDir string) error {
	switch {
	case reportLang != "" && !slices.Contains(reports.ReportLangs, reportLang):
		return usageError("--report-lang %q: want es or en", reportLang)
	case reportLang != "" && reportDir == "":
		return usageError("--report-lang is the language of report.html: give --report DIR too, or drop it")
	}
	return nil
}

// verdictExit ends certify with the exit code of a verdict that its
// output's last lines (the verdict, then the counts) already explained, so
// that nothing is printed after them.
type verdictExit struct {
	code    int
	verdict string
}

func (e *verdictExit) Error() string { return e.verdict }

// verdictError maps a run's verdict (and godog's status) to the exit code
// of certify: nil only when every selected scenario passed, some with
// warnings (reports.PassedWithWarnings) or as expected failures.
func verdictError(verdict string, godogStatus int) error {
	switch {
	case verdict == reports.Failed:
		return &verdictExit{ExitFailed, verdict}
	case godogStatus != 0:
		return &exitError{ExitFailed, errors.New("godog reported a failure that no scenario result shows; see its output above")}
	case verdict == reports.Inconclusive:
		return &verdictExit{ExitInconclusive, verdict}
	case verdict == reports.Incomplete:
		return &verdictExit{ExitIncomplete, verdict}
	}
	return nil
}

// splitJUnit takes the JUnit entries out of a --format list: firmakit
// writes JUnit from its own results, which tell not run and inconclusive
// from passed; godog's formatter does not. It returns the list left for
// godog and where the JUnit goes: "" nowhere, "-" standard output, else a
// file.
func splitJUnit(formats string) (rest, junit string) {
	var keep []string
	for _, f := range strings.Split(formats, ",") {
		name, file, hasFile := strings.Cut(f, ":")
		switch {
		case strings.TrimSpace(name) != "junit":
			keep = append(keep, f)
		case hasFile:
			junit = file
		default:
			junit = "-"
		}
	}
	return strings.Join(keep, ","), junit
}

// targetOnly are the certify flags that only mean something against a
// --target: without one, certify tests the bundled reference server with
// its own demo merchant, credentials, template and receiver.
var targetOnly = []string{"merchant", "api-version", "key", "secret", "disabled-key", "disabled-secret", "other-key", "other-secret",
	"sender-name", "sender-email", "document-host",
	"webhook-secret", "template", "template-title", "template-signers", "template-docx", "template-data",
	"receiver", "receiver-token", "listen", "public-url", "ca-cert", "client-cert", "client-key"}

// checkCertifyFlags refuses flags given (see givenFlags) that mean nothing
// with the others: target flags without --target, receiver flags that
// contradict each other, half a credential.
func checkCertifyFlags(given map[string]string) error {
	has := func(name string) bool { _, ok := given[name]; return ok }
	flagName := func(name string) string {
		if src := given[name]; src != "" {
			return fmt.Sprintf("--%s (from %s)", name, src)
		}
		return "--" + name
	}
	if !has("target") {
		for _, name := range targetOnly {
			if has(name) {
				return usageError("%s only means something with --target: without it, certify tests the bundled reference server "+
					"with its own demo merchant, credentials, template and receiver; add --target URL or drop --%s", flagName(name), name)
			}
		}
		return nil
	}
	switch {
	case has("receiver-token") && !has("receiver"):
		return usageError("%s is the token of a running 'firmakit receive': give its URL with --receiver, or drop the token", flagName("receiver-token"))
	case has("receiver") && (has("listen") || has("public-url")):
		name := "listen"
		if !has("listen") {
			name = "public-url"
		}
		return usageError("%s is for the in-process receiver, which is not started when %s names a running one: drop one of them",
			flagName(name), flagName("receiver"))
	case has("template-title") && !has("template"):
		return usageError("%s is the title of --template: give --template too, or drop it", flagName("template-title"))
	case has("template-title") && has("template-docx"):
		return usageError("%s: with %s the title comes from the Word file; drop one of them", flagName("template-title"), flagName("template-docx"))
	}
	for _, pair := range [][2]string{{"disabled-key", "disabled-secret"}, {"other-key", "other-secret"}, {"key", "secret"}} {
		for i, name := range pair {
			if other := pair[1-i]; has(name) && !has(other) {
				return usageError("%s needs --%s: a credential is a key and its secret", flagName(name), other)
			}
		}
	}
	for i, name := range []string{"sender-name", "sender-email"} {
		if other := []string{"sender-email", "sender-name"}[i]; has(name) && !has(other) {
			return usageError("%s needs --%s: the sender is a name and an e-mail", flagName(name), other)
		}
	}
	return nil
}

// DefaultCertifyListen is where certify's own receiver listens against a
// --target unless --listen says otherwise: a fixed port, so that the
// target's signature_webhook can be set once, before the run. It is not
// 8090, the default of 'firmakit receive', so both can run side by side.
const DefaultCertifyListen = "127.0.0.1:8091"

// checkFormats refuses a --format list naming a format neither firmakit
// nor godog has, before anything starts.
func checkFormats(list string) error {
	known := []string{"firmakit", "junit"}
	for name := range godog.AvailableFormatters() {
		if !slices.Contains(known, name) {
			known = append(known, name)
		}
	}
	sort.Strings(known[2:])
	for _, f := range strings.Split(list, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(f), ":")
		if !slices.Contains(known, name) {
			hint := ""
			if near := firmakit.Closest(name, known); near != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", near)
			}
			return usageError("--format %q: no format %q%s; want one of %s, optionally as name:file", list, name, hint, strings.Join(known, ", "))
		}
	}
	return nil
}

type foreignFlags struct {
	target, apiVersion, merchant, key, secret              string
	disabledKey, disabledSecret, otherKey, otherSecret     string
	webhookSecrets                                         []string
	template, templateTitle, templateSigners, templateDocx string
	templateData                                           []string
	receiverURL, receiverToken, listen, publicURL          string
	senderName, senderEmail, documentHost                  string
	skipPreflight                                          bool
	client                                                 *http.Client
	pacer                                                  *steps.Pacer
	retries                                                int

	// deadline is the run's --max-duration from its start (zero: none).
	deadline time.Time
}

// foreignTarget builds the target of a run against another service and
// finds out whether it, and the receiver, can be reached.
func (m *Main) foreignTarget(ctx context.Context, p *firmakit.Profile, f foreignFlags, cleanup *[]func(), log interface {
	Info(string, ...any)
}) (*steps.Target, error) {
	if f.key == "" || f.secret == "" {
		return nil, usageError("--key and --secret are required with --target")
	}
	t := &steps.Target{URL: strings.TrimRight(f.target, "/"), APIVersion: f.apiVersion, MerchantID: f.merchant,
		Credential:     firmakit.Credential{KeyID: f.key, Secret: f.secret},
		Disabled:       firmakit.Credential{KeyID: f.disabledKey, Secret: f.disabledSecret},
		Other:          firmakit.Credential{KeyID: f.otherKey, Secret: f.otherSecret},
		WebhookSecrets: f.webhookSecrets, Profile: p, HTTPClient: f.client, Pacer: f.pacer, Retries: f.retries,
		Sender:       firmakit.Sender{Name: f.senderName, Email: f.senderEmail},
		DocumentHost: f.documentHost}
	if len(t.WebhookSecrets) == 0 {
		return nil, usageError("--webhook-secret is required with --target: the suite checks every notification's signature")
	}
	demo := steps.DemoTarget("", nil, false)
	t.Template, t.Data = demo.Template, demo.Data
	switch {
	case f.templateDocx != "":
		tm, err := reference.InspectDocxFile(f.templateDocx)
		if err != nil {
			return nil, usageError("--template-docx: %v", err)
		}
		t.Template, t.Data = tm, map[string]string{}
	case f.template != "":
		t.Template = firmakit.Template{Name: f.template, Title: f.templateTitle}
		t.Data = map[string]string{}
		if f.templateSigners == "" {
			return nil, usageError("--template-signers is required with --template")
		}
	}
	if f.template != "" {
		t.Template.Name = f.template
	}
	if f.templateSigners != "" {
		t.Template.Signers = strings.Split(f.templateSigners, ",")
	}
	for _, kv := range f.templateData {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageError("--template-data %q: want key=value", kv)
		}
		t.Data[k] = v
		if f.templateDocx == "" && f.template != "" {
			t.Template.Data = append(t.Template.Data, k)
		}
	}
	for _, k := range t.Template.Data {
		if _, ok := t.Data[k]; !ok {
			return nil, usageError("the template's data key %q has no value: add --template-data %s=…", k, k)
		}
	}

	if _, err := firmakit.ParseHTTPURL(t.URL); err != nil {
		return nil, usageError("--target %q is not an http(s) URL", f.target)
	}
	// The pre-flight is within the run's bound: when that runs out first,
	// the suite starts nothing and ends inconclusive.
	pctx := ctx
	if !f.deadline.IsZero() {
		var cancel context.CancelFunc
		pctx, cancel = context.WithDeadline(ctx, f.deadline)
		defer cancel()
	}
	outOfTime := func() bool { return errors.Is(pctx.Err(), context.DeadlineExceeded) }
	if f.skipPreflight {
		// Is the target there at all?
		req, _ := http.NewRequestWithContext(pctx, http.MethodGet, t.URL+"/", nil)
		resp, err := f.client.Do(req)
		if err != nil && !outOfTime() {
			return nil, &exitError{ExitUnreachable, fmt.Errorf("target %s is unreachable: %w", t.URL, err)}
		}
		if err == nil {
			resp.Body.Close()
		}
	} else {
		line, err := t.Preflight(pctx)
		switch {
		case err != nil && outOfTime():
			fmt.Fprintln(m.Stdout, "pre-flight: not finished within --max-duration")
		case errors.Is(err, steps.ErrUnreachable):
			return nil, &exitError{ExitUnreachable, err}
		case errors.Is(err, steps.ErrPreflightRefused):
			return nil, &exitError{ExitFailed, fmt.Errorf("%w; the suite did not run (--skip-preflight runs it anyway)", err)}
		case err != nil:
			return nil, usageError("--target %q: %v", t.URL, err)
		default:
			fmt.Fprintln(m.Stdout, line)
		}
	}

	if f.receiverURL != "" {
		c := &receiver.Client{URL: strings.TrimRight(f.receiverURL, "/"), Token: f.receiverToken, HTTP: &http.Client{Timeout: 35 * time.Second}}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := c.Ping(pctx); err != nil {
			return nil, &exitError{ExitUnreachable, fmt.Errorf("receiver %s: %w", c.URL, err)}
		}
		t.Notifications = c
		fmt.Fprintf(m.Stdout, "firmakit certify: target %s, notifications read from the receiver at %s\n", t.URL, c.URL)
		return t, nil
	}
	rv := &receiver.Receiver{Addr: f.listen, DB: ":memory:", Profile: p, PublicURL: f.publicURL,
		Secrets: map[string][]string{f.merchant: f.webhookSecrets}}
	if err := rv.Open(); err != nil {
		return nil, &exitError{ExitUnreachable, err}
	}
	*cleanup = append(*cleanup, func() { rv.Close() })
	t.Notifications, t.SharedClock = rv, true
	fmt.Fprintf(m.Stdout, "firmakit certify: target %s; its signature_webhook for %s must be %s\n", t.URL, f.merchant, rv.HookURL(f.merchant))
	log.Info("in-process receiver", "url", rv.URL())
	return t, nil
}

// minLevel passes on only records at or above its level.
type minLevel struct {
	slog.Handler
	level slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.level}
}
func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.level} }
