package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/receiver"
)

// receiverFlags adds the flags of a receiver and returns a constructor of
// an unopened receiver.
func (m *Main) receiverFlags(fs *flag.FlagSet, defaultAddr, defaultDB, publicURLFlag string, sh shared) func() (*receiver.Receiver, error) {
	addr := fs.String("listen", defaultAddr, "address the receiver listens on")
	db := fs.String("db", defaultDB, "database file, :memory:, or a PostgreSQL URL (postgres://user:pass@host/db), which several receivers may share as replicas")
	dbNotify := fs.Bool("db-notify", true, "with a PostgreSQL --db, wake the other replicas with one NOTIFY per committed batch; false only for a database's one replica")
	secrets := &cliflag.List{}
	demo := firmakit.Demo()
	fs.Var(secrets, "secret", "webhook secret of a channel, as channel=secret (repeatable; '*=secret' for every channel); default "+
		demo.MerchantID+"="+strings.Join(demo.WebhookSecrets, ","))
	strict := fs.Bool("strict", false, "answer 401 to notifications whose signature is not valid (they are still recorded)")
	token := fs.String("token", "", "token for the dashboard, the API and the stream; generated with --public-url or when listening beyond loopback")
	maxBody := fs.Int64("max-body", receiver.DefaultMaxBody, "largest body kept, in bytes; larger ones get 413")
	maxEvents := fs.Int64("max-events", receiver.DefaultMaxEvents, "records kept at most (0: no limit)")
	maxAge := fs.Duration("max-age", 0, "age of records kept at most, e.g. 72h (0: no limit)")
	maxBytes := fs.Int64("max-bytes", 0, fmt.Sprintf("bytes the stored records may take; past it the oldest are dropped (0: %d MiB with --db :memory:, no limit with a file)", receiver.DefaultMaxMemory>>20))
	maxConns := fs.Int("max-conns", receiver.DefaultMaxConns, "connections held at once; past it the one idle the longest, or else the slowest body, is closed")
	publicURL := fs.String(publicURLFlag, "", "URL senders reach the receiver at; default its own address. Its host is also allowed as Host")
	allowPrivate := fs.Bool("allow-private-replay", false, "let a replay go to loopback, link-local and private addresses (your own endpoint on localhost); never to the receiver itself")
	channelProfiles := &cliflag.List{}
	fs.Var(channelProfiles, "channel-profile", "scheme of one channel's notifications, as channel=PRESET or channel=FILE, e.g. gh=github (repeatable); other channels use --profile")
	forwardTo := fs.String("forward-to", "", "forward every notification, unchanged, to this endpoint of yours (e.g. http://localhost:3000/webhook) and answer the sender with its status")
	forwardTimeout := fs.Duration("forward-timeout", 0, "with --forward-to, how long a sender's answer waits for your endpoint at most, its body included, then 504 (0: the profile's webhook.timeout, 10s)")
	return func() (*receiver.Receiver, error) {
		p, err := sh.profile()
		if err != nil {
			return nil, err
		}
		log, err := sh.logger()
		if err != nil {
			return nil, err
		}
		sec, err := receiver.ParseSecrets(*secrets)
		if err != nil {
			return nil, usageError("%v", err)
		}
		chp, err := receiver.ParseChannelProfiles(*channelProfiles)
		if err != nil {
			return nil, usageError("%v", err)
		}
		for ch, list := range sec {
			q := p
			if cp := chp[ch]; cp != nil {
				q = cp
			}
			for _, s := range list {
				if err := q.Webhook.CheckWebhookKey(s, false); err != nil {
					return nil, usageError("--secret %s=…: %v", ch, err)
				}
			}
		}
		if *maxBody <= 0 || *maxEvents < 0 || *maxAge < 0 || *maxBytes < 0 || *maxConns < 1 {
			return nil, usageError("--max-body and --max-conns must be positive, --max-events, --max-age and --max-bytes not negative")
		}
		if *publicURL != "" {
			if _, err := firmakit.ParseHTTPURL(*publicURL); err != nil {
				return nil, usageError("--%s %q is not an http(s) URL", publicURLFlag, *publicURL)
			}
		}
		if *forwardTimeout < 0 || *forwardTimeout > maxForwardTimeout {
			return nil, usageError("--forward-timeout must be from 0 (the profile's webhook.timeout) to %s, such as 10s", maxForwardTimeout)
		}
		if *forwardTo != "" {
			if _, err := firmakit.ParseHTTPURL(*forwardTo); err != nil {
				return nil, usageError("--forward-to %q is not an http(s) URL", *forwardTo)
			}
			if *strict {
				return nil, usageError("--strict and --forward-to exclude each other: with --forward-to, your endpoint's own answer is the answer")
			}
		}
		return &receiver.Receiver{Addr: *addr, DB: *db, NoNotify: !*dbNotify, Profile: p, ChannelProfiles: chp, Secrets: sec, Strict: *strict, Token: *token,
			MaxBody: *maxBody, MaxEvents: *maxEvents, MaxAge: *maxAge, MaxBytes: *maxBytes, MaxConns: *maxConns,
			PublicURL: *publicURL, ForwardTo: *forwardTo, ForwardTimeout: *forwardTimeout, AllowPrivateReplay: *allowPrivate, Logger: log}, nil
	}
}

