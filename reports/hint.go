package reports

// Hint names a likely mistake that the pattern of a run's failures points
// at, for the reports to say first. ID is its key in the report's
// language tables ("hint."+ID); Args fill the key's placeholders, and an
// Arg that is itself a Hint is said in the same language.
type Hint struct {
	ID   string
	Args []any
}

// In says the hint in a language of ReportLangs.
func (h Hint) In(lang string) string {
	args := make([]any, len(h.Args))
	for i, a := range h.Args {
		if sub, ok := a.(Hint); ok {
			a = sub.In(lang)
		}
		args[i] = a
	}
	return tr(lang, "hint."+h.ID, args...)
}

// String says the hint in English, as the terminal and the certificate
// do.
func (h Hint) String() string { return h.In("en") }
