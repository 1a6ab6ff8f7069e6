package features_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/firmakit/firmakit/features"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTraceabilityAndParity(t *testing.T) {
	for _, err := range features.Check(features.FS) {
		t.Error(err)
	}
}

// TestTraceIsCurrent keeps features/README.md in step with the features:
// regenerate it with `firmakit features trace > features/README.md`.
func TestTraceIsCurrent(t *testing.T) {
	want, err := features.Trace(features.FS)
	require.NoError(t, err)
	got, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "features/README.md is stale: run firmakit features trace > features/README.md")
}

func TestEveryInterfaceTableAndRuleIsRead(t *testing.T) {
	items, err := features.InterfaceItems(features.FS)
	require.NoError(t, err)
	refs := map[string]bool{}
	for _, it := range items {
		refs[it.Ref] = true
	}
	for _, ref := range []string{"§2.1 status_code", "§2.2 created_at", "§4.1 rule 2", "§4.2 rule 3", "§6.2 DEMO_SIGNED",
		"§6.2 rule 4", "§7 400 Missing headers", "§7 401 Invalid signature", "§5 bullet 5", "§9 bullet 2"} {
		assert.True(t, refs[ref], ref)
	}
}

// mutate copies the embedded features and changes one file.
func mutate(t *testing.T, name string, change func(string) string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(features.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(features.FS, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	}))
	before := string(m[name].Data)
	after := change(before)
	require.NotEqual(t, before, after, "the mutation changed nothing in %s", name)
	m[name] = &fstest.MapFile{Data: []byte(after)}
	return m
}

