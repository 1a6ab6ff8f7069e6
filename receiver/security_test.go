package receiver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call sends one request with the given Host (empty: the real one) and
// headers, and returns the status and the decoded JSON body.
func call(t *testing.T, rv *receiver.Receiver, method, path, host, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, rv.URL()+path, r)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

func port(rv *receiver.Receiver) string {
	u, _ := url.Parse(rv.URL())
	return u.Port()
}

// dialWith opens the stream with extra handshake headers; it returns the
// handshake's status when refused.
func dialWith(rv *receiver.Receiver, header http.Header) (*websocket.Conn, int, error) {
	u := "ws" + strings.TrimPrefix(rv.URL(), "http") + "/api/stream"
	c, resp, err := websocket.DefaultDialer.Dial(u, header)
	if resp != nil {
		resp.Body.Close()
		return c, resp.StatusCode, err
	}
	return c, 0, err
}

func TestDNSRebindingIsRefused(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	evil := "evil.example:" + port(rv)
	sig := profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), notification(firmakit.StateSigned, "e2", "s2"))
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/", ""},
		{"GET", "/api/events", ""},
		{"GET", "/api/events/1", ""},
		{"GET", "/api/events/export?format=jsonl", ""},
		{"DELETE", "/api/events", ""},
		{"DELETE", "/api/events/1", ""},
		{"POST", "/api/channels/merchant_demo/responses", `{"status":503}`},
		{"POST", "/hooks/merchant_demo", string(notification(firmakit.StateSigned, "e2", "s2"))},
		{"GET", "/nowhere", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			st, out := call(t, rv, tc.method, tc.path, evil, tc.body, map[string]string{"Content-Type": "application/json", "X-Service-Signature": sig})
			assert.Equal(t, 403, st)
			require.Len(t, out, 1, "the error shape: %v", out)
			assert.Contains(t, out["error"], `Host "`+evil+`" is not this receiver's`)
			if strings.HasPrefix(tc.path, "/hooks/") {
				assert.Contains(t, out["error"], "--public-url https://<that host>", "a tunnel's Host is allowed through --public-url")
			}
		})
	}
	_, st, err := dialWith(rv, http.Header{"Host": {evil}})
	assert.Error(t, err)
	assert.Equal(t, 403, st, "the stream too")
	n, _ := rv.Count(t.Context())
	assert.Equal(t, int64(1), n, "nothing was deleted and nothing recorded")
	rule, rules := getRules(t, rv, "merchant_demo")
	assert.Nil(t, rule)
	assert.Empty(t, rules)

	// A loopback address followed by what is not a port is no loopback Host.
	for _, host := range []string{"127.0.0.1:" + port(rv) + ".evil.test", "localhost:" + port(rv) + ".evil.test", "[::1]:" + port(rv) + "x"} {
		st, out := call(t, rv, "GET", "/api/events", host, "", nil)
		assert.Equal(t, 403, st, host)
		assert.Contains(t, out["error"], `is not this receiver's`, host)
	}

	// Loopback names and addresses, any port, any case.
	for _, host := range []string{"localhost:" + port(rv), "LocalHost", "127.0.0.1:1", "127.1.2.3:" + port(rv), "[::1]:" + port(rv), "[::1]"} {
		st, _ := call(t, rv, "GET", "/api/events", host, "", nil)
		assert.Equal(t, 200, st, host)
	}

	// Behind a tunnel: a public URL makes a token, which guards all but
	// the hooks, whatever the Host.
	tunneled := MustOpenReceiver(t, func(r *receiver.Receiver) { r.PublicURL = "https://abc.tunnel.example" })
	require.NotEmpty(t, tunneled.Token)
	body := notification(firmakit.StateSigned, "e3", "s3")
	h := map[string]string{"Content-Type": "application/json", "X-Service-Signature": profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body)}
	st, _ = call(t, tunneled, "POST", "/hooks/merchant_demo", "abc.tunnel.example", string(body), h)
	assert.Equal(t, 200, st)
	st, _ = call(t, tunneled, "GET", "/api/events", "abc.tunnel.example", "", nil)
	assert.Equal(t, 401, st)

	// With a token, the token is the guard.
	guarded := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Token = "s3cret" })
	st, _ = call(t, guarded, "GET", "/api/events", "evil.example", "", map[string]string{"Authorization": "Bearer s3cret"})
	assert.Equal(t, 200, st)
	st, _ = call(t, guarded, "GET", "/api/events", "evil.example", "", nil)
	assert.Equal(t, 401, st)
}

