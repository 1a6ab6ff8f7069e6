package receiver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckFormerlyVerdict: a record's signature check is "check" in its
// JSON and in the API's filter; until VerdictSunset its former name,
// "verdict", is still written, read and taken as a filter, which answers
// with a Deprecation header.
func TestCheckFormerlyVerdict(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e1", "s1"))
	st, out := post(t, rv, "other", []byte("plain"), "")
	require.Equal(t, 200, st, out)

	var rec map[string]any
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/1", &rec))
	assert.Equal(t, "valid", rec["check"])
	assert.Equal(t, "valid", rec["verdict"], "the former key, until "+receiver.VerdictSunset)

	// The current name: no deprecation.
	st, body, h := getRaw(t, rv.URL()+"/api/events?check=missing")
	require.Equal(t, 200, st, body)
	var l eventList
	require.NoError(t, json.Unmarshal([]byte(body), &l))
	assert.Equal(t, []int64{2}, idsOf(l.Events))
	assert.Empty(t, h.Get("Deprecation"))
	assert.Empty(t, h.Get("Warning"))

	// The former name filters alike on every route that takes a filter,
	// and says that it is deprecated, until when, and what to send.
	for _, path := range []string{"/api/events?verdict=missing", "/api/events/wait?verdict=missing&timeout=1s",
		"/api/events/export?format=jsonl&verdict=missing"} {
		st, body, h = getRaw(t, rv.URL()+path)
		require.Equal(t, 200, st, path+": "+body)
		assert.Contains(t, body, `"channel":"other"`, path)
		assert.NotContains(t, body, `"channel":"merchant_demo"`, path)
		assert.Equal(t, "@1795651200", h.Get("Deprecation"), path)
		assert.Equal(t, "Mon, 31 May 2027 23:59:59 GMT", h.Get("Sunset"), path)
		assert.Equal(t, `299 - "verdict is deprecated: send check, with the same values (verdict is taken until 2027-05-31)"`, h.Get("Warning"), path)
	}
	st, body, _ = getRaw(t, rv.URL()+"/api/events?check=missing&verdict=missing")
	assert.Equal(t, 200, st, "both names, one value: "+body)

	for query, want := range map[string]string{
		"check=valid&verdict=missing": "check and verdict differ: send check only (verdict is its former name)",
		"check=fine":                  "check must be valid, invalid, missing or unverified",
		"verdict=fine":                "check must be valid, invalid, missing or unverified",
	} {
		st, out := call(t, rv, "GET", "/api/events?"+query, "", "", nil)
		assert.Equal(t, 400, st, query)
		assert.Equal(t, want, out["error"], query)
	}

	// The HAR export's own block carries both keys too.
	st, body, _ = getRaw(t, rv.URL()+"/api/events/export?format=har&check=valid")
	require.Equal(t, 200, st, body)
	var har struct {
		Log struct {
			Entries []struct {
				Comment  string
				Firmakit map[string]any `json:"_firmakit"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &har))
	require.Len(t, har.Log.Entries, 1)
	assert.Equal(t, "valid", har.Log.Entries[0].Firmakit["check"])
	assert.Equal(t, "valid", har.Log.Entries[0].Firmakit["verdict"])
	assert.True(t, strings.HasSuffix(har.Log.Entries[0].Comment, "signature check valid"), har.Log.Entries[0].Comment)

	// A record written by a receiver of an earlier version, which says
	// only verdict, reads with its check; a client filters by check.
	var old receiver.Record
	require.NoError(t, json.Unmarshal([]byte(`{"id":7,"verdict":"invalid","received_at":"2026-11-22T10:00:00.000000Z"}`), &old))
	assert.Equal(t, receiver.CheckInvalid, old.Check)
	c := &receiver.Client{URL: rv.URL()}
	recs, err := c.List(context.Background(), receiver.Filter{Check: receiver.CheckValid, Limit: 10})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "merchant_demo", recs[0].Channel)
	assert.Equal(t, receiver.CheckValid, recs[0].Check)
}
