package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/gateway"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/reference/faults"
)

// sandboxConfig is one gateway a sandbox round puts in front of the
// reference.
type sandboxConfig struct {
	name, what string
	gateway    func() *gateway.Server
}

// sandboxConfigs are the gateways of the sandbox round: a gateway that
// rate-limits and says when to come back, a tighter one that does not say,
// and an unreliable one.
var sandboxConfigs = []sandboxConfig{
	{"a", "20 r/s, burst 10, Retry-After", func() *gateway.Server {
		return &gateway.Server{Rate: 20, Burst: 10, RetryAfter: true}
	}},
	{"b", "5 r/s, burst 5, no Retry-After", func() *gateway.Server {
		return &gateway.Server{Rate: 5, Burst: 5}
	}},
	{"c", "3% 502 and 3% resets, before or after the upstream; no rate limit", func() *gateway.Server {
		return &gateway.Server{BadGateway: 0.03, Reset: 0.03}
	}},
	{"d", "20 r/s, burst 10, Retry-After, and 3% 502 and 3% resets", func() *gateway.Server {
		return &gateway.Server{Rate: 20, Burst: 10, RetryAfter: true, BadGateway: 0.03, Reset: 0.03}
	}},
}

// runSandbox measures certify against a target as users have it on the
// internet: the bundled reference, in-process, behind a gateway on
// loopback that adds latency each way and rate-limits or fails some
// requests. For each configuration it runs the built binary's certify
// against the gateway and prints the verdict, the wall time and what the
// gateway did. Arguments after the flags go to certify as they are.
func runSandbox(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("sandbox", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	only := fs.String("only", "", "run one configuration: a, b, c or d")
	latency := fs.Duration("latency", 60*time.Millisecond, "latency the gateway adds each way")
	rate := fs.String("rate", "", "passed to certify as --rate when given")
	seed := fs.Uint64("seed", 1, "seed of the gateway's random faults")
	useTLS := fs.Bool("tls", false, "serve the gateway over HTTPS (HTTP/2) and give certify its CA with --ca-cert")
	limit := fs.Duration("limit", 20*time.Minute, "stop a certify run after this long")
	runs := fs.Int("runs", 1, "runs of each configuration (each with its own seed)")
	faults := fs.String("faults", "", "comma-separated named faults of the reference: each is run behind the gateway (default configuration d) instead of the correct reference")
	_ = fs.Parse(args)
	extra := fs.Args()

	var names []string
	if *faults != "" {
		names = strings.Split(*faults, ",")
		if *only == "" {
			*only = "d"
		}
	} else {
		names = []string{""}
	}
	ran := false
	verdicts := map[string]map[string]int{}
	for _, c := range sandboxConfigs {
		if *only != "" && *only != c.name {
			continue
		}
		ran = true
		for _, fault := range names {
			for i := 0; i < *runs; i++ {
				g := c.gateway()
				g.Latency, g.Seed, g.TLS = *latency, *seed+uint64(i), *useTLS
				what := "the correct reference"
				if fault != "" {
					what = "fault " + fault
				}
				fmt.Fprintf(out, "== sandbox %s: %s; %s each way; %s; run %d of %d\n", c.name, c.what, *latency, what, i+1, *runs)
				var v string
				err := withRig(out, *bin, func(r *rig) (err error) {
					v, err = sandboxRun(r, g, *rate, *limit, fault, extra)
					return err
				})
				if err != nil {
					return fmt.Errorf("sandbox %s: %w", c.name, err)
				}
				key := c.name + ", " + what
				if verdicts[key] == nil {
					verdicts[key] = map[string]int{}
				}
				verdicts[key][v]++
			}
		}
	}
	if !ran {
		return fmt.Errorf("--only %q: want a, b, c or d", *only)
	}
	fmt.Fprintln(out, "== verdicts")
	for key, vs := range verdicts {
		fmt.Fprintf(out, "%s: %v\n", key, vs)
	}
	return nil
}

// sandboxRun runs certify once against a fresh reference (with a named
// fault, when fault is not empty) behind g, and returns the verdict's
// first word.
func sandboxRun(r *rig, g *gateway.Server, rate string, limit time.Duration, fault string, extra []string) (string, error) {
	hook, err := freeAddr()
	if err != nil {
		return "", err
	}
	d := demoMerchant
	dev, err := faults.New(faultList(fault))
	if err != nil {
		return "", err
	}
	ref := &reference.Server{Addr: "127.0.0.1:0", Config: reference.DemoConfig(), Deviations: dev,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
	// The notifications do not pass the gateway's limits and failures,
	// as a sandbox's do not, but they cross the same network: a second
	// gateway adds only the latency on their way to certify's receiver.
	way := &gateway.Server{Upstream: "http://" + hook, Latency: g.Latency}
	if err := r.open(way); err != nil {
		return "", err
	}
	if err := ref.Config.SetWebhook(d.MerchantID, way.URL()+"/hooks/"+d.MerchantID); err != nil {
		return "", err
	}
	if err := r.open(ref); err != nil {
		return "", err
	}
	g.Upstream = ref.URL()
	if err := r.open(g); err != nil {
		return "", err
	}

	args := []string{"certify", "--target", g.URL(), "--merchant", d.MerchantID,
		"--key", d.Credential.KeyID, "--secret", d.Credential.Secret,
		"--disabled-key", d.Disabled.KeyID, "--disabled-secret", d.Disabled.Secret,
		"--other-key", d.Other.KeyID, "--other-secret", d.Other.Secret,
		"--webhook-secret", d.WebhookSecrets[0], "--listen", hook,
		"--sender-name", d.Sender.Name, "--sender-email", d.Sender.Email, "--document-host", "127.0.0.1"}
	if rate != "" {
		args = append(args, "--rate", rate)
	}
	if g.TLS {
		ca := r.file("ca.pem")
		if err := os.WriteFile(ca, g.CACertPEM(), 0o644); err != nil {
			return "", err
		}
		args = append(args, "--ca-cert", ca)
	}
	args = append(args, extra...)

	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	out, code, err := runCmd(ctx, r.bin, args...)
	if err != nil {
		return "", fmt.Errorf("%s: %w (run make build first)", r.bin, err)
	}
	wall := time.Since(start).Round(100 * time.Millisecond)
	st := g.Stats()

	verdict := regexp.MustCompile(`(?m)^verdict: .*$`).FindString(out)
	counts := regexp.MustCompile(`(?m)^firmakit: .*$`).FindString(out)
	if ctx.Err() != nil {
		verdict = fmt.Sprintf("stopped after %s (--limit)", limit)
	}
	if verdict == "" {
		// certify stopped before the suite: a usage error or a target it
		// could not reach; its last line says why.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		verdict = "no verdict: " + lines[len(lines)-1]
	}
	r.printf("%s\n", verdict)
	if counts != "" {
		r.printf("%s\n", counts)
	}
	r.printf("exit %d, wall time %s\n", code, wall)
	r.printf("gateway: %d requests, %d forwarded; %d 429s, %d 502s (%d after the upstream), %d resets (%d after the upstream), %d upstream errors\n",
		st.Requests, st.Forwarded, st.RateLimited, st.BadGateway, st.BadGatewayForwarded, st.Resets, st.ResetsForwarded, st.UpstreamErrors)
	if nl := regexp.MustCompile(`(?m)^network: .*$`).FindString(out); nl != "" {
		r.printf("%s\n", nl)
	}
	// The first scenarios that did not pass, each with its step and why.
	shown, lines := 0, strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "INCONCLUSIVE") {
			if shown++; shown > 8 {
				r.printf("    …\n")
				break
			}
			r.printf("    %s\n", l)
			for _, next := range lines[i+1 : min(i+3, len(lines))] {
				if strings.HasPrefix(next, "        ") {
					r.printf("    %s\n", firmakit.ClipBytes(next, 300))
				}
			}
		}
	}
	word, _, _ := strings.Cut(strings.TrimPrefix(verdict, "verdict: "), ":")
	return word, nil
}

func faultList(name string) []string {
	if name == "" {
		return nil
	}
	return []string{name}
}