func getRules(t *testing.T, rv *receiver.Receiver, channel string) (map[string]any, []map[string]any) {
	t.Helper()
	var out struct {
		Rule  map[string]any   `json:"rule"`
		Rules []map[string]any `json:"rules"`
	}
	require.Equal(t, 200, getJSON(t, rv.URL()+"/api/channels/"+channel+"/responses", &out))
	return out.Rule, out.Rules
}

func TestCrossSiteCallsAreRefused(t *testing.T) {
	var sunk atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sunk.Add(1); w.WriteHeader(204) }))
	defer sink.Close()
	var demos atomic.Int64
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) {
		r.AllowPrivateReplay = true // the test's server is on loopback
		r.Demo = func(ctx context.Context, st firmakit.State) (*firmakit.Envelope, error) {
			demos.Add(1)
			return &firmakit.Envelope{}, nil
		}
	})
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	replay := `{"url":"` + sink.URL + `/x"}`
	other := "http://127.0.0.1:1" // another port of the same host: same site, another origin
	ctJSON := "application/json"
	for _, tc := range []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
	}{
		{"replay as text/plain", "POST", "/api/events/1/replay", replay, map[string]string{"Content-Type": "text/plain"}, 415},
		{"replay as a form", "POST", "/api/events/1/replay", "url=" + url.QueryEscape(sink.URL), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"replay as multipart", "POST", "/api/events/1/replay", replay, map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, 415},
		{"replay with no type", "POST", "/api/events/1/replay", replay, nil, 415},
		{"replay cross-site", "POST", "/api/events/1/replay", replay, map[string]string{"Content-Type": ctJSON, "Sec-Fetch-Site": "cross-site"}, 403},
		{"replay same-site", "POST", "/api/events/1/replay", replay, map[string]string{"Content-Type": ctJSON, "Sec-Fetch-Site": "same-site"}, 403},
		{"replay from another origin", "POST", "/api/events/1/replay", replay, map[string]string{"Content-Type": ctJSON, "Origin": other}, 403},
		{"replay from a null origin", "POST", "/api/events/1/replay", replay, map[string]string{"Content-Type": ctJSON, "Origin": "null"}, 403},
		{"answer rule as text/plain", "POST", "/api/channels/merchant_demo/responses", `{"status":503}`, map[string]string{"Content-Type": "text/plain"}, 415},
		{"answer rule from another origin", "POST", "/api/channels/merchant_demo/responses", `{"status":503}`, map[string]string{"Content-Type": ctJSON, "Origin": other}, 403},
		{"clear rules cross-site", "DELETE", "/api/channels/merchant_demo/responses", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"demo as text/plain", "POST", "/api/demo", `{"state":"SIGNED"}`, map[string]string{"Content-Type": "text/plain"}, 415},
		{"demo same-site", "POST", "/api/demo", `{"state":"SIGNED"}`, map[string]string{"Content-Type": ctJSON, "Sec-Fetch-Site": "same-site"}, 403},
		{"contract as a form", "POST", "/api/contracts", "signature_id=s", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"delete all cross-site", "DELETE", "/api/events", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"delete one from another origin", "DELETE", "/api/events/1", "", map[string]string{"Origin": other}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, out := call(t, rv, tc.method, tc.path, "", tc.body, tc.header)
			assert.Equal(t, tc.status, st)
			require.Len(t, out, 1, "the error shape: %v", out)
			assert.NotEmpty(t, out["error"])
		})
	}
	for _, h := range []http.Header{{"Origin": {other}}, {"Origin": {"http://evil.example"}}, {"Sec-Fetch-Site": {"same-site"}}} {
		_, st, err := dialWith(rv, h)
		assert.Error(t, err, h)
		assert.Equal(t, 403, st, h)
	}
	assert.Equal(t, int64(0), sunk.Load(), "no replay was sent")
	assert.Equal(t, int64(0), demos.Load(), "no demo contract was created")
	rule, rules := getRules(t, rv, "merchant_demo")
	assert.Nil(t, rule)
	assert.Empty(t, rules, "no answer rule was set")
	n, _ := rv.Count(t.Context())
	assert.Equal(t, int64(1), n, "nothing was deleted")

	// The receiver's own page, and clients that are not browsers, pass.
	self := map[string]string{"Content-Type": "application/json; charset=utf-8", "Origin": rv.URL(), "Sec-Fetch-Site": "same-origin"}
	st, out := call(t, rv, "POST", "/api/events/1/replay", "", replay, self)
	assert.Equal(t, 200, st, out)
	assert.Equal(t, float64(204), out["status"])
	st, _ = call(t, rv, "POST", "/api/demo", "", `{"state":"SIGNED"}`, map[string]string{"Content-Type": ctJSON})
	assert.Equal(t, 201, st)
	c, _, err := dialWith(rv, http.Header{"Origin": {rv.URL()}, "Sec-Fetch-Site": {"same-origin"}})
	require.NoError(t, err)
	c.Close()
	assert.Equal(t, int64(1), sunk.Load())
	assert.Equal(t, int64(1), demos.Load())
}

