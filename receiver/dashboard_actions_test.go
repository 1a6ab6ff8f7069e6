package receiver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/browser"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The machine running the browser tests may be shared and slow: waits are
// generous, and a wait that ends early costs nothing.
const pageWait = 30 * time.Second

// waitText waits until the text of sel is want, and says what it was
// when it never became so.
func waitText(ctx context.Context, t *testing.T, sel, want string) {
	t.Helper()
	js := `(document.querySelector(` + strconv.Quote(sel) + `) || {}).textContent === ` + strconv.Quote(want)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(pageWait))); err != nil {
		t.Fatalf("%s: want %q, got %q (%v)", sel, want, eval[string](ctx, t, `(document.querySelector(`+strconv.Quote(sel)+`) || {}).textContent || ""`), err)
	}
}

// waitMatch waits until the text of sel matches the regular expression re
// and returns it.
func waitMatch(ctx context.Context, t *testing.T, sel, re string) string {
	t.Helper()
	js := `new RegExp(` + strconv.Quote(re) + `).test((document.querySelector(` + strconv.Quote(sel) + `) || {}).textContent || "")`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(pageWait))); err != nil {
		t.Fatalf("%s: want text matching %s, got %q (%v)", sel, re, eval[string](ctx, t, `(document.querySelector(`+strconv.Quote(sel)+`) || {}).textContent || ""`), err)
	}
	return text(ctx, t, sel)
}

// waitIDs waits until the ids of the rows in the page, in order, are want.
func waitIDs(ctx context.Context, t *testing.T, want ...int) {
	t.Helper()
	b, _ := json.Marshal(append([]int{}, want...))
	js := `JSON.stringify([...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)) === ` + strconv.Quote(string(b))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(pageWait))); err != nil {
		t.Fatalf("rows: want %v, got %v", want, eval[[]int](ctx, t, `[...document.querySelectorAll("#rows tr")].map(r => +r.dataset.id)`))
	}
}

// typeInto empties the field sel and types s in it, key by key.
func typeInto(ctx context.Context, t *testing.T, sel, s string) {
	t.Helper()
	eval[chromedp.Void](ctx, t, `document.querySelector(`+strconv.Quote(sel)+`).value = ""`)
	if s != "" {
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(sel), s)), sel)
	}
}

