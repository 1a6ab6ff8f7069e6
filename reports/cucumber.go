package reports

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// AnnotateCucumber adds to godog's Cucumber JSON what godog cannot know:
// each warning a scenario noted, on the step that noted it (matched by the
// step's text; the scenario's last step when none matches), and the item
// of the documents a failure breaks, on its failed step; each as a
// text/plain embedding and a line of the step's "output", as Cucumber-JVM
// writes what a step logs. A scenario firmakit failed whose steps all
// passed in godog's eyes (a warning under --strict) gets its failed step
// marked failed with firmakit's error, so that the file agrees with the
// verdict. Scenarios are matched to results by feature file and line (the
// example row's for an outline). Every other member is kept as godog
// wrote it, in its order. It returns an error for data that is not
// godog's shape: a list of features with elements and steps.
func AnnotateCucumber(data []byte, results []ScenarioResult) ([]byte, error) {
	byPlace := map[string]ScenarioResult{}
	for _, r := range results {
		byPlace[r.Feature+"\x00"+strconv.Itoa(r.Line)] = r
	}
	var features []*jsonObject
	if err := json.Unmarshal(data, &features); err != nil {
		return nil, fmt.Errorf("not Cucumber JSON: %w", err)
	}
	for _, f := range features {
		var uri string
		if err := f.get("uri", &uri); err != nil {
			return nil, err
		}
		var elements []*jsonObject
		if err := f.getOptional("elements", &elements); err != nil {
			return nil, err
		}
		if len(elements) == 0 {
			continue
		}
		for _, el := range elements {
			var line int
			if err := el.get("line", &line); err != nil {
				return nil, err
			}
			r, ok := byPlace[uri+"\x00"+strconv.Itoa(line)]
			if !ok {
				continue
			}
			if err := annotateElement(el, r); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", uri, line, err)
			}
		}
		if err := f.set("elements", elements); err != nil {
			return nil, err
		}
	}
	if f := explorationFeature(results); f != nil {
		features = append(features, f)
	}
	raw, err := json.Marshal(features)
	if err != nil {
		return nil, err
	}
	// As godog writes it: indented by four spaces, with a final newline.
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "    "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// explorationFeature is the results of an exploration as a feature of
// Cucumber JSON, a scenario per result with one step that failed with
// its error, nil when there are none: godog never ran them.
func explorationFeature(results []ScenarioResult) *jsonObject {
	type (
		tag struct {
			Name string `json:"name"`
			Line int    `json:"line"`
		}
		result struct {
			Status string `json:"status"`
			Error  string `json:"error_message,omitempty"`
		}
		step struct {
			Keyword string   `json:"keyword"`
			Name    string   `json:"name"`
			Line    int      `json:"line"`
			Result  result   `json:"result"`
			Output  []string `json:"output,omitempty"`
		}
		element struct {
			ID      string `json:"id"`
			Keyword string `json:"keyword"`
			Name    string `json:"name"`
			Line    int    `json:"line"`
			Type    string `json:"type"`
			Tags    []tag  `json:"tags"`
			Steps   []step `json:"steps"`
		}
		feature struct {
			URI      string    `json:"uri"`
			ID       string    `json:"id"`
			Keyword  string    `json:"keyword"`
			Name     string    `json:"name"`
			Line     int       `json:"line"`
			Elements []element `json:"elements"`
		}
	)
	f := feature{URI: ExplorationFeature, ID: ExplorationFeature, Keyword: "Feature", Name: "exploration with generated requests", Line: 1}
	for _, r := range results {
		if r.Feature != ExplorationFeature {
			continue
		}
		st := step{Keyword: "Then ", Name: r.FailedStep, Line: 1, Result: result{Status: r.Status, Error: r.Error}}
		if r.Breaks != "" {
			st.Output = []string{"breaks: " + cited(r.Breaks)}
		}
		f.Elements = append(f.Elements, element{ID: ExplorationFeature + ";" + strings.ToLower(r.Requirement), Keyword: "Scenario",
			Name: r.Name, Line: 1, Type: "scenario", Tags: []tag{{Name: "@" + r.Requirement, Line: 1}}, Steps: []step{st}})
	}
	if len(f.Elements) == 0 {
		return nil
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return nil
	}
	var o jsonObject
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return &o
}

