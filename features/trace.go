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
	"sync"

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

// Requirement maps an item of the interface or of the bundled profile to
// the requirement tags of the scenarios checking it.
type Requirement struct {
	Ref         string   `yaml:"ref"`
	Scenarios   []string `yaml:"scenarios"`
	Note        string   `yaml:"note"`
	Description bool     `yaml:"description"`
	// Tests names the Go tests that check a profile item no scenario can
	// reach (a test vector, what a receiver does), as "package.TestName".
	Tests []string `yaml:"tests"`
	// ServiceScenarios, in the webhook set only, names the service set's
	// requirement tags that check an item about the service rather than
	// about a merchant's endpoint (when the service sends, say).
	ServiceScenarios []string `yaml:"service_scenarios"`
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
	sectionRe  = regexp.MustCompile(`^#{2,3} ([A-Z]|\d+(?:\.\d+)?)\.? `)
	numberedRe = regexp.MustCompile(`^(\d+)\. (.*)`)
)

// ProfilePrefix starts the refs of the bundled profile's items, e.g.
// "defaults §A check 2", so that they never collide with the interface's.
const ProfilePrefix = "defaults "

// InterfaceItems reads every numbered rule, bullet, table row and
// paragraph of the interface document in fsys.
func InterfaceItems(fsys fs.FS) ([]Item, error) {
	return documentItems(fsys, "service-interface.md", "", func(string) bool { return true })
}

// ProfileItems reads every rule, bullet, table row and paragraph of
// sections A to F of the bundled profile (defaults.md); section G, the
// command line, is the tool's own and is tested by the CLI's tests.
func ProfileItems(fsys fs.FS) ([]Item, error) {
	return documentItems(fsys, "defaults.md", ProfilePrefix, func(sec string) bool { return sec >= "A" && sec <= "F" })
}

// AllItems is the interface's items, then the profile's.
func AllItems(fsys fs.FS) ([]Item, error) {
	a, err := InterfaceItems(fsys)
	if err != nil {
		return nil, err
	}
	b, err := ProfileItems(fsys)
	return append(a, b...), err
}

// documentItems splits a Markdown document into items: tables give one
// item per row (named by its first cell, by its first two when the first
// repeats, or "check N" when the first column is "#"), lists one per
// bullet or numbered rule (with their continuation lines), and other text
// one per paragraph, but for short labels that only introduce a list
// ("Rules:"). Code blocks and text before the first section are skipped.
func documentItems(fsys fs.FS, name, prefix string, keep func(section string) bool) ([]Item, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var items []Item
	sec := ""
	var header []string
	var table [][]string
	var para []string
	bullets, paras := 0, 0
	add := func(ref, text string) {
		if sec != "" && keep(sec) {
			items = append(items, Item{Ref: prefix + "§" + sec + " " + ref, Section: sec, Text: text})
		}
	}
	flushTable := func() {
		// A table whose first column repeats names every row by its
		// first two cells, so that refs stay unique and alike.
		firsts := map[string]bool{}
		twoCells := false
		for _, row := range table {
			twoCells = twoCells || firsts[row[0]]
			firsts[row[0]] = true
		}
		for _, row := range table {
			ref := row[0]
			switch {
			case len(header) > 0 && header[0] == "#":
				ref = "check " + row[0]
			case twoCells && len(row) > 1:
				ref += " " + row[1]
			}
			add(strings.ReplaceAll(ref, "`", ""), strings.Join(row, " | "))
		}
		table, header = nil, nil
	}
	flushPara := func() {
		text := strings.Join(para, " ")
		para = nil
		if text == "" || (strings.HasSuffix(text, ":") && len(strings.Fields(text)) <= 3) {
			return
		}
		paras++
		add("paragraph "+strconv.Itoa(paras), text)
	}
	inCode := false
	last := -1 // index of the item a continuation line belongs to
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			flushPara()
			inCode, last = !inCode, -1
			continue
		}
		if inCode {
			continue
		}
		if strings.HasPrefix(line, "|") {
			flushPara()
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
			flushTable()
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flushPara()
			last = -1
		case strings.HasPrefix(line, "    ") && last < 0 && para == nil:
			// an indented code line
		case (strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")) && last >= 0:
			items[last].Text += " " + trimmed
		default:
			if m := sectionRe.FindStringSubmatch(line); m != nil {
				flushPara()
				sec, bullets, paras, last = m[1], 0, 0, -1
				continue
			}
			if strings.HasPrefix(line, "#") {
				flushPara()
				continue
			}
			n := len(items)
			if m := numberedRe.FindStringSubmatch(line); m != nil {
				flushPara()
				add("rule "+m[1], m[2])
			} else if t, ok := strings.CutPrefix(line, "- "); ok {
				flushPara()
				bullets++
				add("bullet "+strconv.Itoa(bullets), t)
			} else {
				para = append(para, trimmed)
				continue
			}
			last = -1
			if len(items) > n {
				last = n
			}
		}
	}
	flushPara()
	if header != nil {
		flushTable()
	}
	return items, sc.Err()
}