func TestCheckFindsProblems(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		change     func(string) string
		want       string
	}{
		{"an example row only in English", "en/verification.feature",
			func(s string) string { return strings.Replace(s, "      | check     | -86400 |\n", "", 1) },
			"@AUTH-EXPIRED: examples differ"},
		{"a kind tag only in Spanish", "es/demo.feature",
			func(s string) string { return strings.Replace(s, "@DEMO-REASON @spec", "@DEMO-REASON @profile", 1) },
			"@DEMO-REASON: tags differ"},
		{"two requirement tags on one scenario", "es/demo.feature",
			func(s string) string { return strings.Replace(s, "@DEMO-REASON @spec", "@DEMO-REASON @spec @wip", 1) },
			"has several requirement tags: DEMO-REASON+wip"},
		{"a scenario only in English", "es/firma.feature",
			func(s string) string { return s[:strings.Index(s, "  @SIG-VALIDATION-INVALID")] },
			"@SIG-VALIDATION-INVALID is in en/signature.feature but not in es"},
		{"a step only in Spanish", "es/demo.feature",
			func(s string) string {
				return strings.Replace(s, "    Y no trae document_url\n    Y no trae reason\n", "    Y no trae document_url\n    Y no trae reason\n    Y no trae reason\n", 1)
			},
			"@DEMO-CREATED-FIELDS: es has 6 steps, en 5"},
		{"an interface rule without an entry", "requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"§6.2 rule 1\"\n    scenarios: [DEMO-FREE-TEXT, DEMO-TITLE-ECHO, DEMO-NOT-DEMO, DEMO-PREFIX-NEAR, DEMO-PREFIX-ESCAPED]\n", "", 1)
			},
			`§6.2 rule 1 has no entry in requirements.yaml: "The text after the prefix is free."`},
		{"a profile rule without an entry", "requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"defaults §B bullet 6\"\n    scenarios: [DEMO-RETRY, DEMO-RETRY-4XX, DEMO-NO-RETRY-2XX, DEMO-RETRY-LATE-ANSWER, DEMO-RETRY-HANG-UP, DEMO-RETRY-REFUSED, DEMO-RETRY-SCHEDULE, DEMO-RETRY-EXHAUSTED, DEMO-RETRY-3XX]\n", "", 1)
			},
			`defaults §B bullet 6 has no entry in requirements.yaml: "Delivery: a 2xx answer within 10 s is success.`},
		{"a profile rule waived with a note only", "requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"defaults §B bullet 6\"\n    scenarios: [DEMO-RETRY, DEMO-RETRY-4XX, DEMO-NO-RETRY-2XX, DEMO-RETRY-LATE-ANSWER, DEMO-RETRY-HANG-UP, DEMO-RETRY-REFUSED, DEMO-RETRY-SCHEDULE, DEMO-RETRY-EXHAUSTED, DEMO-RETRY-3XX]\n", "  - ref: \"defaults §B bullet 6\"\n    note: later\n", 1)
			},
			"defaults §B bullet 6 has no scenario and names no Go test that checks it"},
		{"an interface rule checked by Go tests instead", "requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"§6.2 rule 4\"\n", "  - ref: \"§6.2 rule 4\"\n    tests: [firmakit.TestDemoState]\n", 1)
			},
			"§6.2 rule 4: only profile items may be checked by Go tests instead of scenarios"},
		{"a rule of the profile with no scenario", "defaults.md",
			func(s string) string {
				return strings.Replace(s, "- Any other title gets no demo notification.", "- Demo notifications are sent twice.\n- Any other title gets no demo notification.", 1)
			},
			`defaults §D bullet 5 has no entry in requirements.yaml`},
		{"a shown rule waived with a note", "requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"§6.2 rule 2\"\n    scenarios: [DEMO-NOTIFICATION, DEMO-PAYLOAD, DEMO-DELIVERY]\n", "  - ref: \"§6.2 rule 2\"\n    note: later\n", 1)
			},
			"§6.2 rule 2 has no scenario, but the interface shows it"},
		{"a scenario traced nowhere", "requirements.yaml",
			func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, "DEMO-SAME-RESPONSE, ", ""), "[DEMO-SAME-RESPONSE]", "[DEMO-NOTIFICATION]")
			},
			"@DEMO-SAME-RESPONSE is not traced to any item of the interface or of the profile"},
		{"a rule of the interface with no scenario", "service-interface.md",
			func(s string) string {
				return strings.Replace(s, "4. For BOUNCED,", "5. Every notification is sent twice.\n4. For BOUNCED,", 1)
			},
			`§6.2 rule 5 has no entry in requirements.yaml`},
		{"a scenario without a kind", "en/demo.feature",
			func(s string) string {
				return strings.Replace(s, "@DEMO-CREATED-FIELDS @spec", "@DEMO-CREATED-FIELDS", 1)
			},
			`needs one of @spec, @profile, @reference`},
		{"a need tag only in English", "es/verificacion.feature",
			func(s string) string {
				return strings.Replace(s, "@AUTH-DISABLED-KEY @spec @needs-disabled-credential", "@AUTH-DISABLED-KEY @spec", 1)
			},
			"@AUTH-DISABLED-KEY: tags differ"},
		{"a misspelt need tag", "en/verification.feature",
			func(s string) string {
				return strings.Replace(s, "@needs-other-merchant", "@needs-other-merchants", 1)
			},
			`carries @needs-other-merchants, which is not a known need tag (@needs-disabled-credential, @needs-other-merchant, @needs-other-merchant-webhook, @needs-sender)`},
		{"a Spanish file not in Spanish", "es/demo.feature",
			func(s string) string { return strings.Replace(s, "# language: es\n", "", 1) },
			`es/demo.feature: Parser errors`},
		{"a webhook example row only in English", "webhook/en/refusals.feature",
			func(s string) string { return strings.Replace(s, "      | 86400   |\n", "", 1) },
			"@WH-TIMESTAMP-OLD: examples differ"},
		{"a webhook scenario only in Spanish", "webhook/en/notifications.feature",
			func(s string) string { return s[:strings.Index(s, "  @WH-RAW-BYTES")] },
			"@WH-RAW-BYTES is in webhook/es/notificaciones.feature but not in webhook/en"},
		{"a webhook step only in English", "webhook/en/refusals.feature",
			func(s string) string {
				return strings.Replace(s, "    And it is sent without the signature header\n", "    And it is sent without the signature header\n    And it is signed with another secret\n", 1)
			},
			"@WH-HEADER-MISSING: es has 4 steps, en 5"},
		{"a Spanish webhook file not in Spanish", "webhook/es/rechazos.feature",
			func(s string) string { return strings.Replace(s, "# language: es\n", "", 1) },
			`webhook/es/rechazos.feature: Parser errors`},
		{"a webhook item without an entry", "webhook-requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"defaults §B bullet 5\"\n    scenarios: [WH-DUPLICATE, WH-DUPLICATE-EXACT, WH-SAME-CONTRACT, WH-EVENTS-OVER-TIME, WH-RETRY-AFTER-FAILURE, WH-OUT-OF-ORDER]\n", "", 1)
			},
			`defaults §B bullet 5 has no entry in webhook-requirements.yaml: "` + "`event_id`" + ` is unique per event`},
		{"a webhook scenario traced nowhere", "webhook-requirements.yaml",
			func(s string) string { return strings.ReplaceAll(s, "WH-ROTATION", "WH-STATE") },
			"@WH-ROTATION is not traced to any item of the interface or of the profile"},
		{"a webhook item of the interface waived with a note", "webhook-requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"§6.1 paragraph 1\"\n    scenarios: [WH-STATE, WH-FORGERY-PATHS, WH-EVENTS-OVER-TIME]\n", "  - ref: \"§6.1 paragraph 1\"\n    note: later\n", 1)
			},
			"§6.1 paragraph 1 has no scenario, but the interface shows it"},
		{"a webhook item naming a service scenario that does not exist", "webhook-requirements.yaml",
			func(s string) string { return strings.Replace(s, "[DEMO-FREE-TEXT]", "[DEMO-FREE-TEXTS]", 1) },
			"webhook-requirements.yaml: §6.2 rule 1 names the service scenario @DEMO-FREE-TEXTS, which no service scenario carries"},
		{"service scenarios named in the service's own requirements", "requirements.yaml",
			func(s string) string {
				return strings.Replace(s, "  - ref: \"§6.2 rule 4\"\n", "  - ref: \"§6.2 rule 4\"\n    service_scenarios: [DEMO-REASON]\n", 1)
			},
			"requirements.yaml: §6.2 rule 4: service_scenarios is for the other feature sets"},
		{"a requirement tag in both sets", "webhook/es/rechazos.feature",
			func(s string) string { return strings.ReplaceAll(s, "@WH-WRONG-SECRET", "@AUTH-WRONG-SECRET") },
			"@AUTH-WRONG-SECRET is in webhook/es/rechazos.feature but not in webhook/en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := features.Check(mutate(t, tc.file, tc.change))
			var all []string
			for _, e := range errs {
				all = append(all, e.Error())
			}
			assert.Contains(t, strings.Join(all, "\n"), tc.want)
		})
	}
}

