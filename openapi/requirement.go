package openapi

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/features"
)

// An item names the document items (refs of features/requirements.yaml
// or webhook-requirements.yaml, such as "§4.1 Success") that a part of
// the OpenAPI document describes. Its requirement tags are those the
// traceability files give those items: the document repeats no list of
// scenarios of its own.
type item struct {
	// service and webhook are refs of the service set's and of the
	// webhook set's requirements.
	service, webhook []string
	// within, when set, keeps only the tags that these service refs name
	// too: a 413 is "§8 paragraph 1" as far as it is an error answer
	// ("defaults §A paragraph 5"), not the demo notification's delay.
	within []string
	// only, when set, keeps only these tags of the refs: an answer that
	// one scenario of a rule checks.
	only []string
}

// tracer reads the requirement tags of items from the feature sets'
// traceability files.
type tracer struct {
	service, webhook map[string][]string // ref -> tags
}

func newTracer() (*tracer, error) {
	t := &tracer{}
	for _, s := range []struct {
		set *features.Set
		dst *map[string][]string
	}{{features.ServiceSet, &t.service}, {features.WebhookSet, &t.webhook}} {
		reqs, err := s.set.Requirements(features.FS)
		if err != nil {
			return nil, fmt.Errorf("openapi: the %s set's requirements: %w", s.set.Name, err)
		}
		*s.dst = map[string][]string{}
		for _, r := range reqs {
			(*s.dst)[r.Ref] = append(slices.Clone(r.Scenarios), r.ServiceScenarios...)
		}
	}
	return t, nil
}

// tags returns the requirement tags of it (without their "@"), in the
// order the refs name them, each once. A ref that is not in the
// traceability files is an error: the document would point nowhere.
func (t *tracer) tags(it item) ([]string, error) {
	var keep map[string]bool
	if len(it.within) > 0 {
		keep = map[string]bool{}
		for _, r := range it.within {
			tags, ok := t.service[r]
			if !ok {
				return nil, fmt.Errorf("openapi: %q is not an item of features/requirements.yaml", r)
			}
			for _, tag := range tags {
				keep[tag] = true
			}
		}
	}
	var out []string
	add := func(refs []string, set map[string][]string, file string) error {
		for _, r := range refs {
			tags, ok := set[r]
			if !ok {
				return fmt.Errorf("openapi: %q is not an item of features/%s", r, file)
			}
			for _, tag := range tags {
				if (keep == nil || keep[tag]) && (it.only == nil || slices.Contains(it.only, tag)) && !slices.Contains(out, tag) {
					out = append(out, tag)
				}
			}
		}
		return nil
	}
	if err := add(it.service, t.service, features.ServiceSet.RequirementsFile); err != nil {
		return nil, err
	}
	if err := add(it.webhook, t.webhook, features.WebhookSet.RequirementsFile); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("openapi: no scenario checks %v %v", it.service, it.webhook)
	}
	return out, nil
}

// The items each operation and answer of the document describes.
var (
	itemCheck = item{service: []string{"§4.1 Method", "§4.1 Path", "§4.1 Path parameters", "§4.1 Headers",
		"§4.1 Request body", "§9 bullet 1", "defaults §A paragraph 1"}}
	itemCheckOK = item{service: []string{"§4.1 Success", "§4.1 rule 1", "§2.1 status_code", "§2.1 message"}}
	// itemVersion is the 404 of a version segment the service does not accept.
	itemVersion = item{service: []string{"§4.1 Path", "defaults §F api_version accepted on the check path"},
		within: []string{"defaults §A paragraph 5"}}
	// itemNoEndpoint is the 404 of a merchant segment holding an encoded
	// slash: no merchant of the key, refused (a 4xx) by the scenarios.
	itemNoEndpoint = item{service: []string{"defaults §A check 3"}, only: []string{"AUTH-PATH-ENCODED-SLASH"}}
	itemCreate     = item{service: []string{"§4.2 Method", "§4.2 Path", "§4.2 Path parameter", "§4.2 Request body",
		"§4.2 rule 1", "§9 bullet 2", "§2.4 bullet 1", "defaults §C bullet 1", "defaults §C bullet 2",
		"defaults §C bullet 3", "defaults §C bullet 4"}}
	itemCreated = item{service: []string{"§4.2 Success", "defaults §C paragraph 1", "§2.2 signature_id", "§2.2 status",
		"§2.2 title", "§2.2 routing", "§2.2 sender", "§2.2 documents", "§2.2 recipients", "§2.2 created_at",
		"§4.2 rule 2", "defaults §D bullet 3"}}
	// itemBody is the 400 of check 5; itemRefused the create refusals.
	// (The authentication refusals' items are refusalItem's.)
	itemBody      = item{service: []string{"defaults §A check 5"}}
	itemRefused   = item{service: []string{"§4.2 rule 3", "§7 bullet 2", "defaults §C paragraph 2"}}
	itemTooLarge  = item{service: []string{"§8 paragraph 1"}, within: []string{"defaults §A paragraph 5"}}
	itemErrorBody = item{service: []string{"§7 bullet 1", "defaults §A paragraph 5"}}
	itemSigning   = item{service: []string{"§5 bullet 1", "§5 bullet 2", "§5 bullet 3", "§5 bullet 4",
		"defaults §A paragraph 2", "defaults §A bullet 1", "defaults §A bullet 2", "defaults §A bullet 3", "defaults §A bullet 4",
		"defaults §A paragraph 4"}}

	// The notification: what the service sends (the service set) and what
	// a merchant's endpoint does with it (the webhook set).
	itemNotification = item{service: []string{"§6 paragraph 1", "§5 bullet 5", "§6.2 rule 2", "defaults §B paragraph 1",
		"defaults §B paragraph 2", "defaults §B bullet 4", "§6.3 bullet 1"},
		webhook: []string{"§6 paragraph 1", "§5 bullet 5", "defaults §B paragraph 1", "defaults §B paragraph 2", "defaults §B bullet 4"}}
	itemDelivered = item{service: []string{"defaults §B bullet 6", "defaults §B bullet 5"},
		webhook: []string{"defaults §B bullet 6", "defaults §B bullet 5"}}
	itemRetried = item{service: []string{"defaults §B bullet 6"},
		webhook: []string{"§5 bullet 3", "defaults §B bullet 1", "defaults §B bullet 2"}}
)

// itemState is what a notification of one state carries.
func itemState(state string) item {
	return item{service: []string{"§6.2 " + "DEMO_" + state}, webhook: []string{"§6.2 " + "DEMO_" + state}}
}

// refusalItem is the item of an authentication refusal: its row of §7 and
// its check of defaults.md A (firmakit.Refusals).
func refusalItem(r firmakit.Refusal) item { return item{service: []string{r.Row, r.Ref}} }

// missingItems are the items of the authentication refusals answered 400.
func missingItems() []item {
	var out []item
	for _, r := range firmakit.Refusals {
		if r.Status == http.StatusBadRequest {
			out = append(out, refusalItem(r))
		}
	}
	return out
}
