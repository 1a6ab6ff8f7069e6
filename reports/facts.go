package reports

// Facts are what a failure (or an inconclusive result) is about, written
// by the step that judged it as it wrote its message: the report groups
// and shows failures by them and never reads a message back.
type Facts struct {
	// Field names what was judged: a field of a body, a header, a key;
	// "" for the answer or the notification as a whole.
	Field string `json:"field,omitempty"`
	// Expected and Seen are the values the rule asks for and the value
	// that came, when the step compared two.
	Expected string `json:"expected,omitempty"`
	Seen     string `json:"seen,omitempty"`
	// Status and Label are the answer the failure was judged on: its
	// HTTP status and its body's message (0 and "" for none).
	Status int    `json:"status,omitempty"`
	Label  string `json:"label,omitempty"`
	// Shape is the message's first line with what changes from one run
	// to the next taken out where the step wrote it: each value "…" (a
	// quoted one "\"…\""), each number #, an answer as its status and
	// label. Failures of a rule's kind that share it are one cause.
	Shape string `json:"shape"`
	// Summary is the message's first line with an answer said as its
	// status and label, not its body: what the console and the recap show.
	Summary string `json:"summary"`
	// Step is the failed step's sentence with its parameters taken out
	// ("…" for text, # for a number); "" when no step failed.
	Step string `json:"step,omitempty"`
}

// shape is a result's message as causes group and head it: its facts'
// shape, else its first line as it is.
func shape(r ScenarioResult) string {
	if r.Facts != nil && r.Facts.Shape != "" {
		return r.Facts.Shape
	}
	return firstLine(r.Error)
}

// stepShape is a result's failed step as causes list it: its facts'
// step, else the step as it ran.
func stepShape(r ScenarioResult) string {
	if r.Facts != nil && r.Facts.Step != "" {
		return r.Facts.Step
	}
	return r.FailedStep
}

// Short is a result's error as one line: its facts' summary (an answer
// said as its status and label), else its first line as it is.
func Short(r ScenarioResult) string {
	if r.Facts != nil && r.Facts.Summary != "" {
		return r.Facts.Summary
	}
	return firstLine(r.Error)
}
