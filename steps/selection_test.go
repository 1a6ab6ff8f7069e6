package steps_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/features"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// godogCount is how many scenarios godog's own parser and tag filter
// select: what it will run.
func godogCount(t *testing.T, lang, tags string) int {
	t.Helper()
	paths, err := steps.Paths(lang)
	require.NoError(t, err)
	fts, err := godog.TestSuite{Options: &godog.Options{FS: features.FS, Paths: paths, Tags: tags}}.RetrieveFeatures()
	require.NoError(t, err)
	n := 0
	for _, f := range fts {
		n += len(f.Pickles)
	}
	return n
}

// TestSelectCountsWhatGodogRuns compares Select with godog's own parser
// and filter, for every form of expression godog reads, in each language.
func TestSelectCountsWhatGodogRuns(t *testing.T) {
	for _, tags := range []string{
		"",
		"@AUTH-OK",
		"AUTH-OK",
		"~@reference",
		"~reference",
		"@AUTH-OK,@DEMO-REASON",
		" @AUTH-OK , @DEMO-REASON ",
		"@spec && ~@AUTH-OK",
		"@profile",
		"@DEMO-NOT-DEMO && @profile",
		"@AUTH-EXPIRED,@DEMO-NOT-DEMO && ~@profile",
		"@needs-disabled-credential,@needs-other-merchant",
		"~@reference && ~@needs-disabled-credential && ~@needs-other-merchant",
	} {
		for _, lang := range []string{"en", "es", "all"} {
			n, err := steps.Select(lang, tags)
			require.NoError(t, err, "%s %q", lang, tags)
			assert.Equal(t, godogCount(t, lang, tags), n, "--lang %s --tags %q", lang, tags)
		}
	}
	// Examples-level tags select outline rows one by one.
	all, err := steps.Select("en", "@DEMO-NOT-DEMO")
	require.NoError(t, err)
	profile, err := steps.Select("en", "@DEMO-NOT-DEMO && @profile")
	require.NoError(t, err)
	spec, err := steps.Select("en", "@DEMO-NOT-DEMO && @spec")
	require.NoError(t, err)
	assert.Greater(t, profile, 0)
	assert.Greater(t, spec, 0)
	assert.Equal(t, all, profile+spec)
}

// TestSelectRefuses starts from a valid expression and breaks it one way
// per case.
func TestSelectRefuses(t *testing.T) {
	n, err := steps.Select("en", "@AUTH-OK,@DEMO-REASON")
	require.NoError(t, err)
	require.Greater(t, n, 0)
	for _, tc := range []struct {
		name, lang, tags string
		want             error
		msg              string
		closest          string // first of Closest
	}{
		{"a tag no scenario carries", "en", "@AUTH-OKK,@DEMO-REASON", steps.ErrUnknownTag,
			`tag expression "@AUTH-OKK,@DEMO-REASON": no scenario carries @AUTH-OKK (tags are case-sensitive); the closest known tags: @AUTH-OK, `, "@AUTH-OK"},
		{"a tag in the wrong case", "en", "@auth-ok,@DEMO-REASON", steps.ErrUnknownTag, "no scenario carries @auth-ok", "@AUTH-OK"},
		{"an unknown tag left out", "en", "~@refrence", steps.ErrUnknownTag, "no scenario carries @refrence", "@reference"},
		{"the tag @NOPE", "all", "@NOPE", steps.ErrUnknownTag, "no scenario carries @NOPE", ""},
		{"a misspelt need tag", "en", "~@needs-disabled-credentials", steps.ErrUnknownTag, "no scenario carries @needs-disabled-credentials", "@needs-disabled-credential"},
		{"or spelt out", "en", "@AUTH-OK or @DEMO-REASON", steps.ErrMalformedTags,
			`"@AUTH-OK or @DEMO-REASON" is not one tag: godog reads @a,@b as a or b, @a && @b as a and b, ~@a as not a, and nothing else`, "@AUTH-OK"},
		{"not spelt out", "en", "not @AUTH-OK", steps.ErrMalformedTags, `"not @AUTH-OK" is not one tag`, "@AUTH-OK"},
		{"a stray comma", "en", "@AUTH-OK,", steps.ErrMalformedTags, "an empty term (a stray ',' or '&&')", ""},
		{"a stray and", "en", "@AUTH-OK && ", steps.ErrMalformedTags, "an empty term", ""},
		{"a lone @", "en", "@", steps.ErrMalformedTags, `"@" is not one tag`, ""},
		{"parentheses", "en", "(@AUTH-OK,@DEMO-REASON) && ~@profile", steps.ErrMalformedTags, `"(@AUTH-OK": godog reads`, "@AUTH-OK"},
		{"||", "en", "@AUTH-OK || @DEMO-REASON", steps.ErrMalformedTags, `"@AUTH-OK || @DEMO-REASON": godog reads`, "@AUTH-OK"},
		{"a single &", "en", "@AUTH-OK & @DEMO-REASON", steps.ErrMalformedTags, `"@AUTH-OK & @DEMO-REASON": godog reads`, "@AUTH-OK"},
		{"a double negation", "en", "~~@AUTH-OK", steps.ErrMalformedTags, `"~~@AUTH-OK" is not one tag`, "@AUTH-OK"},
		{"blank", "en", "  ", steps.ErrMalformedTags, "blank; leave it empty to select every scenario", ""},
		{"two tags that never meet", "en", "@AUTH-OK && @DEMO-REASON", steps.ErrNothingSelected,
			"selects no scenario of --lang en (@AUTH-OK alone selects 3, @DEMO-REASON alone selects 3); every term joined by && must hold at once", ""},
		{"every kind left out", "es", "~@spec && ~@profile && ~@reference", steps.ErrNothingSelected, "selects no scenario of --lang es", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := steps.Select(tc.lang, tc.tags)
			require.Error(t, err)
			assert.Equal(t, 0, n)
			assert.ErrorIs(t, err, tc.want)
			var se *steps.SelectionError
			require.True(t, errors.As(err, &se))
			assert.Contains(t, err.Error(), tc.msg)
			if tc.closest != "" {
				require.NotEmpty(t, se.Closest)
				assert.Equal(t, tc.closest, se.Closest[0])
				assert.LessOrEqual(t, len(se.Closest), 3)
			}
		})
	}
	_, err = steps.Select("fr", "")
	assert.EqualError(t, err, `language "fr": want es, en or all`)
}

