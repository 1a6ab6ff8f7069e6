package features

import "strings"

// TagClass is what a scenario's tag says about it.
type TagClass int

// The classes of tags. Every scenario carries one requirement tag and one
// kind (on the scenario or on each Examples block); need tags are optional.
const (
	// RequirementTag traces the scenario to the interface document, e.g.
	// AUTH-DISABLED-KEY.
	RequirementTag TagClass = iota
	// KindTag says whose rule the scenario checks: spec, profile or reference.
	KindTag
	// NeedTag names something the target run must be given for the
	// scenario to run at all, e.g. needs-disabled-credential.
	NeedTag
)

// NeedPrefix starts every need tag.
const NeedPrefix = "needs-"

// Need is something a run against a target may lack, and without which
// the scenarios tagged with it are reported as not run.
type Need struct {
	Tag   string   // without @, e.g. "needs-disabled-credential"
	What  string   // what the run must be given
	Flags []string // the firmakit certify flags that give it
}

// Needs lists every need tag a scenario may carry; Check refuses others.
var Needs = []Need{
	{Tag: "needs-disabled-credential", What: "a disabled credential of the merchant", Flags: []string{"--disabled-key", "--disabled-secret"}},
	{Tag: "needs-other-merchant", What: "another merchant's credential", Flags: []string{"--other-key", "--other-secret"}},
	{Tag: "needs-other-merchant-webhook", What: "another merchant's credential, id and webhook secret, its signature_webhook at the receiver's /hooks/<its id>", Flags: []string{"--other-key", "--other-secret", "--other-merchant", "--other-webhook-secret"}},
	{Tag: "needs-sender", What: "the merchant's configured sender name and e-mail", Flags: []string{"--sender-name", "--sender-email"}},
}

// NeedOf returns the need a tag (with or without @) names; false when it
// is not a known need tag.
func NeedOf(tag string) (Need, bool) {
	tag = strings.TrimPrefix(tag, "@")
	for _, n := range Needs {
		if n.Tag == tag {
			return n, true
		}
	}
	return Need{}, false
}

// ClassifyTag tells what a tag (with or without @) is. Any tag starting
// with NeedPrefix is a need tag, known or not, so that a misspelt one is
// never taken for a requirement; Check reports the unknown ones.
func ClassifyTag(tag string) TagClass {
	tag = strings.TrimPrefix(tag, "@")
	switch {
	case kinds[tag]:
		return KindTag
	case strings.HasPrefix(tag, NeedPrefix):
		return NeedTag
	}
	return RequirementTag
}