// chooseLang picks the language in the page's selector.
func chooseLang(ctx context.Context, t *testing.T, lang string) {
	t.Helper()
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("lang"); s.value = `+strconv.Quote(lang)+`; s.dispatchEvent(new Event("change")); })()`)
}

func hasClass(ctx context.Context, t *testing.T, sel, class string) bool {
	t.Helper()
	return eval[bool](ctx, t, `document.querySelector(`+strconv.Quote(sel)+`).classList.contains(`+strconv.Quote(class)+`)`)
}

// TestDashboardProgramsAnswers drives the programmed answers form: a 503
// once on one channel is what the next notification of that channel gets
// (and no other channel), its row shows 503 and the retry's 200, the form
// follows the rule as it is used up, a rule until cleared is cleared, a
// delay the receiver refuses is reported, and all of it reads in Spanish.
func TestDashboardProgramsAnswers(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Secrets = map[string][]string{"*": {"whsec_test_demo"}} })
	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.Click(chromedp.CSS("#answers-toggle")),
		chromedp.WaitVisible(chromedp.CSS("#answers")),
	))
	assert.Equal(t, "true", eval[string](ctx, t, `document.getElementById("answers-toggle").getAttribute("aria-expanded")`))
	waitText(ctx, t, "#a-rules", "No programmed answer on merchant_demo.")

	// Another channel: its rules are shown once the field is left.
	typeInto(ctx, t, "#a-channel", "shop_a")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)))
	waitText(ctx, t, "#a-rules", "No programmed answer on shop_a.")

	typeInto(ctx, t, "#a-status", "503")
	typeInto(ctx, t, "#a-delay", "")
	typeInto(ctx, t, "#a-count", "1")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#a-set"))))
	waitText(ctx, t, "#a-rules", "503 · 1 left")
	rule, rules := getRules(t, rv, "shop_a")
	require.NotNil(t, rule, "the rule is set on the receiver")
	assert.Equal(t, float64(503), rule["status"])
	assert.Equal(t, float64(1), rule["remaining"])
	assert.Len(t, rules, 1)
	other, _ := getRules(t, rv, "merchant_demo")
	assert.Nil(t, other, "on that channel only")

	// What the senders got.
	st, _ := signedPost(t, rv, "shop_b", notification(firmakit.StateSigned, "ev-b", "sig-b"))
	assert.Equal(t, 200, st, "another channel is answered as before")
	body := notification(firmakit.StateSigned, "ev-a", "sig-a")
	st, _ = signedPost(t, rv, "shop_a", body)
	assert.Equal(t, 503, st, "the programmed answer")
	st, _ = signedPost(t, rv, "shop_a", body)
	assert.Equal(t, 200, st, "once only")

	// What the page shows.
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="3"]`))))
	assert.Equal(t, "200", text(ctx, t, `#rows tr[data-id="1"] td.answer .status.status-2xx`))
	assert.Equal(t, "503", text(ctx, t, `#rows tr[data-id="2"] td.answer .status.status-5xx`))
	assert.Equal(t, "200", text(ctx, t, `#rows tr[data-id="3"] td.answer .status.status-2xx`))
	var rec receiver.Record
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/events/2", &rec))
	assert.Equal(t, 503, rec.Status, "the record keeps what was answered")
	waitText(ctx, t, "#a-rules", "No programmed answer on shop_a.")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows tr[data-id="2"]`)), chromedp.WaitVisible(chromedp.CSS("#detail"))))
	waitText(ctx, t, "#d-id", "#2")
	assert.Equal(t, "503: a programmed answer (Programmed answers) or a receiver error.", text(ctx, t, "#d-answer"))
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape), chromedp.WaitNotVisible(chromedp.CSS("#detail"))))

	// A rule until cleared, with a delay, holds for every notification
	// until the form clears it.
	typeInto(ctx, t, "#a-status", "500")
	typeInto(ctx, t, "#a-delay", "20ms")
	typeInto(ctx, t, "#a-count", "0")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#a-set"))))
	waitText(ctx, t, "#a-rules", "500 +20ms · until cleared")
	rule, _ = getRules(t, rv, "shop_a")
	require.NotNil(t, rule)
	assert.Equal(t, map[string]any{"status": float64(500), "delay": "20ms", "remaining": float64(0)}, rule)
	for range 2 {
		st, _ = signedPost(t, rv, "shop_a", notification(firmakit.StateSigned, "ev-held", "sig-held"))
		assert.Equal(t, 500, st)
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#rows tr[data-id="5"]`))))
	assert.Equal(t, "500", text(ctx, t, `#rows tr[data-id="5"] td.answer .status.status-5xx`))
	waitText(ctx, t, "#a-rules", "500 +20ms · until cleared")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#a-clear"))))
	waitText(ctx, t, "#a-rules", "No programmed answer on shop_a.")
	rule, rules = getRules(t, rv, "shop_a")
	assert.Nil(t, rule, "cleared on the receiver")
	assert.Empty(t, rules)
	st, _ = signedPost(t, rv, "shop_a", notification(firmakit.StateSigned, "ev-after", "sig-after"))
	assert.Equal(t, 200, st)

	// A delay the receiver refuses: its reason, and no rule.
	typeInto(ctx, t, "#a-delay", "soon")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#a-set"))))
	waitText(ctx, t, "#a-rules", "Error: delay must be a duration from 0 to 1m, such as 2s")
	assert.True(t, hasClass(ctx, t, "#a-rules", "error"))
	rule, _ = getRules(t, rv, "shop_a")
	assert.Nil(t, rule)

	// Spanish: the form and what it says.
	chooseLang(ctx, t, "es")
	waitText(ctx, t, "#a-rules", "Ninguna respuesta programada en shop_a.")
	assert.False(t, hasClass(ctx, t, "#a-rules", "error"))
	assert.Equal(t, "Programar", text(ctx, t, "#a-set"))
	assert.Equal(t, "Quitar las del canal", text(ctx, t, "#a-clear"))
	typeInto(ctx, t, "#a-delay", "")
	typeInto(ctx, t, "#a-status", "429")
	typeInto(ctx, t, "#a-count", "2")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#a-set"))))
	waitText(ctx, t, "#a-rules", "429 · quedan 2")
	st, _ = signedPost(t, rv, "shop_a", notification(firmakit.StateSigned, "ev-es", "sig-es"))
	assert.Equal(t, 429, st)
	waitText(ctx, t, "#a-rules", "429 · quedan 1")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#a-clear"))))
	waitText(ctx, t, "#a-rules", "Ninguna respuesta programada en shop_a.")
	rule, _ = getRules(t, rv, "shop_a")
	assert.Nil(t, rule)
}

