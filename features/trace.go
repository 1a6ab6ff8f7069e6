package features

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
	"go.yaml.in/yaml/v3"
)

// Item is one rule, bullet or table row of the interface document.
type Item struct {
	Ref     string // e.g. "§4.1 rule 1", "§2.2 signature_id", "§7 401 Invalid credentials"
	Section string
	Text    string
}

// Requirement maps an interface item to the requirement tags checking it.
type Requirement struct {
	Ref         string   `yaml:"ref"`
	Scenarios   []string `yaml:"scenarios"`
	Note        string   `yaml:"note"`
	Description bool     `yaml:"description"`
}

// Scenario is one scenario (or outline) of a feature file.
type Scenario struct {
	File        string
	Line        int64
	Name        string
	Requirement string   // the requirement tag, without @
	Kind        []string // spec, profile or reference; one per Examples block when set there
	Needs       []string // need tags (needs-…), without @
	Tags        []string // every tag, sorted
	Steps       int
	Examples    []string // each Examples block: its tags, header and rows
}

var (
	kinds      = map[string]bool{"spec": true, "profile": true, "reference": true}
	sectionRe  = regexp.MustCompile(`^#{2,3} (\d+(?:\.\d+)?)\.? `)
	numberedRe = regexp.MustCompile(`^(\d+)\. (.*)`)
)

// InterfaceItems reads every numbered rule, bullet and table row of the
// interface document in fsys.
func InterfaceItems(fsys fs.FS) ([]Item, error) {
	data, err := fs.ReadFile(fsys, "service-interface.md")
	if err != nil {
		return nil, err
	}
	var items []Item
	sec := ""
	var header []string
	var table [][]string
	bullets := 0
	flush := func() {
		// A table whose first column repeats names every row by its
		// first two cells, so that refs stay unique and alike.
		firsts := map[string]bool{}
		twoCells := false
		for _, row := range table {
			twoCells = twoCells || firsts[row[0]]
			firsts[row[0]] = true
		}
		for _, row := range table {
			ref := "§" + sec + " " + row[0]
			if twoCells && len(row) > 1 {
				ref += " " + row[1]
			}
			items = append(items, Item{Ref: ref, Section: sec, Text: strings.Join(row, " | ")})
		}
		table, header = nil, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "|") {
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			switch {
			case header == nil:
				header = cells
			case strings.Trim(strings.ReplaceAll(line, "|", ""), "-: ") == "":
			default:
				table = append(table, cells)
			}
			continue
		}
		if header != nil {
			flush()
		}
		if m := sectionRe.FindStringSubmatch(line); m != nil {
			sec, bullets = m[1], 0
			continue
		}
		if m := numberedRe.FindStringSubmatch(line); m != nil {
			items = append(items, Item{Ref: "§" + sec + " rule " + m[1], Section: sec, Text: m[2]})
			continue
		}
		if t, ok := strings.CutPrefix(line, "- "); ok {
			bullets++
			items = append(items, Item{Ref: "§" + sec + " bullet " + strconv.Itoa(bullets), Section: sec, Text: t})
		}
	}
	if header != nil {
		flush()
	}
	return items, sc.Err()
}

