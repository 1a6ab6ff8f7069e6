package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// runVerdict measures whether certify's verdict holds on a busy machine:
// it starts CPU-bound processes, runs certify against the bundled
// reference again and again (every run must pass), then against a
// reference switched to a timing fault (every run must fail). Everything
// is on loopback and stops by itself.
func runVerdict(args []string) error {
	fs := flag.NewFlagSet("verdict", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	hogs := fs.Int("hogs", 4, "CPU-bound processes beside each run")
	runs := fs.Int("runs", 20, "runs against the bundled reference")
	faultRuns := fs.Int("fault-runs", 5, "runs against each faulty reference")
	faults := fs.String("faults", "notification-late,notification-immediate,notification-twice,notification-never", "faults of the reference, comma-separated")
	limit := fs.Duration("limit", 45*time.Minute, "stop everything after this long")
	_ = fs.Parse(args)

	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	stop := startHogs(ctx, *hogs)
	defer stop()
	fmt.Printf("%d CPU-bound processes beside every run\n", *hogs)

	summary := regexp.MustCompile(`(?m)^firmakit: .*$`)
	passed := 0
	for i := 1; i <= *runs; i++ {
		start := time.Now()
		out, code, err := runCmd(ctx, *bin, "certify", "--format", "firmakit")
		if err != nil {
			return err
		}
		if code == 0 {
			passed++
		}
		fmt.Printf("bundled run %2d: exit %d in %s, %s\n", i, code, time.Since(start).Round(time.Second), summary.FindString(out))
		if code != 0 {
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "INCONCLUSIVE") || strings.HasPrefix(l, "        ") {
					fmt.Println("   ", l)
				}
			}
		}
	}
	fmt.Printf("bundled reference: %d of %d runs passed\n", passed, *runs)

	for _, f := range strings.Split(*faults, ",") {
		failed := 0
		for i := 1; i <= *faultRuns; i++ {
			out, code, err := certifyFault(ctx, *bin, f)
			if err != nil {
				return err
			}
			if code == 1 {
				failed++
			}
			fmt.Printf("fault %s run %d: exit %d, %s\n", f, i, code, summary.FindString(out))
		}
		fmt.Printf("fault %s: %d of %d runs failed\n", f, failed, *faultRuns)
	}
	return nil
}

// certifyFault runs the demo feature against a reference serving with a
// fault, its notifications going to certify's own receiver.
func certifyFault(ctx context.Context, bin, fault string) (string, int, error) {
	addr, err := freeAddr()
	if err != nil {
		return "", 0, err
	}
	hook, err := freeAddr()
	if err != nil {
		return "", 0, err
	}
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", addr, "--fault", fault,
		"--webhook-url", "http://"+hook+"/hooks/"+demoMerchant.MerchantID, "--log-level", "error")
	if err := srv.Start(); err != nil {
		return "", 0, fmt.Errorf("start %s: %w (run make build first)", bin, err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	if err := waitUp("http://" + addr + "/healthz"); err != nil {
		return "", 0, err
	}
	d := demoMerchant
	return runCmd(ctx, bin, "certify", "--target", "http://"+addr, "--merchant", d.MerchantID, "--key", d.Credential.KeyID, "--secret", d.Credential.Secret,
		"--webhook-secret", d.WebhookSecrets[0], "--listen", hook, "--lang", "en", "--tags", "@DEMO-NOTIFICATION,@DEMO-FREE-TEXT,@DEMO-PAYLOAD")
}

func runCmd(ctx context.Context, bin string, args ...string) (string, int, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode(), nil
	case err != nil:
		return out.String(), 0, err
	}
	return out.String(), 0, nil
}

// startHogs starts n processes that spin until stopped or ctx ends.
func startHogs(ctx context.Context, n int) func() {
	var procs []*exec.Cmd
	for i := 0; i < n; i++ {
		c := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		c.Stdout, c.Stderr = os.Stderr, os.Stderr
		if c.Start() == nil {
			procs = append(procs, c)
		}
	}
	return func() {
		for _, c := range procs {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
}