// TestCheckFindsATagOfBothSets: a requirement tag may name the scenarios
// of one feature set only, so that a report never mixes the two.
func TestCheckFindsATagOfBothSets(t *testing.T) {
	rename := func(s string) string { return strings.ReplaceAll(s, "WH-WRONG-SECRET", "AUTH-WRONG-SECRET") }
	fsys := mutate(t, "webhook/es/rechazos.feature", rename)
	m := fsys.(fstest.MapFS)
	for _, name := range []string{"webhook/en/refusals.feature", "webhook-requirements.yaml"} {
		m[name] = &fstest.MapFile{Data: []byte(rename(string(m[name].Data)))}
	}
	var all []string
	for _, e := range features.Check(m) {
		all = append(all, e.Error())
	}
	assert.Equal(t, []string{"@AUTH-WRONG-SECRET is a requirement of both the service and the webhook feature sets"}, all)
}

// TestWebhookItems: the webhook set traces to sections 5 and 6 of the
// interface and section B of the profile, and to nothing else.
func TestWebhookItems(t *testing.T) {
	items, err := features.WebhookSet.Items(features.FS)
	require.NoError(t, err)
	refs := map[string]bool{}
	for _, it := range items {
		refs[it.Ref] = true
		assert.Regexp(t, `^(§5 |§6[ .]|defaults §B )`, it.Ref)
	}
	for _, ref := range []string{"§5 bullet 5", "§6.1 paragraph 1", "§6.2 rule 3", "§6.2 rule 4", "§6.3 bullet 1",
		"defaults §B paragraph 1", "defaults §B bullet 1", "defaults §B bullet 2", "defaults §B bullet 6"} {
		assert.True(t, refs[ref], ref)
	}
	scs, err := features.WebhookSet.Scenarios(features.FS, "es")
	require.NoError(t, err)
	assert.Len(t, scs, 27)
}

// TestDigestsAreBySet: changing a webhook feature changes the webhook
// set's digest and leaves the service's alone, and the other way round.
func TestDigestsAreBySet(t *testing.T) {
	digests := func(fsys fs.FS) (string, string) {
		s, err := features.ServiceSet.Digest(fsys)
		require.NoError(t, err)
		w, err := features.WebhookSet.Digest(fsys)
		require.NoError(t, err)
		return s, w
	}
	service, webhook := digests(features.FS)
	assert.NotEqual(t, service, webhook)
	s2, w2 := digests(mutate(t, "webhook/en/refusals.feature", func(s string) string { return s + "\n" }))
	assert.Equal(t, service, s2)
	assert.NotEqual(t, webhook, w2)
	s3, w3 := digests(mutate(t, "en/demo.feature", func(s string) string { return s + "\n" }))
	assert.NotEqual(t, service, s3)
	assert.Equal(t, webhook, w3)
	s4, w4 := digests(mutate(t, "defaults.md", func(s string) string { return s + "\n" }))
	assert.NotEqual(t, service, s4, "both sets trace to the documents")
	assert.NotEqual(t, webhook, w4)
}

