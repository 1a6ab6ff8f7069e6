package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/steps"
)

// runSuite measures certify against the bundled reference, both
// languages: each run's wall time beside the run's floor (steps.Floor,
// its longest inherent wait: the late-answer delivery scenario's), then
// one run of one scenario at a time.
func runSuite(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("suite", flag.ExitOnError)
	bin := fs.String("bin", "bin/firmakit", "firmakit binary (make build)")
	runs := fs.Int("runs", 3, "runs at the default concurrency")
	serial := fs.Bool("serial", true, "then one run of one scenario at a time (--concurrency 1 --seed 0)")
	lang := fs.String("lang", "all", "the languages certify runs")
	tags := fs.String("tags", "", "the tag expression certify runs (default: every scenario)")
	_ = fs.Parse(args)

	floor, err := steps.Floor(firmakit.BundledProfile(), *lang, *tags, reference.DefaultDemoDelay)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "floor %.1f s: the longest wait of a scenario on the delivery schedule, after the %s demo delay, and the quiet window after it\n",
		floor.Seconds(), reference.DefaultDemoDelay)
	ctx := context.Background()
	certify := []string{"certify", "--format", "firmakit", "--lang", *lang}
	if *tags != "" {
		certify = append(certify, "--tags", *tags)
	}
	for i := 1; i <= *runs; i++ {
		wall, line, err := certifyRun(ctx, *bin, certify...)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "run %d: wall time %.1f s, %.2fx the floor; %s\n", i, wall.Seconds(), wall.Seconds()/floor.Seconds(), line)
	}
	if *serial {
		wall, line, err := certifyRun(ctx, *bin, append(certify, "--concurrency", "1", "--seed", "0")...)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "one scenario at a time: wall time %.1f s; %s\n", wall.Seconds(), line)
	}
	return nil
}

var (
	wallTimeLine = regexp.MustCompile(`(?m)^wall time (\S+)$`)
	summaryLine  = regexp.MustCompile(`(?m)^firmakit: .*$`)
	rerunLine    = regexp.MustCompile(`(?m)^running (\d+) inconclusive scenario`)
)

// certifyRun runs firmakit with args and returns the wall time certify
// printed and its summary line, with the scenarios it ran again.
func certifyRun(ctx context.Context, bin string, args ...string) (time.Duration, string, error) {
	out, code, err := runCmd(ctx, bin, args...)
	if err != nil {
		return 0, "", err
	}
	m := wallTimeLine.FindStringSubmatch(out)
	if m == nil {
		return 0, "", fmt.Errorf("%s %v (exit %d) printed no wall time:\n%s", bin, args, code, out)
	}
	wall, err := time.ParseDuration(m[1])
	if err != nil {
		return 0, "", err
	}
	line := fmt.Sprintf("exit %d, %s", code, summaryLine.FindString(out))
	for _, r := range rerunLine.FindAllStringSubmatch(out, -1) {
		line += fmt.Sprintf("; %s ran again alone", r[1])
	}
	return wall, line, nil
}
