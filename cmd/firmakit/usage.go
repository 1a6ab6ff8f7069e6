package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/firmakit/firmakit"
	"net"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// The flag package's parse errors, which flagError says again in one line.
var (
	unknownFlagRe  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	badValueRe     = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
	needsArgRe     = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	badFlagSyntaxR = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError says a command line parse error of command in one line, with
// the closest flag when one was misspelt and where to find the flags.
func flagError(fs *flag.FlagSet, command string, err error) error {
	help := "'firmakit help " + command + "' lists the flags"
	msg := err.Error()
	if m := unknownFlagRe.FindStringSubmatch(msg); m != nil {
		name, _, _ := strings.Cut(m[1], "=")
		if near := firmakit.Closest(name, flagNames(fs)); near != "" {
			return fmt.Errorf("unknown flag --%s: did you mean --%s? %s", name, near, help)
		}
		return fmt.Errorf("unknown flag --%s; %s", name, help)
	}
	if m := badValueRe.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[2]); f != nil {
			return fmt.Errorf("--%s %s: %s", m[2], shownValue(f, m[1]), badValue(f, errors.New(m[3])))
		}
	}
	if m := needsArgRe.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("--%s needs a value, as in --%s=VALUE; %s", m[1], m[1], help)
	}
	if m := badFlagSyntaxR.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("bad flag syntax %q: write flags as --name value or --name=value; %s", m[1], help)
	}
	return fmt.Errorf("%v; %s", err, help)
}

// badValue says why a value does not fit flag f: what f wants, when the
// error is the flag package's own "parse error" or a strconv error, else
// the flag's own message.
func badValue(f *flag.Flag, err error) string {
	want := flagWants(f)
	var num *strconv.NumError
	plain := errors.As(err, &num) || err.Error() == "parse error" || err.Error() == "value out of range" ||
		strings.HasPrefix(err.Error(), "time: invalid duration")
	switch {
	case plain && want != "":
		return "want " + want
	case want != "":
		return err.Error() + " (want " + want + ")"
	}
	return err.Error()
}

// shownValue quotes a value given to f for an error message: only a
// number, a boolean or a duration, never text, which may be a secret.
func shownValue(f *flag.Flag, v string) string {
	if flagWants(f) == "" {
		return "…"
	}
	return strconv.Quote(v)
}

// flagWants says what kind of value a flag takes, in words; "" for text.
func flagWants(f *flag.Flag) string {
	switch fmt.Sprintf("%T", f.Value) {
	case "*flag.intValue", "*flag.int64Value":
		return "a whole number"
	case "*flag.uintValue", "*flag.uint64Value":
		return "a whole number, 0 or more"
	case "*flag.float64Value":
		return "a number"
	case "*flag.boolValue":
		return "true or false"
	case "*flag.durationValue":
		return "a duration such as 500ms, 2s or 1m"
	case "*main.durationsFlag":
		return "durations such as 1s,2s,4s, or none"
	}
	return ""
}

// flagNames lists a flag set's flag names.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// listenFlags are the flags that name an address a command listens on.
var listenFlags = []string{"addr", "listen"}

// listenError turns a failure to listen into a configuration error (exit
// 2) that names the flag to change: the address is in use, or is not one
// this machine can listen on. Other errors pass unchanged.
func listenError(fs *flag.FlagSet, err error) error {
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
	for _, n := range listenFlags {
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
		return &exitError{ExitUsage, fmt.Errorf("cannot listen on %s: the address is already in use (another firmakit, or another program, listens there); stop it, or choose another address with %s",
			shown, flagName)}
	}
	return &exitError{ExitUsage, fmt.Errorf("cannot listen on %q: %v; give %s an address of this machine, such as 127.0.0.1:8090", shown, op.Err, flagName)}
}
