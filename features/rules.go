package features

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
	"go.yaml.in/yaml/v3"
)

// What a rule of the documents is judged on: one of the service's two
// merchant endpoints, the notifications it sends, or a merchant's webhook
// endpoint (the webhook set).
const (
	TargetCheck        = "check"        // POST /{api_version}/check/{merchant_id}
	TargetSignature    = "signature"    // POST /v1/signature/{merchant_id}
	TargetNotification = "notification" // the service's notifications and their delivery
	TargetEndpoint     = "endpoint"     // a merchant's webhook endpoint
)

// The kinds of rules. An input rule says what a target accepts and what
// it refuses: it has two sides, and each target it applies to must be
// tried on both, its valid edges accepted and its nearest invalid
// neighbours refused. An output rule says what the service writes: each
// target it applies to must be judged.
const (
	KindInput  = "input"
	KindOutput = "output"
)

// Sides of a scenario row of an input rule.
const (
	SideAccept = "accept" // a valid edge, which the target must take
	SideRefuse = "refuse" // an invalid neighbour, which it must refuse
	SideJudge  = "judge"  // a row that judges what the service wrote
)

// RulesFile lists, for every item of the documents that scenarios check,
// what its rule is judged on and its kind (rules.yaml).
const RulesFile = "rules.yaml"

// Rule is one rule of the two documents: an item of the documents that
// scenarios check, what it applies to, and every scenario row that
// exercises it, with the target and the side of each.
type Rule struct {
	Ref string `yaml:"ref"`
	// Rule names the rule, for an item that holds several (the error
	// body, the body limit and the 5xx of defaults §A paragraph 5);
	// Scenarios are then the item's requirements that check it. Empty:
	// the item is one rule, checked by all its requirements.
	Rule      string   `yaml:"rule"`
	Scenarios []string `yaml:"scenarios"`
	// In names the feature set whose requirements check the rule, for
	// an item both sets trace (the notification's signature: the
	// service's notifications, and a merchant's endpoint); empty: both.
	In      string   `yaml:"in"`
	Applies []string `yaml:"applies"`
	Kind    string   `yaml:"kind"`
	// Note says why a rule applies where it does, when that is not
	// plain.
	Note string `yaml:"note"`

	Set  string    `yaml:"-"` // the feature set whose requirements trace it
	Text string    `yaml:"-"` // the item's text
	Rows []RuleRow `yaml:"-"`
}

// RuleRow is one scenario row (English) that exercises a rule.
type RuleRow struct {
	Requirement string // its requirement tag, without @
	Row         string // its example row, "header=value, …"; "" for a plain scenario
	Target      string
	Side        string
	// Operator is the operator whose neighbours the row sends (its
	// "operator" column), "" for a listed row.
	Operator string
}

// String names the row as the reports do: "AUTH-BODY-LIMIT (size=1048577)".
func (r RuleRow) String() string {
	if r.Row == "" {
		return r.Requirement
	}
	return r.Requirement + " (" + r.Row + ")"
}

