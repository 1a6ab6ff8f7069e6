// Package cliflag is how firmakit's commands read their flags: the
// command line, with positional arguments among the flags; then
// FIRMAKIT_<FLAG> from the environment; then a YAML --config file. Every
// mistake is said in one line that names the flag, the closest one when
// a name was misspelt, and never a value that may be a secret.
package cliflag

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/firmakit/firmakit"
	"go.yaml.in/yaml/v3"
)

// UsageError is a flag's value, or a combination of flags, a command
// cannot run with: the command line is to change (exit 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError of that text.
func Usagef(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// Parse parses args into fs and returns the positional arguments: flags
// may come before or after them ('firmakit demo SIGNED --target URL'),
// and "--" ends the flags. A parse error is a UsageError in one line
// (see ParseError) that points to 'firmakit help command'; flag.ErrHelp
// comes back as it is.
func Parse(fs *flag.FlagSet, command string, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &UsageError{ParseError(fs, command, err)}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// Given are the flags a command was given, whichever way, each with
// where it came from: "" for the command line, "FIRMAKIT_<NAME>", or
// "config FILE". A flag left at its default is not in it.
type Given map[string]string

// Has tells whether the flag was given.
func (g Given) Has(name string) bool { _, ok := g[name]; return ok }

// Name is the flag as an error names it: "--name", with where it came
// from when not from the command line ("--name (from FIRMAKIT_NAME)").
func (g Given) Name(name string) string {
	if src := g[name]; src != "" {
		return fmt.Sprintf("--%s (from %s)", name, src)
	}
	return "--" + name
}

type givenKey struct{}

// WithGiven is ctx holding the flags given to the running command.
func WithGiven(ctx context.Context, g Given) context.Context {
	return context.WithValue(ctx, givenKey{}, g)
}

// GivenIn is the flags given to the command running in ctx (WithGiven).
func GivenIn(ctx context.Context) Given {
	g, _ := ctx.Value(givenKey{}).(Given)
	return g
}

// Fill gives every flag of fs not set on the command line its value from
// FIRMAKIT_<NAME> (getenv), else from the YAML file configFile (a map of
// flag names to values, a list for a repeatable flag; with configFile
// "", FIRMAKIT_CONFIG names it), and returns every flag given. A key
// that is no flag of fs, or a value a flag refuses, is a UsageError.
func Fill(fs *flag.FlagSet, configFile string, getenv func(string) string) (Given, error) {
	set := map[string]bool{}
	given := Given{}
	fs.Visit(func(f *flag.Flag) { set[f.Name], given[f.Name] = true, "" })
	if configFile == "" && !set["config"] {
		configFile = getenv("FIRMAKIT_CONFIG")
	}
	fromFile := map[string]any{}
	if configFile != "" {
		data, err := os.ReadFile(configFile)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("config: %w", err)}
		}
		if err := yaml.Unmarshal(data, &fromFile); err != nil {
			return nil, Usagef("config %s: not a YAML map of flag names to values: %w", configFile, err)
		}
		var unknown []string
		for k := range fromFile {
			if fs.Lookup(k) == nil {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			hint := ""
			if near := firmakit.Closest(unknown[0], Names(fs)); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			return nil, Usagef("config %s: unknown key %q for this command%s", configFile, unknown[0], hint)
		}
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || set[f.Name] || f.Name == "config" {
			return
		}
		env := "FIRMAKIT_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(env); v != "" {
			if e := setFromEnv(fs, f.Name, v); e != nil {
				err = Usagef("%s=%s (for --%s): %s", env, ShownValue(f, v), f.Name, BadValue(f, e))
			}
			given[f.Name] = env
			return
		}
		v, ok := fromFile[f.Name]
		if !ok {
			return
		}
		given[f.Name] = "config " + configFile
		vals := []string{fmt.Sprint(v)}
		if list, ok := v.([]any); ok {
			vals = vals[:0]
			for _, x := range list {
				vals = append(vals, fmt.Sprint(x))
			}
		}
		for _, s := range vals {
			if e := fs.Set(f.Name, s); e != nil {
				err = Usagef("config %s: %s: %s: %s", configFile, f.Name, ShownValue(f, s), BadValue(f, e))
			}
		}
	})
	return given, err
}

