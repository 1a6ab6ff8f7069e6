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
	// Close waits for the streams open once it has begun: a stream whose
	// upgrade ends after that is closed at once, not counted (a count
	// going up from none while Close waits is a race).
	rv.streamsMu.Lock()
	if rv.streamsClosed {
		rv.streamsMu.Unlock()
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "the receiver is shutting down"), time.Now().Add(time.Second))
		conn.Close()
		rv.nstreams.Add(-1)
		return nil, nil, nil
	}
	rv.streams.Add(1)
	rv.streamsMu.Unlock()
	return conn, func() {
		conn.Close()
		rv.streams.Done()
		rv.nstreams.Add(-1)
	}, nil
}

// keepAlive keeps one websocket stream alive between its messages: it
// pings the peer every PingInterval, notices the peer leaving or no
// longer answering, and tells it the receiver is shutting down. Both
// streams (records and requests) wait through it.
type keepAlive struct {
	rv    *Receiver
	conn  *websocket.Conn
	ping  *time.Ticker
	gone  <-chan struct{}
	ended func()
}

// keepAlive starts keeping conn alive; stop ends it.
func (rv *Receiver) keepAlive(conn *websocket.Conn) *keepAlive {
	gone, ended := rv.watchPeer(conn)
	return &keepAlive{rv: rv, conn: conn, ping: time.NewTicker(rv.PingInterval), gone: gone, ended: ended}
}

func (k *keepAlive) stop() {
	k.ping.Stop()
	k.ended()
}

// closeWith sends a close frame, waiting up to wait for the peer to read
// what is before it.
func (k *keepAlive) closeWith(code int, reason string, wait time.Duration) {
	_ = k.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(wait))
}

// await waits for a value of ch, pinging the peer meanwhile. It returns
// the value and whether ch is still open, or alive false when the stream
// is over: the peer left or missed a ping, or the receiver is shutting
// down (the peer told so).
func await[T any](k *keepAlive, ch <-chan T) (v T, open, alive bool) {
	const writeWait = 30 * time.Second
	for {
		select {
		case v, open = <-ch:
			return v, open, true
		case <-k.ping.C:
			if err := k.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				return v, false, false
			}
		case <-k.gone:
			return v, false, false
		case <-k.rv.stop:
			k.closeWith(websocket.CloseGoingAway, "receiver shutting down", time.Second)
			return v, false, false
		}
	}
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
