package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/firmakit/firmakit"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
)

func (m *Main) certifyWebhookCommand() command {
	return command{name: "certify-webhook", summary: "play the service and check a merchant's webhook endpoint",
		usage: "firmakit certify-webhook --endpoint URL --webhook-secret S [--merchant ID] [--signature-id ID ... | --signature-ids FILE] [--lang es|en|all] [--tags EXPR] [--expected-failures FILE] [--report DIR [--report-lang es|en]]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			endpoint := fs.String("endpoint", "", "URL of the merchant's webhook endpoint (its signature_webhook), where notifications are posted")
			secret := fs.String("webhook-secret", "", "the webhook secret the endpoint verifies notifications with")
			merchant := fs.String("merchant", firmakit.Demo().MerchantID, "merchant id written in the notifications")
			ids := &listFlag{}
			fs.Var(ids, "signature-id", "a contract the merchant's system knows, used as the notifications' signature_id (repeatable); without any, firmakit makes ids up, which an endpoint that looks contracts up answers 404")
			idsFile := fs.String("signature-ids", "", "a file of contract ids the merchant's system knows, one a line ('#' starts a comment)")
			lang := fs.String("lang", "all", "features to run: es, en or all")
			tags := fs.String("tags", "", "godog tag expression, e.g. '@WH-STATE,@WH-ROTATION'; default: all")
			concurrency := fs.Int("concurrency", 4, "scenarios run at once")
			format := fs.String("format", "firmakit", "output: firmakit (a line per scenario), or godog formats: progress, pretty, junit, cucumber, … ('name:file' writes to a file)")
			seed := fs.Int64("seed", -1, "scenario order: -1 random, 0 file order, else that seed")
			reportDir := fs.String("report", "", "write junit.xml, cucumber.json, report.html and certificate.json to this folder")
			reportLang := fs.String("report-lang", "", "language of report.html: es or en (default: --lang, or en for all)")
			expectedFile := fs.String("expected-failures", "", expectedFailuresUsage)
			profile := profileFlag(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				p, err := profile()
				if err != nil {
					return err
				}
				if _, err := steps.Paths(*lang); err != nil {
					return usageError("--lang: %v", err)
				}
				if *concurrency < 1 {
					return usageError("--concurrency must be at least 1")
				}
				switch _, err := firmakit.ParseHTTPURL(*endpoint); {
				case *endpoint == "":
					return usageError("--endpoint is required: the URL the service posts the merchant's notifications to")
				case err != nil:
					return usageError("--endpoint %q is not an http(s) URL", *endpoint)
				}
				if *secret == "" {
					return usageError("--webhook-secret is required: the secret the endpoint verifies notifications with")
				}
				contracts, err := signatureIDs(*ids, *idsFile)
				if err != nil {
					return err
				}
				if err := checkReportLang(*reportLang, *reportDir); err != nil {
					return err
				}
				if err := checkFormats(*format); err != nil {
					return err
				}
				// Refuse a selection of nothing, and expected failures it
				// does not have, before anything is sent.
				selected, err := steps.SelectedWebhook(*lang, *tags)
				if err != nil {
					return usageError("--tags: %v", err)
				}
				all, err := steps.SelectedWebhook("all", "")
				if err != nil {
					return err
				}
				expected, err := loadExpectedFailures(*expectedFile, selected, all)
				if err != nil {
					return err
				}
				if err := reachable(ctx, *endpoint); err != nil {
					return &exitError{ExitUnreachable, err}
				}
				// No pre-flight: there is no --target to send a signed check
				// to. The reachability check above is this command's.
				formats, junitTo := splitJUnit(*format)
				shown := m.newDisplay(formats)
				formats, err = withCucumber(shown.Formats, *reportDir)
				if err != nil {
					return err
				}
				e := &steps.Endpoint{URL: *endpoint, Secret: *secret, MerchantID: *merchant, Profile: p, SignatureIDs: contracts}
				suite := &steps.WebhookSuite{Endpoint: e, Lang: *lang, Tags: *tags, Concurrency: *concurrency, Format: formats,
					Output: shown.Output, Progress: shown.Lines, Randomize: *seed}
				fmt.Fprintf(m.Stdout, "firmakit certify-webhook: playing the service for the endpoint %s\n", *endpoint)
				fmt.Fprintf(m.Stdout, "profile %q, delivery timeout %s; %s\n", p.Name, p.Webhook.Timeout, suite)
				if len(contracts) > 0 {
					fmt.Fprintf(m.Stdout, "contracts (signature_id) of merchant %s: %s\n\n", *merchant, strings.Join(contracts, ", "))
				} else {
					fmt.Fprintf(m.Stdout, "contracts (signature_id): made up by firmakit (give --signature-id if the endpoint looks them up)\n\n")
				}
				total, _ := steps.SelectWebhook(*lang, *tags)
				suite.OnResult = shown.Start(total)
				start := time.Now()
				status, err := suite.Run()
				elapsed := time.Since(start)
				shown.Stop()
				var se *steps.SelectionError
				switch {
				case errors.As(err, &se):
					return usageError("--tags: %v", err)
				case errors.Is(err, steps.ErrUnknownContract):
					return &exitError{ExitFailed, err}
				case err != nil:
					return usageError("%v", err)
				}
				if shown.Own() {
					fmt.Fprintln(m.Stdout)
				}
				results, hints := suite.Results(), suite.Hints()
				results, status = expectFailures(results, expected, status)
				run := reports.Run{Tool: "firmakit", Version: Version(), Target: *endpoint, MerchantID: *merchant, TargetLabel: reports.WebhookTarget,
					Set: features.WebhookSet, Hints: hints, Profile: p, Lang: *lang, Tags: *tags, ReportLang: *reportLang, Started: start, Elapsed: elapsed,
					Expected: expected, SignatureIDs: contracts}
				// The hints are this set's likely causes: the service's
				// (reports.Causes) speak of a --target.
				return m.finishRun(ending{run: run, results: results, godogStatus: status, junitTo: junitTo, reportDir: *reportDir,
					width: shown.Width, causes: func(w io.Writer) {
						for _, h := range hints {
							fmt.Fprintln(w, "hint: "+h.String())
						}
					}})
			}
		}}
}

// reachable tells whether anything answers HTTP at an endpoint's URL. A
// GET is enough: any status, a 405 included, says a server is there; a
// refused connection or an unknown host says nothing can be certified.
func reachable(ctx context.Context, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return fmt.Errorf("endpoint %s: %w", endpoint, err)
	}
	client := &http.Client{Timeout: 5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("endpoint %s is unreachable: %w; start it, or give the URL it listens on", endpoint, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.Body.Close()
}

// signatureIDs are the contracts given by --signature-id and in the
// --signature-ids file, in that order, each once.
func signatureIDs(flags []string, file string) ([]string, error) {
	ids := append([]string(nil), flags...)
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usageError("--signature-ids: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "#")
			if line = strings.TrimSpace(line); line != "" {
				ids = append(ids, line)
			}
		}
		if len(ids) == len(flags) {
			return nil, usageError("--signature-ids: %s names no contract id", file)
		}
	}
	var out []string
	for _, id := range ids {
		switch {
		case strings.TrimSpace(id) == "":
			return nil, usageError("--signature-id: an empty id")
		case !slices.Contains(out, id):
			out = append(out, id)
		}
	}
	return out, nil
}
