package receiver_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/internal/pgtest"
	"github.com/firmakit/firmakit/receiver"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The PostgreSQL server and the Chromium (browser.Shared) of this
// package's tests, each started by the first test that needs one and
// stopped once they have all run.
func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	browser.StopShared()
	os.Exit(code)
}

// postgresDB returns the URL of a new, empty database on the tests'
// PostgreSQL server. Without a server the test fails, saying how to
// install one: the PostgreSQL tests are never skipped.
func postgresDB(t testing.TB) string {
	t.Helper()
	url, err := pgtest.NewDatabase()
	require.NoError(t, err)
	return url
}

// backends are the databases a receiver runs on: each gives a test a new,
// empty one, which a receiver opened again finds as it was left.
var backends = []struct {
	name string
	db   func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "r.db") }},
	{"postgres", postgresDB},
}

// openOn opens a receiver on db, closed with the test.
func openOn(t testing.TB, db string, change func(*receiver.Receiver)) *receiver.Receiver {
	t.Helper()
	return MustOpenReceiver(t, func(rv *receiver.Receiver) {
		rv.DB = db
		if change != nil {
			change(rv)
		}
	})
}

type eventList struct {
	Events    []receiver.Record
	Count     int
	Total     int64
	Next      string
	NextAfter int64 `json:"next_after"`
}

func listEvents(t testing.TB, rv *receiver.Receiver, query string) eventList {
	t.Helper()
	var l eventList
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events?"+query, &l))
	return l
}

func idsOf(recs []receiver.Record) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func mustSend(t testing.TB, rv *receiver.Receiver, channel string, body []byte) int64 {
	t.Helper()
	st, out := signedPost(t, rv, channel, body)
	require.Equal(t, 200, st, out)
	return int64(out["received"].(float64))
}