func TestReplayReportsRedirectsWithoutFollowing(t *testing.T) {
	var reached atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.RedirectHandler(elsewhere.URL+"/stolen", http.StatusTemporaryRedirect))
	defer redirector.Close()
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.AllowPrivateReplay = true })
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	st, out := call(t, rv, "POST", "/api/events/1/replay", "", `{"url":"`+redirector.URL+`/hook"}`, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, 200, st, out)
	assert.Equal(t, float64(307), out["status"])
	assert.Equal(t, elsewhere.URL+"/stolen", out["redirect"])
	assert.Contains(t, out["note"], "not followed")
	assert.Equal(t, int64(0), reached.Load(), "the redirect was not followed")
}

// TestTokenNeverInACookie: a good ?token= sets no cookie, and a cookie
// holding the token (set by an older firmakit) opens nothing; the token
// comes as a Bearer header, in any case of Bearer, or as ?token=.
func TestTokenNeverInACookie(t *testing.T) {
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.Token = "s3cret" })
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	get := func(path string) int {
		resp, err := browser.Get(rv.URL() + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Empty(t, resp.Cookies(), path)
		return resp.StatusCode
	}
	assert.Equal(t, 401, get("/api/events"))
	assert.Equal(t, 401, get("/api/events?token=wrong"))
	assert.Equal(t, 200, get("/api/events?token=s3cret"))
	assert.Equal(t, 401, get("/api/events"), "no cookie was set")
	assert.Equal(t, 200, get("/?token=s3cret"))
	assert.Equal(t, 200, get("/assets/app.js"), "the dashboard's code needs no token")
	u, _ := url.Parse(rv.URL())
	jar.SetCookies(u, []*http.Cookie{{Name: "firmakit_token", Value: "s3cret", Path: "/"}})
	assert.Equal(t, 401, get("/api/events"), "a cookie opens nothing")

	for scheme, want := range map[string]int{"Bearer": 200, "bearer": 200, "BEARER": 200, "Basic": 401} {
		st, _ := call(t, rv, "GET", "/api/events", "", "", map[string]string{"Authorization": scheme + " s3cret"})
		assert.Equal(t, want, st, scheme)
	}
}

func TestDatabaseFilesAreOwnerOnly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	rv := MustOpenReceiver(t, func(r *receiver.Receiver) { r.DB = db })
	signedPost(t, rv, "merchant_demo", notification(firmakit.StateSigned, "e", "s"))
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		fi, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), f)
	}
}