func TestClassifyTag(t *testing.T) {
	for _, tc := range []struct {
		tag  string
		want features.TagClass
	}{
		{"AUTH-DISABLED-KEY", features.RequirementTag},
		{"@AUTH-DISABLED-KEY", features.RequirementTag},
		{"spec", features.KindTag},
		{"@profile", features.KindTag},
		{"reference", features.KindTag},
		{"needs-disabled-credential", features.NeedTag},
		{"@needs-other-merchant", features.NeedTag},
		{"needs-something-unknown", features.NeedTag},
		{"specs", features.RequirementTag},
	} {
		assert.Equal(t, tc.want, features.ClassifyTag(tc.tag), tc.tag)
	}
	n, ok := features.NeedOf("@needs-disabled-credential")
	require.True(t, ok)
	assert.Equal(t, []string{"--disabled-key", "--disabled-secret"}, n.Flags)
	_, ok = features.NeedOf("needs-something-unknown")
	assert.False(t, ok)
}

// The scenarios that need a credential a target run may lack carry the
// need tag, in both languages.
func TestNeedTagsAreOnTheScenariosThatNeedThem(t *testing.T) {
	for _, lang := range []string{"es", "en"} {
		want := map[string]string{"AUTH-DISABLED-KEY": "needs-disabled-credential", "AUTH-OTHER-MERCHANT-KEY": "needs-other-merchant"}
		scs, err := features.Scenarios(features.FS, lang)
		require.NoError(t, err)
		for _, s := range scs {
			if n, ok := want[s.Requirement]; ok {
				assert.Equal(t, []string{n}, s.Needs, "%s @%s", lang, s.Requirement)
				delete(want, s.Requirement)
			}
		}
		assert.Empty(t, want, "%s: scenarios not found", lang)
	}
}

// TestProfileItemsAreRead: sections A to F of defaults.md give rules,
// bullets, table rows (the check order as "check N") and paragraphs;
// section G and the text before section A give none.
func TestProfileItemsAreRead(t *testing.T) {
	items, err := features.ProfileItems(features.FS)
	require.NoError(t, err)
	refs := map[string]string{}
	for _, it := range items {
		refs[it.Ref] = it.Text
		assert.NotContains(t, it.Ref, "§G", "section G is the command line")
	}
	for _, ref := range []string{"defaults §A check 1", "defaults §A check 5", "defaults §A X-Service-Timestamp",
		"defaults §A bullet 3", "defaults §A paragraph 5", "defaults §B bullet 6", "defaults §C bullet 4", "defaults §D bullet 2",
		"defaults §E paragraph 1", "defaults §F disabled credential"} {
		assert.Contains(t, refs, ref)
	}
	// A bullet keeps its continuation lines.
	assert.Contains(t, refs["defaults §B bullet 6"], "then records it as failed")
	assert.Contains(t, refs["defaults §A paragraph 5"], "No client input may ever produce a 5xx")
}

// TestNamedGoTestsExist: a profile item checked by Go tests instead of a
// scenario names tests that exist in this module.
func TestNamedGoTestsExist(t *testing.T) {
	var reqs []features.Requirement
	for _, set := range features.Sets() {
		r, err := set.Requirements(features.FS)
		require.NoError(t, err)
		reqs = append(reqs, r...)
	}
	dirs := map[string]string{"firmakit": "..", "reference": "../reference", "receiver": "../receiver", "main": "../cmd/firmakit", "steps": "../steps", "reports": "../reports"}
	named := 0
	for _, r := range reqs {
		for _, name := range r.Tests {
			named++
			pkg, fn, ok := strings.Cut(name, ".")
			dir, known := dirs[pkg]
			require.True(t, ok && known, "%s: %q is not package.TestName of a known package", r.Ref, name)
			files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
			require.NoError(t, err)
			found := false
			for _, f := range files {
				src, err := os.ReadFile(f)
				require.NoError(t, err)
				found = found || strings.Contains(string(src), "\nfunc "+fn+"(")
			}
			assert.True(t, found, "%s names %s, which is not a test in %s", r.Ref, name, dir)
		}
	}
	assert.Greater(t, named, 0)
}