// behaviours are what every backend must do alike, seen through the
// receiver's API: one table, run against each backend.
var behaviours = []struct {
	name string
	run  func(t *testing.T, db string)
}{
	{"ids ascend from 1, each record read back as received", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		body := notification(firmakit.StateSigned, "e1", "s1")
		assert.Equal(t, int64(1), mustSend(t, rv, "merchant_demo", body))
		assert.Equal(t, int64(2), mustSend(t, rv, "merchant_demo", notification(firmakit.StateCreated, "e2", "s2")))
		var rec receiver.Record
		require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/1", &rec))
		assert.Equal(t, body, rec.Body)
		assert.Equal(t, "merchant_demo", rec.Channel)
		assert.Equal(t, "/hooks/merchant_demo", rec.Path)
		assert.Equal(t, receiver.CheckValid, rec.Check)
		assert.Equal(t, "e1", rec.EventID)
		assert.Equal(t, "s1", rec.SignatureID)
		assert.Equal(t, "SIGNED", rec.State)
		assert.Equal(t, "application/json", rec.Header.Get("Content-Type"))
		assert.Equal(t, 200, rec.Status)
		assert.Equal(t, 404, getJSON(t, rv.URL()+"/api/events/3", nil))
		assert.Equal(t, []int64{2, 1}, idsOf(listEvents(t, rv, "").Events), "newest first")
		var st struct {
			Count  int64
			LastID int64 `json:"last_id"`
		}
		getJSON(t, rv.URL()+"/api/stats", &st)
		assert.Equal(t, int64(2), st.LastID)
		assert.Equal(t, int64(2), st.Count)
	}},
	{"bytes a text column refuses are kept as sent", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		// A NUL in the channel, the event id and the body; a body that is
		// not UTF-8; a header value that is not either.
		n := firmakit.Notification{EventID: "ev\x00nul", Type: firmakit.NotificationType, MerchantID: "m",
			SignatureID: "sig\x00", Status: firmakit.StateSigned, CreatedAt: "2026-11-22T10:00:00Z"}
		body, _ := profile.EncodeNotification(n)
		st, out := post(t, rv, "nul%00chan", body, "t=1,v1=\xff\xfe")
		require.Equal(t, 200, st, out)
		var rec receiver.Record
		getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
		assert.Equal(t, "nul\x00chan", rec.Channel)
		assert.Equal(t, "ev\x00nul", rec.EventID)
		assert.Equal(t, "sig\x00", rec.SignatureID)
		assert.Equal(t, body, rec.Body)
		raw := []byte{0xff, 0x00, 0xfe, 'x'}
		st, out = post(t, rv, "bin", raw, "")
		require.Equal(t, 200, st, out)
		getJSON(t, fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]), &rec)
		assert.Equal(t, raw, rec.Body)
		l := listEvents(t, rv, "channel=nul%00chan")
		assert.Len(t, l.Events, 1, "filters compare bytes")
		assert.Len(t, listEvents(t, rv, "signature_id=sig%00").Events, 1)
	}},
	{"filters, totals and paging", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		for i, st := range firmakit.States {
			mustSend(t, rv, "merchant_demo", notification(st, fmt.Sprintf("e%d", i), fmt.Sprintf("s%d", i)))
		}
		post(t, rv, "other-x", []byte("not json <needle>"), "")
		post(t, rv, "otherwise", []byte("plain"), "")
		assert.Equal(t, 7, listEvents(t, rv, "").Count)
		assert.Equal(t, []int64{6, 7}, idsOf(listEvents(t, rv, "channel_prefix=other&order=asc").Events))
		assert.Equal(t, []int64{6}, idsOf(listEvents(t, rv, "q=%3Cneedle%3E").Events), "text search")
		assert.Equal(t, []int64{5}, idsOf(listEvents(t, rv, "state=SIGNED").Events))
		assert.Equal(t, []int64{2}, idsOf(listEvents(t, rv, "signature_id=s1").Events))
		assert.Equal(t, []int64{3}, idsOf(listEvents(t, rv, "event_id=e2").Events))
		assert.Equal(t, []int64{7, 6}, idsOf(listEvents(t, rv, "check=missing").Events))
		page := listEvents(t, rv, "limit=3")
		assert.Equal(t, []int64{7, 6, 5}, idsOf(page.Events))
		assert.Equal(t, int64(7), page.Total)
		assert.Equal(t, "before=5", page.Next)
		page = listEvents(t, rv, "limit=3&"+page.Next)
		assert.Equal(t, []int64{4, 3, 2}, idsOf(page.Events))
		assert.Equal(t, int64(7), page.Total, "the total leaves paging out")
		page = listEvents(t, rv, "limit=3&order=asc&after=4")
		assert.Equal(t, []int64{5, 6, 7}, idsOf(page.Events))
		var rec receiver.Record
		getJSON(t, rv.URL()+"/api/events/7", &rec)
		assert.Empty(t, listEvents(t, rv, "since="+rec.ReceivedAt.Add(time.Millisecond).Format(time.RFC3339Nano)).Events)
		assert.Len(t, listEvents(t, rv, "since="+rec.ReceivedAt.Format(time.RFC3339Nano)).Events, 1)
	}},
	{"deletes, and ids never given twice", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		for i := range 4 {
			mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
		}
		del := func(path string) int {
			req, _ := http.NewRequest("DELETE", rv.URL()+path, nil)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.StatusCode
		}
		assert.Equal(t, 204, del("/api/events/4"))
		assert.Equal(t, 404, del("/api/events/4"))
		assert.Equal(t, int64(5), mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "x", "s")), "4 is not given again")
		assert.Equal(t, 200, del("/api/events"))
		n, err := rv.Count(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, int64(6), mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "y", "s")))
		require.NoError(t, rv.Close())
		again := openOn(t, db, nil)
		assert.Equal(t, int64(7), mustSend(t, again, "merchant_demo", notification(firmakit.StateSigned, "z", "s")), "nor after a restart")
	}},
	{"duplicates are flagged, within a batch and across restarts", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		body := notification(firmakit.StateSigned, "same", "s")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- trySignedPost(rv, "merchant_demo", body) }()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		l := listEvents(t, rv, "order=asc")
		require.Len(t, l.Events, 8)
		for i, r := range l.Events {
			assert.Equal(t, i > 0, r.Duplicate, "record %d", r.ID)
		}
		require.NoError(t, rv.Close())
		again := openOn(t, db, nil)
		id := mustSend(t, again, "merchant_demo", body)
		var rec receiver.Record
		getJSON(t, fmt.Sprintf("%s/api/events/%d", again.URL(), id), &rec)
		assert.True(t, rec.Duplicate)
	}},
	{"retention by count, applied before the answer", func(t *testing.T, db string) {
		rv := openOn(t, db, func(r *receiver.Receiver) { r.MaxEvents = 3 })
		for i := range 6 {
			mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
			n, err := rv.Count(context.Background())
			require.NoError(t, err)
			require.LessOrEqual(t, n, int64(3), "over the limit once answered")
		}
		assert.Equal(t, []int64{4, 5, 6}, idsOf(listEvents(t, rv, "order=asc").Events))
		st, err := stats(rv)
		require.NoError(t, err)
		assert.Equal(t, int64(3), st.Dropped)
	}},
	{"retention by age", func(t *testing.T, db string) {
		clock := newFakeClock()
		rv := openOn(t, db, func(r *receiver.Receiver) { r.MaxAge = time.Hour; r.Now = clock.Now })
		postAt(t, rv, clock, notification(firmakit.StateSigned, "old", "s"))
		clock.Add(30 * time.Minute)
		postAt(t, rv, clock, notification(firmakit.StateSigned, "new", "s"))
		clock.Add(40 * time.Minute)
		receiver.RetentionPass(rv)
		l := listEvents(t, rv, "")
		require.Len(t, l.Events, 1)
		assert.Equal(t, "new", l.Events[0].EventID)
	}},
	{"retention by size", func(t *testing.T, db string) {
		rv := openOn(t, db, func(r *receiver.Receiver) { r.MaxBytes = 256 << 10 })
		for i := range 64 {
			body := append([]byte(fmt.Sprintf(`{"n":%d,"pad":"`, i)), bytes.Repeat([]byte("x"), 8<<10)...)
			body = append(body, `"}`...)
			mustSend(t, rv, "merchant_demo", body)
		}
		receiver.RetentionPass(rv)
		l := listEvents(t, rv, "limit=1000&order=asc")
		assert.Less(t, len(l.Events), 40, "512 KiB of bodies do not fit in 256 KiB")
		assert.NotEmpty(t, l.Events)
		assert.Equal(t, int64(64), l.Events[len(l.Events)-1].ID, "the newest stay")
		st, err := stats(rv)
		require.NoError(t, err)
		assert.Equal(t, int64(64-len(l.Events)), st.Dropped)
	}},
	{"contract notes give the delay", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		created := time.Now().Add(-2 * time.Second).UTC().Format(time.RFC3339Nano)
		require.NoError(t, rv.NoteContract(context.Background(), "sig-noted", created))
		id := mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "sig-noted"))
		other := mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "f", "sig-unknown"))
		var rec map[string]any
		getJSON(t, fmt.Sprintf("%s/api/events/%d", rv.URL(), id), &rec)
		assert.Equal(t, created, rec["contract_created_at"])
		assert.Greater(t, rec["delay_ms"], 1900.0)
		rec = nil
		getJSON(t, fmt.Sprintf("%s/api/events/%d", rv.URL(), other), &rec)
		assert.NotContains(t, rec, "contract_created_at")
		// A note that comes after the record shows in reads too.
		require.NoError(t, rv.NoteContract(context.Background(), "sig-unknown", created))
		getJSON(t, fmt.Sprintf("%s/api/events/%d", rv.URL(), other), &rec)
		assert.Equal(t, created, rec["contract_created_at"])
	}},
	{"programmed answers: counted, per contract, listed, cleared", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		ctx := context.Background()
		require.NoError(t, rv.FailNext(ctx, "merchant_demo", "", 503, 2))
		require.NoError(t, rv.AnswerNext(ctx, "merchant_demo", "sig-x", receiver.Answer{Status: 202, Delay: 10 * time.Millisecond}, 0))
		var got struct {
			Rule  map[string]any
			Rules []map[string]any
		}
		getJSON(t, rv.URL()+"/api/channels/merchant_demo/responses", &got)
		assert.Equal(t, map[string]any{"status": 503.0, "remaining": 2.0}, got.Rule)
		require.Len(t, got.Rules, 2)
		assert.Equal(t, map[string]any{"signature_id": "sig-x", "status": 202.0, "delay": "10ms", "remaining": 0.0}, got.Rules[1])
		var answered []int
		for _, sig := range []string{"a", "sig-x", "b", "c", "sig-x"} {
			st, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e-"+sig, sig))
			answered = append(answered, st)
		}
		assert.Equal(t, []int{503, 202, 503, 200, 202}, answered, "the contract's rule wins; the channel's is used up")
		getJSON(t, rv.URL()+"/api/channels/merchant_demo/responses", &got)
		assert.Nil(t, got.Rule)
		require.Len(t, got.Rules, 1)
		req, _ := http.NewRequest("DELETE", rv.URL()+"/api/channels/merchant_demo/responses?signature_id=sig-x", nil)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		st, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e-last", "sig-x"))
		assert.Equal(t, 200, st)
		assert.Equal(t, 503, listEvents(t, rv, "order=asc").Events[0].Status, "the record keeps the answer given")
	}},
	{"programmed answers: a hang-up closes, a reset resets, each kept by the backend", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		ct := map[string]string{"Content-Type": "application/json"}
		st, out := call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", `{"reset":true,"signature_id":"sig-rst","count":1}`, ct)
		require.Equal(t, 200, st, "reset says hang_up: %v", out)
		require.NoError(t, rv.AnswerNext(context.Background(), "merchant_demo", "sig-fin", receiver.Answer{HangUp: true}, 1))
		assert.Error(t, rv.AnswerNext(context.Background(), "merchant_demo", "sig-x", receiver.Answer{Status: 200, Reset: true}, 1), "reset is a way to hang up")
		var got struct{ Rules []map[string]any }
		getJSON(t, rv.URL()+"/api/channels/merchant_demo/responses", &got)
		require.Len(t, got.Rules, 2)
		assert.Equal(t, map[string]any{"signature_id": "sig-fin", "status": 0.0, "hang_up": true, "remaining": 1.0}, got.Rules[0])
		assert.Equal(t, map[string]any{"signature_id": "sig-rst", "status": 0.0, "hang_up": true, "reset": true, "remaining": 1.0}, got.Rules[1])
		err := trySignedPost(rv, "merchant_demo", notification(firmakit.StateSigned, "e-rst", "sig-rst"))
		assert.ErrorIs(t, err, syscall.ECONNRESET, "a reset is read as one")
		err = trySignedPost(rv, "merchant_demo", notification(firmakit.StateSigned, "e-fin", "sig-fin"))
		require.Error(t, err, "a hang-up leaves no answer")
		assert.NotErrorIs(t, err, syscall.ECONNRESET, "a hang-up closes the connection: an EOF, not a reset")
		assert.Equal(t, []int{0, 0}, []int{listEvents(t, rv, "order=asc").Events[0].Status, listEvents(t, rv, "order=asc").Events[1].Status}, "both are recorded, as status 0")
	}},
	{"programmed answers: counts from outside, checked the same on every backend", func(t *testing.T, db string) {
		defer receiver.SetMaxRules(5)()
		rv := openOn(t, db, nil)
		ct := map[string]string{"Content-Type": "application/json"}
		set := func(sig string, count string) (int, map[string]any) {
			return call(t, rv, "POST", "/api/channels/merchant_demo/responses", "", `{"status":503,"signature_id":"`+sig+`","count":`+count+`}`, ct)
		}
		// Past the bound, and past what a 32-bit column holds: refused
		// with 400, nothing stored.
		for _, count := range []string{"1000001", "2147483647", "2147483648", "4294967296", "4294967297", "9223372036854775807", "-1"} {
			st, out := set("big-"+count, count)
			assert.Equal(t, 400, st, count)
			assert.Equal(t, "count must be from 0 (until cleared) to 1000000", out["error"], count)
		}
		assert.Error(t, rv.FailNext(context.Background(), "merchant_demo", "go", 503, 1<<31), "the Go API checks the same")
		// A count too large for JSON's integers is no rule either.
		st, _ := set("huge", "99999999999999999999")
		assert.Equal(t, 400, st)
		// At the bound: kept exactly, listed, counted down exactly.
		st, out := set("max", "1000000")
		require.Equal(t, 200, st, out)
		var got struct{ Rules []map[string]any }
		getJSON(t, rv.URL()+"/api/channels/merchant_demo/responses", &got)
		require.Len(t, got.Rules, 1, "only the rule within the bound was stored")
		assert.Equal(t, 1e6, got.Rules[0]["remaining"])
		status, _ := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e-max", "max"))
		assert.Equal(t, 503, status)
		getJSON(t, rv.URL()+"/api/channels/merchant_demo/responses", &got)
		assert.Equal(t, 999999.0, got.Rules[0]["remaining"])
		// The bound on rules holds: the refused ones took no place.
		for i := range 4 {
			st, out := set(fmt.Sprint("more-", i), "1000000")
			require.Equal(t, 200, st, out)
		}
		st, out = set("one-too-many", "1")
		assert.Equal(t, 409, st, out)
		getJSON(t, rv.URL()+"/api/channels/merchant_demo/responses", &got)
		assert.Len(t, got.Rules, 5)
	}},
	{"wait: stored already, or yet to come", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		mustSend(t, rv, "merchant_demo", notification(firmakit.StateCreated, "e1", "sig-a"))
		r, err := rv.Wait(context.Background(), receiver.Filter{SignatureID: "sig-a"})
		require.NoError(t, err)
		assert.Equal(t, "e1", r.EventID)
		waited := make(chan *receiver.Record, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			r, _ := rv.Wait(ctx, receiver.Filter{SignatureID: "sig-b"})
			waited <- r
		}()
		require.Eventually(t, func() bool { st, err := stats(rv); return err == nil && st.Subscribers == 1 }, 3*time.Second, 5*time.Millisecond)
		mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e2", "sig-b"))
		r = <-waited
		require.NotNil(t, r)
		assert.Equal(t, "e2", r.EventID)
	}},
	{"stream: backlog then live, no gap, no duplicate", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		for i := range 3 {
			mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
		}
		c := dial(t, rv, "?after=1")
		sent := make(chan error, 1)
		go func() {
			for i := 3; i < 40; i++ {
				if err := trySignedPost(rv, "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s")); err != nil {
					sent <- err
					return
				}
			}
			sent <- nil
		}()
		for want := int64(2); want <= 40; want++ {
			require.Equal(t, want, readRecord(t, c).ID)
		}
		require.NoError(t, <-sent)
	}},
	{"a database from before the check took its name (verdict) is migrated, its records kept", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e1", "s1"))
		post(t, rv, "other", []byte("plain"), "")
		require.NoError(t, rv.Close())
		// Back to the schema the previous version wrote.
		version := "4"
		if receiver.IsPostgres(db) {
			execSQL(t, db, `ALTER TABLE records RENAME COLUMN "check" TO verdict; ALTER INDEX records_check RENAME TO records_verdict;
				ALTER TABLE records DROP COLUMN verified_by; ALTER TABLE answer_rules DROP COLUMN reset; UPDATE meta SET value = 1 WHERE key = 'schema_version'`)
		} else {
			mustExec(t, db, `ALTER TABLE records RENAME COLUMN "check" TO verdict; DROP INDEX records_check;
				CREATE INDEX records_verdict ON records(verdict, id); ALTER TABLE records DROP COLUMN verified_by;
				UPDATE meta SET value = 2 WHERE key = 'schema_version'`)
		}
		cols, indexes, _ := schemaOf(t, db)
		require.Contains(t, cols, "verdict")
		require.Contains(t, indexes, "records_verdict")

		again := openOn(t, db, nil)
		assert.Equal(t, []int64{2}, idsOf(listEvents(t, again, "check=missing").Events))
		var rec receiver.Record
		getJSON(t, again.URL()+"/api/events/1", &rec)
		assert.Equal(t, receiver.CheckValid, rec.Check)
		assert.Equal(t, int64(3), mustSend(t, again, "merchant_demo", notification(firmakit.StateSigned, "e3", "s3")))
		require.NoError(t, again.Close())
		cols, indexes, v := schemaOf(t, db)
		assert.Contains(t, cols, "check")
		assert.NotContains(t, cols, "verdict")
		assert.Contains(t, indexes, "records_check")
		assert.NotContains(t, indexes, "records_verdict")
		assert.Equal(t, version, v, "the schema version now")
	}},
	{"a database from before verified_by gains the column, its records kept, and names the key of a new one", func(t *testing.T, db string) {
		rv := openOn(t, db, nil)
		mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e1", "s1"))
		require.NoError(t, rv.Close())
		version := "4"
		if receiver.IsPostgres(db) {
			execSQL(t, db, `ALTER TABLE records DROP COLUMN verified_by; ALTER TABLE answer_rules DROP COLUMN reset; UPDATE meta SET value = 2 WHERE key = 'schema_version'`)
		} else {
			mustExec(t, db, `ALTER TABLE records DROP COLUMN verified_by; UPDATE meta SET value = 3 WHERE key = 'schema_version'`)
		}
		cols, _, _ := schemaOf(t, db)
		require.NotContains(t, cols, "verified_by")

		again := openOn(t, db, nil)
		var rec receiver.Record
		getJSON(t, again.URL()+"/api/events/1", &rec)
		assert.Equal(t, receiver.CheckValid, rec.Check)
		assert.Empty(t, rec.VerifiedBy, "a record of before names no key")
		assert.Equal(t, int64(2), mustSend(t, again, "merchant_demo", notification(firmakit.StateSigned, "e2", "s2")))
		getJSON(t, again.URL()+"/api/events/2", &rec)
		assert.Equal(t, firmakit.BundledProfile().KeyName(firmakit.Demo().WebhookSecrets[0]), rec.VerifiedBy)
		// The rules table of before gained reset too.
		require.NoError(t, again.AnswerNext(context.Background(), "merchant_demo", "sig-rst", receiver.Answer{HangUp: true, Reset: true}, 1))
		var rules struct{ Rules []map[string]any }
		getJSON(t, again.URL()+"/api/channels/merchant_demo/responses", &rules)
		require.Len(t, rules.Rules, 1)
		assert.Equal(t, true, rules.Rules[0]["reset"])
		require.NoError(t, again.Close())
		cols, _, v := schemaOf(t, db)
		assert.Contains(t, cols, "verified_by")
		assert.Equal(t, version, v, "the schema version now")
	}},
	{"called directly: each filter lists and counts what Filter.Match picks", func(t *testing.T, db string) {
		b := receiver.OpenBackend(t, db)
		ctx := context.Background()
		base := time.UnixMicro(1795860000123456).UTC()
		recs := directRecords(base)
		for _, r := range recs {
			require.NoError(t, b.Insert(ctx, r))
		}
		for _, f := range []receiver.Filter{
			{}, {Channel: "merchant_demo"}, {Channel: "nul\x00chan"}, {ChannelPrefix: "merchant_demo"}, {ChannelPrefix: "nul\x00"},
			{State: "SIGNED"}, {SignatureID: "s1"}, {EventID: "e3"}, {Check: receiver.CheckMissing}, {Check: receiver.CheckUnverified},
			{Text: "<needle>"}, {Text: `"n":1`}, {AfterID: 5}, {BeforeID: 9}, {AfterID: 3, BeforeID: 12},
			{Since: base.Add(10 * time.Second)}, {Since: base.Add(10*time.Second + time.Microsecond)},
			{SignatureID: "s2", State: "CREATED"}, {EventID: "e1", Check: receiver.CheckValid}, {SignatureID: "s0", Text: "needle"},
			{Channel: "other", Text: "n", Newest: true}, {Newest: true, Limit: 5}, {Limit: 3, AfterID: 20}, {Limit: 2, BeforeID: 8, Newest: true},
		} {
			if f.Limit == 0 {
				f.Limit = 1000
			}
			var want []int64
			var total int64
			unpaged := f
			unpaged.AfterID, unpaged.BeforeID = 0, 0
			for _, r := range recs {
				if f.Match(r) {
					want = append(want, r.ID)
				}
				if unpaged.Match(r) {
					total++
				}
			}
			if f.Newest {
				slices.Reverse(want)
			}
			want = want[:min(len(want), f.Limit)]
			got, truncated, err := b.List(ctx, f, 1<<20)
			require.NoError(t, err)
			assert.False(t, truncated)
			assert.Equal(t, append([]int64{}, want...), idsOfPtrs(got), "list %+v", f)
			n, err := b.Total(ctx, f)
			require.NoError(t, err)
			assert.Equal(t, total, n, "total %+v", f)
		}
		got, truncated, err := b.List(ctx, receiver.Filter{Limit: 1000}, len(recs[0].Body)+1)
		require.NoError(t, err)
		assert.True(t, truncated, "past maxBytes of bodies, with more to come")
		assert.Equal(t, []int64{1, 2}, idsOfPtrs(got))
	}},
	{"called directly: records read back whole; duplicates, contracts, deletes, ids, the hub's feed", func(t *testing.T, db string) {
		b := receiver.OpenBackend(t, db)
		ctx := context.Background()
		created := "2026-11-22T10:00:00.000Z"
		require.NoError(t, b.NoteContract(ctx, "s1", created))
		recs := directRecords(time.UnixMicro(1795860000123456).UTC())
		for _, r := range recs {
			require.NoError(t, b.Insert(ctx, r))
		}
		for i, r := range recs {
			assert.Equal(t, int64(i+1), r.ID)
			dup := false // a valid record came before with its event id
			for j := i % 10; j < i; j += 10 {
				dup = dup || recs[j].Check == receiver.CheckValid
			}
			assert.Equal(t, dup, r.Duplicate, "record %d: a valid record of its event id came before", r.ID)
			assert.Equal(t, r.SignatureID == "s1", r.ContractCreatedAt == created, "record %d", r.ID)
			got, err := b.Get(ctx, r.ID)
			require.NoError(t, err)
			assert.Equal(t, r, got, "record %d as inserted", r.ID)
		}
		n, err := b.Count(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(len(recs)), n)
		assert.Equal(t, int64(len(recs)), b.Last())
		_, err = b.Get(ctx, 99)
		assert.ErrorIs(t, err, receiver.ErrNotFound)
		require.NoError(t, b.DeleteOne(ctx, 24))
		assert.ErrorIs(t, b.DeleteOne(ctx, 24), receiver.ErrNotFound)
		_, err = b.Get(ctx, 24)
		assert.ErrorIs(t, err, receiver.ErrNotFound)
		again := directRecords(time.UnixMicro(1795860000123456).UTC())[0]
		require.NoError(t, b.Insert(ctx, again))
		assert.Equal(t, int64(25), again.ID, "24 is not given again")
		assert.True(t, again.Duplicate)
		deleted, err := b.DeleteAll(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(24), deleted)
		n, err = b.Count(ctx)
		require.NoError(t, err)
		assert.Zero(t, n)
		want := []int64{}
		for id := range int64(25) {
			want = append(want, id+1)
		}
		require.Eventually(t, func() bool { return len(b.Published()) >= 25 }, 10*time.Second, 10*time.Millisecond)
		assert.Equal(t, want, b.Published(), "every committed record handed to the hub once, in id order")
	}},
}

