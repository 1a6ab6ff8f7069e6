package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/explore"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/bundled"
	"github.com/firmakit/firmakit/steps/engine"
)

func (m *Main) certifyCommand() command {
	return command{name: "certify", summary: "run the conformance suite against the bundled reference server or a target",
		usage: "firmakit certify [--target URL --key K --secret S [--receiver URL | --listen ADDR --public-url URL]] [--lang es|en|all] [--tags EXPR] [--strict] [--expected-failures FILE] [--report DIR [--report-lang es|en]] [--explore DURATION] [--seed N]",
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
	*runFlags
	foreign foreignFlags
	net     *engine.Network
	logger  func() (*slog.Logger, error)
	// explore is --explore; profileName the --profile given ("" for the
	// bundled one), which the exploration's lines name.
	explore     time.Duration
	profileName func() string
}

func (m *Main) bindCertifyFlags(fs *flag.FlagSet) *certifyFlags {
	f := &certifyFlags{runFlags: bindRunFlags(fs, 64, "godog tag expression; default: all, or '~@reference' against a --target",
		0, "; default "+DefaultMaxDuration.String()+" against a --target, none for the bundled reference")}
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
	fs.StringVar(&t.otherMerchant, "other-merchant", "", "that merchant's id, whose signature_webhook is the receiver's /hooks/<id>; without it (and --other-webhook-secret) the scenarios of two merchants are not run")
	fs.Var((*cliflag.List)(&t.otherWebhookSecrets), "other-webhook-secret", "that merchant's webhook secret (repeatable)")
	fs.StringVar(&t.senderName, "sender-name", "", "the name the merchant is configured with, which its envelopes name as sender; without it those scenarios are not run")
	fs.StringVar(&t.senderEmail, "sender-email", "", "the merchant's configured sender e-mail")
	fs.StringVar(&t.documentHost, "document-host", "", "a host, besides the target's, where the target serves the documents its document_url links open")
	fs.Var((*cliflag.List)(&t.webhookSecrets), "webhook-secret", "webhook secret of the merchant (repeatable, for rotation)")
	fs.StringVar(&t.template, "template", "", "template name the create requests use (default: contrato_arriendo)")
	fs.StringVar(&t.templateTitle, "template-title", "", "the template's title")
	fs.StringVar(&t.templateSigners, "template-signers", "", "the template's signer keys, comma-separated")
	fs.StringVar(&t.templateDocx, "template-docx", "", "derive the template's name, title, signers and data keys from this .docx")
	fs.Var((*cliflag.List)(&t.templateData), "template-data", "a data value for the template, key=value (repeatable)")
	fs.StringVar(&t.receiverURL, "receiver", "", "URL of a running 'firmakit receive' where the target's notifications land")
	fs.StringVar(&t.receiverToken, "receiver-token", "", "its token, if it has one")
	fs.StringVar(&t.listen, "listen", DefaultCertifyListen, "address of the in-process receiver when no --receiver is given; the target's signature_webhook must reach it")
	fs.StringVar(&t.publicURL, "public-url", "", "URL the target reaches the in-process receiver at")
	fs.BoolVar(&t.skipPreflight, "skip-preflight", false, "against a --target, run the suite even if the signed check request before it fails")
	f.net = networkFlags(fs)
	f.logger = m.logFlags(fs, "warn")
	fs.DurationVar(&f.explore, "explore", DefaultExplore, exploreUsage)
	fs.Lookup("seed").Usage = "scenario order and the exploration's requests: -1 random (the exploration prints its seed), 0 file order, else that seed"
	profile := fs.Lookup("profile")
	f.profileName = func() string { return profile.Value.String() }
	return f
}

// certifyPlan is what certify's flags come to once checked, before
// anything starts.
type certifyPlan struct {
	*runPlan
	log *slog.Logger
}

// certify checks the flags, starts the bundled reference (or reaches the
// target), runs the suite and ends the run with its reports.
func (m *Main) certify(ctx context.Context, f *certifyFlags) error {
	plan, err := f.check(ctx)
	if err != nil {
		return err
	}
	bundled := f.foreign.target == ""
	client, pacer, retries, err := f.net.Build(!bundled)
	if err != nil {
		return usageError("%v", err)
	}
	// The bound runs from here: the pre-flight, the suite, its reruns.
	deadline := f.deadline()
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
	explicit := cliflag.GivenIn(ctx).Has("explore")
	x := &explore.Beside{Explorer: f.planExploration(ctx, t, bundled), WithSuite: !explicit}
	return m.runCertify(ctx, f, plan, t, deadline, x)
}

// check refuses bad flags, a selection of nothing and expected failures
// it does not have, before anything starts.
func (f *certifyFlags) check(ctx context.Context) (*certifyPlan, error) {
	p, err := f.checkRun()
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
	if err := checkCertifyFlags(cliflag.GivenIn(ctx)); err != nil {
		return nil, err
	}
	if f.explore < 0 {
		return nil, usageError("--explore must be 0 (no exploration) or more, as in --explore 30s")
	}
	selection := f.tags
	if f.foreign.target != "" && selection == "" {
		selection = "~@reference"
	}
	if !cliflag.GivenIn(ctx).Has("max-duration") && f.foreign.target != "" {
		f.maxDuration = DefaultMaxDuration
	}
	plan, err := f.plan(p, steps.Selected, selection)
	if err != nil {
		return nil, err
	}
	return &certifyPlan{runPlan: plan, log: log}, nil
}

// bundledTarget starts the bundled reference and a receiver, in-process
// on loopback, and returns them as the suite's target.
func (m *Main) bundledTarget(ctx context.Context, plan *certifyPlan, cleanup *[]func()) (*steps.Target, error) {
	// The suite answers 4xx, 5xx, late or not at all on purpose
	// (@DEMO-RETRY and the like): the reference's warnings about it are
	// part of the test, so only its errors are shown unless asked for more.
	refLog := plan.log
	if !refLog.Enabled(ctx, slog.LevelInfo) {
		refLog = slog.New(cliflag.AtLeast(refLog.Handler(), slog.LevelError))
	}
	stack, err := bundled.Start(plan.profile, refLog)
	if err != nil {
		return nil, &exitError{ExitUnreachable, err}
	}
	*cleanup = append(*cleanup, stack.Close)
	fmt.Fprintf(m.Stdout, "firmakit certify: the bundled reference server at %s, notifications at %s\n", stack.Reference.URL(), stack.Receiver.HookURL(stack.Target.MerchantID))
	return stack.Target, nil
}

// runCertify runs the suite against t, showing each scenario as it ends,
// with the exploration x beside it, and ends the run with its verdict and
// reports.
func (m *Main) runCertify(ctx context.Context, f *certifyFlags, plan *certifyPlan, t *steps.Target, deadline time.Time, x *explore.Beside) error {
	suite := &steps.Suite{Target: t}
	bundled := f.foreign.target == ""
	return m.runSuite(f.runFlags, plan.runPlan, suiteRun{suite: suite, options: &suite.RunOptions, deadline: deadline, count: steps.Select, ctx: ctx, explore: x,
		intro: func() { fmt.Fprintf(m.Stdout, "profile %q; %s\n\n", plan.profile.Name, suite) },
		end: func(f *reports.Finish) {
			f.Run.Target, f.Run.Bundled, f.Run.MerchantID = t.URL, bundled, t.MerchantID
			f.Causes = reports.WriteLikelyCauses
			f.Network = networkLine(t.Pacer, !bundled)
		}})
}

// targetOnly are the certify flags that only mean something against a
// --target: without one, certify tests the bundled reference server with
// its own demo merchant, credentials, template and receiver.
var targetOnly = []string{"merchant", "api-version", "key", "secret", "disabled-key", "disabled-secret", "other-key", "other-secret",
	"other-merchant", "other-webhook-secret", "sender-name", "sender-email", "document-host",
	"webhook-secret", "template", "template-title", "template-signers", "template-docx", "template-data",
	"receiver", "receiver-token", "listen", "public-url", "ca-cert", "client-cert", "client-key"}

// checkCertifyFlags refuses flags given (see cliflag.Given) that mean nothing
// with the others: target flags without --target, receiver flags that
// contradict each other, half a credential.
func checkCertifyFlags(given cliflag.Given) error {
	has, flagName := given.Has, given.Name
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
	// Flags that go in pairs, and why.
	for _, pair := range [][3]string{{"disabled-key", "disabled-secret", "a credential is a key and its secret"},
		{"other-key", "other-secret", "a credential is a key and its secret"}, {"key", "secret", "a credential is a key and its secret"},
		{"sender-name", "sender-email", "the sender is a name and an e-mail"},
		{"other-merchant", "other-webhook-secret", "the other merchant's notifications are checked at its channel, with its secret"}} {
		for i, name := range pair[:2] {
			if other := pair[1-i]; has(name) && !has(other) {
				return usageError("%s needs --%s: %s", flagName(name), other, pair[2])
			}
		}
	}
	if has("other-merchant") && !has("other-key") {
		return usageError("--other-merchant needs --other-key and --other-secret: its contracts are created with its credential")
	}
	return nil
}

// DefaultCertifyListen is where certify's own receiver listens against a
// --target unless --listen says otherwise: a fixed port, so that the
// target's signature_webhook can be set once, before the run. It is not
// 8090, the default of 'firmakit receive', so both can run side by side.
const DefaultCertifyListen = "127.0.0.1:8091"

type foreignFlags struct {
	target, apiVersion, merchant, key, secret              string
	disabledKey, disabledSecret, otherKey, otherSecret     string
	webhookSecrets                                         []string
	otherMerchant                                          string
	otherWebhookSecrets                                    []string
	template, templateTitle, templateSigners, templateDocx string
	templateData                                           []string
	receiverURL, receiverToken, listen, publicURL          string
	senderName, senderEmail, documentHost                  string
	skipPreflight                                          bool
	client                                                 *http.Client
	pacer                                                  *engine.Pacer
	retries                                                int

	// deadline is the run's --max-duration from its start (zero: none).
	deadline time.Time
}

// foreignTarget builds the target of a run against another service and
// finds out whether it, and the receiver, can be reached.
func (m *Main) foreignTarget(ctx context.Context, p *firmakit.Profile, f foreignFlags, cleanup *[]func(), log *slog.Logger) (*steps.Target, error) {
	if f.key == "" || f.secret == "" {
		return nil, usageError("--key and --secret are required with --target")
	}
	t := &steps.Target{URL: strings.TrimRight(f.target, "/"), APIVersion: f.apiVersion, MerchantID: f.merchant,
		Credential:      firmakit.Credential{KeyID: f.key, Secret: f.secret},
		Disabled:        firmakit.Credential{KeyID: f.disabledKey, Secret: f.disabledSecret},
		Other:           firmakit.Credential{KeyID: f.otherKey, Secret: f.otherSecret},
		OtherMerchantID: f.otherMerchant, OtherWebhookSecrets: f.otherWebhookSecrets,
		WebhookSecrets: f.webhookSecrets, Profile: p, HTTPClient: f.client, Pacer: f.pacer, Retries: f.retries,
		Sender:       firmakit.Sender{Name: f.senderName, Email: f.senderEmail},
		DocumentHost: f.documentHost}
	if len(t.WebhookSecrets) == 0 {
		return nil, usageError("--webhook-secret is required with --target: the suite checks every notification's signature")
	}
	choice := steps.TemplateChoice{Name: f.template, Title: f.templateTitle, Signers: f.templateSigners, Data: f.templateData}
	if f.templateDocx != "" {
		tm, err := reference.InspectDocxFile(f.templateDocx)
		if err != nil {
			return nil, usageError("--template-docx: %v", err)
		}
		choice.FromDocx = &tm
	}
	if err := choice.Apply(t); err != nil {
		return nil, usageError("%v", err)
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
	secrets := map[string][]string{f.merchant: f.webhookSecrets}
	if f.otherMerchant != "" {
		secrets[f.otherMerchant] = f.otherWebhookSecrets
	}
	rv := &receiver.Receiver{Addr: f.listen, DB: ":memory:", Profile: p, PublicURL: f.publicURL, Secrets: secrets}
	if err := rv.Open(); err != nil {
		return nil, &exitError{ExitUnreachable, err}
	}
	*cleanup = append(*cleanup, func() { rv.Close() })
	t.Notifications, t.SharedClock = rv, true
	fmt.Fprintf(m.Stdout, "firmakit certify: target %s; its signature_webhook for %s must be %s\n", t.URL, f.merchant, rv.HookURL(f.merchant))
	if f.otherMerchant != "" {
		fmt.Fprintf(m.Stdout, "firmakit certify: and the signature_webhook for %s must be %s\n", f.otherMerchant, rv.HookURL(f.otherMerchant))
	}
	log.Info("in-process receiver", "url", rv.URL())
	return t, nil
}
