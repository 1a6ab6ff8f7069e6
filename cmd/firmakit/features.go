package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"path"

	"github.com/firmakit/firmakit/features"
)

func (m *Main) featuresCommand() command {
	return command{name: "features", summary: "print the feature files, the traceability table, or check them",
		usage: "firmakit features trace | check | list [--lang es|en] [--set service|webhook]",
		flags: func(fs_ *flag.FlagSet) func(context.Context, []string) error {
			lang := fs_.String("lang", "en", "language of 'list': es or en")
			setName := fs_.String("set", "service", "feature set of 'list': service (firmakit certify) or webhook (firmakit certify-webhook)")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usageError("want one of trace, check, list")
				}
				switch args[0] {
				case "trace":
					s, err := features.Trace(features.FS)
					if err != nil {
						return err
					}
					fmt.Fprint(m.Stdout, s)
				case "check":
					errs := features.Check(features.FS)
					for _, e := range errs {
						fmt.Fprintln(m.Stdout, "-", e)
					}
					if len(errs) > 0 {
						return fmt.Errorf("%d traceability or parity problem(s)", len(errs))
					}
					fmt.Fprintln(m.Stdout, "every item of the interface and of the bundled profile is traced, and es and en match, in the service and the webhook feature sets")
				case "list":
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
					return usageError("unknown features command %q: want trace, check or list", args[0])
				}
				return nil
			}
		}}
}
