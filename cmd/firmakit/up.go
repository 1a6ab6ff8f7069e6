package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
)

func (m *Main) upCommand() command {
	return command{name: "up", summary: "run the reference server and the receiver together, with the live dashboard",
		usage: "firmakit up [--addr 127.0.0.1:8080] [--listen 127.0.0.1:8090] [--db :memory:] [--explain] [--allow-private-replay] [--sandbox-token T]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			sh := m.sharedFlags(fs, "info")
			newServer := m.referenceFlags(fs, reference.DefaultAddr, sh)
			newReceiver := m.receiverFlags(fs, receiver.DefaultAddr, ":memory:", "receiver-public-url", sh)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				ref, named, err := newServer()
				if err != nil {
					return err
				}
				rv, err := newReceiver()
				if err != nil {
					return err
				}
				rv.Profile = ref.Profile
				if rv.Secrets == nil {
					rv.Secrets = map[string][]string{}
					for _, mc := range ref.Config.Merchants {
						rv.Secrets[mc.ID] = mc.WebhookSecrets
					}
				}
				// The dashboard shows the requests the reference received,
				// and the delay of every contract it creates, whoever asked.
				rv.Requests = ref.Requests()
				ref.OnCreated = noteContracts(rv, noteContractWait)
				if err := openReceiver(rv); err != nil {
					return err
				}
				defer rv.Close()
				// Every merchant whose webhook --webhook-url does not name
				// gets its notifications on the receiver, on its own channel.
				var onReceiver []string
				for _, mc := range ref.Config.Merchants {
					if !named[mc.ID] {
						if err := ref.Config.SetWebhook(mc.ID, rv.HookURL(mc.ID)); err != nil {
							return err
						}
						onReceiver = append(onReceiver, mc.ID)
					}
				}
				if err := ref.Open(); err != nil {
					return &exitError{ExitUnreachable, err}
				}
				defer ref.Close()
				demo, err := ref.Config.DefaultMerchant()
				if err != nil && len(ref.Config.Merchants) > 0 {
					demo = ref.Config.Merchants[0]
				}
				if demo != nil {
					rv.Demo = func(ctx context.Context, st firmakit.State) (*firmakit.Envelope, error) {
						return demo.CreateDemo(ctx, ref.URL(), ref.Profile, st, "desde el panel")
					}
				}
				dash := rv.URL() + "/"
				if rv.Token != "" {
					dash += "?token=" + rv.Token
				}
				if demo != nil {
					cred, _ := demo.EnabledCredential()
					fmt.Fprintf(m.Stdout, "reference server: %s (demo contracts for %s, key %s)\n", ref.URL(), demo.ID, cred.KeyID)
				} else {
					fmt.Fprintf(m.Stdout, "reference server: %s\n", ref.URL())
				}
				if len(onReceiver) > 0 {
					fmt.Fprintf(m.Stdout, "receiver:         %s, the signature_webhook of %s\n", rv.HookURL("{merchant_id}"), strings.Join(onReceiver, ", "))
				}
				fmt.Fprintf(m.Stdout, "dashboard:        %s\n", dash)
				if rv.Token != "" {
					fmt.Fprintf(m.Stdout, "token:            %s (the dashboard, the API and the stream need it; /hooks/ stay open)\n", rv.Token)
				}
				sandboxToken(m.Stdout, ref)
				if rv.ForwardTo != "" {
					fmt.Fprintf(m.Stdout, "forwarding:       each notification to %s, whose answer is the service's\n", rv.ForwardTo)
				}
				fmt.Fprintf(m.Stdout, "create a demo contract: the dashboard's buttons, or: firmakit demo SIGNED --target %s\n", ref.URL())
				if m.Ready != nil {
					m.Ready(map[string]string{"reference": ref.URL(), "receiver": rv.URL(), "dashboard": dash})
				}
				<-ctx.Done()
				return nil
			}
		}}
}

// noteContractWait bounds how long the reference waits for the receiver
// to note a contract it created.
const noteContractWait = 2 * time.Second

// contractNoter is what noteContracts tells of each contract created: the
// receiver.
type contractNoter interface {
	NoteContract(ctx context.Context, signatureID, createdAt string) error
}