func readRequirements(fsys fs.FS, name string) ([]Requirement, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Requirements []Requirement `yaml:"requirements"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
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

// Check returns every traceability and parity problem of every feature
// set (see Sets): an item without a requirement, a requirement without a
// scenario or a note, a note where the interface does show the behaviour,
// a tag no scenario carries, a scenario whose requirement is not traced, a
// need tag that is not in Needs, any difference between the Spanish and
// English scenarios' tags (need tags included), steps or examples, and a
// requirement tag used by two sets.
func Check(fsys fs.FS) []error {
	var errs []error
	owner := map[string]string{}
	for _, set := range Sets() {
		tags, more := set.check(fsys)
		errs = append(errs, more...)
		for _, tag := range tags {
			if other, ok := owner[tag]; ok {
				errs = append(errs, fmt.Errorf("@%s is a requirement of both the %s and the %s feature sets", tag, other, set.Name))
			}
			owner[tag] = set.Name
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// check returns the set's requirement tags and its problems (see Check).
func (set *Set) check(fsys fs.FS) ([]string, []error) {
	items, err := set.Items(fsys)
	if err != nil {
		return nil, []error{err}
	}
	reqs, err := set.Requirements(fsys)
	if err != nil {
		return nil, []error{err}
	}
	c := &checker{set: set}
	byLang := map[string]map[string]Scenario{}
	for _, lang := range []string{"es", "en"} {
		scs, err := set.Scenarios(fsys, lang)
		if err != nil {
			return nil, []error{err}
		}
		byLang[lang] = c.scenarios(lang, scs)
	}
	c.parity(byLang["es"], byLang["en"])
	// The service set's tags, which webhook requirements may name for an
	// item about the service.
	serviceTags := map[string]bool{}
	if set != ServiceSet {
		scs, err := ServiceSet.Scenarios(fsys, "en")
		if err != nil {
			return nil, []error{err}
		}
		for _, s := range scs {
			serviceTags[s.Requirement] = true
		}
	}
	traced := c.trace(items, reqs, byLang["en"], serviceTags)
	var tags []string
	for tag := range byLang["en"] {
		tags = append(tags, tag)
		if !traced[tag] {
			c.bad("@%s is not traced to any item of the interface or of the profile", tag)
		}
	}
	sort.Strings(tags)
	return tags, c.errs
}

// A checker collects the problems of one feature set.
type checker struct {
	set  *Set
	errs []error
}

func (c *checker) bad(format string, a ...any) { c.errs = append(c.errs, fmt.Errorf(format, a...)) }

// scenarios checks the tags of one language's scenarios (one requirement
// tag each, known need tags, a kind) and returns them by requirement.
func (c *checker) scenarios(lang string, scs []Scenario) map[string]Scenario {
	folder := c.set.folder(lang)
	byTag := map[string]Scenario{}
	for _, s := range scs {
		switch {
		case s.Requirement == "":
			c.bad("%s/%s:%d %q has no requirement tag", folder, s.File, s.Line, s.Name)
		case strings.Contains(s.Requirement, "+"):
			c.bad("%s/%s:%d %q has several requirement tags: %s", folder, s.File, s.Line, s.Name, s.Requirement)
		}
		for _, n := range s.Needs {
			if _, ok := NeedOf(n); !ok {
				c.bad("%s/%s:%d %q carries @%s, which is not a known need tag (%s)", folder, s.File, s.Line, s.Name, n, knownNeeds())
			}
		}
		if !(len(s.Kind) == 1 || (len(s.Kind) == len(s.Examples) && len(s.Kind) > 0)) {
			c.bad("%s/%s:%d %q needs one of @spec, @profile, @reference (on the scenario, or on each Examples block)", folder, s.File, s.Line, s.Name)
		}
		if _, dup := byTag[s.Requirement]; dup {
			c.bad("%s: requirement tag @%s is on two scenarios", folder, s.Requirement)
		}
		byTag[s.Requirement] = s
	}
	return byTag
}

// parity checks that the Spanish and English scenarios are the same ones:
// the same requirements, tags, number of steps and examples.
func (c *checker) parity(es, en map[string]Scenario) {
	for tag, e := range es {
		n, ok := en[tag]
		if !ok {
			c.bad("@%s is in %s/%s but not in %s", tag, c.set.folder("es"), e.File, c.set.folder("en"))
			continue
		}
		if strings.Join(e.Tags, " ") != strings.Join(n.Tags, " ") {
			c.bad("@%s: tags differ: es %v, en %v", tag, e.Tags, n.Tags)
		}
		if e.Steps != n.Steps {
			c.bad("@%s: es has %d steps, en %d", tag, e.Steps, n.Steps)
		}
		if strings.Join(e.Examples, "\n") != strings.Join(n.Examples, "\n") {
			c.bad("@%s: examples differ:\nes:\n%s\nen:\n%s", tag, strings.Join(e.Examples, "\n"), strings.Join(n.Examples, "\n"))
		}
	}
	for tag, n := range en {
		if _, ok := es[tag]; !ok {
			c.bad("@%s is in %s/%s but not in %s", tag, c.set.folder("en"), n.File, c.set.folder("es"))
		}
	}
}

// trace checks the requirements file against the items and the
// scenarios: every item listed once, every entry an item, tested by
// scenarios that exist or saying why not; it returns the tags traced.
func (c *checker) trace(items []Item, reqs []Requirement, scenarios map[string]Scenario, serviceTags map[string]bool) map[string]bool {
	known := map[string]Item{}
	for _, it := range items {
		known[it.Ref] = it
	}
	traced := map[string]bool{}
	seen := map[string]bool{}
	file := c.set.RequirementsFile
	for _, r := range reqs {
		it, ok := known[r.Ref]
		if !ok {
			c.bad("%s: %q is not an item of the interface or of the profile", file, r.Ref)
			continue
		}
		if seen[r.Ref] {
			c.bad("%s: %q is listed twice", file, r.Ref)
		}
		seen[r.Ref] = true
		c.requirement(r, it, serviceTags)
		for _, tag := range r.Scenarios {
			traced[tag] = true
			if _, ok := scenarios[tag]; !ok {
				c.bad("%s names @%s, which no scenario carries", r.Ref, tag)
			}
		}
	}
	for _, it := range items {
		if !seen[it.Ref] {
			c.bad("%s has no entry in %s: %q", it.Ref, file, it.Text)
		}
	}
	return traced
}

// requirement checks how one entry says its item is tested: by Go tests
// only for a profile item, by service scenarios only in another set, and
// with a note saying why when by no scenario.
func (c *checker) requirement(r Requirement, it Item, serviceTags map[string]bool) {
	file := c.set.RequirementsFile
	profile := strings.HasPrefix(r.Ref, ProfilePrefix)
	if len(r.Tests) > 0 && !profile {
		c.bad("%s: only profile items may be checked by Go tests instead of scenarios", r.Ref)
	}
	if len(r.ServiceScenarios) > 0 && c.set == ServiceSet {
		c.bad("%s: %s: service_scenarios is for the other feature sets, which name the service's scenarios there", file, r.Ref)
	}
	for _, tag := range r.ServiceScenarios {
		if c.set != ServiceSet && !serviceTags[tag] {
			c.bad("%s: %s names the service scenario @%s, which no service scenario carries", file, r.Ref, tag)
		}
	}
	if len(r.Scenarios) == 0 && len(r.ServiceScenarios) == 0 {
		switch {
		case r.Note == "":
			c.bad("%s has no scenario and no note saying why: %q", r.Ref, it.Text)
		case profile && len(r.Tests) == 0 && !r.Description:
			c.bad("%s has no scenario and names no Go test that checks it: %q", r.Ref, it.Text)
		case !profile && !strings.Contains(it.Text, "not shown") && !r.Description:
			c.bad("%s has no scenario, but the interface shows it: %q", r.Ref, it.Text)
		}
	}
}

func knownNeeds() string {
	var tags []string
	for _, n := range Needs {
		tags = append(tags, "@"+n.Tag)
	}
	return strings.Join(tags, ", ")
}

// Trace renders the traceability table of every feature set as Markdown.
func Trace(fsys fs.FS) (string, error) {
	items, err := InterfaceItems(fsys)
	if err != nil {
		return "", err
	}
	profileItems, err := ProfileItems(fsys)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Traceability of the interface to the conformance suite\n\n")
	b.WriteString("Generated by `firmakit features trace > features/README.md`; a test fails when it is stale,\n")
	b.WriteString("when an item of `service-interface.md` or of `defaults.md` has no scenario (unless the interface does not show it,\n")
	b.WriteString("or, for the profile, named Go tests check it),\n")
	b.WriteString("or when the Spanish and English features differ in scenarios, tags, steps or examples.\n\n")
	b.WriteString("Kinds: `spec` checks what the interface states; `profile` a choice of the bundled profile;\n")
	b.WriteString("`reference` a choice of the reference server alone (left out against a foreign target).\n\n")
	service, err := newTracer(fsys, ServiceSet)
	if err != nil {
		return "", err
	}
	service.table(&b, "## Interface items", "interface text", items)
	b.WriteString("\n")
	service.table(&b, "## Bundled profile items (defaults.md, sections A to F)", "profile text", profileItems)
	b.WriteString("\n")
	service.scenarios(&b, "## Scenarios", "")

	webhook, err := newTracer(fsys, WebhookSet)
	if err != nil {
		return "", err
	}
	witems, err := WebhookSet.Items(fsys)
	if err != nil {
		return "", err
	}
	b.WriteString("\n# The webhook set: a merchant's endpoint\n\n")
	b.WriteString("`firmakit certify-webhook` plays the service and posts signed notifications to a merchant's endpoint\n")
	b.WriteString("(features in `webhook/es` and `webhook/en`, traced by `webhook-requirements.yaml`). Its items are sections 5\n")
	b.WriteString("and 6 of the interface and section B of the bundled profile; an item about the service names the service\n")
	b.WriteString("scenarios that check it.\n\n")
	webhook.table(&b, "## Webhook items", "text", witems)
	b.WriteString("\n")
	webhook.scenarios(&b, "## Webhook scenarios", "webhook/")
	return b.String(), nil
}

// tracer holds what the traceability table of one set is made of.
type tracer struct {
	byRef map[string]Requirement
	scen  map[string]map[string]Scenario // lang → requirement tag → scenario
}

func newTracer(fsys fs.FS, set *Set) (*tracer, error) {
	reqs, err := set.Requirements(fsys)
	if err != nil {
		return nil, err
	}
	t := &tracer{byRef: map[string]Requirement{}, scen: map[string]map[string]Scenario{}}
	for _, r := range reqs {
		t.byRef[r.Ref] = r
	}
	for _, lang := range []string{"en", "es"} {
		scs, err := set.Scenarios(fsys, lang)
		if err != nil {
			return nil, err
		}
		t.scen[lang] = map[string]Scenario{}
		for _, s := range scs {
			t.scen[lang][s.Requirement] = s
		}
	}
	return t, nil
}

func (t *tracer) table(b *strings.Builder, title, textHeader string, items []Item) {
	b.WriteString(title + "\n\n| item | " + textHeader + " | scenarios |\n|---|---|---|\n")
	for _, it := range items {
		r := t.byRef[it.Ref]
		var cells []string
		for _, tag := range r.Scenarios {
			cells = append(cells, "@"+tag)
		}
		cell := strings.Join(cells, ", ")
		if len(r.ServiceScenarios) > 0 {
			if cell != "" {
				cell += "; "
			}
			var tags []string
			for _, tag := range r.ServiceScenarios {
				tags = append(tags, "@"+tag)
			}
			cell += "service suite: " + strings.Join(tags, ", ")
		}
		if len(r.Tests) > 0 {
			if cell != "" {
				cell += "; "
			}
			cell += "Go tests: " + strings.Join(r.Tests, ", ")
		}
		if r.Note != "" {
			if cell != "" {
				cell += ". "
			}
			cell += "_" + r.Note + "_"
		}
		b.WriteString(fmt.Sprintf("| %s | %s | %s |\n", it.Ref, mdEscape(it.Text), cell))
	}
}

func (t *tracer) scenarios(b *strings.Builder, title, dir string) {
	b.WriteString(title + "\n\n| tag | kind | English | Español |\n|---|---|---|---|\n")
	tags := make([]string, 0, len(t.scen["en"]))
	for tag := range t.scen["en"] {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		en, es := t.scen["en"][tag], t.scen["es"][tag]
		b.WriteString(fmt.Sprintf("| @%s | %s | %s (%sen/%s:%d) | %s (%ses/%s:%d) |\n", tag, strings.Join(uniq(en.Kind), ", "),
			mdEscape(en.Name), dir, en.File, en.Line, mdEscape(es.Name), dir, es.File, es.Line))
	}
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

var (
	itemsOnce sync.Once
	itemText  map[string]string
)

// ItemText returns the text of the item of the embedded documents (the
// interface's, then the bundled profile's) whose ref is ref: the sentence
// a failing assertion cites (see steps' breaches).
func ItemText(ref string) (string, bool) {
	itemsOnce.Do(func() {
		itemText = map[string]string{}
		all, _ := AllItems(FS)
		for _, it := range all {
			itemText[it.Ref] = it.Text
		}
	})
	t, ok := itemText[ref]
	return t, ok
}
