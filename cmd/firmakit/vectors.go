package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps/webhook"
)

// vectorsCommand writes the webhook set's deliveries as test vectors, for
// a merchant's unit tests to run without firmakit or a network.
func (m *Main) vectorsCommand() command {
	return command{name: "vectors", summary: "write the webhook suite's cases as test vectors (JSON) for an endpoint's unit tests",
		usage: "firmakit vectors [--webhook-secret S] [--merchant ID] [--at UNIX] [--profile NAME|FILE] [--out FILE]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			demo := firmakit.Demo()
			secret := fs.String("webhook-secret", demo.WebhookSecrets[0], "the webhook secret the cases are signed with")
			merchant := fs.String("merchant", demo.MerchantID, "merchant id written in the notifications")
			at := fs.Int64("at", 1795000000, "the reference time, Unix seconds: the verifier's clock for every case")
			out := fs.String("out", "", "write to this file; default: standard output")
			profile := profileFlag(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				if *secret == "" {
					return usageError("--webhook-secret is empty")
				}
				if *at <= 0 {
					return usageError("--at must be a Unix time in seconds")
				}
				p, err := profile()
				if err != nil {
					return err
				}
				if err := p.Webhook.CheckWebhookKey(*secret, true); err != nil {
					return usageError("--webhook-secret: %v", err)
				}
				v, err := webhook.MakeVectors(p, *secret, *merchant, time.Unix(*at, 0))
				if err != nil {
					return err
				}
				b, err := json.MarshalIndent(v, "", "  ")
				if err != nil {
					return err
				}
				b = append(b, '\n')
				if *out == "" {
					_, err = m.Stdout.Write(b)
					return err
				}
				if err := os.WriteFile(*out, b, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(m.Stdout, "firmakit vectors: %d cases (profile %q, reference time %d) written to %s\n", len(v.Cases), p.Name, v.ReferenceTime, *out)
				return nil
			}
		}}
}