// cucumberStep is what AnnotateCucumber reads of a step.
type cucumberStep struct {
	obj    *jsonObject
	name   string
	status string
}

// annotateElement puts the result's warnings and breach on the steps of
// one scenario element.
func annotateElement(el *jsonObject, r ScenarioResult) error {
	var objs []*jsonObject
	if err := el.getOptional("steps", &objs); err != nil {
		return err
	}
	if len(objs) == 0 {
		return nil
	}
	steps := make([]cucumberStep, len(objs))
	godogFailed := false
	for i, o := range objs {
		var result struct {
			Status string `json:"status"`
		}
		steps[i].obj = o
		if err := o.get("name", &steps[i].name); err != nil {
			return err
		}
		if err := o.get("result", &result); err != nil {
			return err
		}
		steps[i].status = result.Status
		godogFailed = godogFailed || result.Status == Failed
	}
	find := func(text string) *cucumberStep {
		for i := range steps {
			if text != "" && steps[i].name == text {
				return &steps[i]
			}
		}
		return &steps[len(steps)-1]
	}
	for _, w := range r.Warnings {
		if err := note(find(w.Step).obj, "firmakit warning", "warning: "+w.String()); err != nil {
			return err
		}
	}
	failed := r.Status == Failed || r.Status == ExpectedFailure
	if failed && r.Breaks != "" {
		if err := note(find(r.FailedStep).obj, "firmakit breach", "breaks: "+cited(r.Breaks)); err != nil {
			return err
		}
	}
	if r.Status == Failed && !godogFailed {
		st := find(r.FailedStep)
		var result jsonObject
		if err := st.obj.get("result", &result); err != nil {
			return err
		}
		if err := result.set("status", Failed); err != nil {
			return err
		}
		if err := result.set("error_message", r.Error); err != nil {
			return err
		}
		if err := st.obj.set("result", &result); err != nil {
			return err
		}
	}
	return el.set("steps", objs)
}

// note adds a line of text to a step: as a text/plain embedding named
// name, and as a line of its "output".
func note(step *jsonObject, name, text string) error {
	type embedding struct {
		Name     string `json:"name"`
		MimeType string `json:"mime_type"`
		Data     string `json:"data"`
	}
	var embeddings []embedding
	var output []string
	if err := step.getOptional("embeddings", &embeddings); err != nil {
		return err
	}
	if err := step.getOptional("output", &output); err != nil {
		return err
	}
	embeddings = append(embeddings, embedding{Name: name, MimeType: "text/plain", Data: base64.StdEncoding.EncodeToString([]byte(text))})
	output = append(output, text)
	if err := step.set("embeddings", embeddings); err != nil {
		return err
	}
	return step.set("output", output)
}

// jsonObject is a JSON object that keeps its members in the order they
// came, so that rewriting a file changes only what is meant to change.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func (o *jsonObject) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not a JSON object")
	}
	o.keys, o.vals = nil, map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, seen := o.vals[key]; !seen {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = v
	}
	_, err = dec.Token()
	return err
}

func (o *jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// get decodes member key into v; a missing member is an error.
func (o *jsonObject) get(key string, v any) error {
	raw, ok := o.vals[key]
	if !ok {
		return fmt.Errorf("no member %q", key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("member %q: %w", key, err)
	}
	return nil
}

// getOptional is get, leaving v as it is for a missing member.
func (o *jsonObject) getOptional(key string, v any) error {
	if _, ok := o.vals[key]; !ok {
		return nil
	}
	return o.get(key, v)
}

// set sets member key to v, after the others when it is new.
func (o *jsonObject) set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = raw
	return nil
}
