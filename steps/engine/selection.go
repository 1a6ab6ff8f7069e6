package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/firmakit/firmakit"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/reports"
)

// What can be wrong with a selection of scenarios; a *SelectionError
// wraps one of them.
var (
	// ErrMalformedTags: the tag expression is not one godog reads the
	// way it looks (godog would misread it, or stop on it).
	ErrMalformedTags = errors.New("malformed tag expression")
	// ErrUnknownTag: the expression names a tag no scenario carries.
	ErrUnknownTag = errors.New("no scenario carries the tag")
	// ErrNothingSelected: the language and the expression select no
	// scenario.
	ErrNothingSelected = errors.New("no scenario selected")
)

// SelectionError says why a language and a tag expression cannot be run.
// Select and Suite.Run return it before anything runs; the command line
// maps it to its usage exit code.
type SelectionError struct {
	Err  error  // ErrMalformedTags, ErrUnknownTag or ErrNothingSelected
	Lang string // the language selection
	Tags string // the whole tag expression
	// Term is the part of the expression at fault: a malformed term or an
	// unknown tag (with @); empty for ErrNothingSelected.
	Term string
	// Closest are the known tags (with @) nearest to Term by edit
	// distance, nearest first.
	Closest []string
	// Detail says what to do, in words.
	Detail string
}

func (e *SelectionError) Error() string {
	msg := fmt.Sprintf("tag expression %q: %s", e.Tags, e.Detail)
	if len(e.Closest) > 0 {
		msg += "; the closest known tags: " + strings.Join(e.Closest, ", ")
	}
	return msg
}

// Unwrap returns the sentinel error the selection error is an instance of.
func (e *SelectionError) Unwrap() error { return e.Err }

// Count returns how many scenarios of set the language ("es", "en" or
// "all") and the godog tag expression select, counting each row of an
// outline on its own: the number godog will run. It reads the embedded
// features with the gherkin parser godog uses and filters them the way
// godog v0.15 does: "@a" (carries a), "~@a" (does not), "@a,@b" (or),
// "@a && ~@b" (and; && binds looser than ","); the @ may be left out. It
// returns a *SelectionError for an expression godog would misread or
// stop on (an empty term, "or", "and", "not", "||", "!", parentheses,
// spaces inside a term), for a tag no scenario of either language
// carries, and for a selection of no scenario; an unknown language is a
// plain error.
func Count(set *features.Set, lang, tags string) (int, error) {
	sel, err := selectFrom(loaderOf(set), lang, tags)
	return len(sel), err
}

// Planned returns the scenarios that Count counts, each row of an
// outline on its own, as results with no status yet (feature, line, name,
// row, language, requirement, kind and need tags), so that what names
// scenarios (an expected-failures file) can be checked before a run. It
// returns Count's errors.
func Planned(set *features.Set, lang, tags string) ([]reports.ScenarioResult, error) {
	return plannedFrom(loaderOf(set), lang, tags)
}

// Pickles returns the scenarios that Count counts, as godog runs them.
func Pickles(set *features.Set, lang, tags string) ([]*messages.Pickle, error) {
	sel, err := selectFrom(loaderOf(set), lang, tags)
	if err != nil {
		return nil, err
	}
	return picklesOf(sel), nil
}

func picklesOf(sel []pickled) []*messages.Pickle {
	out := make([]*messages.Pickle, len(sel))
	for i, p := range sel {
		out[i] = p.pickle
	}
	return out
}

// KnownTags returns every tag of set's features, both languages, with @,
// sorted: requirement, kind (@spec, @profile, @reference) and need tags,
// on scenarios, outlines' Examples or features.
func KnownTags(set *features.Set) ([]string, error) {
	s, err := loaderOf(set)()
	if err != nil {
		return nil, err
	}
	return append([]string(nil), s.tags...), nil
}

func plannedFrom(load func() (*suiteIndex, error), lang, tags string) ([]reports.ScenarioResult, error) {
	sel, err := selectFrom(load, lang, tags)
	if err != nil {
		return nil, err
	}
	out := make([]reports.ScenarioResult, len(sel))
	for i, p := range sel {
		out[i] = planned(p)
	}
	return out, nil
}

// pickled is one scenario, or one row of an outline, as godog runs it.
type pickled struct {
	pickle *messages.Pickle
	line   int    // of the scenario, or of the example row
	row    string // "header=value, …" for an outline row
}

// suiteIndex is the embedded features, parsed once.
type suiteIndex struct {
	byLang map[string][]pickled
	tags   []string // every tag, with @, sorted
}

// indexes are the loaders of the feature sets' indexes, by set: each set
// is parsed once.
var indexes sync.Map // *features.Set → func() (*suiteIndex, error)

