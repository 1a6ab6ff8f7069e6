package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/firmakit/firmakit/reports"
)

func (m *Main) reportCommand() command {
	return command{name: "report", summary: "check a certificate.json: whether it was changed after certify wrote it",
		usage: "firmakit report verify certificate.json",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) != 2 || args[0] != "verify" {
					return usageError("want: firmakit report verify certificate.json")
				}
				path := args[1]
				data, err := os.ReadFile(path)
				if err != nil {
					return usageError("%v", err)
				}
				check, err := reports.VerifyCertificate(data)
				switch {
				case errors.Is(err, reports.ErrNoDigest):
					return &exitError{ExitFailed, fmt.Errorf("%s: %w, so it cannot be checked; certify writes one since this version", path, err)}
				case err != nil:
					return usageError("%s: %v", path, err)
				case check.Holds:
					fmt.Fprintf(m.Stdout, "%s holds: its sha256 %s matches its content (%s)\n", path, check.SHA256, reports.CanonicalForm)
					return nil
				case len(check.Changed) > 0:
					return &exitError{ExitFailed, fmt.Errorf("%s does not hold: changed since certify wrote it: %s (the digest recorded is %s, the content's is %s)",
						path, strings.Join(check.Changed, ", "), check.Recorded, check.SHA256)}
				}
				return &exitError{ExitFailed, fmt.Errorf("%s does not hold: the digest does not match its content (recorded %s, computed %s), and no member's own digest tells which one changed",
					path, check.Recorded, check.SHA256)}
			}
		}}
}
