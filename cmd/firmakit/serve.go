package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
	"github.com/firmakit/firmakit/reference/liberties"
)

// profileFlag adds --profile and returns a loader.
func profileFlag(fs *flag.FlagSet) func() (*firmakit.Profile, error) {
	path := fs.String("profile", "", "a preset ("+strings.Join(firmakit.Presets(), ", ")+") or a profile file (YAML or JSON) of header names, signing and notification fields; default: bundled")
	return func() (*firmakit.Profile, error) {
		if *path == "" {
			return firmakit.BundledProfile(), nil
		}
		p, err := firmakit.ResolveProfile(*path)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return p, nil
	}
}

// suiteSpeaks refuses a profile whose webhook scheme the service suite's
// notification sentences cannot yet judge: they take apart
// "<timestamp_key>=<t>,<signature_key>=<mac>" headers (bundled, stripe).
// certify-webhook, vectors, receive and sign take every scheme.
func suiteSpeaks(p *firmakit.Profile) error {
	if w := p.Webhook; w.SignatureFormat != "fields" || w.TimestampFrom != "field" || w.HasID() {
		return usageError("profile %q: the service suite's notification scenarios judge the schemes written as key=value fields with the timestamp inside (bundled, stripe); %s is not one of them yet. 'firmakit certify-webhook', 'receive' and 'sign' take it with --profile %s",
			p.Name, p.Name, p.Name)
	}
	return nil
}

// shared are flags that the reference and the receiver both take; a
// command that runs both defines them once.
type shared struct {
	profile func() (*firmakit.Profile, error)
	logger  func() (*slog.Logger, error)
}

func (m *Main) sharedFlags(fs *flag.FlagSet, logLevel string) shared {
	return shared{profile: profileFlag(fs), logger: m.logFlags(fs, logLevel)}
}

// referenceFlags adds the flags of a reference server and returns a
// constructor of an unopened server, with the merchants whose webhook
// --webhook-url set.
func (m *Main) referenceFlags(fs *flag.FlagSet, defaultAddr string, sh shared) func() (*reference.Server, map[string]bool, error) {
	addr := fs.String("addr", defaultAddr, "address the reference server listens on")
	merchants := fs.String("merchants", "", "merchant configuration file (YAML); default: the bundled demo merchants")
	webhooks := &reference.WebhookURLs{}
	fs.Var(webhooks, "webhook-url", "signature_webhook of a merchant, as merchant_id=URL (repeatable); a bare URL is the only merchant's, or "+firmakit.Demo().MerchantID+"'s")
	publicURL := fs.String("public-url", "", "base URL of links the server hands out (document_url); default: its own address")
	delay := fs.Duration("demo-delay", reference.DefaultDemoDelay, "wait between a 201 and its demo notification")
	retries := &cliflag.Durations{D: reference.DefaultRetrySchedule}
	fs.Var(retries, "retry-schedule", "waits before each retry of an unanswered notification, comma-separated; 'none' disables retries")
	maxDeliveries := fs.Int("max-deliveries", reference.DefaultMaxDeliveries, "notifications sent at once; the others wait in a queue (GET /_sandbox/queue)")
	explain := fs.Bool("explain", false, "add a diagnostic to each authentication refusal (400 Missing headers, 401): what the server received, its string to sign and the likely cause")
	maxRequests := fs.Int("max-requests", reference.DefaultMaxRequests, "received requests kept in the log (GET /_sandbox/requests)")
	token := fs.String("sandbox-token", "", "token for the inspection paths (/_sandbox/*); generated with --public-url or when listening beyond loopback")
	return func() (*reference.Server, map[string]bool, error) {
		p, err := sh.profile()
		if err != nil {
			return nil, nil, err
		}
		cfg := reference.DemoConfig()
		if *merchants != "" {
			if cfg, err = reference.LoadConfig(*merchants); err != nil {
				return nil, nil, usageError("%v", err)
			}
		}
		set, err := webhooks.Apply(cfg)
		if err != nil {
			return nil, nil, usageError("%v", err)
		}
		if *delay < 0 {
			return nil, nil, usageError("--demo-delay must not be negative")
		}
		if *maxDeliveries < 1 {
			return nil, nil, usageError("--max-deliveries must be at least 1")
		}
		if *maxRequests < 1 {
			return nil, nil, usageError("--max-requests must be at least 1")
		}
		log, err := sh.logger()
		if err != nil {
			return nil, nil, err
		}
		s := &reference.Server{Addr: *addr, Profile: p, Config: cfg, PublicURL: *publicURL, DemoDelay: *delay,
			RetrySchedule: retries.D, MaxDeliveries: *maxDeliveries, Logger: log, Explain: *explain, MaxRequests: *maxRequests,
			Token: *token}
		s.Documents = openapiDocuments(s)
		return s, set, nil
	}
}