// noteContracts returns the reference's OnCreated under 'firmakit up': it
// tells rv of each contract, so that the dashboard knows each
// notification's delay. It runs on the request's goroutine, before the 201
// of a contract whose title asks for no demo notification is written, so
// it waits at most wait (a receiver's store busy with a burst of
// notifications must not hold the answer), and starts no goroutine: a
// contract not noted in time only shows no delay on the dashboard.
func noteContracts(rv contractNoter, wait time.Duration) func(merchantID, signatureID, createdAt string) {
	return func(_, signatureID, createdAt string) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_ = rv.NoteContract(ctx, signatureID, createdAt)
	}
}

func (m *Main) demoCommand() command {
	return command{name: "demo", summary: "create a demo contract that triggers a notification of a state",
		usage: "firmakit demo CREATED|BOUNCED|REJECTED|CANCELED|SIGNED [--target URL] [--title TEXT] [--receiver URL [--receiver-token T]]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			demo := firmakit.Demo()
			target := fs.String("target", "http://"+reference.DefaultAddr, "base URL of the service")
			merchant := fs.String("merchant", demo.MerchantID, "merchant id")
			key := fs.String("key", demo.Credential.KeyID, "credential key")
			secret := fs.String("secret", demo.Credential.Secret, "credential secret")
			template := fs.String("template", demo.Template.Name, "template name")
			signers := fs.String("template-signers", strings.Join(demo.Template.Signers, ","), "the template's signer keys")
			data := &cliflag.List{}
			fs.Var(data, "template-data", "data value, key=value (repeatable); default the demo template's")
			title := fs.String("title", "contrato de prueba", "free text after the prefix")
			rcv := fs.String("receiver", "", "base URL of a receiver ('firmakit receive') to tell of the contract, so that its dashboard shows the notification's delay")
			rcvToken := fs.String("receiver-token", "", "the token of that receiver, when it has one")
			profile := profileFlag(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usageError("want exactly one state: CREATED, BOUNCED, REJECTED, CANCELED or SIGNED")
				}
				st := firmakit.State(strings.ToUpper(args[0]))
				if !st.Valid() {
					return usageError("state %q: want CREATED, BOUNCED, REJECTED, CANCELED or SIGNED", args[0])
				}
				p, err := profile()
				if err != nil {
					return err
				}
				values := demo.Data
				if len(*data) > 0 {
					values = map[string]string{}
				}
				tmpl := firmakit.Template{Name: *template, Signers: strings.Split(*signers, ",")}
				for _, kv := range *data {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						return usageError("--template-data %q: want key=value", kv)
					}
					values[k] = v
				}
				start := time.Now()
				env, err := reference.CreateDemo(ctx, reference.DemoRequest{URL: *target, MerchantID: *merchant, Key: *key, Secret: *secret,
					Profile: p, Template: tmpl, Data: values, State: st, Title: *title})
				var answer *reference.AnswerError
				switch {
				case errors.As(err, &answer):
					return &exitError{ExitFailed, err}
				case err != nil:
					return &exitError{ExitUnreachable, err}
				}
				fmt.Fprintf(m.Stdout, "created %q: signature_id %s, status %s, in %s\n", env.Title, env.SignatureID, env.Status,
					time.Since(start).Round(time.Millisecond))
				fmt.Fprintf(m.Stdout, "a %s notification should reach the merchant's signature_webhook in about 500 ms\n", st)
				if *rcv != "" {
					// The contract exists whatever the receiver says: a
					// failure here is a warning, not a failed demo.
					rc := &receiver.Client{URL: *rcv, Token: *rcvToken, HTTP: &http.Client{Timeout: 10 * time.Second}}
					if err := rc.NoteContract(ctx, env.SignatureID, env.CreatedAt); err != nil {
						fmt.Fprintf(m.Stderr, "warning: the receiver at %s was not told of the contract, so it shows no delay: %v\n", *rcv, err)
					} else {
						fmt.Fprintf(m.Stdout, "told the receiver at %s when the contract was created\n", *rcv)
					}
				}
				return nil
			}
		}}
}