func TestKnownTags(t *testing.T) {
	tags, err := steps.KnownTags()
	require.NoError(t, err)
	for _, want := range []string{"@spec", "@profile", "@reference", "@AUTH-OK", "@DEMO-NOT-DEMO", "@needs-disabled-credential", "@needs-other-merchant"} {
		assert.Contains(t, tags, want)
	}
	assert.IsNonDecreasing(t, tags)
}

// The expression a not-run group suggests leaves out exactly those
// scenarios, and keeps the rest of the run's selection.
func TestLeaveOutSelectsTheRest(t *testing.T) {
	for _, tags := range []string{"", "~@reference", "@AUTH-DISABLED-KEY,@AUTH-OTHER-MERCHANT-KEY,@AUTH-OK"} {
		before, err := steps.Select("all", tags)
		require.NoError(t, err)
		onlyNeed := "@needs-disabled-credential"
		if tags != "" {
			onlyNeed = tags + " && " + onlyNeed
		}
		need, err := steps.Select("all", onlyNeed)
		require.NoError(t, err)
		after, err := steps.Select("all", reports.LeaveOut(tags, "needs-disabled-credential"))
		require.NoError(t, err)
		assert.Equal(t, 4, need, "two rows, two languages")
		assert.Equal(t, before-need, after, "%q", tags)
	}
}

type noNotifications struct{}

func (noNotifications) Wait(context.Context, receiver.Filter) (*receiver.Record, error) {
	return nil, errors.New("no receiver")
}

func (noNotifications) List(context.Context, receiver.Filter) ([]*receiver.Record, error) {
	return nil, errors.New("no receiver")
}

// Suite.Run refuses a bad selection before it sends anything: the target
// here does not exist.
func TestSuiteRunRefusesABadSelection(t *testing.T) {
	var out bytes.Buffer
	s := &steps.Suite{Target: steps.DemoTarget("http://127.0.0.1:9", noNotifications{}, false), RunOptions: steps.RunOptions{Lang: "en", Tags: "@NOPE", Output: &out}}
	status, err := s.Run()
	assert.Equal(t, 2, status)
	var se *steps.SelectionError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.ErrorIs(t, err, steps.ErrUnknownTag)
	assert.Empty(t, s.Results())
	assert.Empty(t, out.String(), "godog never started")
}
