package engine

import (
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// Registrar registers a step sentence: godog's ScenarioContext when a
// suite runs, the recorder behind ListSentences when they are listed. The
// sentences are registered in the file of their method, by a direct call,
// so that godog, which reports a step where it was registered, points at
// that file.
type Registrar interface {
	Step(expr, stepFunc any)
}

// Sentence is one step of the suites, in both languages: what a team
// needs to write new scenarios with firmakit's steps without reading Go.
type Sentence struct {
	// Set is "service" (the features of certify) or "webhook" (those of
	// certify-webhook).
	Set string `json:"set"`
	// English and Spanish are the step's regular expressions, without
	// the anchors.
	English string `json:"en"`
	Spanish string `json:"es"`
	// Params describe each parameter, in order: the words it takes
	// ("check | signature"), "a whole number", "any text" or the pattern.
	Params []string `json:"params,omitempty"`
	// Method is the step method, Location the file and line where the
	// sentences are registered, which godog reports.
	Method   string `json:"method"`
	Location string `json:"location"`
}

// Compiled returns a sentence's expression compiled, once per process:
// every scenario registers every sentence again, and godog would compile
// each string each time (7 ms of CPU a scenario for the service set).
func Compiled(expr string) *regexp.Regexp {
	if re, ok := compiledExprs.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := compiledExprs.LoadOrStore(expr, regexp.MustCompile(expr))
	return re.(*regexp.Regexp)
}

var compiledExprs sync.Map // expression → *regexp.Regexp

// StepShape is a step's text with its parameters taken out, as the
// sentence it matches (of those registered in this process; the longest
// expression when several do) captures them: # for a number, "…" for any
// other text; the text as it is when no sentence matches it. Outline rows
// of one step share it.
func StepShape(text string) string {
	var best string
	var at []int
	compiledExprs.Range(func(k, v any) bool {
		expr := k.(string)
		m := v.(*regexp.Regexp).FindStringSubmatchIndex(text)
		if m == nil || m[0] != 0 || m[1] != len(text) {
			return true
		}
		if at == nil || len(expr) > len(best) || len(expr) == len(best) && expr < best {
			best, at = expr, m
		}
		return true
	})
	if at == nil {
		return text
	}
	var b strings.Builder
	from := 0
	for g := 2; g+1 < len(at); g += 2 {
		if at[g] < from || at[g] < 0 {
			continue // a group inside the last one, or one not taken
		}
		b.WriteString(text[from:at[g]])
		if number(text[at[g]:at[g+1]]) {
			b.WriteString("#")
		} else {
			b.WriteString("…")
		}
		from = at[g+1]
	}
	b.WriteString(text[from:])
	return b.String()
}

// number tells whether s is a whole number, maybe negative.
func number(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// recorder is a registrar that notes what is registered.
type recorder struct {
	set  string
	list []Sentence
	err  error
}

func (r *recorder) Step(expr, fn any) {
	text := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprint(expr), "^"), "$")
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	name = strings.TrimSuffix(name[strings.LastIndex(name, ".")+1:], "-fm")
	_, file, line, _ := runtime.Caller(1)
	loc := fmt.Sprintf("%s:%d", file[strings.LastIndex(file, "/")+1:], line)
	if n := len(r.list); n > 0 && r.list[n-1].Method == name && r.list[n-1].Spanish == "" {
		r.list[n-1].Spanish = text
		return
	}
	if n := len(r.list); n > 0 && r.list[n-1].Spanish == "" && r.err == nil {
		r.err = fmt.Errorf("steps: %s has no Spanish sentence", r.list[n-1].Method)
	}
	r.list = append(r.list, Sentence{Set: r.set, English: text, Method: name, Location: loc, Params: params(text)})
}

// ListSentences lists the sentences that bind registers, as the set named
// set (Sentence.Set); see Sentences.
func ListSentences(set string, bind func(Registrar)) ([]Sentence, error) {
	r := &recorder{set: set}
	bind(r)
	seen := map[string]bool{}
	for _, s := range r.list {
		if s.Spanish == "" {
			return nil, fmt.Errorf("steps: %s has no Spanish sentence", s.Method)
		}
		if seen[s.Method] && s.Method != "itIsDeliveredAgainWithTheSameEventID" && s.Method != "theDeliveryAgainHasAValidSignature" {
			return nil, fmt.Errorf("steps: %s is bound twice", s.Method)
		}
		seen[s.Method] = true
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.list, nil
}

var group = regexp.MustCompile(`\(([^()]*)\)`)

var words = regexp.MustCompile(`^[\w\- .,]+(\|[\w\- .,]+)*$`)

// params describes each capture group of a step's expression.
func params(expr string) []string {
	var ps []string
	for _, g := range group.FindAllStringSubmatch(expr, -1) {
		switch p := g[1]; {
		case p == `\d+`:
			ps = append(ps, "a whole number")
		case p == `-?\d+`:
			ps = append(ps, "a whole number, maybe negative")
		case p == `[^"]*`, p == `.+`, p == `[\s\S]*`:
			ps = append(ps, "any text")
		case p == `[[{].*`:
			ps = append(ps, "a JSON value starting [ or {")
		case p == `[a-z]+`:
			ps = append(ps, "a lower-case word")
		case p == `[A-Z]+`:
			ps = append(ps, "an upper-case word")
		case p == `DEMO_[A-Z]+`:
			ps = append(ps, "a demo prefix, DEMO_ and an upper-case word")
		case words.MatchString(p):
			ps = append(ps, strings.ReplaceAll(p, "|", " | "))
		default:
			ps = append(ps, "matching "+p)
		}
	}
	return ps
}