func (m *Main) serveCommand() command {
	return command{name: "serve", summary: "run the reference server of the merchant API",
		usage: "firmakit serve [--addr 127.0.0.1:8080] [--merchants FILE] [--webhook-url [MERCHANT=]URL ...] [--max-deliveries 256] [--explain] [--sandbox-token T] [--profile NAME|FILE] [--fault NAME,... | --fault list | --liberty NAME,... | --liberty list]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			newServer := m.referenceFlags(fs, reference.DefaultAddr, m.sharedFlags(fs, "info"))
			var names cliflag.Words
			fs.Var(&names, "fault", "switch on a deliberate fault, to check that the suite catches it (repeatable or comma-separated; 'list' prints them all)")
			var libs cliflag.Words
			fs.Var(&libs, "liberty", "take a deliberate liberty, a variation the documents allow, to check that the suite passes it (repeatable or comma-separated; 'list' prints them all)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				if slices.Contains(names, "list") {
					return faults.WriteTable(m.Stdout)
				}
				if slices.Contains(libs, "list") {
					return liberties.WriteTable(m.Stdout)
				}
				if len(names) > 0 && len(libs) > 0 {
					return usageError("--fault and --liberty: a server takes faults or liberties, not both; drop one of them")
				}
				s, _, err := newServer()
				if err != nil {
					return err
				}
				if s.Deviations, err = faults.New(names); err != nil {
					return usageError("--fault: %v ('firmakit serve --fault list' lists them all)", err)
				}
				if len(libs) > 0 {
					if s.Deviations, err = liberties.New(libs); err != nil {
						return usageError("--liberty: %v ('firmakit serve --liberty list' lists them all)", err)
					}
				}
				if err := s.Open(); err != nil {
					return err
				}
				if len(names) > 0 {
					faults.WriteWarning(m.Stderr, names)
				}
				fmt.Fprintf(m.Stdout, "firmakit reference server on %s\n", s.URL())
				sandboxToken(m.Stdout, s)
				if try := trySign(s); try != "" {
					fmt.Fprintln(m.Stdout, try)
				}
				if m.Ready != nil {
					m.Ready(map[string]string{"reference": s.URL()})
				}
				<-ctx.Done()
				fmt.Fprintln(m.Stdout, "shutting down: finishing pending notifications")
				done := make(chan error, 1)
				go func() { done <- s.Close() }()
				select {
				case err := <-done:
					return err
				case <-time.After(s.ShutdownGrace + 5*time.Second):
					return fmt.Errorf("shutdown took too long")
				}
			}
		}}
}

// sandboxToken says the token of a server's inspection paths, if it has
// one.
func sandboxToken(w io.Writer, s *reference.Server) {
	if s.Token != "" {
		fmt.Fprintf(w, "sandbox token: %s (/_sandbox/* need it: Authorization: Bearer <token>; the API paths stay open)\n", s.Token)
	}
}

// trySign is the line that shows how to call a server: a signed check
// request of its default merchant (or its first one), with the secret only
// when it is the published demo secret.
func trySign(s *reference.Server) string {
	mc, err := s.Config.DefaultMerchant()
	if err != nil {
		if len(s.Config.Merchants) == 0 {
			return ""
		}
		mc = s.Config.Merchants[0]
	}
	cred, ok := mc.EnabledCredential()
	if !ok {
		return fmt.Sprintf("merchant %s has no enabled credential", mc.ID)
	}
	line := fmt.Sprintf("try: firmakit sign --url %s/%s/check/%s", s.URL(), s.Config.APIVersions[0], mc.ID)
	if demo := firmakit.Demo(); cred.KeyID != demo.Credential.KeyID || cred.Secret != demo.Credential.Secret {
		line += " --key " + cred.KeyID + " --secret <its secret>"
	}
	return fmt.Sprintf("merchant %s, key %s\n%s --curl | sh", mc.ID, cred.KeyID, line)
}
