package receiver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeRecordWritesWhatMarshalDoes(t *testing.T) {
	base := Record{ID: 7, Channel: "c", Method: "POST", Path: "/hooks/c", Header: map[string][]string{"X": {`,"body":""`}},
		ReceivedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), Check: CheckValid, Status: 200}
	bodies := map[string][]byte{
		"empty":         {},
		"small":         []byte(`{"a":1}`),
		"escaped":       bytes.Repeat([]byte("<&>\"\\\n\x01\u2028é"), 20000),
		"runes at cuts": []byte(strings.Repeat("é", pieceBytes) + strings.Repeat("日", pieceBytes)),
		"not utf-8":     append(bytes.Repeat([]byte{0xff, 0, 'x'}, 30000), 0xfe),
		"not utf-8 odd": {0xff, 0xfe, 0xfd, 0xfc},
	}
	for name, body := range bodies {
		for _, contract := range []string{"", "2026-11-22T09:59:59Z"} {
			r := base
			r.Body, r.ContractCreatedAt = body, contract
			want, err := json.Marshal(&r)
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, encodeRecord(&got, &r))
			assert.Equal(t, string(want), got.String(), name)
		}
	}
}

func TestHubBoundsWhatAllSlowSubscribersHold(t *testing.T) {
	h := newHub()
	var subs []*subscription
	for i := 0; i < 20; i++ {
		subs = append(subs, h.subscribe(1024, nil))
	}
	body := bytes.Repeat([]byte("<"), 1<<20)
	for id := int64(1); id <= 100; id++ {
		h.publish([]*Record{{ID: id, Body: body}})
		h.mu.Lock()
		held := h.queued
		h.mu.Unlock()
		require.LessOrEqual(t, held, int64(hubBytes), "after record %d", id)
	}
	// One that reads keeps up; the others were cut and hold nothing.
	reader := h.subscribe(1024, nil)
	h.publish([]*Record{{ID: 101, Body: body}})
	r := <-reader.ch
	reader.took(r)
	assert.Equal(t, int64(101), r.ID)
	for i, s := range subs {
		assert.True(t, h.wasCut(s), "subscriber %d", i)
		assert.Zero(t, s.queued.Load(), "subscriber %d", i)
	}
	h.mu.Lock()
	assert.Zero(t, h.queued)
	h.mu.Unlock()
}
