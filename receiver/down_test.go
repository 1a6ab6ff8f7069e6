package receiver_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Refuse closes the socket: a sender's new connection is refused, and an
// idle keep-alive one is gone too; then the receiver listens again on the
// same address, records kept, and the API and /hooks/ answer as before.
func TestRefuseRefusesConnectionsThenListensAgain(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	ctx := context.Background()
	keepAlive := &http.Client{Transport: &http.Transport{}}
	// A new connection each time: a pooled one (http.DefaultClient's, which
	// the API calls leave idle) may still be taken for the next request
	// before its client has read the server's close, and then reads a
	// reset, not a refusal.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(c *http.Client, event string) error {
		body := notification(firmakit.StateSigned, event, "sig-down")
		req, _ := http.NewRequest("POST", rv.URL()+"/hooks/merchant_demo", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Service-Signature", profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body))
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			assert.Equal(t, 200, resp.StatusCode)
		}
		return err
	}
	require.NoError(t, post(keepAlive, "before"))
	url := rv.URL()

	// Windows of seconds: a loaded machine may take hundreds of
	// milliseconds between two requests, and the refusal must still be on.
	require.NoError(t, rv.Refuse(ctx, 2*time.Second))
	assert.ErrorIs(t, rv.Refuse(ctx, time.Second), receiver.ErrAlreadyDown)
	err := post(fresh, "new-connection")
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "a new connection is refused")
	assert.Error(t, post(keepAlive, "kept-alive"), "an idle keep-alive connection does not outlive the socket")

	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, rv.WaitUp(wctx))
	assert.Equal(t, url, rv.URL(), "the same address")
	require.NoError(t, post(keepAlive, "after"))
	events := []string{}
	for _, r := range listEvents(t, rv, "order=asc").Events {
		events = append(events, r.EventID)
	}
	assert.Equal(t, []string{"before", "after"}, events, "what was refused was never recorded; nothing else lost")

	// The same through the API, for a remote receiver.
	client := &receiver.Client{URL: rv.URL()}
	require.NoError(t, client.Refuse(ctx, 2*time.Second))
	assert.ErrorIs(t, post(fresh, "refused-again"), syscall.ECONNREFUSED)
	require.NoError(t, client.WaitUp(wctx))
	require.NoError(t, post(http.DefaultClient, "up-again"))
	// The connection that asked is closed after the answer, so that no
	// request of its client outlives the refusal on it.
	resp, err := http.Post(rv.URL()+"/api/refuse", "application/json", strings.NewReader(`{"for":"1ms"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.True(t, resp.Close, "Connection: close on the answer")
	require.NoError(t, client.WaitUp(wctx))

	ct := map[string]string{"Content-Type": "application/json"}
	for _, body := range []string{`{"for":"0s"}`, `{"for":"2m"}`, `{"for":"soon"}`, `{"for":2}`, `{}`, `{"for":"1s","x":1}`, `not json`} {
		st, out := call(t, rv, "POST", "/api/refuse", "", body, ct)
		assert.Equal(t, 400, st, body)
		assert.NotEmpty(t, out["error"], body)
	}
	assert.Error(t, rv.Refuse(ctx, 0))
	assert.Error(t, rv.Refuse(ctx, 2*time.Minute))
}

// A connection a sender dialed and has not used yet (a transport keeps
// such a one in its pool) does not outlive the refusal either: a
// delivery sent on it half a second into the refusal is not answered,
// and not recorded. Go counts it busy for five seconds, so that turning
// keep-alives off left it open.
func TestRefuseClosesUnusedConnections(t *testing.T) {
	rv := MustOpenReceiver(t, nil)
	addr := strings.TrimPrefix(rv.URL(), "http://")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	// Until the receiver has accepted it: a connection still in the
	// listening socket's queue would be refused with the socket, which
	// says nothing of the connections already open.
	time.Sleep(300 * time.Millisecond)

	require.NoError(t, rv.Refuse(context.Background(), 2*time.Second))
	time.Sleep(500 * time.Millisecond)
	body := notification(firmakit.StateSigned, "unused-connection", "sig-down")
	req := "POST /hooks/merchant_demo HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nX-Service-Signature: " +
		profile.WebhookSignature([]string{"whsec_test_demo"}, time.Now(), body) + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, _ = io.WriteString(c, req) // may fail already: the connection is closed
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "no answer on a connection the refusal closed")
	assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "closed, not left hanging")

	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, rv.WaitUp(wctx))
	assert.Empty(t, listEvents(t, rv, "order=asc").Events, "nothing was recorded")
}
