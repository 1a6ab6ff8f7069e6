package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/firmakit/firmakit"
)

// The flag package's parse errors, which ParseError says again in one
// line.
var (
	unknownFlagRe  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	badValueRe     = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
	needsArgRe     = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	badFlagSyntaxR = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// ParseError says a parse error of command's command line in one line,
// with the closest flag when one was misspelt and where to find the
// flags.
func ParseError(fs *flag.FlagSet, command string, err error) error {
	help := "'firmakit help " + command + "' lists the flags"
	msg := err.Error()
	if m := unknownFlagRe.FindStringSubmatch(msg); m != nil {
		name, _, _ := strings.Cut(m[1], "=")
		if near := firmakit.Closest(name, Names(fs)); near != "" {
			return fmt.Errorf("unknown flag --%s: did you mean --%s? %s", name, near, help)
		}
		return fmt.Errorf("unknown flag --%s; %s", name, help)
	}
	if m := badValueRe.FindStringSubmatch(msg); m != nil {
		if f := fs.Lookup(m[2]); f != nil {
			return fmt.Errorf("--%s %s: %s", m[2], ShownValue(f, m[1]), BadValue(f, errors.New(m[3])))
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

// BadValue says why a value does not fit flag f: what f wants, when the
// error is the flag package's own "parse error" or a strconv error, else
// the flag's own message.
func BadValue(f *flag.Flag, err error) string {
	want := Wants(f)
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

// ShownValue quotes a value given to f for an error message: only a
// number, a boolean or a duration, never text, which may be a secret.
func ShownValue(f *flag.Flag, v string) string {
	if Wants(f) == "" {
		return "…"
	}
	return strconv.Quote(v)
}

// Wants says what kind of value a flag takes, in words; "" for text.
func Wants(f *flag.Flag) string {
	switch f.Value.(type) {
	case *Durations:
		return "durations such as 1s,2s,4s, or none"
	}
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
	}
	return ""
}

// Names lists a flag set's flag names.
func Names(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