// schemaOf returns the records table's columns and indexes and the
// schema version, as the database (SQLite file or PostgreSQL) has them.
func schemaOf(t *testing.T, db string) (columns, indexes []string, version string) {
	t.Helper()
	version = queryStrings(t, db, `SELECT CAST(value AS TEXT) FROM meta WHERE key = 'schema_version'`)[0]
	if receiver.IsPostgres(db) {
		return queryStrings(t, db, `SELECT column_name FROM information_schema.columns WHERE table_name = 'records' AND table_schema = current_schema()`),
			queryStrings(t, db, `SELECT indexname FROM pg_indexes WHERE tablename = 'records' AND schemaname = current_schema()`), version
	}
	return queryStrings(t, db, `SELECT name FROM pragma_table_info('records')`),
		queryStrings(t, db, `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records'`), version
}

// queryStrings runs q on db, SQLite file or PostgreSQL, and returns the
// first column of each row.
func queryStrings(t *testing.T, db, q string) []string {
	t.Helper()
	ctx := context.Background()
	var rows interface {
		Next() bool
		Scan(dest ...any) error
		Err() error
	}
	if receiver.IsPostgres(db) {
		c, err := pgx.Connect(ctx, db)
		require.NoError(t, err)
		defer c.Close(ctx)
		r, err := c.Query(ctx, q)
		require.NoError(t, err)
		defer r.Close()
		rows = r
	} else {
		c, err := sql.Open("sqlite", db)
		require.NoError(t, err)
		defer c.Close()
		r, err := c.QueryContext(ctx, q)
		require.NoError(t, err)
		defer r.Close()
		rows = r
	}
	out := []string{}
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// directRecords are records to insert into a backend directly: every
// field a filter reads, varied, with bytes a text column refuses, at
// microsecond times from base, one second apart. Event ids repeat from
// the eleventh on.
func directRecords(base time.Time) []*receiver.Record {
	channels := []string{"merchant_demo", "merchant_demo2", "other", "nul\x00chan"}
	states := []string{"SIGNED", "CREATED", "", "REJECTED", "BOUNCED"}
	checks := []string{receiver.CheckValid, receiver.CheckInvalid, receiver.CheckMissing, receiver.CheckUnverified}
	var recs []*receiver.Record
	for i := range 24 {
		ch := channels[i%len(channels)]
		r := &receiver.Record{Channel: ch, Method: "POST", Path: "/hooks/" + ch, Query: fmt.Sprint("i=", i),
			Header: http.Header{"Content-Type": {"application/json"}, "X-Raw": {"a, b"}},
			Body:   []byte(fmt.Sprintf(`{"n":%d}`, i)), ReceivedAt: base.Add(time.Duration(i) * time.Second),
			RemoteAddr: "127.0.0.1:4000", Check: checks[(i/2)%len(checks)], EventID: fmt.Sprint("e", i%10),
			SignatureID: fmt.Sprint("s", i%3), State: states[i%len(states)], CreatedAt: "2026-11-22T10:00:00Z", Status: 200}
		if i%5 == 0 {
			r.Body = append(r.Body, " <needle>"...)
		}
		if i%7 == 5 {
			r.BodyDropped, r.Reason = true, "bad\x00reason \xff" // a dropped body is found by no text
		}
		if i == 4 {
			r.Forward = &receiver.Forward{URL: "http://127.0.0.1:3000/webhook", Status: 502, LatencyMS: 1.5, Body: "down", Error: "refused"}
		}
		r.Size = int64(len(r.Body))
		recs = append(recs, r)
	}
	return recs
}

func idsOfPtrs(recs []*receiver.Record) []int64 {
	out := []int64{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

// TestBackends runs every behaviour against every backend.
func TestBackends(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, bh := range behaviours {
				t.Run(bh.name, func(t *testing.T) { bh.run(t, b.db(t)) })
			}
		})
	}
}

