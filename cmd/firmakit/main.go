package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/cliflag"
	"github.com/firmakit/firmakit/reports"
)

// Exit codes of firmakit, documented in the README.
const (
	ExitOK           = 0                        // success; for certify and certify-webhook, every selected scenario passed
	ExitFailed       = reports.ExitFailed       // a scenario failed, or a command failed at run time
	ExitUsage        = 2                        // usage or configuration error, or a selection of no scenario
	ExitUnreachable  = 3                        // target, receiver or webhook endpoint unreachable
	ExitIncomplete   = reports.ExitIncomplete   // certify, certify-webhook: none failed, but some selected scenarios were not run
	ExitInconclusive = reports.ExitInconclusive // certify, certify-webhook: none failed, but a timing check could not be judged
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(m.Run(ctx, os.Args[1:]))
}

// Main is the whole program, runnable in-process by tests.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Ready, when set, is called by long-running commands once they
	// listen, with the URLs they serve; tests use it to wait.
	Ready func(urls map[string]string)

	// judge, when set, rewrites the scenario results of certify and
	// certify-webhook before they are reported: tests use it to stand in
	// for a verdict of the steps that a healthy run never gives.
	judge func([]reports.ScenarioResult) []reports.ScenarioResult
	// isTerminal, when set, stands in for terminalOf: tests use it to see
	// what a terminal shows.
	isTerminal func(io.Writer) (bool, int)
}

// terminal tells whether w is a terminal, and how wide.
func (m *Main) terminal(w io.Writer) (bool, int) {
	if m.isTerminal != nil {
		return m.isTerminal(w)
	}
	return terminalOf(w)
}

// exitError carries an exit code up to Run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, a ...any) error {
	return &exitError{ExitUsage, fmt.Errorf(format, a...)}
}

type command struct {
	name    string
	summary string
	usage   string
	flags   func(fs *flag.FlagSet) func(ctx context.Context, args []string) error
}

func (m *Main) commands() []command {
	return []command{
		m.certifyCommand(),
		m.certifyWebhookCommand(),
		m.serveCommand(),
		m.receiveCommand(),
		m.upCommand(),
		m.demoCommand(),
		m.signCommand(),
		m.vectorsCommand(),
		m.keygenCommand(),
		m.templateCommand(),
		m.profileCommand(),
		m.openapiCommand(),
		m.featuresCommand(),
		m.reportCommand(),
		{name: "version", summary: "print the version (also: firmakit --version)", usage: "firmakit version",
			flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
				return func(context.Context, []string) error {
					fmt.Fprintln(m.Stdout, "firmakit", Version())
					return nil
				}
			}},
	}
}

// Version returns the build's version: the -ldflags value ('make
// build' sets it from git describe), else the module version ('go install
// …@v1.2.3', or the pseudo-version go build stamps from the checkout),
// else the VCS revision it was built from (with "-dirty" when the tree
// had changes), and "devel" only when nothing is known.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(version, bi, ok)
}

func versionOf(ldflags string, bi *debug.BuildInfo, ok bool) string {
	if ldflags != "" {
		return ldflags
	}
	if !ok || bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// Run runs the command line args and returns the exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	if m.Getenv == nil {
		m.Getenv = func(string) string { return "" }
	}
	if m.Stdin == nil {
		m.Stdin = strings.NewReader("")
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			return m.Run(ctx, []string{args[1], "-h"})
		}
		m.printHelp(m.Stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	var names []string
	for _, c := range m.commands() {
		names = append(names, c.name)
	}
	if strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(m.Stderr, "firmakit: %s: flags come after the command, as in 'firmakit certify --lang en'; 'firmakit help' lists the commands\n", args[0])
		return ExitUsage
	}
	for _, c := range m.commands() {
		if c.name != args[0] {
			continue
		}
		err := m.runCommand(ctx, c, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		var ve *verdictExit
		if errors.As(err, &ve) {
			return ve.code // the output's last lines already said why
		}
		if err != nil {
			fmt.Fprintf(m.Stderr, "firmakit %s: %v\n", c.name, err)
			var ee *exitError
			var ue *cliflag.UsageError
			switch {
			case errors.As(err, &ee):
				return ee.code
			case errors.As(err, &ue):
				return ExitUsage
			}
			return ExitFailed
		}
		return ExitOK
	}
	hint := ""
	if near := firmakit.Closest(args[0], names); near != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	fmt.Fprintf(m.Stderr, "firmakit: unknown command %q%s; 'firmakit help' lists the commands\n", args[0], hint)
	return ExitUsage
}

func (m *Main) printHelp(w io.Writer) {
	fmt.Fprintln(w, "firmakit tests a merchant API for digital contract signatures.")
	fmt.Fprintln(w, "\nUsage: firmakit <command> [flags]\n\nCommands:")
	for _, c := range m.commands() {
		fmt.Fprintf(w, "  %-15s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery flag can also be set as FIRMAKIT_<FLAG> (upper case, '-' as '_') or in a")
	fmt.Fprintln(w, "YAML --config file (flag names as keys). Flags win over the environment, which")
	fmt.Fprintln(w, "wins over the file. 'firmakit help <command>' shows a command's flags.")
}

func (m *Main) runCommand(ctx context.Context, c command, args []string) error {
	fs := flag.NewFlagSet("firmakit "+c.name, flag.ContinueOnError)
	// The flag package's own messages and usage are replaced by one line
	// (see flagError), and help asked for goes to standard output.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	configFile := fs.String("config", "", "YAML file of flag values (keys are flag names)")
	run := c.flags(fs)
	positional, err := cliflag.Parse(fs, c.name, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(m.Stdout, "Usage: %s\n\n%s.\n\nFlags:\n", c.usage, strings.ToUpper(c.summary[:1])+c.summary[1:])
		fs.SetOutput(m.Stdout)
		fs.PrintDefaults()
		return err
	}
	if err != nil {
		return err
	}
	given, err := cliflag.Fill(fs, *configFile, m.Getenv)
	if err != nil {
		return err
	}
	return cliflag.ListenError(fs, run(cliflag.WithGiven(ctx, given), positional))
}

// logFlags adds --log-level and --log-format and returns a constructor.
func (m *Main) logFlags(fs *flag.FlagSet, defaultLevel string) func() (*slog.Logger, error) {
	return cliflag.Logger(fs, defaultLevel, m.Stderr)
}
