package receiver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/firmakit/firmakit/internal/connlimit"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/apierror"
	"github.com/firmakit/firmakit/internal/guard"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
)

// APIError is an error answer of the receiver's API, written as
// {"error": Message}; Err is the cause, for logs. It is the one error type
// of firmakit's servers.
type APIError = apierror.Error

func apiError(status int, msg string) error { return apierror.New(status, msg) }

// errorBody is the shape of every error answer of the receiver.
func errorBody(_ int, message string) any { return map[string]string{"error": message} }

func (rv *Receiver) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = apierror.Handler(apierror.Config{Shape: errorBody, Logger: rv.Logger, Echo: echoError, Internal: "internal error"})
	// Without a token, only loopback names (and the public URL's host)
	// reach anything, hooks included.
	g := rv.newGuard()
	e.Pre(g.CheckHost)
	e.POST("/hooks/:channel", rv.handleHook)
	e.GET("/healthz", rv.handleHealth)
	// The dashboard's code and style are the same in every copy of
	// firmakit, and a page's <script> and <link> send no header: they need
	// no token. The page itself, with the data, does.
	e.GET("/assets/*", echo.WrapHandler(http.StripPrefix("/assets/", http.FileServer(http.FS(dashboardAssets())))))

	// The token guards every route but the hooks (and a request that came
	// through a proxy needs one); calls that change the receiver (and the
	// stream, which a page could otherwise read from another site) refuse
	// what a browser sends for another site's page. Both are attached per
	// route because a group middleware would turn 405s into 404s.
	read := func(method, path string, h echo.HandlerFunc) { e.Add(method, path, h, g.RequireToken) }
	change := func(method, path string, h echo.HandlerFunc) {
		e.Add(method, path, h, g.RefuseCrossSite, guard.RequireJSON, g.RequireToken)
	}
	read("GET", "/", rv.handleDashboard)
	read("GET", "/api/info", rv.handleInfo)
	read("GET", "/api/stats", rv.handleStats)
	read("GET", "/api/events", rv.handleList)
	change("DELETE", "/api/events", rv.handleDeleteAll)
	read("GET", "/api/events/wait", rv.handleWait)
	read("GET", "/api/events/export", rv.handleExport)
	read("GET", "/api/events/:id", rv.handleGet)
	change("DELETE", "/api/events/:id", rv.handleDelete)
	change("POST", "/api/events/:id/replay", rv.handleReplay)
	change("GET", "/api/stream", rv.handleStream)
	read("GET", "/api/requests", rv.handleRequests)
	change("GET", "/api/requests/stream", rv.handleRequestStream)
	read("GET", "/api/channels/:channel/responses", rv.handleGetAnswer)
	change("POST", "/api/channels/:channel/responses", rv.handleSetAnswer)
	change("DELETE", "/api/channels/:channel/responses", rv.handleClearAnswer)
	change("POST", "/api/contracts", rv.handleNoteContract)
	change("POST", "/api/demo", rv.handleDemo)
	change("POST", "/api/refuse", rv.handleRefuse)
	return e
}

// echoError words echo's own errors like the receiver's other answers.
func echoError(c echo.Context, he *echo.HTTPError) *APIError {
	if he.Code == http.StatusNotFound {
		return apierror.New(he.Code, msgNotFound+c.Request().Method+" "+firmakit.ClipRunes(c.Request().URL.Path, 200))
	}
	return apierror.New(he.Code, strings.ToLower(http.StatusText(he.Code)))
}