// TestPostgresRefusesAnotherSchema: a database whose tables are not the
// receiver's is left alone, with a message saying what to do.
func TestPostgresRefusesAnotherSchema(t *testing.T) {
	db := postgresDB(t)
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: db}
	require.NoError(t, rv.Open())
	require.NoError(t, rv.Close())
	execSQL(t, db, `UPDATE meta SET value = 99 WHERE key = 'schema_version'`)
	err := (&receiver.Receiver{Addr: "127.0.0.1:0", DB: db}).Open()
	require.ErrorIs(t, err, receiver.ErrIncompatibleDatabase)
	assert.Contains(t, err.Error(), "schema version 99, written by a newer firmakit")

	other := postgresDB(t)
	execSQL(t, other, `CREATE TABLE records (id int, what text)`)
	err = (&receiver.Receiver{Addr: "127.0.0.1:0", DB: other}).Open()
	require.ErrorIs(t, err, receiver.ErrIncompatibleDatabase)
	assert.Contains(t, err.Error(), "table records has the columns (id, what)")
	assert.Contains(t, err.Error(), "CREATE DATABASE")
	assert.NotContains(t, err.Error(), "password")
}

// TestReplicasStartingTogether: replicas that create the schema at the
// same moment all open.
func TestReplicasStartingTogether(t *testing.T) {
	db := postgresDB(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: db}
			err := rv.Open()
			if err == nil {
				t.Cleanup(func() { rv.Close() })
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

// TestTwoReplicas: two receivers on one database behave as one.
func TestTwoReplicas(t *testing.T) {
	db := postgresDB(t)
	a, b := openOn(t, db, nil), openOn(t, db, nil)
	replicas := []*receiver.Receiver{a, b}

	// A stream on A, opened first, sees every record, B's too.
	streamA := dial(t, a, "")
	for i := range 10 {
		mustSend(t, replicas[i%2], "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
	}
	la, lb := listEvents(t, a, "order=asc"), listEvents(t, b, "order=asc")
	assert.Equal(t, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, idsOf(la.Events))
	assert.Equal(t, idsOf(la.Events), idsOf(lb.Events), "both list the same records")
	for i := range la.Events {
		assert.Equal(t, la.Events[i].EventID, lb.Events[i].EventID)
	}
	for want := int64(1); want <= 10; want++ {
		assert.Equal(t, want, readRecord(t, streamA).ID)
	}

	// A wait on A returns what B received.
	waited := make(chan *receiver.Record, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, _ := a.Wait(ctx, receiver.Filter{SignatureID: "sig-on-b"})
		waited <- r
	}()
	require.Eventually(t, func() bool { st, err := stats(a); return err == nil && st.Subscribers == 2 }, 3*time.Second, 5*time.Millisecond)
	id := mustSend(t, b, "merchant_demo", notification(firmakit.StateSigned, "on-b", "sig-on-b"))
	r := <-waited
	require.NotNil(t, r, "the wait on A saw nothing")
	assert.Equal(t, id, r.ID)
	assert.Equal(t, id, readRecord(t, streamA).ID)

	// Both take notifications at once: A's stream gets every one, in id
	// order, once.
	const n = 60
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- trySignedPost(replicas[i%2], "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint("c", i), "s"))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	prev := id
	for range n {
		got := readRecord(t, streamA).ID
		require.Greater(t, got, prev, "in id order, no duplicate")
		prev = got
	}
	total := listEvents(t, b, "limit=1")
	assert.Equal(t, int64(n+11), total.Total)
	assert.Equal(t, prev, total.Events[0].ID, "the stream ends at the newest record")
}

// TestCountedRuleAcrossReplicas: a rule with a count set on one replica
// is used up exactly once across both, whichever takes the notifications.
func TestCountedRuleAcrossReplicas(t *testing.T) {
	db := postgresDB(t)
	a, b := openOn(t, db, nil), openOn(t, db, nil)
	require.NoError(t, a.FailNext(context.Background(), "merchant_demo", "", 503, 7))
	const n = 40
	var wg sync.WaitGroup
	statuses := make(chan int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := send([]*receiver.Receiver{a, b}[i%2], "merchant_demo", notification(firmakit.StateSigned, fmt.Sprint(i), "s"))
			if err != nil {
				st = -1
			}
			statuses <- st
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	assert.Equal(t, map[int]int{503: 7, 200: n - 7}, count)
	var got struct{ Rules []any }
	getJSON(t, b.URL()+"/api/channels/merchant_demo/responses", &got)
	assert.Empty(t, got.Rules, "used up on both")
}

// TestDatabaseOutage: while the database is gone, notifications are
// answered 503 (never 2xx) and /healthz says why; once it is back the
// receiver reconnects by itself.
func TestDatabaseOutage(t *testing.T) {
	srv, err := pgtest.Start()
	require.NoError(t, err)
	defer srv.Stop()
	db, err := srv.CreateDatabase("outage")
	require.NoError(t, err)
	var logs syncBuffer
	rv := openOn(t, db, func(r *receiver.Receiver) { r.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	mustSend(t, rv, "merchant_demo", notification(firmakit.StateSigned, "before", "s"))

	srv.Halt()
	st, out := signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "during", "s"))
	assert.Equal(t, 503, st, out)
	var health map[string]string
	require.Eventually(t, func() bool { return getJSON(t, rv.URL()+"/healthz", &health) == 503 }, 5*time.Second, 20*time.Millisecond)
	assert.Contains(t, health["error"], "database unreachable")
	assert.Contains(t, logs.String(), "the database cannot be reached")

	require.NoError(t, srv.Resume())
	require.Eventually(t, func() bool {
		st, _ := send(rv, "merchant_demo", notification(firmakit.StateSigned, "after", "s"))
		return st == 200
	}, 15*time.Second, 100*time.Millisecond)
	assert.Equal(t, 200, getJSON(t, rv.URL()+"/healthz", nil))
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "the database is reachable again") }, 5*time.Second, 20*time.Millisecond)
	l := listEvents(t, rv, "order=asc")
	require.NotEmpty(t, l.Events)
	assert.Equal(t, "before", l.Events[0].EventID)
	assert.Equal(t, "after", l.Events[len(l.Events)-1].EventID)
	for _, r := range l.Events {
		assert.NotEqual(t, "during", r.EventID, "answered 503, so not stored")
	}
}

// execSQL runs one statement on a database.
func execSQL(t testing.TB, db, sql string) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), db)
	require.NoError(t, err)
	defer c.Close(context.Background())
	_, err = c.Exec(context.Background(), sql)
	require.NoError(t, err)
}

