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
		usage: "firmakit certify [--target URL --key K --secret S [--receiver URL | --listen ADDR --public-url URL]] [--lang es|en|all] [--tags EXPR] [--expected-failures FILE] [--report DIR [--report-lang es|en]]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			target := fs.String("target", "", "base URL of the service under test; empty: the bundled reference server, in-process")
			apiVersion := fs.String("api-version", "v1", "version segment of the check path")
			merchant := fs.String("merchant", firmakit.Demo().MerchantID, "merchant id")
			key := fs.String("key", "", "the merchant's credential key (default with no --target: the demo key)")
			secret := fs.String("secret", "", "its secret")
			disabledKey := fs.String("disabled-key", "", "a disabled credential of the merchant; without it those scenarios are not run")
			disabledSecret := fs.String("disabled-secret", "", "its secret")
			otherKey := fs.String("other-key", "", "another merchant's credential; without it those scenarios are not run")
			otherSecret := fs.String("other-secret", "", "its secret")
			senderName := fs.String("sender-name", "", "the name the merchant is configured with, which its envelopes name as sender; without it those scenarios are not run")
			senderEmail := fs.String("sender-email", "", "the merchant's configured sender e-mail")
			documentHost := fs.String("document-host", "", "a host, besides the target's, where the target serves the documents its document_url links open")
			webhookSecrets := &listFlag{}
			fs.Var(webhookSecrets, "webhook-secret", "webhook secret of the merchant (repeatable, for rotation)")
			template := fs.String("template", "", "template name the create requests use (default: contrato_arriendo)")
			templateTitle := fs.String("template-title", "", "the template's title")
			templateSigners := fs.String("template-signers", "", "the template's signer keys, comma-separated")
			templateDocx := fs.String("template-docx", "", "derive the template's name, title, signers and data keys from this .docx")
			templateData := &listFlag{}
			fs.Var(templateData, "template-data", "a data value for the template, key=value (repeatable)")
			receiverURL := fs.String("receiver", "", "URL of a running 'firmakit receive' where the target's notifications land")
			receiverToken := fs.String("receiver-token", "", "its token, if it has one")
			listen := fs.String("listen", DefaultCertifyListen, "address of the in-process receiver when no --receiver is given; the target's signature_webhook must reach it")
			publicURL := fs.String("public-url", "", "URL the target reaches the in-process receiver at")
			lang := fs.String("lang", "all", "features to run: es, en or all")
			tags := fs.String("tags", "", "godog tag expression; default: all, or '~@reference' against a --target")
			concurrency := fs.Int("concurrency", 64, "scenarios run at once")
			format := fs.String("format", "firmakit", "output: firmakit (a line per scenario), or godog formats: progress, pretty, junit, cucumber, … ('name:file' writes to a file)")
			seed := fs.Int64("seed", -1, "scenario order: -1 random, 0 file order, else that seed")
			reportDir := fs.String("report", "", "write junit.xml, cucumber.json, report.html and certificate.json to this folder")
			reportLang := fs.String("report-lang", "", "language of report.html: es or en (default: --lang, or en for all)")
			skipPreflight := fs.Bool("skip-preflight", false, "against a --target, run the suite even if the signed check request before it fails")
			net := networkFlags(fs)
			expectedFile := fs.String("expected-failures", "", expectedFailuresUsage)
			profile := profileFlag(fs)
			logger := m.logFlags(fs, "warn")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				p, err := profile()
				if err != nil {
					return err
				}
				if err := suiteSpeaks(p); err != nil {
					return err
				}
				log, err := logger()
				if err != nil {
					return err
				}
				if _, err := steps.Paths(*lang); err != nil {
					return usageError("--lang: %v", err)
				}
				if *concurrency < 1 {
					return usageError("--concurrency must be at least 1")
				}
				if err := checkCertifyFlags(givenFlags(ctx)); err != nil {
					return err
				}
				if err := checkReportLang(*reportLang, *reportDir); err != nil {
					return err
				}
				if err := checkFormats(*format); err != nil {
					return err
				}
				selection := *tags
				if *target != "" && selection == "" {
					selection = "~@reference"
				}
				// Refuse a selection of nothing, and expected failures it
				// does not have, before anything starts.
				selected, err := steps.Selected(*lang, selection)
				if err != nil {
					return usageError("--tags: %v", err)
				}
				all, err := steps.Selected("all", "")
				if err != nil {
					return err
				}
				expected, err := loadExpectedFailures(*expectedFile, selected, all)
				if err != nil {
					return err
				}
				formats, junitTo := splitJUnit(*format)
				client, pacer, retries, err := net.build(*target != "")
				if err != nil {
					return err
				}
				var t *steps.Target
				var cleanup []func()
				defer func() {
					for i := len(cleanup) - 1; i >= 0; i-- {
						cleanup[i]()
					}
				}()

				if *target == "" {
					// The bundled reference and a receiver, in-process on loopback.
					rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Profile: p}
					if err := rv.Open(); err != nil {
						return &exitError{ExitUnreachable, err}
					}
					cleanup = append(cleanup, func() { rv.Close() })
					// The suite answers 4xx, 5xx, late or not at all on
					// purpose (@DEMO-RETRY and the like): the
					// reference's warnings about it are part of the test,
					// so only its errors are shown unless asked for more.
					refLog := log
					if !log.Enabled(ctx, slog.LevelInfo) {
						refLog = slog.New(minLevel{log.Handler(), slog.LevelError})
					}
					ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: reference.DemoConfig(), Logger: refLog}
					demoID := firmakit.Demo().MerchantID
					if err := ref.Config.SetWebhook(demoID, rv.HookURL(demoID)); err != nil {
						return err
					}
					if err := ref.Open(); err != nil {
						return &exitError{ExitUnreachable, err}
					}
					cleanup = append(cleanup, func() { ref.Close() })
					t = steps.DemoTarget(ref.URL(), rv, true)
					t.Profile = p
					t.HTTPClient, t.Pacer, t.Retries = client, pacer, retries
					fmt.Fprintf(m.Stdout, "firmakit certify: the bundled reference server at %s, notifications at %s\n", ref.URL(), rv.HookURL(demoID))
				} else {
					t, err = m.foreignTarget(ctx, p, foreignFlags{
						target: *target, apiVersion: *apiVersion, merchant: *merchant, key: *key, secret: *secret,
						disabledKey: *disabledKey, disabledSecret: *disabledSecret, otherKey: *otherKey, otherSecret: *otherSecret,
						webhookSecrets: *webhookSecrets, template: *template, templateTitle: *templateTitle,
						templateSigners: *templateSigners, templateDocx: *templateDocx, templateData: *templateData,
						receiverURL: *receiverURL, receiverToken: *receiverToken, listen: *listen, publicURL: *publicURL,
						skipPreflight: *skipPreflight, client: client, pacer: pacer, retries: retries,
						senderName: *senderName, senderEmail: *senderEmail, documentHost: *documentHost,
					}, &cleanup, log)
					if err != nil {
						return err
					}
				}

				shown := m.newDisplay(formats)
				formats, err = withCucumber(shown.Formats, *reportDir)
				if err != nil {
					return err
				}
				suite := &steps.Suite{Target: t, Lang: *lang, Tags: selection, Concurrency: *concurrency, Format: formats,
					Output: shown.Output, Progress: shown.Lines, Randomize: *seed}
				fmt.Fprintf(m.Stdout, "profile %q; %s\n\n", p.Name, suite)
				total, _ := steps.Select(*lang, selection)
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
				run := reports.Run{Tool: "firmakit", Version: Version(), Target: t.URL, Bundled: *target == "", MerchantID: t.MerchantID,
					Profile: p, Lang: *lang, Tags: selection, ReportLang: *reportLang, Started: start, Elapsed: elapsed, Expected: expected}
				results := suite.Results()
				if m.judge != nil {
					results = m.judge(results)
				}
				results, status = expectFailures(results, expected, status)
				return m.finishRun(ending{run: run, results: results, godogStatus: status, junitTo: junitTo, reportDir: *reportDir,
					width: shown.Width, causes: func(w io.Writer) { likelyCauses(w, results) }, network: networkLine(t, *target != "")})
			}
		}}
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
	// width bounds the recap's lines on a terminal (0: no bound).
	width int
	// causes says, after the recap, what the failures probably come from.
	causes func(io.Writer)
	// network says what the run's requests met on the way to the target
	// ("" when nothing worth saying).
	network string
}

// finishRun ends the output of certify and certify-webhook, in this
// order: the JUnit XML when --format asked for it, a recap of what did not
// pass and its likely causes, the scenarios not run and why, the wall
// time, where the reports are, then the verdict and the counts, last. It
// returns the run's exit (verdictError), or the error of writing a report.
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
	recapFailures(m.Stdout, results, e.width)
	if e.causes != nil {
		e.causes(m.Stdout)
	}
	for _, g := range reports.NotRunGroups(run.Tags, results) {
		fmt.Fprintln(m.Stdout, g)
	}
	if e.network != "" {
		fmt.Fprintln(m.Stdout, e.network)
	}
	fmt.Fprintf(m.Stdout, "wall time %s\n", run.Elapsed.Round(time.Millisecond))
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
// of certify: nil only when every selected scenario passed.
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
			if near := closest(name, known); near != "" {
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
	if f.skipPreflight {
		// Is the target there at all?
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.URL+"/", nil)
		resp, err := f.client.Do(req)
		if err != nil {
			return nil, &exitError{ExitUnreachable, fmt.Errorf("target %s is unreachable: %w", t.URL, err)}
		}
		resp.Body.Close()
	} else {
		line, err := preflight(ctx, t)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(m.Stdout, line)
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
