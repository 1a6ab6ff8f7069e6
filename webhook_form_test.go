package firmakit_test

import (
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
)

// The one composer writes each scheme's header in every layout it has,
// and says when a scheme has no way to write one.
func TestWebhookHeaderValue(t *testing.T) {
	bundled := firmakit.BundledProfile()
	sw := preset(t, "standard-webhooks")
	gh := preset(t, "github")
	two := []firmakit.WebhookEntry{{Key: "v1", Value: "aa"}, {Key: "v1", Value: "bb"}}
	for _, c := range []struct {
		p    *firmakit.Profile
		f    firmakit.WebhookHeaderForm
		want string
		ok   bool
	}{
		{bundled, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: two}, "t=17,v1=aa,v1=bb", true},
		{bundled, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: two, TPos: "last"}, "v1=aa,v1=bb,t=17", true},
		{bundled, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: two, TPos: "middle"}, "v1=aa,t=17,v1=bb", true},
		{bundled, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: two[:1], TPos: "middle"}, "", false},
		{bundled, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: two, Spaced: "after-comma"}, "t=17, v1=aa, v1=bb", true},
		{bundled, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: two[:1], Spaced: "around-equals"}, "t = 17,v1 = aa", true},
		{sw, firmakit.WebhookHeaderForm{Timestamps: []string{"17"}, Entries: []firmakit.WebhookEntry{{Key: "v1,", Value: "aa"}, {Key: "v1,", Value: "bb"}}}, "v1,aa v1,bb", true},
		{sw, firmakit.WebhookHeaderForm{Entries: []firmakit.WebhookEntry{{Key: "v1,", Value: "aa"}}, Spaced: "around-equals"}, "", false},
		{sw, firmakit.WebhookHeaderForm{Entries: []firmakit.WebhookEntry{{Key: "v1,", Value: "aa"}}, TPos: "last"}, "", false},
		{gh, firmakit.WebhookHeaderForm{Entries: []firmakit.WebhookEntry{{Key: "sha256=", Value: "aa"}, {Key: "sha256=", Value: "bb"}}}, "", false},
		{gh, firmakit.WebhookHeaderForm{Entries: []firmakit.WebhookEntry{{Key: "sha256=", Value: "aa"}}, Spaced: "after-comma"}, "", false},
		{gh, firmakit.WebhookHeaderForm{Entries: []firmakit.WebhookEntry{{Key: "sha256=", Value: "aa"}}}, "sha256=aa", true},
	} {
		got, ok := c.p.WebhookHeaderValue(c.f)
		assert.Equal(t, c.ok, ok, "%s %+v", c.p.Name, c.f)
		assert.Equal(t, c.want, got, "%s %+v", c.p.Name, c.f)
	}
}
