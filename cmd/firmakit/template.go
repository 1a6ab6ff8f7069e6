package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"go.yaml.in/yaml/v3"
)

func (m *Main) templateCommand() command {
	return command{name: "template", summary: "inspect a Word template as the service would assign it",
		usage: "firmakit template inspect [--json] FILE.docx",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			asJSON := fs.Bool("json", false, "print JSON")
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 || args[0] != "inspect" {
					return usageError("want 'firmakit template inspect FILE.docx'")
				}
				if len(args) != 2 {
					return usageError("want exactly one .docx file")
				}
				t, err := reference.InspectDocxFile(args[1])
				if err != nil {
					return err
				}
				if *asJSON {
					enc := json.NewEncoder(m.Stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(t)
				}
				printTemplate(m, t)
				return nil
			}
		}}
}

func printTemplate(m *Main, t firmakit.Template) {
	fmt.Fprintf(m.Stdout, "name:    %s\n", t.Name)
	fmt.Fprintf(m.Stdout, "title:   %s\n", t.Title)
	fmt.Fprintf(m.Stdout, "signers: %s\n", strings.Join(t.Signers, ", "))
	data := strings.Join(t.Data, ", ")
	if data == "" {
		data = "(none)"
	}
	fmt.Fprintf(m.Stdout, "data:    %s\n", data)
}

func (m *Main) profileCommand() command {
	return command{name: "profile", summary: "list the presets, print one as a file to copy, or check a profile file",
		usage: "firmakit profile [list | show NAME | --check FILE]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			check := fs.String("check", "", "validate this profile file (or preset) and print it resolved")
			return func(ctx context.Context, args []string) error {
				if *check != "" {
					p, err := firmakit.ResolveProfile(*check)
					if err != nil {
						return usageError("%v", err)
					}
					out, err := yaml.Marshal(p)
					if err != nil {
						return err
					}
					_, err = m.Stdout.Write(out)
					return err
				}
				switch {
				case len(args) == 0:
					_, err := m.Stdout.Write(firmakit.BundledProfileYAML())
					return err
				case args[0] == "list" && len(args) == 1:
					width := 0
					for _, name := range firmakit.Presets() {
						width = max(width, len(name))
					}
					for _, name := range firmakit.Presets() {
						p, _ := firmakit.Preset(name)
						fmt.Fprintf(m.Stdout, "%-*s %s\n", width, name, schemeSummary(p))
					}
					return nil
				case args[0] == "show" && len(args) == 2:
					b, ok := firmakit.PresetYAML(args[1])
					if !ok {
						return usageError("unknown preset %q; 'firmakit profile list' names them", args[1])
					}
					_, err := m.Stdout.Write(b)
					return err
				}
				return usageError("usage: firmakit profile [list | show NAME | --check FILE]")
			}
		}}
}

// schemeSummary says in one line how a profile signs notifications.
func schemeSummary(p *firmakit.Profile) string {
	w := p.Webhook
	if w.IsRFC9421() {
		alg := "hmac-sha256"
		if w.Asymmetric() {
			alg = "ed25519 (signed with whsk_, verified with whpk_)"
		}
		return fmt.Sprintf("RFC 9421 %s/%s: %s=(%s);created;keyid, %s; tolerance %s",
			w.SignatureInputHeader, w.SignatureHeader, w.SignatureKey, strings.Join(w.Components, " "), alg, w.Tolerance)
	}
	s := w.SignatureHeader + ": "
	if w.SignatureFormat == "fields" {
		s += w.TimestampKey + "=<t>," + w.SignatureKey + "=<" + w.Encoding + ">"
	} else {
		s += w.SignaturePrefix + "<" + w.Encoding + ">"
	}
	s += " over " + strings.Join(w.SignedContent, w.PayloadSeparator)
	if w.Asymmetric() {
		s += ", Ed25519 (signed with whsk_, verified with whpk_)"
	}
	if !w.HasTimestamp() {
		s += "; no timestamp, replay cannot be judged"
	} else {
		s += fmt.Sprintf("; tolerance %s", w.Tolerance)
	}
	return s
}
