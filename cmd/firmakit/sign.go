package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/google/uuid"
)

func (m *Main) signCommand() command {
	return command{name: "sign", summary: "print the signed headers (or a curl line) for a request",
		usage: "firmakit sign --url URL [--body JSON | --body-file FILE] [--key K --secret S | --webhook-secret S [--webhook-id ID]] [--profile NAME|FILE] [--curl] " +
			"[--timestamp-offset D | --timestamp-text FORM] [--omit HEADER] [--empty HEADER] [--signature-form FORM]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			demo := firmakit.Demo()
			rawURL := fs.String("url", "", "full URL of the request, e.g. http://127.0.0.1:8080/"+demo.APIVersion+"/check/"+demo.MerchantID)
			method := fs.String("method", "POST", "HTTP method")
			body := fs.String("body", "{}", "request body, sent and signed byte for byte")
			bodyFile := fs.String("body-file", "", "read the body from this file ('-' for standard input)")
			key := fs.String("key", demo.Credential.KeyID, "credential key id")
			secret := fs.String("secret", demo.Credential.Secret, "credential secret (never printed)")
			ts := fs.Int64("timestamp", 0, "Unix time to sign with; default now")
			webhookSecret := fs.String("webhook-secret", "", "sign a notification instead, under the profile's webhook scheme, with this webhook secret (never printed)")
			webhookID := fs.String("webhook-id", "", "the notification's message id, for schemes that sign one (standard-webhooks); default: a new one")
			curl := fs.Bool("curl", false, "print a ready curl command instead of the headers")
			// A request as a faulty client would send it, to see the
			// service's answer; 'certify --explore' prints its findings
			// with these flags.
			tsOffset := fs.Duration("timestamp-offset", 0, "sign with the time moved by this much from now (or --timestamp): -10m is ten minutes ago")
			tsText := fs.String("timestamp-text", "", "send the timestamp as this text, signed as sent: {now} is the Unix time, {now-ms} in milliseconds, "+
				"{now-hex} in hexadecimal, {now-spaced} with a space after its fifth digit (e.g. '0{now}', '{now}.5')")
			var omit, empty cliflag.List
			fs.Var(&omit, "omit", "leave out an authentication header: key, timestamp or signature (repeatable)")
			fs.Var(&empty, "empty", "send an authentication header with an empty value: key, timestamp or signature (repeatable)")
			sigForm := fs.String("signature-form", "", "write the signature otherwise: upper (upper-case hex), base64 or hex (the same bytes), "+
				"cut (its last character cut off), sha256-prefix (\"sha256=\" before it), wrong (other bytes of the same length)")
			profile := profileFlag(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				if *rawURL == "" {
					return usageError("--url is required")
				}
				u, err := firmakit.ParseHTTPURL(*rawURL)
				if err != nil {
					return usageError("--url %q is not an http(s) URL", *rawURL)
				}
				p, err := profile()
				if err != nil {
					return err
				}
				b := []byte(*body)
				switch *bodyFile {
				case "":
				case "-":
					var sb strings.Builder
					buf := make([]byte, 32<<10)
					for {
						n, err := m.Stdin.Read(buf)
						sb.Write(buf[:n])
						if err != nil {
							break
						}
					}
					b = []byte(sb.String())
				default:
					if b, err = os.ReadFile(*bodyFile); err != nil {
						return usageError("--body-file: %v", err)
					}
				}
				now := time.Now()
				if *ts != 0 {
					now = time.Unix(*ts, 0)
				}
				now = now.Add(*tsOffset)
				if *webhookSecret != "" && (*tsOffset != 0 || *tsText != "" || *sigForm != "" || len(omit) > 0 || len(empty) > 0) {
					return usageError("--timestamp-offset, --timestamp-text, --omit, --empty and --signature-form alter a request's signature; a notification is signed with --webhook-secret as it is")
				}
				for _, role := range append(append([]string{}, omit...), empty...) {
					if p.AuthHeader(role) == "" {
						return usageError("--omit and --empty take key, timestamp or signature, not %q", role)
					}
				}
				target := u.EscapedPath()
				if u.RawQuery != "" || u.ForceQuery {
					target += "?" + u.RawQuery
				}
				h := http.Header{}
				parts := firmakit.RequestParts{Method: strings.ToUpper(*method), RequestTarget: target, Body: b}
				if *webhookSecret != "" {
					if err := p.Webhook.CheckWebhookKey(*webhookSecret, true); err != nil {
						return usageError("--webhook-secret: %v", err)
					}
					id := *webhookID
					if id == "" {
						id = "msg_" + uuid.NewString()
					}
					// An RFC 9421 signature covers the method and URL too.
					req := &http.Request{Method: parts.Method, URL: u, Header: h}
					p.SignWebhookRequest(req, id, []string{*webhookSecret}, now, b)
				} else if parts, err = p.SignHeaders(h, *key, *secret, parts, now, firmakit.Otherwise{Stamp: *tsText, SigForm: *sigForm, Omit: omit, Empty: empty}); err != nil {
					return usageError("--signature-form: %v", err)
				}
				if *curl {
					file := *bodyFile
					if file == "-" {
						file = ""
					}
					fmt.Fprintln(m.Stdout, firmakit.CurlLine(parts.Method, *rawURL, h, b, file))
					return nil
				}
				names := slices.Sorted(maps.Keys(h))
				for _, k := range names {
					fmt.Fprintf(m.Stdout, "%s: %s\n", k, h.Get(k))
				}
				if *webhookSecret != "" {
					fmt.Fprintf(m.Stderr, "notification signed under %s (%s)\n", p.Name, schemeSummary(p))
					return nil
				}
				sts := p.StringToSign(parts)
				// Escaped as a diagnostic of 'firmakit serve --explain' shows
				// it (string_to_sign, string_to_sign_bytes), to compare.
				fmt.Fprintf(m.Stderr, "string to sign (%d bytes, %s over %s): %s\n", len(sts), p.Request.Hash, p.Request.Encoding, firmakit.EscapeStringToSign(sts))
				return nil
			}
		}}
}
