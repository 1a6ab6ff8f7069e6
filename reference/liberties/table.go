package liberties

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes every liberty as a table, one a line: its name,
// class, why the documents allow it and what it does ('firmakit serve
// --liberty list').
func WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCLASS\tWHY IT IS ALLOWED\tDESCRIPTION")
	for _, l := range List() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Name, l.Class, l.Why, l.Description)
	}
	return tw.Flush()
}