// maxForwardTimeout bounds --forward-timeout: a sender is not kept
// waiting past a programmed answer's longest delay.
const maxForwardTimeout = time.Minute

// openReceiver opens rv. What stops it is a configuration error (exit
// 2): a database that is not the receiver's, a --db it cannot open,
// create or reach, or an address it cannot listen on (see listenError).
func openReceiver(rv *receiver.Receiver) error {
	err := rv.Open()
	switch {
	case err == nil:
		return nil
	case receiver.IsPostgres(rv.DB) && errors.Is(err, receiver.ErrIncompatibleDatabase):
		return usageError("%v; the receiver leaves that database alone", err)
	case receiver.IsPostgres(rv.DB):
		return &exitError{ExitUsage, fmt.Errorf("%w; check the --db URL (postgres://user:password@host:5432/database) and that the server is up", err)}
	case errors.Is(err, receiver.ErrIncompatibleDatabase):
		return usageError("%v; the receiver leaves that file alone: move it aside, or start with another --db (or --db :memory:)", err)
	case errors.As(err, new(*fs.PathError)):
		return &exitError{ExitUsage, fmt.Errorf("%w; give --db a file this user can create or open, or --db :memory:", err)}
	}
	return &exitError{ExitUsage, err}
}

func (m *Main) receiveCommand() command {
	return command{name: "receive", summary: "run the webhook receiver and its live dashboard",
		usage: "firmakit receive [--listen 127.0.0.1:8090] [--db FILE|postgres://…] [--secret channel=secret] [--profile NAME|FILE] [--channel-profile channel=NAME|FILE] [--strict | --forward-to URL [--forward-timeout 10s]] [--public-url URL] [--token T] [--allow-private-replay]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			newReceiver := m.receiverFlags(fs, receiver.DefaultAddr, receiver.DefaultDB, "public-url", m.sharedFlags(fs, "info"))
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				rv, err := newReceiver()
				if err != nil {
					return err
				}
				if err := openReceiver(rv); err != nil {
					return err
				}
				dash := rv.URL() + "/"
				if rv.Token != "" {
					dash += "?token=" + rv.Token
				}
				fmt.Fprintf(m.Stdout, "firmakit receiver: send notifications to %s\n", rv.HookURL("{channel}"))
				fmt.Fprintf(m.Stdout, "dashboard: %s\n", dash)
				if rv.Token != "" {
					fmt.Fprintf(m.Stdout, "token: %s (the dashboard, the API and the stream need it: Authorization: Bearer <token>; /hooks/ stay open)\n", rv.Token)
				}
				if rv.ForwardTo != "" {
					fmt.Fprintf(m.Stdout, "forwarding each notification to %s; its answer (within %s) is the sender's answer\n",
						rv.ForwardTo, rv.ForwardTimeout)
				}
				if m.Ready != nil {
					m.Ready(map[string]string{"receiver": rv.URL(), "dashboard": dash})
				}
				<-ctx.Done()
				done := make(chan error, 1)
				go func() { done <- rv.Close() }()
				select {
				case err := <-done:
					return err
				case <-time.After(10 * time.Second):
					return fmt.Errorf("shutdown took too long")
				}
			}
		}}
}
