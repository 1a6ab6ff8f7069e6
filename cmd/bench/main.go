package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/firmakit/firmakit"
)

// demoMerchant is the bundled demo merchant every round talks as.
var demoMerchant = firmakit.Demo()

// benchmarks are the measurements bench makes, each a command with its
// flags and rounds, printing its figures to out.
var benchmarks = []struct {
	name string
	run  func(out io.Writer, args []string) error
}{
	{"load", runLoad},
	{"demo", runDemo},
	{"receiver", runReceiver},
	{"verdict", runVerdict},
	{"reference", runReference},
	{"dashboard", runDashboard},
	{"sandbox", runSandbox},
	{"abuse", runAbuse},
	{"tests", runTests},
	{"suite", runSuite},
	{"webhook", runWebhook},
}

// run runs the benchmark name with its flags, args.
func run(out io.Writer, name string, args []string) error {
	for _, b := range benchmarks {
		if b.name == name {
			return b.run(out, args)
		}
	}
	return fmt.Errorf("unknown benchmark %q", name)
}

// round is one measurement of a benchmark, run in a rig of its own.
type round struct {
	name string
	run  func(r *rig) error
}

// runRounds runs the rounds of a benchmark, or only the one named only,
// each headed by its name.
func runRounds(out io.Writer, bin, only string, rounds []round) error {
	for _, rd := range rounds {
		if only != "" && only != rd.name {
			continue
		}
		fmt.Fprintf(out, "== %s\n", rd.name)
		if err := withRig(out, bin, rd.run); err != nil {
			return fmt.Errorf("%s: %w", rd.name, err)
		}
	}
	return nil
}

func main() {
	if len(os.Args) < 2 {
		var names []string
		for _, b := range benchmarks {
			names = append(names, b.name)
		}
		fmt.Fprintf(os.Stderr, "usage: bench %s [flags]\n", strings.Join(names, "|"))
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
