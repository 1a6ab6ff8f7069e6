package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
)

func (m *Main) certifyCommand() command {
	return command{name: "certify", summary: "run the conformance suite against the bundled reference server or a target",
		usage: "firmakit certify [--target URL --key K --secret S [--receiver URL | --listen ADDR --public-url URL]] [--lang es|en|all] [--tags EXPR] [--report DIR]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			target := fs.String("target", "", "base URL of the service under test; empty: the bundled reference server, in-process")
			apiVersion := fs.String("api-version", "v1", "version segment of the check path")
			merchant := fs.String("merchant", "merchant_demo", "merchant id")
			key := fs.String("key", "", "the merchant's credential key (default with no --target: the demo key)")
			secret := fs.String("secret", "", "its secret")
			disabledKey := fs.String("disabled-key", "", "a disabled credential of the merchant; without it those scenarios are not run")
			disabledSecret := fs.String("disabled-secret", "", "its secret")
			otherKey := fs.String("other-key", "", "another merchant's credential; without it those scenarios are not run")
			otherSecret := fs.String("other-secret", "", "its secret")
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
			listen := fs.String("listen", "127.0.0.1:0", "address of the in-process receiver when no --receiver is given")
			publicURL := fs.String("public-url", "", "URL the target reaches the in-process receiver at")
			lang := fs.String("lang", "all", "features to run: es, en or all")
			tags := fs.String("tags", "", "godog tag expression; default: all, or '~@reference' against a --target")
			concurrency := fs.Int("concurrency", 64, "scenarios run at once")
			format := fs.String("format", "firmakit", "output: firmakit (a line per scenario), or godog formats: progress, pretty, junit, cucumber, … ('name:file' writes to a file)")
			seed := fs.Int64("seed", -1, "scenario order: -1 random, 0 file order, else that seed")
			reportDir := fs.String("report", "", "write junit.xml, cucumber.json, report.html and certificate.json to this folder")
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
				var t *steps.Target
				var cleanup []func()
				defer func() {
					for i := len(cleanup) - 1; i >= 0; i-- {
						cleanup[i]()
					}
				}()
				selection := *tags

				if *target == "" {
					// The bundled reference and a receiver, in-process on loopback.
					rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Profile: p}
					if err := rv.Open(); err != nil {
						return &exitError{ExitUnreachable, err}
					}
					cleanup = append(cleanup, func() { rv.Close() })
					ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: reference.DemoConfig(), Logger: log}
					if err := ref.Config.SetWebhook("merchant_demo", rv.HookURL("merchant_demo")); err != nil {
						return err
					}
					if err := ref.Open(); err != nil {
						return &exitError{ExitUnreachable, err}
					}
					cleanup = append(cleanup, func() { ref.Close() })
					t = steps.DemoTarget(ref.URL(), rv, true)
					t.Profile = p
					fmt.Fprintf(m.Stdout, "firmakit certify: the bundled reference server at %s, notifications at %s\n", ref.URL(), rv.HookURL("merchant_demo"))
				} else {
					t, err = m.foreignTarget(ctx, p, foreignFlags{
						target: *target, apiVersion: *apiVersion, merchant: *merchant, key: *key, secret: *secret,
						disabledKey: *disabledKey, disabledSecret: *disabledSecret, otherKey: *otherKey, otherSecret: *otherSecret,
						webhookSecrets: *webhookSecrets, template: *template, templateTitle: *templateTitle,
						templateSigners: *templateSigners, templateDocx: *templateDocx, templateData: *templateData,
						receiverURL: *receiverURL, receiverToken: *receiverToken, listen: *listen, publicURL: *publicURL,
					}, &cleanup, log)
					if err != nil {
						return err
					}
					if selection == "" {
						selection = "~@reference"
					}
				}

				formats := *format
				var progress io.Writer
				output := m.Stdout
				if formats == "firmakit" || strings.HasPrefix(formats, "firmakit,") {
					// Our own lines; godog's progress goes nowhere.
					progress, output = m.Stdout, io.Discard
					formats = "progress" + strings.TrimPrefix(formats, "firmakit")
				}
				if *reportDir != "" {
					if err := os.MkdirAll(*reportDir, 0o755); err != nil {
						return usageError("--report: %v", err)
					}
					formats += ",junit:" + filepath.Join(*reportDir, "junit.xml") + ",cucumber:" + filepath.Join(*reportDir, "cucumber.json")
				}
				suite := &steps.Suite{Target: t, Lang: *lang, Tags: selection, Concurrency: *concurrency, Format: formats,
					Output: output, Progress: progress, Randomize: *seed}
				fmt.Fprintf(m.Stdout, "profile %q; %s\n\n", p.Name, suite)
				start := time.Now()
				status, err := suite.Run()
				elapsed := time.Since(start)
				if err != nil {
					return usageError("%v", err)
				}
				if progress != nil {
					fmt.Fprintln(m.Stdout)
				}
				fmt.Fprintln(m.Stdout, suite.Summary())
				for _, line := range suite.NotRun() {
					fmt.Fprintln(m.Stdout, line)
				}
				fmt.Fprintf(m.Stdout, "wall time %s\n", elapsed.Round(time.Millisecond))
				if *reportDir != "" {
					run := reports.Run{Tool: "firmakit", Version: Version(), Target: t.URL, MerchantID: t.MerchantID,
						Profile: p, Lang: *lang, Tags: selection, Started: start, Elapsed: elapsed, NotRun: suite.NotRun()}
					if err := reports.WriteAll(*reportDir, run, suite.Results()); err != nil {
						return fmt.Errorf("report: %w", err)
					}
					fmt.Fprintf(m.Stdout, "reports in %s: report.html, certificate.json, junit.xml, cucumber.json\n", *reportDir)
				}
				if status != 0 {
					return &exitError{ExitFailed, errors.New("a scenario failed")}
				}
				return nil
			}
		}}
}

type foreignFlags struct {
	target, apiVersion, merchant, key, secret              string
	disabledKey, disabledSecret, otherKey, otherSecret     string
	webhookSecrets                                         []string
	template, templateTitle, templateSigners, templateDocx string
	templateData                                           []string
	receiverURL, receiverToken, listen, publicURL          string
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
		Credential:     steps.Credential{Key: f.key, Secret: f.secret},
		Disabled:       steps.Credential{Key: f.disabledKey, Secret: f.disabledSecret},
		Other:          steps.Credential{Key: f.otherKey, Secret: f.otherSecret},
		WebhookSecrets: f.webhookSecrets, Profile: p}
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

	// Is the target there at all?
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.URL+"/", nil)
	if req == nil {
		return nil, usageError("--target %q is not a URL", f.target)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return nil, &exitError{ExitUnreachable, fmt.Errorf("target %s is unreachable: %w", t.URL, err)}
	}
	resp.Body.Close()

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