// Requirements reads requirements.yaml.
func Requirements(fsys fs.FS) ([]Requirement, error) {
	data, err := fs.ReadFile(fsys, "requirements.yaml")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Requirements []Requirement `yaml:"requirements"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("requirements.yaml: %w", err)
	}
	return doc.Requirements, nil
}

// Scenarios parses the feature files of one language folder.
func Scenarios(fsys fs.FS, lang string) ([]Scenario, error) {
	files, err := fs.Glob(fsys, lang+"/*.feature")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Scenario
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		n := 0
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), func() string { n++; return strconv.Itoa(n) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if doc.Feature == nil {
			return nil, fmt.Errorf("%s: no feature", f)
		}
		if want := map[string]string{"es": "es", "en": "en"}[lang]; doc.Feature.Language != want {
			return nil, fmt.Errorf("%s: written in %q, the folder wants %q (add '# language: %s')", f, doc.Feature.Language, want, want)
		}
		for _, child := range doc.Feature.Children {
			if child.Scenario != nil {
				out = append(out, scenarioOf(path.Base(f), child.Scenario))
			}
		}
	}
	return out, nil
}

func tagNames(tags []*messages.Tag) []string {
	var out []string
	for _, t := range tags {
		out = append(out, strings.TrimPrefix(t.Name, "@"))
	}
	return out
}

func scenarioOf(file string, s *messages.Scenario) Scenario {
	sc := Scenario{File: file, Line: s.Location.Line, Name: s.Name, Steps: len(s.Steps)}
	all := map[string]bool{}
	for _, t := range tagNames(s.Tags) {
		all[t] = true
		switch {
		case ClassifyTag(t) == KindTag:
			sc.Kind = append(sc.Kind, t)
		case ClassifyTag(t) == NeedTag:
			sc.Needs = append(sc.Needs, t)
		case sc.Requirement == "":
			sc.Requirement = t
		default:
			sc.Requirement += "+" + t // more than one: reported by Check
		}
	}
	for _, ex := range s.Examples {
		var b strings.Builder
		for _, t := range tagNames(ex.Tags) {
			all[t] = true
			switch ClassifyTag(t) {
			case KindTag:
				sc.Kind = append(sc.Kind, t)
			case NeedTag:
				sc.Needs = append(sc.Needs, t)
			}
			b.WriteString("@" + t + " ")
		}
		rows := append([]*messages.TableRow{ex.TableHeader}, ex.TableBody...)
		for _, r := range rows {
			if r == nil {
				continue
			}
			var cells []string
			for _, c := range r.Cells {
				cells = append(cells, c.Value)
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		sc.Examples = append(sc.Examples, b.String())
	}
	for t := range all {
		sc.Tags = append(sc.Tags, t)
	}
	sort.Strings(sc.Tags)
	return sc
}

// Check returns every traceability and parity problem: an interface item
// without a requirement, a requirement without a scenario or a note, a
// note where the interface does show the behaviour, a tag no scenario
// carries, a scenario whose requirement is not traced, a need tag that is
// not in Needs, and any difference between the Spanish and English
// scenarios' tags (need tags included), steps or examples.
func Check(fsys fs.FS) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	items, err := InterfaceItems(fsys)
	if err != nil {
		return []error{err}
	}
	reqs, err := Requirements(fsys)
	if err != nil {
		return []error{err}
	}
	byLang := map[string]map[string]Scenario{}
	for _, lang := range []string{"es", "en"} {
		scs, err := Scenarios(fsys, lang)
		if err != nil {
			return []error{err}
		}
		byLang[lang] = map[string]Scenario{}
		for _, s := range scs {
			switch {
			case s.Requirement == "":
				bad("%s/%s:%d %q has no requirement tag", lang, s.File, s.Line, s.Name)
			case strings.Contains(s.Requirement, "+"):
				bad("%s/%s:%d %q has several requirement tags: %s", lang, s.File, s.Line, s.Name, s.Requirement)
			}
			for _, n := range s.Needs {
				if _, ok := NeedOf(n); !ok {
					bad("%s/%s:%d %q carries @%s, which is not a known need tag (%s)", lang, s.File, s.Line, s.Name, n, knownNeeds())
				}
			}
			if !(len(s.Kind) == 1 || (len(s.Kind) == len(s.Examples) && len(s.Kind) > 0)) {
				bad("%s/%s:%d %q needs one of @spec, @profile, @reference (on the scenario, or on each Examples block)", lang, s.File, s.Line, s.Name)
			}
			if _, dup := byLang[lang][s.Requirement]; dup {
				bad("%s: requirement tag @%s is on two scenarios", lang, s.Requirement)
			}
			byLang[lang][s.Requirement] = s
		}
	}
	for tag, es := range byLang["es"] {
		en, ok := byLang["en"][tag]
		if !ok {
			bad("@%s is in es/%s but not in en", tag, es.File)
			continue
		}
		if strings.Join(es.Tags, " ") != strings.Join(en.Tags, " ") {
			bad("@%s: tags differ: es %v, en %v", tag, es.Tags, en.Tags)
		}
		if es.Steps != en.Steps {
			bad("@%s: es has %d steps, en %d", tag, es.Steps, en.Steps)
		}
		if strings.Join(es.Examples, "\n") != strings.Join(en.Examples, "\n") {
			bad("@%s: examples differ:\nes:\n%s\nen:\n%s", tag, strings.Join(es.Examples, "\n"), strings.Join(en.Examples, "\n"))
		}
	}
	for tag, en := range byLang["en"] {
		if _, ok := byLang["es"][tag]; !ok {
			bad("@%s is in en/%s but not in es", tag, en.File)
		}
	}
	known := map[string]Item{}
	for _, it := range items {
		known[it.Ref] = it
	}
	traced := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range reqs {
		it, ok := known[r.Ref]
		if !ok {
			bad("requirements.yaml: %q is not an item of the interface document", r.Ref)
			continue
		}
		if seen[r.Ref] {
			bad("requirements.yaml: %q is listed twice", r.Ref)
		}
		seen[r.Ref] = true
		if len(r.Scenarios) == 0 {
			switch {
			case r.Note == "":
				bad("%s has no scenario and no note saying why: %q", r.Ref, it.Text)
			case !strings.Contains(it.Text, "not shown") && !r.Description:
				bad("%s has no scenario, but the interface shows it: %q", r.Ref, it.Text)
			}
		}
		for _, tag := range r.Scenarios {
			traced[tag] = true
			if _, ok := byLang["en"][tag]; !ok {
				bad("%s names @%s, which no scenario carries", r.Ref, tag)
			}
		}
	}
	for _, it := range items {
		if !seen[it.Ref] {
			bad("the interface's %s has no entry in requirements.yaml: %q", it.Ref, it.Text)
		}
	}
	for tag := range byLang["en"] {
		if !traced[tag] {
			bad("@%s is not traced to any item of the interface", tag)
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

func knownNeeds() string {
	var tags []string
	for _, n := range Needs {
		tags = append(tags, "@"+n.Tag)
	}
	return strings.Join(tags, ", ")
}

// Trace renders the traceability table as Markdown.
func Trace(fsys fs.FS) (string, error) {
	items, err := InterfaceItems(fsys)
	if err != nil {
		return "", err
	}
	reqs, err := Requirements(fsys)
	if err != nil {
		return "", err
	}
	byRef := map[string]Requirement{}
	for _, r := range reqs {
		byRef[r.Ref] = r
	}
	scen := map[string]map[string]Scenario{}
	for _, lang := range []string{"en", "es"} {
		scs, err := Scenarios(fsys, lang)
		if err != nil {
			return "", err
		}
		scen[lang] = map[string]Scenario{}
		for _, s := range scs {
			scen[lang][s.Requirement] = s
		}
	}
	var b strings.Builder
	b.WriteString("# Traceability of the interface to the conformance suite\n\n")
	b.WriteString("Generated by `firmakit features trace > features/README.md`; a test fails when it is stale,\n")
	b.WriteString("when an item of `service-interface.md` has no scenario (unless the interface does not show it),\n")
	b.WriteString("or when the Spanish and English features differ in scenarios, tags, steps or examples.\n\n")
	b.WriteString("Kinds: `spec` checks what the interface states; `profile` a choice of the bundled profile;\n")
	b.WriteString("`reference` a choice of the reference server alone (left out against a foreign target).\n\n")
	b.WriteString("## Interface items\n\n| item | interface text | scenarios |\n|---|---|---|\n")
	for _, it := range items {
		r := byRef[it.Ref]
		var cells []string
		for _, tag := range r.Scenarios {
			cells = append(cells, "@"+tag)
		}
		cell := strings.Join(cells, ", ")
		if r.Note != "" {
			if cell != "" {
				cell += ". "
			}
			cell += "_" + r.Note + "_"
		}
		b.WriteString(fmt.Sprintf("| %s | %s | %s |\n", it.Ref, mdEscape(it.Text), cell))
	}
	b.WriteString("\n## Scenarios\n\n| tag | kind | English | Español |\n|---|---|---|---|\n")
	tags := make([]string, 0, len(scen["en"]))
	for t := range scen["en"] {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, t := range tags {
		en, es := scen["en"][t], scen["es"][t]
		b.WriteString(fmt.Sprintf("| @%s | %s | %s (en/%s:%d) | %s (es/%s:%d) |\n", t, strings.Join(uniq(en.Kind), ", "),
			mdEscape(en.Name), en.File, en.Line, mdEscape(es.Name), es.File, es.Line))
	}
	return b.String(), nil
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