// TestRuleLimitAcrossReplicas: the bound on programmed answers holds over
// every replica of a database, even when they add rules at once, and on
// SQLite's one receiver; setting a rule again in place of itself is not
// one more.
func TestRuleLimitAcrossReplicas(t *testing.T) {
	defer receiver.SetMaxRules(10)()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			db := b.db(t)
			replicas := []*receiver.Receiver{openOn(t, db, nil)}
			if b.name == "postgres" {
				replicas = append(replicas, openOn(t, db, nil))
			}
			const n = 30
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- replicas[i%len(replicas)].FailNext(context.Background(), "merchant_demo", fmt.Sprint("sig", i), 503, 1)
				}()
			}
			wg.Wait()
			close(errs)
			set, refused := 0, 0
			for err := range errs {
				switch {
				case err == nil:
					set++
				case errors.Is(err, receiver.ErrTooManyRules):
					refused++
				default:
					t.Fatal(err)
				}
			}
			assert.Equal(t, 10, set, "exactly the limit is set")
			assert.Equal(t, n-10, refused)
			var got struct {
				Rules []struct {
					SignatureID string `json:"signature_id"`
				}
			}
			getJSON(t, replicas[0].URL()+"/api/channels/merchant_demo/responses", &got)
			require.Len(t, got.Rules, 10)
			last := replicas[len(replicas)-1]
			assert.NoError(t, last.FailNext(context.Background(), "merchant_demo", got.Rules[0].SignatureID, 500, 2), "a rule set again in its own place")
			assert.ErrorIs(t, last.FailNext(context.Background(), "merchant_demo", "one-more", 500, 1), receiver.ErrTooManyRules)
		})
	}
}