// handleHealth answers 200 while notifications can be stored, 503 with
// the reason while the database cannot be reached.
func (rv *Receiver) handleHealth(c echo.Context) error {
	if err := rv.store.health(c.Request().Context()); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

func (rv *Receiver) handleDashboard(c echo.Context) error {
	page, err := dashboardFS.ReadFile("dashboard/index.html")
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	// The page's URL holds the token: no request the page makes names it.
	h.Set("Referrer-Policy", "no-referrer")
	return c.HTMLBlob(http.StatusOK, page)
}

func (rv *Receiver) handleInfo(c echo.Context) error {
	channels := []string{}
	for ch := range rv.Secrets {
		channels = append(channels, ch)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"hooks_url": rv.PublicURL + "/hooks/{channel}", "strict": rv.Strict, "demo": rv.Demo != nil, "forward_to": rv.ForwardTo, "requests": rv.Requests != nil,
		"channels_with_secrets": channels, "states": firmakit.States, "max_body": rv.MaxBody,
		"max_events": rv.MaxEvents, "max_bytes": max(rv.MaxBytes, 0), "max_age": rv.MaxAge.String(),
		"max_conns": rv.MaxConns, "idle_timeout": rv.IdleTimeout.String(), "dropped": rv.store.dropped(),
		"forward_timeout": rv.ForwardTimeout.String(),
	})
}

func (rv *Receiver) handleStats(c echo.Context) error {
	n, err := rv.store.count(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"count": n, "last_id": rv.store.last(), "subscribers": rv.hub.count(),
		"dropped": rv.store.dropped(), "connections": rv.ln.Open(), "connections_evicted": rv.ln.Evicted(),
		"slow_bodies_evicted": rv.ln.EvictedSlow(), "delayed_answers": len(rv.delayed),
		"forwards": len(rv.forwards), "forwards_answered_at_once": rv.forwardsRefused.Load()})
}

// filterFrom reads a Filter from the query; bad values are 400s that say
// what to send instead.
func filterFrom(c echo.Context) (Filter, error) {
	q := c.QueryParams()
	f := Filter{Channel: q.Get("channel"), ChannelPrefix: q.Get("channel_prefix"), State: q.Get("state"),
		SignatureID: q.Get("signature_id"), EventID: q.Get("event_id"), Check: q.Get("check"), Text: q.Get("q"),
		Limit: 100, Newest: q.Get("order") != "asc"}
	if v := q.Get("verdict"); v != "" {
		// The check's former name, taken until VerdictSunset.
		h := c.Response().Header()
		h.Set("Deprecation", verdictDeprecated)
		h.Set("Sunset", verdictSunsetHTTP)
		h.Set("Warning", `299 - "`+msgVerdictDeprecated+`"`)
		if f.Check != "" && f.Check != v {
			return f, apiError(http.StatusBadRequest, msgCheckTwice)
		}
		f.Check = v
	}
	if v := q.Get("status"); v != "" && f.State == "" {
		f.State = v
	}
	if len(f.Text) > MaxText {
		return f, apiError(http.StatusBadRequest, fmt.Sprintf(msgQueryTooLong, MaxText))
	}
	for _, p := range []struct {
		name string
		to   *int64
	}{{"after", &f.AfterID}, {"before", &f.BeforeID}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return f, apiError(http.StatusBadRequest, p.name+msgNotRecordID)
			}
			*p.to = n
		}
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return f, apiError(http.StatusBadRequest, msgSinceTime)
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return f, apiError(http.StatusBadRequest, msgLimitRange)
		}
		f.Limit = n
	}
	if v := q.Get("order"); v != "" && v != "asc" && v != "desc" {
		return f, apiError(http.StatusBadRequest, msgOrder)
	}
	if f.Check != "" && f.Check != CheckValid && f.Check != CheckInvalid && f.Check != CheckMissing && f.Check != CheckUnverified {
		return f, apiError(http.StatusBadRequest, msgCheck)
	}
	return f, nil
}