// Rules reads the rule table: every entry of rules.yaml, with its item's
// text and every English scenario row of the requirements that trace the
// item, classified by target and side.
func Rules(fsys fs.FS) ([]Rule, error) {
	data, err := fs.ReadFile(fsys, RulesFile)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rules []Rule `yaml:"rules"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", RulesFile, err)
	}
	rows := map[string][]RuleRow{} // by requirement tag
	reqOf := map[string]map[string][]string{}
	texts := map[string]string{}
	for _, set := range Sets() {
		scs, err := classifiedRows(fsys, set)
		if err != nil {
			return nil, err
		}
		for _, r := range scs {
			rows[r.Requirement] = append(rows[r.Requirement], r)
		}
		reqs, err := set.Requirements(fsys)
		if err != nil {
			return nil, err
		}
		reqOf[set.Name] = map[string][]string{}
		for _, r := range reqs {
			reqOf[set.Name][r.Ref] = r.Scenarios
		}
		items, err := set.Items(fsys)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			texts[it.Ref] = it.Text
		}
	}
	out := doc.Rules
	for i := range out {
		r := &out[i]
		r.Text = texts[r.Ref]
		for _, set := range Sets() {
			tags := reqOf[set.Name][r.Ref]
			if len(tags) == 0 || (r.In != "" && r.In != set.Name) {
				continue
			}
			if len(r.Scenarios) > 0 {
				var mine []string
				for _, tag := range tags {
					if slices.Contains(r.Scenarios, tag) {
						mine = append(mine, tag)
					}
				}
				if tags = mine; len(tags) == 0 {
					continue
				}
			}
			if r.Set != "" {
				r.Set += "+"
			}
			r.Set += set.Name
			for _, tag := range tags {
				r.Rows = append(r.Rows, rows[tag]...)
			}
		}
	}
	return out, nil
}

// CheckRules returns every problem of the rule table: an item that
// scenarios check with no rule, a rule of no such item or of one no
// scenario checks, an unknown target or kind, and, the point of the table,
// a target a rule applies to that no row exercises, or an input rule
// tried on one side only at a target.
func CheckRules(fsys fs.FS, rules []Rule) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	seen, ruled := map[string]bool{}, map[string]bool{}
	targets := []string{TargetCheck, TargetSignature, TargetNotification, TargetEndpoint}
	for _, r := range rules {
		key := r.Ref + "\x00" + r.Rule + "\x00" + r.In
		if seen[key] {
			bad("%s: %s %s is listed twice", RulesFile, r.Ref, r.Rule)
		}
		seen[key], ruled[r.In+"\x00"+r.Ref] = true, true
		switch {
		case r.Text == "":
			bad("%s: %s is no item of the documents", RulesFile, r.Ref)
			continue
		case r.Set == "" && len(r.Scenarios) > 0:
			bad("%s: %s (%s): none of %s checks this item in its requirements", RulesFile, r.Ref, r.Rule, strings.Join(r.Scenarios, ", "))
			continue
		case r.Set == "":
			bad("%s: %s: no scenario checks this item (its requirements list none)", RulesFile, r.Ref)
			continue
		case r.Kind != KindInput && r.Kind != KindOutput:
			bad("%s: %s: kind %q, want input or output", RulesFile, r.Ref, r.Kind)
		case len(r.Applies) == 0:
			bad("%s: %s: applies to nothing", RulesFile, r.Ref)
		}
		for _, t := range r.Applies {
			if !slices.Contains(targets, t) {
				bad("%s: %s: unknown target %q, want one of %s", RulesFile, r.Ref, t, strings.Join(targets, ", "))
				continue
			}
			accept, refuse, judge := r.count(t)
			switch {
			case accept+refuse+judge == 0:
				bad("%s applies to %s, but no scenario row exercises it there", r.name(), t)
			case r.Kind == KindInput && accept == 0:
				bad("%s applies to %s, but no row there takes a valid edge (only refusals)", r.name(), t)
			case r.Kind == KindInput && refuse == 0:
				bad("%s applies to %s, but no row there refuses an invalid neighbour (only acceptances)", r.name(), t)
			}
		}
	}
	for _, set := range Sets() {
		reqs, err := set.Requirements(fsys)
		if err != nil {
			return append(errs, err)
		}
		for _, q := range reqs {
			if len(q.Scenarios) > 0 && !ruled["\x00"+q.Ref] && !ruled[set.Name+"\x00"+q.Ref] {
				bad("%s: %s is checked by %s but has no rule: say what it applies to", RulesFile, q.Ref, strings.Join(q.Scenarios, ", "))
			}
		}
	}
	return errs
}

// name names the rule in messages: its ref, and its words when the item
// holds several rules.
func (r Rule) name() string {
	if r.Rule == "" {
		return r.Ref
	}
	return r.Ref + " (" + r.Rule + ")"
}

// count is how many of the rule's rows at target accept, refuse and judge.
func (r Rule) count(target string) (accept, refuse, judge int) {
	for _, row := range r.Rows {
		if row.Target != target {
			continue
		}
		switch row.Side {
		case SideAccept:
			accept++
		case SideRefuse:
			refuse++
		default:
			judge++
		}
	}
	return accept, refuse, judge
}

// RuleCounts are the table's size: rules, the targets they apply to
// (rule by target), and the scenario rows that exercise them.
type RuleCounts struct {
	Rules, Targets, Rows int
	// Operated are the rule-targets that rows by operator exercise, and
	// OperatorRows those rows.
	Operated, OperatorRows int
}

// CountRules sums up a rule table.
func CountRules(rules []Rule) RuleCounts {
	c := RuleCounts{Rules: len(rules)}
	for _, r := range rules {
		c.Targets += len(r.Applies)
		c.Rows += len(r.Rows)
		for _, t := range r.Applies {
			if len(r.Operators(t)) > 0 {
				c.Operated++
			}
		}
		for _, row := range r.Rows {
			if row.Operator != "" {
				c.OperatorRows++
			}
		}
	}
	return c
}

func (c RuleCounts) String() string {
	return fmt.Sprintf("%d rules, %d rule-targets (%d exercised by operators), %d scenario rows (%d by operator)", c.Rules, c.Targets, c.Operated, c.Rows, c.OperatorRows)
}

// RulesMarkdown writes the rule table for people (docs/rules.md): per
// rule, its sentence, what it applies to, and per target the rows that
// accept its valid edges and refuse its nearest invalid neighbours.
func RulesMarkdown(rules []Rule) string {
	var b strings.Builder
	b.WriteString("# The rule table\n\n")
	b.WriteString("Generated by `firmakit features rules > docs/rules.md`; a test fails when it is stale, or when\n")
	b.WriteString("a rule that applies to two targets is exercised on one only, or an input rule on one side only.\n\n")
	b.WriteString("Every rule of `service-interface.md` and of the bundled profile (`defaults.md`) that scenarios\n")
	b.WriteString("check, what it applies to, and the English scenario rows that exercise it (the Spanish rows are the\n")
	b.WriteString("same). Targets: `check` and `signature` are the service's two merchant endpoints, `notification`\n")
	b.WriteString("its notifications and their delivery, `endpoint` a merchant's webhook endpoint (certify-webhook).\n")
	b.WriteString("An **input** rule says what a target takes and what it refuses: each target is tried on both sides,\n")
	b.WriteString("valid edges (**accept**) and nearest invalid neighbours (**refuse**). An **output** rule says what the\n")
	b.WriteString("service writes: each target is judged. **operators** are the operators whose rows derive the\n")
	b.WriteString("neighbours sent at that target from a valid request, rather than list them (docs/operators.md).\n\n")
	fmt.Fprintf(&b, "%s.\n\n", CountRules(rules))
	b.WriteString("| rule | sentence | kind | target | operators | accept | refuse | judged |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rules {
		for i, t := range r.Applies {
			ref, text, kind := "", "", ""
			if i == 0 {
				ref, text, kind = r.Ref, mdEscape(clipText(r.Text, 160)), r.Kind
				if r.Rule != "" {
					text = "**" + mdEscape(r.Rule) + "** (" + text + ")"
				}
				if r.Note != "" {
					text += " _" + mdEscape(r.Note) + "_"
				}
			}
			var acc, ref2, jud []string
			for _, row := range r.Rows {
				if row.Target != t {
					continue
				}
				s := mdEscape(row.String())
				switch row.Side {
				case SideAccept:
					acc = append(acc, s)
				case SideRefuse:
					ref2 = append(ref2, s)
				default:
					jud = append(jud, s)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", ref, text, kind, t, strings.Join(r.Operators(t), ", "), cell(acc), cell(ref2), cell(jud))
		}
	}
	return b.String()
}

// cell lists rows in a table cell, each once, at most twelve.
func cell(rows []string) string {
	rows = uniq(rows)
	if len(rows) == 0 {
		return ""
	}
	if len(rows) > 12 {
		return strings.Join(rows[:12], "; ") + fmt.Sprintf("; and %d more", len(rows)-12)
	}
	return strings.Join(rows, "; ")
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Patterns of the English steps that tell a row's target and side.
var (
	endpointStep = regexp.MustCompile(`^a signed request to the "(check|signature)" endpoint$`)
	createStep   = regexp.MustCompile(`^a (contract titled|"DEMO_[A-Z]+" contract titled)`)
	refuseSteps  = regexp.MustCompile(`^(each one is refused|each one up to 1 MiB|each one is created and gets no|the response is (4\d\d) |the response status is (4\d\d)$|the response is a 400|the request is refused|no notification|no further delivery|it is delivered again|it is delivered \d+ more times|the endpoint refuses it|the endpoint refuses every one)`)
	acceptSteps  = regexp.MustCompile(`^(each one is accepted|each one gets its own|each one is created and|none gets a 5xx|the response is 2\d\d |the response status is 2\d\d$|the response is a created signature envelope|exactly one |a "[A-Z]+" notification arrives|it is not delivered again|the endpoint answers 2xx|the contract is created$|the routing is|the envelope title is|the answer and its envelope|its signature_id differs|the response matches the earlier one|the sender|the documents are titled|each document|there is one|signature_id is|created_at is|the envelope status is|the response message is)`)
)

// classifiedRows reads the English scenarios of a set as rows, each with
// its target and side.
func classifiedRows(fsys fs.FS, set *Set) ([]RuleRow, error) {
	files, err := fs.Glob(fsys, path.Join(set.folder("en"), "*.feature"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []RuleRow
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		n := 0
		newID := func() string { n++; return strconv.Itoa(n) }
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), newID)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		rowsOf := exampleRows(doc)
		for _, p := range gherkin.Pickles(*doc, f, newID) {
			r := RuleRow{}
			for _, t := range p.Tags {
				name := strings.TrimPrefix(t.Name, "@")
				if ClassifyTag(name) == RequirementTag {
					r.Requirement = name
				}
			}
			if len(p.AstNodeIds) > 1 {
				r.Row = rowsOf[p.AstNodeIds[1]]
			}
			r.Target, r.Side = classify(set, path.Base(f), p)
			r.Operator = operatorOf(r.Row)
			out = append(out, r)
		}
	}
	return out, nil
}

// operatorOf is the value of a row's operator column, "" for none.
func operatorOf(row string) string {
	for _, part := range strings.Split(row, ", ") {
		if v, ok := strings.CutPrefix(part, "operator="); ok {
			return v
		}
	}
	return ""
}

// Operators are the operators whose rows exercise the rule at target,
// each once, sorted.
func (r Rule) Operators(target string) []string {
	var out []string
	for _, row := range r.Rows {
		if row.Target == target && row.Operator != "" && !slices.Contains(out, row.Operator) {
			out = append(out, row.Operator)
		}
	}
	slices.Sort(out)
	return out
}

// exampleRows names each example row of a document, "header=value, …",
// by its id.
func exampleRows(doc *messages.GherkinDocument) map[string]string {
	out := map[string]string{}
	for _, c := range doc.Feature.Children {
		if c.Scenario == nil {
			continue
		}
		for _, ex := range c.Scenario.Examples {
			if ex.TableHeader == nil {
				continue
			}
			for _, row := range ex.TableBody {
				var parts []string
				for i, cell := range row.Cells {
					parts = append(parts, ex.TableHeader.Cells[i].Value+"="+cell.Value)
				}
				out[row.Id] = strings.Join(parts, ", ")
			}
		}
	}
	return out
}

// classify tells a row's target and side from its file and its steps.
func classify(set *Set, file string, p *messages.Pickle) (target, side string) {
	switch {
	case set == WebhookSet:
		target = TargetEndpoint
	case file == "demo.feature":
		target = TargetNotification
	}
	side = SideJudge
	for _, st := range p.Steps {
		if m := endpointStep.FindStringSubmatch(st.Text); m != nil && target == "" {
			target = m[1]
		}
		if createStep.MatchString(st.Text) && target == "" {
			target = TargetSignature
		}
		if st.Type != messages.PickleStepType_OUTCOME {
			continue
		}
		switch {
		case refuseSteps.MatchString(st.Text):
			side = SideRefuse
		case side == SideJudge && acceptSteps.MatchString(st.Text):
			side = SideAccept
		}
	}
	return target, side
}
