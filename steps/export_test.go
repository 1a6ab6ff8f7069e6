package steps

// KnownTags returns every tag of the embedded features, both languages,
// with @, sorted: requirement, kind (@spec, @profile, @reference) and
// need tags, on scenarios, outlines' Examples or features.
func KnownTags() ([]string, error) {
	s, err := loadSuite()
	if err != nil {
		return nil, err
	}
	return append([]string(nil), s.tags...), nil
}
