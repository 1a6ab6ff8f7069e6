package features

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Set is one feature set of firmakit: the Spanish and English features of
// one direction of a merchant's integration, the requirements file that
// traces them, and the document items they trace to. The service set
// checks a service (firmakit certify); the webhook set checks a merchant's
// webhook endpoint, with firmakit playing the service (firmakit
// certify-webhook).
type Set struct {
	// Name names the set in reports and messages: "service" or "webhook".
	Name string
	// Dir is the folder, in FS, of the set's es/ and en/ folders; "" for
	// FS's root.
	Dir string
	// RequirementsFile is the set's requirements map, at FS's root.
	RequirementsFile string
	// items reads the document items the set traces to.
	items func(fsys fs.FS) ([]Item, error)
}

// The feature sets. Every check and the traceability table cover both.
var (
	// ServiceSet checks a service: features/es, features/en,
	// requirements.yaml, traced to the whole interface and sections A
	// to F of the bundled profile.
	ServiceSet = &Set{Name: "service", RequirementsFile: "requirements.yaml", items: AllItems}
	// WebhookSet checks a merchant's webhook endpoint: features/webhook/es,
	// features/webhook/en, webhook-requirements.yaml, traced to sections 5
	// and 6 of the interface and section B of the bundled profile.
	WebhookSet = &Set{Name: "webhook", Dir: "webhook", RequirementsFile: "webhook-requirements.yaml", items: WebhookItems}
)

// Sets returns every feature set, the service's first.
func Sets() []*Set { return []*Set{ServiceSet, WebhookSet} }

// WebhookItems reads the items a webhook endpoint's behaviour traces to:
// sections 5 (authentication) and 6 (events) of the interface and section
// B (webhook notifications) of the bundled profile. Items about the other
// direction (a merchant's requests) are among them, so that the webhook
// requirements say where each is checked instead.
func WebhookItems(fsys fs.FS) ([]Item, error) {
	all, err := AllItems(fsys)
	if err != nil {
		return nil, err
	}
	var out []Item
	for _, it := range all {
		profile := strings.HasPrefix(it.Ref, ProfilePrefix)
		sec := it.Section
		if (!profile && (sec == "5" || sec == "6" || strings.HasPrefix(sec, "6."))) || (profile && sec == "B") {
			out = append(out, it)
		}
	}
	return out, nil
}

// Items reads the document items the set traces to.
func (s *Set) Items(fsys fs.FS) ([]Item, error) { return s.items(fsys) }

// Requirements reads the set's requirements file.
func (s *Set) Requirements(fsys fs.FS) ([]Requirement, error) {
	return readRequirements(fsys, s.RequirementsFile)
}

// Features returns the part of fsys that holds the set's es/ and en/
// folders, which godog runs.
func (s *Set) Features(fsys fs.FS) (fs.FS, error) {
	if s.Dir == "" {
		return fsys, nil
	}
	return fs.Sub(fsys, s.Dir)
}

// Scenarios parses the set's feature files of one language.
func (s *Set) Scenarios(fsys fs.FS, lang string) ([]Scenario, error) {
	sub, err := s.Features(fsys)
	if err != nil {
		return nil, err
	}
	scs, err := Scenarios(sub, lang)
	if err != nil && s.Dir != "" {
		return nil, fmt.Errorf("%s/%w", s.Dir, err)
	}
	return scs, err
}

// folder is the path of a language folder of the set, for messages.
func (s *Set) folder(lang string) string { return path.Join(s.Dir, lang) }

// owns tells whether a file of FS belongs to the set: its features and
// requirements, and the documents they trace to.
func (s *Set) owns(p string) bool {
	switch {
	case p == "service-interface.md" || p == "defaults.md" || p == s.RequirementsFile:
		return true
	case s.Dir != "":
		return strings.HasPrefix(p, s.Dir+"/")
	}
	for _, o := range Sets() {
		if o != s && o.owns(p) {
			return false
		}
	}
	return strings.HasSuffix(p, ".feature")
}

// Digest fingerprints the set in fsys: its features, its requirements
// and the documents they trace to. The same digest means the same
// scenarios were run against the same documents.
func (s *Set) Digest(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !s.owns(p) {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		h.Write([]byte(p + "\x00"))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