// setFromEnv sets a flag from an environment value; a List takes a
// comma-separated list.
func setFromEnv(fs *flag.FlagSet, name, v string) error {
	if _, ok := fs.Lookup(name).Value.(*List); ok {
		for _, s := range strings.Split(v, ",") {
			if err := fs.Set(name, strings.TrimSpace(s)); err != nil {
				return err
			}
		}
		return nil
	}
	return fs.Set(name, v)
}

// List is a repeatable string flag.
type List []string

func (l *List) String() string     { return strings.Join(*l, ",") }
func (l *List) Set(v string) error { *l = append(*l, v); return nil }

// Durations is a flag of comma-separated durations; "none" or "" is an
// empty list. IsSet tells whether it was given.
type Durations struct {
	D     []time.Duration
	IsSet bool
}

func (f *Durations) String() string {
	var s []string
	for _, d := range f.D {
		s = append(s, d.String())
	}
	return strings.Join(s, ",")
}

func (f *Durations) Set(v string) error {
	f.D, f.IsSet = []time.Duration{}, true
	if strings.TrimSpace(v) == "" || v == "none" {
		return nil
	}
	for _, p := range strings.Split(v, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d < 0 {
			return fmt.Errorf("%q is not a duration such as 1s", p)
		}
		f.D = append(f.D, d)
	}
	return nil
}

// Logger adds --log-level and --log-format to fs and returns the
// constructor of the logger they ask for, writing to w with secrets
// and bending characters taken out (firmakit.SafeLogs).
func Logger(fs *flag.FlagSet, defaultLevel string, w io.Writer) func() (*slog.Logger, error) {
	level := fs.String("log-level", defaultLevel, "log level: debug, info, warn, error")
	format := fs.String("log-format", "text", "log format: text or json")
	return func() (*slog.Logger, error) {
		var lv slog.Level
		if err := lv.UnmarshalText([]byte(*level)); err != nil {
			return nil, Usagef("--log-level %q: want debug, info, warn or error", *level)
		}
		opts := &slog.HandlerOptions{Level: lv}
		switch *format {
		case "text":
			return slog.New(firmakit.SafeLogs(slog.NewTextHandler(w, opts))), nil
		case "json":
			return slog.New(firmakit.SafeLogs(slog.NewJSONHandler(w, opts))), nil
		}
		return nil, Usagef("--log-format %q: want text or json", *format)
	}
}

// AtLeast is a handler that passes on only the records of h at level or
// above.
func AtLeast(h slog.Handler, level slog.Level) slog.Handler { return minLevel{h, level} }

type minLevel struct {
	slog.Handler
	level slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(a), h.level}
}
func (h minLevel) WithGroup(n string) slog.Handler { return minLevel{h.Handler.WithGroup(n), h.level} }

// ListenFlags are the flags that name an address a command listens on.
var ListenFlags = []string{"addr", "listen"}

// ListenError turns a failure to listen into a UsageError that names the
// flag to change (one of ListenFlags): the address is in use, or is not
// one this machine can listen on. Other errors come back unchanged.
func ListenError(fs *flag.FlagSet, err error) error {
	var op *net.OpError
	if err == nil || !errors.As(err, &op) || op.Op != "listen" {
		return err
	}
	addr := ""
	if op.Addr != nil {
		addr = op.Addr.String()
	}
	var ae *net.AddrError
	if addr == "" && errors.As(err, &ae) {
		addr = ae.Addr
	}
	var names []string
	for _, n := range ListenFlags {
		if f := fs.Lookup(n); f != nil {
			names = append(names, n)
			if addr != "" && f.Value.String() == addr {
				names = []string{n}
				break
			}
		}
	}
	flagName := "--" + strings.Join(names, " or --")
	if len(names) == 0 {
		flagName = "the address"
	}
	shown := addr
	if len(names) == 1 {
		shown = fs.Lookup(names[0]).Value.String()
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return Usagef("cannot listen on %s: the address is already in use (another firmakit, or another program, listens there); stop it, or choose another address with %s",
			shown, flagName)
	}
	return Usagef("cannot listen on %q: %v; give %s an address of this machine, such as 127.0.0.1:8090", shown, op.Err, flagName)
}

// Words is a repeatable flag of comma-separated words, each kept once,
// in the order given.
type Words []string

func (f *Words) String() string { return strings.Join(*f, ",") }

func (f *Words) Set(v string) error {
	for _, w := range strings.Split(v, ",") {
		if w = strings.TrimSpace(w); w != "" && !slices.Contains(*f, w) {
			*f = append(*f, w)
		}
	}
	return nil
}
