package receiver_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listPage is the body of GET /api/events.
type listPage struct {
	Events    []receiver.Record
	Count     int
	Total     int64
	Next      string `json:"next"`
	NextAfter int64  `json:"next_after"`
}

// TestListPagesNewestFirstThroughEverything follows "next" from the first
// page to the last: every record comes once, in order, and the total is
// the count of the whole filter on every page.
func TestListPagesNewestFirstThroughEverything(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	for i := 1; i <= 23; i++ {
		ch := "merchant_a"
		if i%3 == 0 {
			ch = "other"
		}
		signedPost(t, rv, ch, notification(firmakit.StateSigned, fmt.Sprint("e", i), "s"))
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"", ids(23, 1, func(int64) bool { return true })},
		{"&channel_prefix=merchant_", ids(23, 1, func(i int64) bool { return i%3 != 0 })},
	} {
		var got []int64
		next := "limit=5" + tc.query
		for pages := 0; next != ""; pages++ {
			require.Less(t, pages, 10, "paging does not end")
			var page listPage
			require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events?"+next, &page), next)
			assert.Equal(t, int64(len(tc.want)), page.Total, "total on %s", next)
			for _, r := range page.Events {
				got = append(got, r.ID)
			}
			next = ""
			if page.Next != "" {
				next = "limit=5" + tc.query + "&" + page.Next
			}
		}
		assert.Equal(t, tc.want, got, "every record once, newest first (%q)", tc.query)
	}
}

func ids(from, to int64, keep func(int64) bool) []int64 {
	var out []int64
	for i := from; i >= to; i-- {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// TestListSearchesTheServer: channel prefix, text in the body (with the
// LIKE wildcards and bytes that are not UTF-8 taken literally) and event
// id, each with its total; the stream and Filter.Match agree with the list.
func TestListSearchesTheServer(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	post(t, rv, "shop_1", []byte(`{"note":"100% off_sale"}`), "")        // 1
	post(t, rv, "shop_2", []byte(`{"note":"100 percent offXsale"}`), "") // 2
	post(t, rv, "Shop_3", []byte("\xff\xfe binary 100%"), "")            // 3
	post(t, rv, "shopping", []byte(`{"note":"nothing"}`), "")            // 4
	signedPost(t, rv, "shop_1", notification(firmakit.StateSigned, "ev-x", "sig-x"))
	cases := []struct {
		query string
		want  []int64
	}{
		{"channel_prefix=shop_", []int64{5, 2, 1}},
		{"channel_prefix=shop", []int64{5, 4, 2, 1}},
		{"channel=shop", nil},
		{"q=" + url.QueryEscape("% off_"), []int64{1}},
		{"q=" + url.QueryEscape("off_"), []int64{1}},
		{"q=" + url.QueryEscape("%"), []int64{3, 1}},
		{"q=" + url.QueryEscape("\xff\xfe"), []int64{3}},
		{"q=OFF", nil},
		{"q=off&channel_prefix=shop_2", []int64{2}},
		{"event_id=ev-x&q=SIGNED", []int64{5}},
	}
	for _, tc := range cases {
		var page listPage
		require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events?"+tc.query, &page), tc.query)
		var got []int64
		for _, r := range page.Events {
			got = append(got, r.ID)
		}
		assert.Equal(t, tc.want, got, tc.query)
		assert.Equal(t, int64(len(tc.want)), page.Total, tc.query)

		// Filter.Match says the same of every stored record.
		f := receiver.Filter{}
		v, _ := url.ParseQuery(tc.query)
		f.Channel, f.ChannelPrefix, f.Text, f.EventID = v.Get("channel"), v.Get("channel_prefix"), v.Get("q"), v.Get("event_id")
		all, err := rv.List(context.Background(), receiver.Filter{Limit: 1000, Newest: true})
		require.NoError(t, err)
		var matched []int64
		for _, r := range all {
			if f.Match(r) {
				matched = append(matched, r.ID)
			}
		}
		assert.Equal(t, tc.want, matched, "Match of %s", tc.query)
	}
	var e map[string]string
	assert.Equal(t, 400, getJSON(t, rv.URL()+"/api/events?before=x", &e))
	assert.Equal(t, 400, getJSON(t, rv.URL()+"/api/events?q="+strings.Repeat("a", receiver.MaxText+1), &e))

	// The stream sends only what matches, backlog and live.
	c := dial(t, rv, "?channel_prefix=shop_&q=off")
	assert.Equal(t, int64(1), readRecord(t, c).ID)
	assert.Equal(t, int64(2), readRecord(t, c).ID)
	post(t, rv, "shop_9", []byte(`nope`), "")
	post(t, rv, "other", []byte(`off`), "")
	post(t, rv, "shop_9", []byte(`off`), "")
	assert.Equal(t, int64(8), readRecord(t, c).ID, "live, filtered")
}