// handleList writes a page of records as it reads them from storage, a
// chunk at a time: the answer stops at f.Limit records, or past pageBytes
// written, with next to go on.
func (rv *Receiver) handleList(c echo.Context) error {
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	total, err := rv.store.total(ctx, f)
	if err != nil {
		return err
	}
	w := c.Response()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	out := &countWriter{w: bw}
	io.WriteString(out, `{"events":[`)
	n, last, full := 0, int64(0), false
	page := f
	for n < f.Limit && !full {
		if rv.acquire(ctx, rv.pages) != nil {
			return nil
		}
		page.Limit = f.Limit - n
		recs, truncated, err := rv.store.list(ctx, page, listChunk)
		if err == nil {
			for _, r := range recs {
				if n > 0 && out.n >= pageBytes {
					full = true
					break
				}
				if n > 0 {
					io.WriteString(out, ",")
				}
				if err = encodeRecord(out, r); err != nil {
					break
				}
				n, last = n+1, r.ID
			}
		}
		<-rv.pages
		if err != nil {
			// The status is sent: cut the answer short, so that the
			// client sees invalid JSON rather than a short page.
			rv.Logger.Warn("a page of records was cut short", "err", err)
			return nil
		}
		if !truncated {
			break
		}
		if f.Newest {
			page.BeforeID = last
		} else {
			page.AfterID = last
		}
	}
	fmt.Fprintf(out, `],"count":%d,"total":%d`, n, total)
	if n > 0 && (n == f.Limit || full) {
		if f.Newest {
			fmt.Fprintf(out, `,"next":"before=%d"`, last)
		} else {
			fmt.Fprintf(out, `,"next_after":%d`, last)
		}
	}
	io.WriteString(out, "}\n")
	return bw.Flush()
}

func idParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, apiError(http.StatusBadRequest, msgRecordID)
	}
	return id, nil
}

