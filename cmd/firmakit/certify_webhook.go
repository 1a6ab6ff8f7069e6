package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/webhook"
)

func (m *Main) certifyWebhookCommand() command {
	return command{name: "certify-webhook", summary: "play the service and check a merchant's webhook endpoint",
		usage: "firmakit certify-webhook --endpoint URL --webhook-secret S [--merchant ID] [--signature-id ID ... | --signature-ids FILE] [--lang es|en|all] [--tags EXPR] [--strict] [--expected-failures FILE] [--report DIR [--report-lang es|en]]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			f := bindWebhookFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				plan, err := f.check()
				if err != nil {
					return err
				}
				// --max-duration bounds the whole run from here, the
				// reachability check included: an endpoint that answers
				// nothing cannot keep the run past it.
				deadline := f.deadline()
				rctx, cancel := ctx, context.CancelFunc(func() {})
				if !deadline.IsZero() {
					rctx, cancel = context.WithDeadline(ctx, deadline)
				}
				err = reachable(rctx, f.endpoint)
				outOfTime := errors.Is(rctx.Err(), context.DeadlineExceeded)
				cancel()
				if err != nil && !outOfTime {
					return &exitError{ExitUnreachable, err}
				}
				// No pre-flight: there is no --target to send a signed
				// check to. The reachability check above is this command's.
				// Out of time already, the run files every scenario as not
				// judged in time, with its reports.
				return m.runCertifyWebhook(f, plan, deadline)
			}
		}}
}

// webhookFlags are certify-webhook's flags.
type webhookFlags struct {
	*runFlags
	endpoint, secret, merchant, idsFile string
	ids                                 []string
	maxInFlight                         int
}

func bindWebhookFlags(fs *flag.FlagSet) *webhookFlags {
	f := &webhookFlags{runFlags: bindRunFlags(fs, webhook.DefaultConcurrency, "godog tag expression, e.g. '@WH-STATE,@WH-ROTATION'; default: all",
		DefaultMaxDuration, "; 0: none")}
	fs.StringVar(&f.endpoint, "endpoint", "", "URL of the merchant's webhook endpoint (its signature_webhook), where notifications are posted")
	fs.StringVar(&f.secret, "webhook-secret", "", "the webhook secret the endpoint verifies notifications with; under an Ed25519 scheme, the secret key (whsk_…) whose public key the endpoint holds")
	fs.StringVar(&f.merchant, "merchant", firmakit.Demo().MerchantID, "merchant id written in the notifications")
	fs.Var((*cliflag.List)(&f.ids), "signature-id", "a contract the merchant's system knows, used as the notifications' signature_id (repeatable); without any, firmakit makes ids up, which an endpoint that looks contracts up answers 404")
	fs.StringVar(&f.idsFile, "signature-ids", "", "a file of contract ids the merchant's system knows, one a line ('#' starts a comment)")
	fs.IntVar(&f.maxInFlight, "max-in-flight", webhook.DefaultMaxInFlight, "notifications in flight to the endpoint at once, over every scenario; a late answer among several runs again alone")
	return f
}

// webhookPlan is what certify-webhook's flags come to once checked.
type webhookPlan struct {
	*runPlan
	contracts []string
}

// check refuses bad flags, a selection of nothing and expected failures
// it does not have, before anything is sent.
func (f *webhookFlags) check() (*webhookPlan, error) {
	p, err := f.checkRun()
	if err != nil {
		return nil, err
	}
	switch _, err := firmakit.ParseHTTPURL(f.endpoint); {
	case f.endpoint == "":
		return nil, usageError("--endpoint is required: the URL the service posts the merchant's notifications to")
	case err != nil:
		return nil, usageError("--endpoint %q is not an http(s) URL", f.endpoint)
	}
	if f.secret == "" {
		return nil, usageError("--webhook-secret is required: the secret the endpoint verifies notifications with")
	}
	if err := p.Webhook.CheckWebhookKey(f.secret, true); err != nil {
		// Playing the service, the suite signs: it needs the secret key
		// whose public key the endpoint holds.
		return nil, usageError("--webhook-secret: %v", err)
	}
	if f.maxInFlight < 1 {
		return nil, usageError("--max-in-flight must be at least 1")
	}
	contracts, err := signatureIDs(f.ids, f.idsFile)
	if err != nil {
		return nil, err
	}
	plan, err := f.plan(p, webhook.Selected, f.tags)
	if err != nil {
		return nil, err
	}
	return &webhookPlan{runPlan: plan, contracts: contracts}, nil
}

// runCertifyWebhook runs the webhook set against the endpoint, showing
// each scenario as it ends, and ends the run with its verdict and
// reports.
func (m *Main) runCertifyWebhook(f *webhookFlags, plan *webhookPlan, deadline time.Time) error {
	p, contracts := plan.profile, plan.contracts
	suite := &webhook.Suite{Endpoint: &webhook.Endpoint{URL: f.endpoint, Secret: f.secret, MerchantID: f.merchant, Profile: p, SignatureIDs: contracts,
		MaxInFlight: f.maxInFlight}}
	return m.runSuite(f.runFlags, plan.runPlan, suiteRun{suite: suite, options: &suite.RunOptions, deadline: deadline, count: webhook.Select,
		intro: func() {
			fmt.Fprintf(m.Stdout, "firmakit certify-webhook: playing the service for the endpoint %s\n", f.endpoint)
			fmt.Fprintf(m.Stdout, "profile %q, delivery timeout %s; %s\n", p.Name, p.Webhook.Timeout, suite)
			if len(contracts) > 0 {
				fmt.Fprintf(m.Stdout, "contracts (signature_id) of merchant %s: %s\n\n", f.merchant, strings.Join(contracts, ", "))
			} else {
				fmt.Fprintf(m.Stdout, "contracts (signature_id): made up by firmakit (give --signature-id if the endpoint looks them up)\n\n")
			}
		},
		end: func(e *reports.Finish) {
			hints := suite.Hints()
			e.Run.Target, e.Run.MerchantID, e.Run.TargetLabel, e.Run.Set = f.endpoint, f.merchant, reports.WebhookTarget, features.WebhookSet
			e.Run.Hints, e.Run.SignatureIDs = hints, contracts
			// The hints are this set's likely causes: the service's
			// (reports.Causes) speak of a --target.
			e.Causes = func(w io.Writer, _ []reports.ScenarioResult) {
				for _, h := range hints {
					fmt.Fprintln(w, "hint: "+h.String())
				}
			}
		}})
}

// reachable tells whether anything answers HTTP at an endpoint's URL. A
// GET is enough: any status, a 405 included, says a server is there; a
// refused connection or an unknown host says nothing can be certified.
func reachable(ctx context.Context, endpoint string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return fmt.Errorf("endpoint %s: %w", endpoint, err)
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: peer.Transport(),
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
