package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
func runVerdict(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("verdict", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	hogs := fs.Int("hogs", 4, "CPU-bound processes beside each run")
	runs := fs.Int("runs", 20, "runs against the bundled reference")
	faultRuns := fs.Int("fault-runs", 5, "runs against each faulty reference")
	faults := fs.String("faults", "notification-late,notification-immediate,notification-twice,notification-never", "faults of the reference, comma-separated")
	limit := fs.Duration("limit", 45*time.Minute, "stop everything after this long")
	tags := fs.String("tags", "", "tag expression of the runs against the bundled reference (default: every scenario)")
	_ = fs.Parse(args)

	ctx, cancel := context.WithTimeout(context.Background(), *limit)
	defer cancel()
	stop := startHogs(ctx, *hogs)
	defer stop()
	fmt.Fprintf(out, "%d CPU-bound processes beside every run\n", *hogs)

	summary := regexp.MustCompile(`(?m)^firmakit: .*$`)
	passed := 0
	for i := 1; i <= *runs; i++ {
		start := time.Now()
		args := []string{"certify", "--format", "firmakit"}
		if *tags != "" {
			args = append(args, "--tags", *tags)
		}
		got, code, err := runCmd(ctx, *bin, args...)
		if err != nil {
			return err
		}
		if code == 0 {
			passed++
		}
		fmt.Fprintf(out, "bundled run %2d: exit %d in %s, %s\n", i, code, time.Since(start).Round(time.Second), summary.FindString(got))
		if code != 0 {
			for _, l := range strings.Split(got, "\n") {
				if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "INCONCLUSIVE") || strings.HasPrefix(l, "        ") {
					fmt.Fprintln(out, "   ", l)
				}
			}
		}
	}
	fmt.Fprintf(out, "bundled reference: %d of %d runs passed\n", passed, *runs)

	for _, f := range strings.Split(*faults, ",") {
		failed := 0
		for i := 1; i <= *faultRuns; i++ {
			var got string
			var code int
			err := withRig(out, *bin, func(r *rig) (err error) {
				got, code, err = certifyFault(ctx, r, f)
				return err
			})
			if err != nil {
				return err
			}
			if code == 1 {
				failed++
			}
			fmt.Fprintf(out, "fault %s run %d: exit %d, %s\n", f, i, code, summary.FindString(got))
		}
		fmt.Fprintf(out, "fault %s: %d of %d runs failed\n", f, failed, *faultRuns)
	}
	return nil
}

// certifyFault runs the demo feature against a reference serving with a
// fault, its notifications going to certify's own receiver.
func certifyFault(ctx context.Context, r *rig, fault string) (string, int, error) {
	hook, err := freeAddr()
	if err != nil {
		return "", 0, err
	}
	ref, err := r.reference("http://"+hook+"/hooks/"+demoMerchant.MerchantID, "--fault", fault)
	if err != nil {
		return "", 0, err
	}
	d := demoMerchant
	return runCmd(ctx, r.bin, "certify", "--target", ref.base, "--merchant", d.MerchantID, "--key", d.Credential.KeyID, "--secret", d.Credential.Secret,
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