func (rv *Receiver) handleGet(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	r, err := rv.store.get(c.Request().Context(), id)
	if errors.Is(err, ErrNotFound) {
		return apiError(http.StatusNotFound, fmt.Sprintf(msgNoRecord, id))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (rv *Receiver) handleDelete(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	if err := rv.store.deleteOne(c.Request().Context(), id); errors.Is(err, ErrNotFound) {
		return apiError(http.StatusNotFound, fmt.Sprintf(msgNoRecord, id))
	} else if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (rv *Receiver) handleDeleteAll(c echo.Context) error {
	n, err := rv.store.deleteAll(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int64{"deleted": n})
}

func (rv *Receiver) handleWait(c echo.Context) error {
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	timeout := 2 * time.Second
	if v := c.QueryParam("timeout"); v != "" {
		if timeout, err = time.ParseDuration(v); err != nil || timeout <= 0 || timeout > 5*time.Minute {
			return apiError(http.StatusBadRequest, msgWaitTimeout)
		}
	}
	rv.extend(c, timeout)
	ctx, cancel := context.WithTimeout(c.Request().Context(), timeout)
	defer cancel()
	r, err := rv.Wait(ctx, f)
	if errors.Is(err, ErrTimeout) {
		return apiError(http.StatusRequestTimeout, msgNoMatch+timeout.String())
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

// each pages through every stored record matching f, oldest first, a
// chunk at a time, each read and handed to fn within a slot of sem; page,
// when set, is called before each chunk.
func (rv *Receiver) each(ctx context.Context, f Filter, sem chan struct{}, page func(), fn func(*Record) error) error {
	f.Newest, f.Limit = false, 500
	for {
		if page != nil {
			page()
		}
		if err := rv.acquire(ctx, sem); err != nil {
			return err
		}
		recs, truncated, err := rv.chunk(ctx, &f, fn)
		<-sem
		if err != nil {
			return err
		}
		if recs < f.Limit && !truncated {
			return nil
		}
	}
}

// chunk reads one chunk of records after f.AfterID and hands each to fn,
// moving f.AfterID on.
func (rv *Receiver) chunk(ctx context.Context, f *Filter, fn func(*Record) error) (int, bool, error) {
	recs, truncated, err := rv.store.list(ctx, *f, listChunk)
	if err != nil {
		return 0, false, err
	}
	for _, r := range recs {
		if err := fn(r); err != nil {
			return 0, false, err
		}
		f.AfterID = r.ID
	}
	return len(recs), truncated, nil
}

func (rv *Receiver) handleExport(c echo.Context) error {
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	format := c.QueryParam("format")
	ctx := c.Request().Context()
	w := c.Response()
	// An export takes as long as it takes; each page has its own time.
	page := func() { rv.extend(c, 0) }
	switch format {
	case "", "jsonl":
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", `attachment; filename="firmakit-events.jsonl"`)
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 32<<10)
		err = rv.each(ctx, f, rv.pages, page, func(r *Record) error {
			if err := encodeRecord(bw, r); err != nil {
				return err
			}
			return bw.WriteByte('\n')
		})
		_ = bw.Flush()
		return err
	case "har":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", `attachment; filename="firmakit-events.har"`)
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriter(w)
		fmt.Fprint(bw, `{"log":{"version":"1.2","creator":{"name":"firmakit receiver","version":"1"},"entries":[`)
		first := true
		err = rv.each(ctx, f, rv.pages, page, func(r *Record) error {
			if !first {
				bw.WriteByte(',')
			}
			first = false
			b, err := json.Marshal(harEntry(r, rv.PublicURL))
			bw.Write(b)
			return err
		})
		fmt.Fprint(bw, "]}}\n")
		_ = bw.Flush()
		return err
	}
	return apiError(http.StatusBadRequest, msgExportFormat)
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func harEntry(r *Record, base string) map[string]any {
	headers := []harNV{}
	for k, vs := range r.Header {
		for _, v := range vs {
			headers = append(headers, harNV{k, v})
		}
	}
	query := []harNV{}
	if q, err := url.ParseQuery(r.Query); err == nil {
		for k, vs := range q {
			for _, v := range vs {
				query = append(query, harNV{k, v})
			}
		}
	}
	u := base + r.Path
	if r.Query != "" {
		u += "?" + r.Query
	}
	mime := r.Header.Get("Content-Type")
	if mime == "" {
		mime = "application/octet-stream"
	}
	post := map[string]any{"mimeType": mime, "text": string(r.Body)}
	return map[string]any{
		"startedDateTime": r.ReceivedAt.UTC().Format(time.RFC3339Nano),
		"time":            0,
		"request": map[string]any{
			"method": r.Method, "url": u, "httpVersion": "HTTP/1.1", "headers": headers, "queryString": query,
			"cookies": []any{}, "headersSize": -1, "bodySize": r.Size, "postData": post,
		},
		"response": map[string]any{
			"status": r.Status, "statusText": http.StatusText(r.Status), "httpVersion": "HTTP/1.1",
			"headers": []any{}, "cookies": []any{}, "content": map[string]any{"size": 0, "mimeType": "application/json"},
			"redirectURL": "", "headersSize": -1, "bodySize": -1,
		},
		"cache":   map[string]any{},
		"timings": map[string]any{"send": 0, "wait": 0, "receive": 0},
		"comment": fmt.Sprintf("firmakit record %d, channel %s, signature check %s", r.ID, r.Channel, r.Check),
		// verdict: the check's former name, until VerdictSunset.
		"_firmakit": map[string]any{"id": r.ID, "check": r.Check, "verdict": r.Check, "reason": r.Reason, "event_id": r.EventID, "forward": r.Forward},
	}
}

// hopHeaders are not replayed: the transport sets them anew.
var hopHeaders = map[string]bool{"Host": true, "Content-Length": true, "Connection": true, "Accept-Encoding": true,
	"Transfer-Encoding": true, "Keep-Alive": true, "Te": true, "Trailer": true, "Upgrade": true}

func (rv *Receiver) handleReplay(c echo.Context) error {
	id, err := idParam(c)
	if err != nil {
		return err
	}
	var in struct {
		URL     string   `json:"url"`
		Secrets []string `json:"secrets"`
	}
	err = json.NewDecoder(io.LimitReader(c.Request().Body, 64<<10)).Decode(&in)
	connlimit.BodyRead(c.Request())
	if err != nil {
		return apiError(http.StatusBadRequest, msgReplayBody)
	}
	// Where a replay may go is checked before anything is read or sent,
	// and again when dialling (rv.replayer); a redirect is reported, not
	// followed.
	if err := rv.replays.checkURL(c.Request().Context(), in.URL); err != nil {
		if errors.Is(err, ErrPrivateDestination) || errors.Is(err, ErrSelfDestination) {
			return apiError(http.StatusForbidden, msgRefused+err.Error())
		}
		return apiError(http.StatusBadRequest, err.Error())
	}
	r, err := rv.store.get(c.Request().Context(), id)
	if errors.Is(err, ErrNotFound) {
		return apiError(http.StatusNotFound, fmt.Sprintf(msgNoRecord, id))
	}
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(c.Request().Context(), r.Method, in.URL, bytes.NewReader(r.Body))
	if err != nil {
		return apiError(http.StatusBadRequest, err.Error())
	}
	for k, vs := range r.Header {
		if !hopHeaders[http.CanonicalHeaderKey(k)] {
			req.Header[k] = vs
		}
	}
	for _, sec := range in.Secrets {
		if err := rv.profileFor(r.Channel).Webhook.CheckWebhookKey(sec, true); err != nil {
			return apiError(http.StatusBadRequest, "secrets: "+err.Error())
		}
	}
	if len(in.Secrets) > 0 {
		rv.profileFor(r.Channel).SignWebhookRequest(req, r.EventID, in.Secrets, rv.Now(), r.Body)
	}
	start := time.Now()
	resp, err := rv.replayer.Do(req)
	out := map[string]any{"latency_ms": float64(time.Since(start).Microseconds()) / 1000, "resigned": len(in.Secrets) > 0}
	if errors.Is(err, ErrPrivateDestination) || errors.Is(err, ErrSelfDestination) {
		return apiError(http.StatusForbidden, msgRefused+err.Error())
	}
	if err != nil {
		out["error"] = err.Error()
		return c.JSON(http.StatusBadGateway, out)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	out["status"], out["body"] = resp.StatusCode, string(b)
	if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
		out["redirect"] = loc
		out["note"] = "the redirect was not followed: replay again to that URL if it is meant"
	}
	return c.JSON(http.StatusOK, out)
}

func (rv *Receiver) handleGetAnswer(c echo.Context) error {
	all, rules, err := rv.answers.list(c.Request().Context(), c.Param("channel"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": c.Param("channel"), "rule": all, "rules": rules})
}

func (rv *Receiver) handleSetAnswer(c echo.Context) error {
	var in struct {
		Status      *int   `json:"status"`
		Delay       string `json:"delay"`
		HangUp      bool   `json:"hang_up"`
		Reset       bool   `json:"reset"`
		Count       int    `json:"count"`
		SignatureID string `json:"signature_id"`
	}
	dec := json.NewDecoder(io.LimitReader(c.Request().Body, 64<<10))
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	connlimit.BodyRead(c.Request())
	if err != nil {
		return apiError(http.StatusBadRequest, msgRuleBody)
	}
	if in.Status == nil && !in.HangUp && !in.Reset {
		return apiError(http.StatusBadRequest, msgRuleStatus)
	}
	// reset is a way of hanging up; hang_up need not be said with it.
	a := Answer{HangUp: in.HangUp || in.Reset, Reset: in.Reset}
	if in.Status != nil {
		a.Status = *in.Status
	}
	if in.Delay != "" {
		d, err := time.ParseDuration(in.Delay)
		if err != nil {
			return apiError(http.StatusBadRequest, msgRuleDelay)
		}
		a.Delay = d
	}
	if err := validRule(c.Param("channel"), a, in.Count); err != nil {
		return apiError(http.StatusBadRequest, err.Error())
	}
	if len(in.SignatureID) > 200 {
		return apiError(http.StatusBadRequest, msgRuleSignatureID)
	}
	rule := a.rule(in.SignatureID, in.Count)
	rule.Delay = in.Delay
	ctx := c.Request().Context()
	if err := rv.answers.set(ctx, c.Param("channel"), rule); errors.Is(err, ErrTooManyRules) {
		return apiError(http.StatusConflict, err.Error())
	} else if err != nil {
		return err
	}
	all, rules, err := rv.answers.list(ctx, c.Param("channel"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": c.Param("channel"), "rule": all, "rules": rules})
}

// handleClearAnswer clears a channel's rules, or with ?signature_id= that
// contract's only.
func (rv *Receiver) handleClearAnswer(c echo.Context) error {
	if err := rv.answers.clear(c.Request().Context(), c.Param("channel"), c.QueryParam("signature_id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (rv *Receiver) handleNoteContract(c echo.Context) error {
	var in struct {
		SignatureID string `json:"signature_id"`
		CreatedAt   string `json:"created_at"`
	}
	err := json.NewDecoder(io.LimitReader(c.Request().Body, 64<<10)).Decode(&in)
	connlimit.BodyRead(c.Request())
	if err != nil || in.SignatureID == "" || len(in.SignatureID) > 200 {
		return apiError(http.StatusBadRequest, msgContractBody)
	}
	if err := rv.NoteContract(c.Request().Context(), in.SignatureID, in.CreatedAt); err != nil {
		return apiError(http.StatusBadRequest, err.Error())
	}
	return c.NoContent(http.StatusNoContent)
}

func (rv *Receiver) handleDemo(c echo.Context) error {
	if rv.Demo == nil {
		return apiError(http.StatusNotFound, msgNoDemo)
	}
	var in struct {
		State string `json:"state"`
	}
	_ = json.NewDecoder(io.LimitReader(c.Request().Body, 4<<10)).Decode(&in)
	connlimit.BodyRead(c.Request())
	st := firmakit.State(in.State)
	if !st.Valid() {
		return apiError(http.StatusBadRequest, msgDemoState)
	}
	env, err := rv.Demo(c.Request().Context(), st)
	if err != nil {
		return apiError(http.StatusBadGateway, msgDemoFailed+err.Error())
	}
	return c.JSON(http.StatusCreated, env)
}

// handleStream pushes records over a websocket: first every stored record
// after ?after=ID, then each new one, with no gap and no duplicate. A
// client that falls StreamBuffer records behind is closed with code 1013
// and reconnects with the last id it saw.
func (rv *Receiver) handleStream(c echo.Context) error {
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	conn, release, err := rv.openStream(c)
	if conn == nil {
		return err
	}
	defer release()

	match := f
	match.AfterID, match.BeforeID = 0, 0
	sub := rv.hub.subscribe(rv.StreamBuffer, match.Match)
	defer rv.hub.unsubscribe(sub)

	// A write may wait this long for a client that does not read. Only this
	// client's goroutine waits (the hub never does), and a client that
	// drains in time loses nothing; past it the peer is taken for dead.
	const writeWait = 30 * time.Second
	last := f.AfterID
	send := func(r *Record) error {
		if r.ID <= last {
			return nil
		}
		conn.SetWriteDeadline(time.Now().Add(writeWait))
		if err := writeFrame(conn, r); err != nil {
			return err
		}
		last = r.ID
		return nil
	}
	// Backlog from storage; live records wait in the subscription.
	backlog := match
	backlog.AfterID = f.AfterID
	if err := rv.each(c.Request().Context(), backlog, rv.backlogs, nil, send); err != nil {
		return nil
	}

	// The reader handles pongs and notices the client leaving.
	k := rv.keepAlive(conn)
	defer k.stop()
	for {
		r, open, alive := await(k, sub.ch)
		switch {
		case !alive:
			return nil
		case !open:
			code, reason, wait := websocket.CloseGoingAway, "receiver shutting down", time.Second
			if rv.hub.wasCut(sub) {
				// The close frame waits behind what the client has not
				// read yet; a slow client that drains within 30 s still
				// learns where to resume. Only this client's goroutine
				// waits, and a shutdown aborts it.
				code, reason, wait = websocket.CloseTryAgainLater, fmt.Sprintf("too slow; reconnect with after=%d", last), 30*time.Second
			}
			k.closeWith(code, reason, wait)
			return nil
		}
		sub.took(r)
		if err := send(r); err != nil {
			return nil
		}
	}
}

// writeFrame writes r as one websocket message: a small live record's
// shared JSON, or the record encoded a piece at a time into the frame.
func writeFrame(conn *websocket.Conn, r *Record) error {
	if r.wire != nil && len(r.Body) <= wireCached {
		b, err := r.wireJSON()
		if err != nil {
			return err
		}
		return conn.WriteMessage(websocket.TextMessage, b)
	}
	w, err := conn.NextWriter(websocket.TextMessage)
	if err != nil {
		return err
	}
	if err := encodeRecord(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
