package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit"
)

// A Format is a report firmakit writes of a run: a row of Formats. A new
// format is a file of this package with its writer, and a row there.
type Format struct {
	// Name is the format's name in --format ("junit"), for a format
	// --format may ask for; "" for one written only in --report's folder.
	Name string
	// File is its file in --report's folder.
	File string
	// Write writes the report of a run's results; c is the run's
	// certificate (Build), built once for every format. Nil for a format
	// godog writes while the suite runs (Annotate).
	Write func(w io.Writer, run Run, c *Certificate, results []ScenarioResult) error
	// Annotate completes what godog wrote of this format with what godog
	// does not know (the verdicts it cannot tell apart, the warnings, the
	// breaches).
	Annotate func(data []byte, results []ScenarioResult) ([]byte, error)
}

// Formats are the reports of a run, in the order the output names them.
var Formats = []Format{
	{File: "report.html", Write: WriteHTML},
	{File: "certificate.json", Write: writeCertificate},
	{Name: "junit", File: "junit.xml", Write: func(w io.Writer, run Run, _ *Certificate, results []ScenarioResult) error {
		return WriteJUnit(w, run, results)
	}},
	{Name: "cucumber", File: "cucumber.json", Annotate: AnnotateCucumber},
}

// formatNamed is the row of Formats --format calls name, nil for none.
func formatNamed(name string) *Format {
	for i := range Formats {
		if Formats[i].Name != "" && Formats[i].Name == name {
			return &Formats[i]
		}
	}
	return nil
}

// writeCertificate writes the certificate as indented JSON, a tag
// expression's "&&" kept as is rather than escaped for HTML.
func writeCertificate(w io.Writer, _ Run, c *Certificate, _ []ScenarioResult) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// An output is where a format of Formats goes: "-" standard output, else
// a file.
type output struct {
	format *Format
	to     string
}

// Outputs is where a run's reports go, from --format and --report
// (PlanOutputs).
type Outputs struct {
	// Godog is what --format leaves for godog to write while the suite
	// runs: its own formats (ForGodog adds the report folder's).
	Godog string
	// own are the formats firmakit writes after the run (JUnit: firmakit
	// tells not run and inconclusive from passed, godog's formatter does
	// not); annotated, the files of godog's it completes.
	own, annotated []output
	// dir is --report's folder, "" for none.
	dir string
}

// PlanOutputs checks a --format list (each entry a name, or name:file)
// against the formats firmakit and godog have, and --report-lang (lang)
// against the report's languages, makes --report's folder (dir, "" for
// none), and says where each report goes: godog's formats to godog,
// firmakit's own written by Finish, and, with a folder, every row of
// Formats in it.
func PlanOutputs(list, dir, lang string) (Outputs, error) {
	switch {
	case lang != "" && !slices.Contains(ReportLangs, lang):
		return Outputs{}, &UsageError{msg: fmt.Sprintf("--report-lang %q: want es or en", lang)}
	case lang != "" && dir == "":
		return Outputs{}, &UsageError{msg: "--report-lang is the language of report.html: give --report DIR too, or drop it"}
	}
	if err := checkFormats(list); err != nil {
		return Outputs{}, err
	}
	var o Outputs
	var godogs []string
	for _, f := range strings.Split(list, ",") {
		name, file, hasFile := strings.Cut(f, ":")
		format := formatNamed(strings.TrimSpace(name))
		switch {
		case format == nil || format.Write == nil:
			godogs = append(godogs, f)
			if format != nil && hasFile && file != "" {
				o.annotated = append(o.annotated, output{format, file})
			}
		case hasFile:
			o.own = append(o.own, output{format, file})
		default:
			o.own = append(o.own, output{format, "-"})
		}
	}
	o.Godog = strings.Join(godogs, ",")
	if dir == "" {
		return o, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Outputs{}, usage("--report", err)
	}
	o.dir = dir
	for i := range Formats {
		if Formats[i].Write == nil {
			o.annotated = append(o.annotated, output{&Formats[i], filepath.Join(dir, Formats[i].File)})
		}
	}
	return o, nil
}

// ForGodog is a format list for godog with what godog writes into the
// report folder added: list is Godog, or what the run's display made of
// it.
func (o Outputs) ForGodog(list string) string {
	if o.dir == "" {
		return list
	}
	entries := []string{list}
	for _, f := range Formats {
		if f.Write == nil {
			entries = append(entries, f.Name+":"+filepath.Join(o.dir, f.File))
		}
	}
	return strings.Join(slices.DeleteFunc(entries, func(e string) bool { return e == "" }), ",")
}

// checkFormats refuses a --format list naming a format neither firmakit
// nor godog has.
func checkFormats(list string) error {
	known := []string{"firmakit"}
	for _, f := range Formats {
		if f.Name != "" {
			known = append(known, f.Name)
		}
	}
	own := len(known)
	for name := range godog.AvailableFormatters() {
		if !slices.Contains(known, name) {
			known = append(known, name)
		}
	}
	sort.Strings(known[own:])
	for _, f := range strings.Split(list, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(f), ":")
		if !slices.Contains(known, name) {
			hint := ""
			if near := firmakit.Closest(name, known); near != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", near)
			}
			return &UsageError{msg: fmt.Sprintf("--format %q: no format %q%s; want one of %s, optionally as name:file", list, name, hint, strings.Join(known, ", "))}
		}
	}
	return nil
}

// writeOwn writes the formats --format gave firmakit, each to standard
// output (w) or its file.
func (o Outputs) writeOwn(w io.Writer, run Run, c *Certificate, results []ScenarioResult) error {
	for _, out := range o.own {
		var err error
		if out.to == "-" {
			err = out.format.Write(w, run, c, results)
		} else {
			err = writeFile(out.to, func(w io.Writer) error { return out.format.Write(w, run, c, results) })
		}
		if err != nil {
			return fmt.Errorf("%s: %w", out.format.Name, err)
		}
	}
	return nil
}

// annotate completes the files godog wrote.
func (o Outputs) annotate(results []ScenarioResult) error {
	for _, out := range o.annotated {
		data, err := os.ReadFile(out.to)
		if err == nil {
			if data, err = out.format.Annotate(data, results); err != nil {
				err = fmt.Errorf("%s: %w", out.to, err)
			}
		}
		if err == nil {
			err = os.WriteFile(out.to, data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", out.format.Name, err)
		}
	}
	return nil
}

// writeDir writes every format firmakit writes into the report folder.
func (o Outputs) writeDir(run Run, c *Certificate, results []ScenarioResult) error {
	for _, f := range Formats {
		if f.Write == nil {
			continue
		}
		if err := writeFile(filepath.Join(o.dir, f.File), func(w io.Writer) error { return f.Write(w, run, c, results) }); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}

// reportLine names the report folder's files, the readable report first.
func (o Outputs) reportLine() string {
	var files []string
	for _, f := range Formats {
		files = append(files, filepath.Join(o.dir, f.File))
	}
	return fmt.Sprintf("report: %s (also %s)", files[0], strings.Join(files[1:], ", "))
}

// writeFile writes a file whole, from what write writes, or not at all
// when write fails.
func writeFile(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// WriteAll writes every report firmakit writes itself (Formats: the
// HTML report, the certificate, the JUnit XML) into dir for a run; it
// returns the first error of building or writing them.
func WriteAll(dir string, run Run, scenarios []ScenarioResult) error {
	c, err := Build(run, scenarios)
	if err != nil {
		return err
	}
	return Outputs{dir: dir}.writeDir(run, c, scenarios)
}
