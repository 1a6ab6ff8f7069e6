package receiver

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
)

// openStream upgrades a request to a websocket within the streams' share
// of connections (half: the rest stay for hooks). It returns the
// connection and what to call when the stream ends; a nil connection with
// the error to return when it refused, or with nil when the upgrader has
// answered.
func (rv *Receiver) openStream(c echo.Context) (*websocket.Conn, func(), error) {
	if rv.nstreams.Add(1) > int64(rv.MaxConns/2) {
		rv.nstreams.Add(-1)
		return nil, nil, apiError(http.StatusServiceUnavailable, fmt.Sprintf(msgTooManyStreams, rv.MaxConns/2))
	}
	upgrader := websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 16 << 10,
		// refuseCrossSite has checked the Origin already.
		CheckOrigin: func(r *http.Request) bool { o := r.Header.Get("Origin"); return o == "" || rv.ownOrigin(o, r.Host) }}
	conn, err := upgrader.Upgrade(c.Response(), c.Request(), nil)
	if err != nil {
		rv.nstreams.Add(-1)
		return nil, nil, nil
	}
	rv.streams.Add(1)
	return conn, func() {
		conn.Close()
		rv.streams.Done()
		rv.nstreams.Add(-1)
	}, nil
}

// watchPeer reads a websocket's control frames (a pong extends the read
// deadline) and returns a channel closed when the peer leaves or stops
// answering pings. Until ended is called, a shutdown closes the
// connection, which unblocks a write stuck on a client that does not read.
func (rv *Receiver) watchPeer(conn *websocket.Conn) (gone <-chan struct{}, ended func()) {
	left := make(chan struct{})
	conn.SetReadLimit(4096)
	conn.SetReadDeadline(time.Now().Add(3 * rv.PingInterval))
	conn.SetPongHandler(func(string) error {
		conn.SetReadDeadline(time.Now().Add(3 * rv.PingInterval))
		return nil
	})
	go func() {
		defer close(left)
		for {
			if _, _, err := conn.ReadMessage(); err != nil {
				return
			}
		}
	}()
	end := make(chan struct{})
	go func() {
		select {
		case <-rv.stop:
			conn.Close()
		case <-end:
		}
	}()
	return left, func() { close(end) }
}
