package receiver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/firmakit/firmakit/internal/connlimit"
	"github.com/labstack/echo/v4"
)

// maxDown bounds how long Refuse keeps the receiver down.
const maxDown = time.Minute

// ErrAlreadyDown is Refuse's error while the receiver is down already.
var ErrAlreadyDown = errors.New("the receiver is refusing connections already")

// downListener is the receiver's listening socket, which Refuse closes
// for a while: a sender that connects meanwhile has its connection
// refused (ECONNREFUSED), as by an endpoint that is down during a deploy.
// The socket is then opened again on the same address. Accept waits
// while it is down, so the server never sees the gap.
type downListener struct {
	addr net.Addr
	log  func() *slog.Logger

	mu     sync.Mutex
	ln     net.Listener  // nil while down
	up     chan struct{} // closed when the socket is open again
	closed bool
	done   chan struct{} // closed by Close
}

func newDownListener(ln net.Listener, log func() *slog.Logger) *downListener {
	return &downListener{addr: ln.Addr(), log: log, ln: ln, up: make(chan struct{}), done: make(chan struct{})}
}

// Accept returns the next connection, waiting while the socket is down.
func (d *downListener) Accept() (net.Conn, error) {
	for {
		d.mu.Lock()
		ln, up, closed := d.ln, d.up, d.closed
		d.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if ln == nil {
			select {
			case <-up:
			case <-d.done:
			}
			continue
		}
		c, err := ln.Accept()
		if err == nil {
			return c, nil
		}
		d.mu.Lock()
		wentDown := d.ln != ln && !d.closed
		d.mu.Unlock()
		if !wentDown {
			return nil, err
		}
	}
}

// Close closes the socket for good.
func (d *downListener) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	close(d.done)
	if d.ln != nil {
		return d.ln.Close()
	}
	return nil
}

// Addr is the address the socket listens on, and listens on again.
func (d *downListener) Addr() net.Addr { return d.addr }

// goDown closes the socket, and opens it again on the same address after
// dur; back is called once it is (or once the listener is closed).
func (d *downListener) goDown(dur time.Duration, back func()) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return net.ErrClosed
	}
	if d.ln == nil {
		d.mu.Unlock()
		return ErrAlreadyDown
	}
	ln := d.ln
	d.ln, d.up = nil, make(chan struct{})
	d.mu.Unlock()
	_ = ln.Close()
	go d.comeUp(time.Now().Add(dur), back)
	return nil
}

// comeUp opens the socket again at until, on the same address. Another
// process may have taken the port meanwhile (it was free to): it tries
// again every 100 ms, and says so once, until it gets it or is closed.
func (d *downListener) comeUp(until time.Time, back func()) {
	defer back()
	select {
	case <-time.After(time.Until(until)):
	case <-d.done:
		return
	}
	said := false
	for {
		ln, err := net.Listen(d.addr.Network(), d.addr.String())
		if err == nil {
			d.mu.Lock()
			if d.closed {
				d.mu.Unlock()
				ln.Close()
				return
			}
			d.ln = ln
			close(d.up)
			d.mu.Unlock()
			return
		}
		if !said {
			d.log().Error("the receiver cannot listen again after refusing connections; trying again", "addr", d.addr.String(), "err", err)
			said = true
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-d.done:
			return
		}
	}
}

// Refuse makes the receiver refuse every connection for dur, as an
// endpoint that is down does: its listening socket is closed, and its
// idle keep-alive connections too, so that a sender's next request,
// on a new connection or an idle one, fails to connect or is refused
// (ECONNREFUSED). Requests being answered finish. After dur the
// receiver listens again on the same address; WaitUp tells when it does.
// The API and the dashboard are down too meanwhile: they share the
// socket. A receiver behind a proxy or a tunnel looks, to a sender, the
// way that proxy answers a missing upstream (often a 502).
//
// It returns an error for a dur outside 1ms to 1m, and ErrAlreadyDown
// while the receiver is down.
func (rv *Receiver) Refuse(_ context.Context, dur time.Duration) error {
	if dur < time.Millisecond || dur > maxDown {
		return fmt.Errorf("the time to refuse connections must be from 1ms to %s", maxDown)
	}
	if rv.down == nil {
		return errors.New("the receiver is not open")
	}
	// Keep-alives off: idle connections close now, busy ones after
	// their answer, so that none outlives the socket.
	rv.srv.SetKeepAlivesEnabled(false)
	up := make(chan struct{})
	if err := rv.down.goDown(dur, func() { rv.srv.SetKeepAlivesEnabled(true); close(up) }); err != nil {
		rv.srv.SetKeepAlivesEnabled(true)
		return err
	}
	// And the connections no request has begun on: Go counts one that
	// is not five seconds old as busy, and a sender's transport keeps
	// one it dialed and did not use for its next request. Such a one
	// took a delivery half a second into a refusal of 1.5 s.
	rv.conns.CloseUnused()
	rv.upMu.Lock()
	rv.upCh = up
	rv.upMu.Unlock()
	return nil
}

// WaitUp returns once the receiver listens again after Refuse (at once
// when it is not refusing), or ctx's error when ctx ends first.
func (rv *Receiver) WaitUp(ctx context.Context) error {
	rv.upMu.Lock()
	up := rv.upCh
	rv.upMu.Unlock()
	if up == nil {
		return nil
	}
	select {
	case <-up:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (rv *Receiver) handleRefuse(c echo.Context) error {
	var in struct {
		For string `json:"for"`
	}
	dec := json.NewDecoder(io.LimitReader(c.Request().Body, 4<<10))
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	connlimit.BodyRead(c.Request())
	if err != nil {
		return apiError(http.StatusBadRequest, msgRefuseBody)
	}
	d, err := time.ParseDuration(in.For)
	if err != nil {
		return apiError(http.StatusBadRequest, msgRefuseBody)
	}
	switch err := rv.Refuse(c.Request().Context(), d); {
	case errors.Is(err, ErrAlreadyDown):
		return apiError(http.StatusConflict, err.Error())
	case err != nil:
		return apiError(http.StatusBadRequest, err.Error())
	}
	// The connection that asked goes too, whatever the timing: an answer
	// written once the window has ended (a loaded machine) would leave it
	// open, and a client's next request on it would not meet the refusal.
	c.Response().Header().Set("Connection", "close")
	return c.JSON(http.StatusOK, map[string]any{"refusing_for": d.String()})
}

// Refuse makes the remote receiver refuse connections for dur, as
// Receiver.Refuse does; its answer comes before it goes down.
func (c *Client) Refuse(ctx context.Context, dur time.Duration) error {
	body, _ := json.Marshal(map[string]string{"for": dur.String()})
	return c.post(ctx, "/api/refuse", body, http.StatusOK)
}

// WaitUp returns once the remote receiver answers its health check again
// (GET /healthz), polled every 50 ms, or ctx's error when ctx ends first.
func (c *Client) WaitUp(ctx context.Context) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.URL, "/")+"/healthz", nil)
		if err != nil {
			return err
		}
		if resp, err := c.http().Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
