package faults

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes every fault as a table, one a line: its name, area,
// the rule it breaks and what it does ('firmakit serve --fault list').
func WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAREA\tRULE\tDESCRIPTION")
	for _, f := range List() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, f.Area, f.Rule, f.Description)
	}
	return tw.Flush()
}

// WriteWarning says loudly that a server with the faults names (each a
// Fault's name) switched on breaks rules on purpose, and which.
func WriteWarning(w io.Writer, names []string) {
	byName := map[string]Fault{}
	for _, f := range List() {
		byName[f.Name] = f
	}
	fmt.Fprintf(w, "WARNING: this reference server is DELIBERATELY FAULTY. On purpose, it breaks:\n")
	for _, n := range names {
		f := byName[n]
		fmt.Fprintf(w, "  %s (%s): %s\n", f.Name, f.Rule, f.Description)
	}
	fmt.Fprintln(w, "Use it only to check that a conformance suite catches these faults; it is not a reference.")
}
