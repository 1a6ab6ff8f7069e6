package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"path"

	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/webhook"
)

func (m *Main) featuresCommand() command {
	return command{name: "features", summary: "print the feature files, the traceability table, or check them",
		usage: "firmakit features trace | rules | check | list [--lang es|en] [--set service|webhook] | sentences [--set service|webhook|all] [--json]",
		flags: func(fs_ *flag.FlagSet) func(context.Context, []string) error {
			lang := fs_.String("lang", "en", "language of 'list': es or en")
			setName := fs_.String("set", "", "feature set of 'list' (default service) and 'sentences' (default all): service (firmakit certify) or webhook (firmakit certify-webhook)")
			asJSON := fs_.Bool("json", false, "'sentences' as JSON")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usageError("want one of trace, rules, check, list, sentences")
				}
				switch args[0] {
				case "trace":
					s, err := features.Trace(features.FS)
					if err != nil {
						return err
					}
					fmt.Fprint(m.Stdout, s)
				case "rules":
					rules, err := features.Rules(features.FS)
					if err != nil {
						return err
					}
					fmt.Fprint(m.Stdout, features.RulesMarkdown(rules))
					fmt.Fprintf(m.Stderr, "firmakit features rules: %s\n", features.CountRules(rules))
				case "check":
					errs := features.Check(features.FS)
					if rules, err := features.Rules(features.FS); err != nil {
						errs = append(errs, err)
					} else {
						errs = append(errs, features.CheckRules(features.FS, rules)...)
					}
					for _, e := range errs {
						fmt.Fprintln(m.Stdout, "-", e)
					}
					if len(errs) > 0 {
						return fmt.Errorf("%d traceability or parity problem(s)", len(errs))
					}
					fmt.Fprintln(m.Stdout, "every item of the interface and of the bundled profile is traced, and es and en match, in the service and the webhook feature sets; every rule is exercised on every target it applies to, an input rule on both sides")
				case "sentences":
					return m.printSentences(*setName, *asJSON)
				case "list":
					if *setName == "" {
						*setName = "service"
					}
					if *lang != "es" && *lang != "en" {
						return usageError("--lang %q: want es or en", *lang)
					}
					var set *features.Set
					for _, s := range features.Sets() {
						if s.Name == *setName {
							set = s
						}
					}
					if set == nil {
						return usageError("--set %q: want service or webhook", *setName)
					}
					dir := path.Join(set.Dir, *lang)
					files, _ := fs.Glob(features.FS, dir+"/*.feature")
					for _, f := range files {
						b, err := fs.ReadFile(features.FS, f)
						if err != nil {
							return err
						}
						fmt.Fprintf(m.Stdout, "# %s\n%s\n", f, b)
					}
				default:
					return usageError("unknown features command %q: want trace, rules, check, list or sentences", args[0])
				}
				return nil
			}
		}}
}

// printSentences prints every step sentence of a set, English and
// Spanish, with what each parameter takes: what a team writing its own
// scenarios with firmakit's steps needs.
func (m *Main) printSentences(set string, asJSON bool) error {
	if set == "" {
		set = "all"
	}
	if set != "all" && set != "service" && set != "webhook" {
		return usageError("--set %q: want service, webhook or all", set)
	}
	all, err := steps.Sentences()
	if err != nil {
		return err
	}
	hook, err := webhook.Sentences()
	if err != nil {
		return err
	}
	all = append(all, hook...)
	list := all[:0]
	for _, s := range all {
		if set == "all" || s.Set == set {
			list = append(list, s)
		}
	}
	if asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	for i, s := range list {
		if i == 0 || list[i-1].Set != s.Set {
			fmt.Fprintf(m.Stdout, "# %s set\n\n", s.Set)
		}
		fmt.Fprintf(m.Stdout, "en: %s\nes: %s\n", s.English, s.Spanish)
		for n, p := range s.Params {
			fmt.Fprintf(m.Stdout, "    parameter %d: %s\n", n+1, p)
		}
		fmt.Fprintf(m.Stdout, "    (%s, %s)\n\n", s.Method, s.Location)
	}
	return nil
}