// TestDashboardReplaysARecord replays a record from its detail: to a
// server of the test (the exact bytes and the signature header arrive),
// and to the receiver itself, a port where nothing listens and a URL the
// receiver will not call, where the page says why it failed.
func TestDashboardReplaysARecord(t *testing.T) {
	type hit struct {
		path   string
		header http.Header
		body   []byte
	}
	hits := make(chan hit, 8)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.URL.Path, r.Header.Clone(), b}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(sink.Close)
	secrets := []string{"whsec_test_demo"}
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) {
		r.Secrets = map[string][]string{"merchant_demo": secrets, "replayed": secrets}
		r.AllowPrivateReplay = true // the test's server is on loopback
	})
	// Not canonical JSON (spacing, a trailing zero, a final newline) and
	// not ASCII: re-encoding it anywhere would show.
	body := []byte("{\"event_id\": \"ev-replay\",  \"signature_id\":\"sig-replay\", \"status\":\"SIGNED\",\n \"title\":\"Contrato ñ — «firmado»\", \"amount\": 1.50}\n")
	sig := profile.WebhookSignature(secrets, time.Now(), body)
	st, _ := post(t, rv, "merchant_demo", body, sig)
	require.Equal(t, 200, st)

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.Click(chromedp.CSS(`#rows tr[data-id="1"]`)),
		chromedp.WaitVisible(chromedp.CSS("#detail")),
	))
	assert.Equal(t, "", eval[string](ctx, t, `document.getElementById("replay-url").value`), "no URL to start with: not the receiver's own")
	replay := func(url string) {
		t.Helper()
		typeInto(ctx, t, "#replay-url", url)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#replay button[type="submit"]`))))
	}

	// To a server of the test.
	replay(sink.URL + "/webhook")
	waitMatch(ctx, t, "#replay-result", `^Answered 202 in \d+ ms$`)
	assert.False(t, hasClass(ctx, t, "#replay-result", "error"))
	var got hit
	select {
	case got = <-hits:
	default:
		t.Fatal("the page says it was answered, but the server got nothing")
	}
	assert.Equal(t, "/webhook", got.path)
	assert.True(t, bytes.Equal(body, got.body), "the exact bytes: got %q", got.body)
	assert.Equal(t, sig, got.header.Get("X-Service-Signature"), "the signature as it came")
	assert.Equal(t, "application/json", got.header.Get("Content-Type"))
	require.NoError(t, profile.VerifyWebhook(got.header.Get("X-Service-Signature"), got.body, secrets, time.Now()))

	// To the receiver itself, even with private destinations allowed.
	replay(rv.URL() + "/hooks/replayed")
	shown := waitMatch(ctx, t, "#replay-result", `^Failed: `)
	assert.Contains(t, shown, "this receiver itself")
	assert.True(t, hasClass(ctx, t, "#replay-result", "error"))

	// Nothing listens there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/webhook"
	require.NoError(t, ln.Close())
	replay(dead)
	shown = waitMatch(ctx, t, "#replay-result", `^Failed: `)
	assert.Contains(t, shown, "connection refused")
	assert.Contains(t, shown, ln.Addr().String())
	assert.True(t, hasClass(ctx, t, "#replay-result", "error"))

	// A URL the receiver does not call.
	replay("ftp://127.0.0.1/webhook")
	waitText(ctx, t, "#replay-result", "Failed: url must be an http(s) URL")
	assert.True(t, hasClass(ctx, t, "#replay-result", "error"))
	n, err := rv.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "no record from the failed replays")
	assert.Empty(t, hits, "nothing more reached the server")

	// Spanish.
	chooseLang(ctx, t, "es")
	assert.Equal(t, "Reenviar este registro", text(ctx, t, `#detail h3[data-i18n="replay"]`))
	replay(dead)
	shown = waitMatch(ctx, t, "#replay-result", `^Falló: `)
	assert.Contains(t, shown, "connection refused")
	replay(sink.URL + "/otra")
	waitMatch(ctx, t, "#replay-result", `^Respondió 202 en \d+ ms$`)
	select {
	case got = <-hits:
		assert.Equal(t, "/otra", got.path)
		assert.True(t, bytes.Equal(body, got.body))
	default:
		t.Fatal("the page says it was answered, but the server got nothing")
	}
}

