package main

import (
	"net/http"

	"context"
	"flag"
	"fmt"
	"github.com/google/uuid"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
)

func (m *Main) signCommand() command {
	return command{name: "sign", summary: "print the signed headers (or a curl line) for a request",
		usage: "firmakit sign --url URL [--body JSON | --body-file FILE] [--key K --secret S | --webhook-secret S [--webhook-id ID]] [--profile NAME|FILE] [--curl]",
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
				target := u.EscapedPath()
				if u.RawQuery != "" || u.ForceQuery {
					target += "?" + u.RawQuery
				}
				var h http.Header
				if *webhookSecret != "" {
					id := *webhookID
					if id == "" {
						id = "msg_" + uuid.NewString()
					}
					h = http.Header{}
					p.SignWebhook(h, id, []string{*webhookSecret}, now, b)
				} else {
					h = p.SignedHeaders(*key, *secret, strings.ToUpper(*method), target, b, now)
				}
				names := make([]string, 0, len(h))
				for k := range h {
					names = append(names, k)
				}
				sort.Strings(names)
				if *curl {
					// --globoff and --path-as-is: curl sends the URL exactly as
					// signed (no [] or {} globbing, no ./ or ../ folding); a body
					// file is sent as its bytes, whatever they hold.
					line := "curl -sS --globoff --path-as-is -X " + strings.ToUpper(*method) + " " + shellQuote(*rawURL) + " -H 'Content-Type: application/json'"
					for _, k := range names {
						line += " -H " + shellQuote(k+": "+h.Get(k))
					}
					if *bodyFile != "" && *bodyFile != "-" {
						line += " --data-binary " + shellQuote("@"+*bodyFile)
					} else {
						line += " --data-binary " + shellQuote(string(b))
					}
					fmt.Fprintln(m.Stdout, line)
					return nil
				}
				for _, k := range names {
					fmt.Fprintf(m.Stdout, "%s: %s\n", k, h.Get(k))
				}
				if *webhookSecret != "" {
					fmt.Fprintf(m.Stderr, "notification signed under %s (%s)\n", p.Name, schemeSummary(p))
					return nil
				}
				sts := p.StringToSign(firmakit.RequestParts{Timestamp: h.Get(p.Request.TimestampHeader), Method: strings.ToUpper(*method), RequestTarget: target, KeyID: *key, Body: b})
				// Escaped as a diagnostic of 'firmakit serve --explain' shows
				// it (string_to_sign, string_to_sign_bytes), to compare.
				fmt.Fprintf(m.Stderr, "string to sign (%d bytes, %s over %s): %s\n", len(sts), p.Request.Hash, p.Request.Encoding, firmakit.EscapeStringToSign(sts))
				return nil
			}
		}}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