// loaderOf returns what loads set's index, once.
func loaderOf(set *features.Set) func() (*suiteIndex, error) {
	load, _ := indexes.LoadOrStore(set, sync.OnceValues(func() (*suiteIndex, error) { return indexSet(set) }))
	return load.(func() (*suiteIndex, error))
}

// indexSet parses the embedded features of a set.
func indexSet(set *features.Set) (*suiteIndex, error) {
	fsys, err := set.Features(features.FS)
	if err != nil {
		return nil, err
	}
	idx := &suiteIndex{byLang: map[string][]pickled{}}
	seen := map[string]bool{}
	for _, lang := range []string{"es", "en"} {
		// As godog's parser: every .feature file under the folder, in
		// WalkDir order, read with the default dialect "en" (a file's
		// "# language:" line overrides it).
		err := fs.WalkDir(fsys, lang, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".feature") {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			newID := (&messages.Incrementing{}).NewId
			doc, err := gherkin.ParseGherkinDocumentForLanguage(bytes.NewReader(data), gherkin.DefaultDialect, newID)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			doc.Uri = p
			rows := rowsOf(doc)
			for _, pk := range gherkin.Pickles(*doc, p, newID) {
				pd := pickled{pickle: pk}
				if len(pk.AstNodeIds) > 1 {
					r := rows[pk.AstNodeIds[1]]
					pd.line, pd.row = r.line, r.values
				} else {
					pd.line = rows[pk.AstNodeIds[0]].line
				}
				idx.byLang[lang] = append(idx.byLang[lang], pd)
				for _, t := range pk.Tags {
					seen[t.Name] = true
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for t := range seen {
		idx.tags = append(idx.tags, t)
	}
	sort.Strings(idx.tags)
	return idx, nil
}

type rowInfo struct {
	line   int
	values string
}

// rowsOf maps the ids of a document's scenarios and example rows to their
// line and, for rows, their values.
func rowsOf(doc *messages.GherkinDocument) map[string]rowInfo {
	out := map[string]rowInfo{}
	var scenario func(*messages.Scenario)
	scenario = func(sc *messages.Scenario) {
		out[sc.Id] = rowInfo{line: int(sc.Location.Line)}
		for _, ex := range sc.Examples {
			if ex.TableHeader == nil {
				continue
			}
			for _, r := range ex.TableBody {
				var vals []string
				for i, c := range r.Cells {
					if i < len(ex.TableHeader.Cells) {
						vals = append(vals, ex.TableHeader.Cells[i].Value+"="+c.Value)
					}
				}
				out[r.Id] = rowInfo{line: int(r.Location.Line), values: strings.Join(vals, ", ")}
			}
		}
	}
	if doc.Feature == nil {
		return out
	}
	for _, ch := range doc.Feature.Children {
		if ch.Scenario != nil {
			scenario(ch.Scenario)
		}
		if ch.Rule != nil {
			for _, rc := range ch.Rule.Children {
				if rc.Scenario != nil {
					scenario(rc.Scenario)
				}
			}
		}
	}
	return out
}

// term is one tag test of an expression: the tag (without @), negated or not.
type term struct {
	tag string
	not bool
}

var (
	nameRe     = regexp.MustCompile(`^[^\s,&@~()!|]+$`)
	wordRe     = regexp.MustCompile(`[^\s,&@~()!|]+`)
	operatorRe = regexp.MustCompile(`(?i)^(and|or|not)$`)
)

const syntax = "godog reads @a,@b as a or b, @a && @b as a and b, ~@a as not a, and nothing else"

// parseTags reads a godog tag expression into and-groups of or-terms.
func parseTags(tags string) ([][]term, *SelectionError) {
	malformed := func(t, why string) *SelectionError {
		return &SelectionError{Err: ErrMalformedTags, Tags: tags, Term: t, Detail: why}
	}
	switch {
	case tags == "":
		return nil, nil
	case strings.TrimSpace(tags) == "":
		// godog stops on it; the empty string is the way to say "all".
		return nil, malformed(tags, "blank; leave it empty to select every scenario")
	}
	var expr [][]term
	for _, and := range strings.Split(tags, "&&") {
		var group []term
		for _, raw := range strings.Split(and, ",") {
			t := strings.TrimSpace(raw)
			switch {
			case t == "":
				return nil, malformed(t, "an empty term (a stray ',' or '&&'); "+syntax)
			case strings.ContainsAny(t, "()!|") || strings.Contains(t, "&"):
				return nil, malformed(t, fmt.Sprintf("%q: %s", t, syntax))
			}
			var tm term
			name := t
			if rest, ok := strings.CutPrefix(name, "~"); ok {
				tm.not, name = true, rest
			}
			name = strings.TrimPrefix(name, "@")
			if !nameRe.MatchString(name) {
				return nil, malformed(t, fmt.Sprintf("%q is not one tag: %s", t, syntax))
			}
			tm.tag = name
			group = append(group, tm)
		}
		expr = append(expr, group)
	}
	return expr, nil
}

// matches tells whether tags (with @) satisfy the expression, as godog does.
func matches(expr [][]term, tags []*messages.PickleTag) bool {
	has := func(name string) bool {
		for _, t := range tags {
			if strings.TrimPrefix(t.Name, "@") == name {
				return true
			}
		}
		return false
	}
	for _, group := range expr {
		ok := false
		for _, t := range group {
			if has(t.tag) != t.not {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// selectFrom returns what a language and a tag expression select of the
// features load indexes.
func selectFrom(load func() (*suiteIndex, error), lang, tags string) ([]pickled, error) {
	paths, err := Paths(lang)
	if err != nil {
		return nil, err
	}
	idx, err := load()
	if err != nil {
		return nil, err
	}
	expr, serr := parseTags(tags)
	if serr != nil {
		serr.Lang = lang
		var words []string
		for _, w := range wordRe.FindAllString(serr.Term, -1) {
			if !operatorRe.MatchString(w) {
				words = append(words, w)
			}
		}
		serr.Closest = closest(idx.tags, 3, words...)
		return nil, serr
	}
	known := map[string]bool{}
	for _, t := range idx.tags {
		known[strings.TrimPrefix(t, "@")] = true
	}
	for _, group := range expr {
		for _, t := range group {
			if !known[t.tag] {
				return nil, &SelectionError{Err: ErrUnknownTag, Lang: lang, Tags: tags, Term: "@" + t.tag,
					Detail: fmt.Sprintf("no scenario carries @%s (tags are case-sensitive)", t.tag), Closest: closest(idx.tags, 3, t.tag)}
			}
		}
	}
	var out []pickled
	for _, p := range paths {
		for _, pk := range idx.byLang[p] {
			if matches(expr, pk.pickle.Tags) {
				out = append(out, pk)
			}
		}
	}
	if len(out) == 0 {
		return nil, &SelectionError{Err: ErrNothingSelected, Lang: lang, Tags: tags, Detail: nothingSelected(idx, paths, lang, expr)}
	}
	return out, nil
}

// nothingSelected explains an empty selection by what each tag of the
// expression selects alone.
func nothingSelected(idx *suiteIndex, paths []string, lang string, expr [][]term) string {
	var alone []string
	done := map[string]bool{}
	for _, group := range expr {
		for _, t := range group {
			if done[t.tag] {
				continue
			}
			done[t.tag] = true
			n := 0
			for _, p := range paths {
				for _, pk := range idx.byLang[p] {
					if matches([][]term{{t}}, pk.pickle.Tags) {
						n++
					}
				}
			}
			op := "@"
			if t.not {
				op = "~@"
			}
			alone = append(alone, fmt.Sprintf("%s%s alone selects %d", op, t.tag, n))
		}
	}
	return fmt.Sprintf("selects no scenario of --lang %s (%s); every term joined by && must hold at once", lang, strings.Join(alone, ", "))
}

// closest returns up to n known tags nearest to any of words by edit
// distance, ignoring case, nearest first.
func closest(known []string, n int, words ...string) []string {
	return firmakit.Nearest(known, n, firmakit.NearestOptions{Fold: func(s string) string { return strings.ToLower(strings.TrimPrefix(s, "@")) }}, words...)
}

// Paths returns the feature folders of a language selection.
func Paths(lang string) ([]string, error) {
	switch lang {
	case "", "all":
		return []string{"es", "en"}, nil
	case "es", "en":
		return []string{lang}, nil
	}
	return nil, fmt.Errorf("language %q: want es, en or all", lang)
}

// unran is the result of a selected scenario that godog did not run.
func unran(p pickled) reports.ScenarioResult {
	r := planned(p)
	r.Status, r.Error = reports.NotRun, "selected, but godog did not run it"
	return r
}

// planned is a selected scenario as a result with no status yet: where it
// is, its name and row, its language and tags.
func planned(p pickled) reports.ScenarioResult {
	r := reports.ScenarioResult{Feature: p.pickle.Uri, Line: p.line, Name: p.pickle.Name, Row: p.row,
		Lang: strings.SplitN(p.pickle.Uri, "/", 2)[0]}
	ClassifyTags(&r, p.pickle.Tags)
	return r
}