// TestDashboardExportsTheFilter fetches the export links as the page
// holds them, with a filter set in the URL, behind a token (the links
// work with the cookie the dashboard got): the JSONL holds exactly the
// matching records, one per line, as the API writes them; the HAR is
// valid JSON with one entry per matching record and its exact body. The
// links follow the filter as it changes, text search included.
func TestDashboardExportsTheFilter(t *testing.T) {
	const token = "tok-export"
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Token = token })
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-1", "sig-1"))
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCreated, "ev-2", "sig-2"))
	signedPost(t, rv, "shop_b", notification(firmakit.StateSigned, "ev-3", "sig-3"))
	post(t, rv, "merchant_demo", notification(firmakit.StateRejected, "ev-4", "sig-4"), "t=1,v1=00")
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-5", "sig-5"))
	post(t, rv, "merchant_demo", []byte(`{"note":"fish & chips=1 #x"}`), "")

	ctx := browser.Shared(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/?token="+token+"#state=SIGNED"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`))))
	waitIDs(ctx, t, 5, 3, 1)
	for _, id := range []string{"export-jsonl", "export-har"} {
		assert.True(t, eval[bool](ctx, t, `document.getElementById("`+id+`").hasAttribute("download")`), "%s downloads", id)
	}

	// exported fetches a link's href in the page, as following it would.
	type download struct {
		Href, Type, Body string
		Status           int
		Disposition      string
	}
	exported := func(id string) download {
		t.Helper()
		a, err := chromedp.Run(ctx, chromedp.Evaluate[download](`(() => { const href = document.getElementById("`+id+`").href;
			return fetch(href).then(r => r.text().then(b => ({ Href: href, Status: r.status, Type: r.headers.get("Content-Type"),
				Disposition: r.headers.get("Content-Disposition"), Body: b }))); })()`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		require.Equal(t, 200, a.Status, "%s %s: %s", id, a.Href, a.Body)
		assert.Contains(t, a.Disposition, "attachment")
		return a
	}
	want := func(f receiver.Filter) []*receiver.Record {
		t.Helper()
		f.Limit = 1000
		recs, err := rv.List(context.Background(), f)
		require.NoError(t, err)
		return recs
	}
	checkJSONL := func(f receiver.Filter, ids ...int64) {
		t.Helper()
		got := exported("export-jsonl")
		assert.Equal(t, "application/x-ndjson", got.Type)
		require.True(t, strings.HasSuffix(got.Body, "\n"), "each record ends its line")
		lines := strings.Split(strings.TrimSuffix(got.Body, "\n"), "\n")
		recs := want(f)
		require.Len(t, recs, len(ids))
		require.Len(t, lines, len(recs), "one line per matching record (%s)", got.Href)
		for i, r := range recs {
			assert.Equal(t, ids[i], r.ID)
			b, err := json.Marshal(r)
			require.NoError(t, err)
			assert.JSONEq(t, string(b), lines[i], "line %d is record %d as the API writes it", i+1, r.ID)
		}
	}

	checkJSONL(receiver.Filter{State: "SIGNED"}, 1, 3, 5)
	got := exported("export-har")
	assert.Contains(t, got.Href, "format=har")
	assert.Contains(t, got.Href, "state=SIGNED")
	assert.Equal(t, "application/json", got.Type)
	require.True(t, json.Valid([]byte(got.Body)), "the HAR is JSON: %s", got.Body)
	var har struct {
		Log struct {
			Version string
			Creator struct{ Name string }
			Entries []struct {
				StartedDateTime string
				Request         struct {
					Method, URL string
					Headers     []struct{ Name, Value string }
					PostData    struct{ MimeType, Text string }
				}
				Response struct{ Status int }
				Firmakit struct{ ID int64 } `json:"_firmakit"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(got.Body), &har))
	assert.Equal(t, "1.2", har.Log.Version)
	recs := want(receiver.Filter{State: "SIGNED"})
	require.Len(t, har.Log.Entries, len(recs), "one entry per matching record")
	for i, e := range har.Log.Entries {
		r := recs[i]
		assert.Equal(t, r.ID, e.Firmakit.ID)
		assert.Equal(t, "POST", e.Request.Method)
		assert.Equal(t, rv.URL()+"/hooks/"+r.Channel, e.Request.URL)
		assert.Equal(t, string(r.Body), e.Request.PostData.Text, "the exact body of record %d", r.ID)
		assert.Equal(t, "application/json", e.Request.PostData.MimeType)
		assert.Equal(t, 200, e.Response.Status)
		assert.Contains(t, e.Request.Headers, struct{ Name, Value string }{"X-Service-Signature", r.Header.Get("X-Service-Signature")})
		_, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		assert.NoError(t, err)
	}

	// The links follow the filter as it changes in the page.
	eval[chromedp.Void](ctx, t, `(() => { const s = document.getElementById("f-check"); s.value = "valid"; s.dispatchEvent(new Event("change")); })()`)
	waitIDs(ctx, t, 5, 1)
	checkJSONL(receiver.Filter{State: "SIGNED", Check: receiver.CheckValid}, 1, 5)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#f-clear"))))
	waitIDs(ctx, t, 6, 5, 4, 3, 2, 1)
	typeInto(ctx, t, "#f-q", "fish & chips=1 #x")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)))
	waitIDs(ctx, t, 6)
	checkJSONL(receiver.Filter{Text: "fish & chips=1 #x"}, 6)
}

// TestDashboardClearsAllAfterAsking: "Clear all" asks in the page, never
// in a browser dialog, and counts every stored record even when a filter
// shows fewer; cancelling keeps them; confirming empties the receiver and
// the page says so, in Spanish here, and the page stays live.
func TestDashboardClearsAllAfterAsking(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-1", "sig-1"))
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateCreated, "ev-2", "sig-2"))
	signedPost(t, rv, "shop_b", notification(firmakit.StateSigned, "ev-3", "sig-3"))

	ctx := browser.Shared(t)
	var dialogs atomic.Int64
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
		}
	}))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(rv.URL()+"/#channel_prefix=shop_"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`))))
	waitIDs(ctx, t, 3)
	assert.False(t, eval[bool](ctx, t, `!document.getElementById("clear-confirm").hidden`), "no question before the click")

	// It asks, and counts what it would delete: every record, not the
	// filter's one.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#clear-all")), chromedp.WaitVisible(chromedp.CSS("#clear-confirm"))))
	waitText(ctx, t, "#clear-question", "Delete the 3 stored records?")
	assert.Equal(t, "clear-no", eval[string](ctx, t, `document.activeElement.id`), "the safe answer has the focus")
	// The question follows the language while it is asked.
	chooseLang(ctx, t, "es")
	waitText(ctx, t, "#clear-question", "¿Borrar los 3 registros guardados?")
	assert.Equal(t, "Sí, borrar", text(ctx, t, "#clear-yes"))
	assert.Equal(t, "Cancelar", text(ctx, t, "#clear-no"))

	// Cancelled: nothing is deleted.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#clear-no")), chromedp.WaitNotVisible(chromedp.CSS("#clear-confirm"))))
	n, err := rv.Count(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "cancelling keeps the records")
	waitIDs(ctx, t, 3)
	assert.Equal(t, "", text(ctx, t, "#action-result"))

	// Confirmed, without a filter.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#f-clear"))))
	waitIDs(ctx, t, 3, 2, 1)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#clear-all")), chromedp.WaitVisible(chromedp.CSS("#clear-confirm"))))
	waitText(ctx, t, "#clear-question", "¿Borrar los 3 registros guardados?")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#clear-yes"))))
	waitText(ctx, t, "#action-result", "3 registros borrados")
	assert.False(t, hasClass(ctx, t, "#action-result", "error"))
	st, err := stats(rv)
	require.NoError(t, err)
	assert.Equal(t, int64(0), st.Count, "the receiver is empty")
	waitIDs(ctx, t)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#empty"))))
	assert.Equal(t, "Aún no llegan notificaciones. Envíalas a la URL de arriba.", text(ctx, t, "#empty"))
	waitText(ctx, t, "#counts", "0 registros · 0 cargados")
	assert.True(t, eval[bool](ctx, t, `document.getElementById("clear-confirm").hidden`))
	assert.Equal(t, int64(0), dialogs.Load(), "no browser dialog")

	// Still live: the next notification shows, with a new id.
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "ev-4", "sig-4"))
	waitIDs(ctx, t, 4)
	assert.True(t, eval[bool](ctx, t, `document.getElementById("empty").hidden`))
}
