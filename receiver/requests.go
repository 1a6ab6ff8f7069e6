package receiver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"
)

// RequestFeed is a service's log of the requests it received, shown by
// GET /api/requests and streamed by GET /api/requests/stream. 'firmakit
// up' sets the reference server's (reference.Server.Requests).
type RequestFeed interface {
	firmakit.RequestSource
	// Changed returns a channel closed when the next request is logged;
	// a reader takes it, reads with Since, then waits on it.
	Changed() <-chan struct{}
}

// requestsPage is how many logged requests a stream reads at once.
const requestsPage = 100

func (rv *Receiver) handleRequests(c echo.Context) error {
	if rv.Requests == nil {
		return apiError(http.StatusNotFound, msgNoRequests)
	}
	q, err := firmakit.ParseRequestsQuery(c.QueryParam("after"), c.QueryParam("limit"))
	if err != nil {
		return apiError(http.StatusBadRequest, err.Error())
	}
	return c.JSON(http.StatusOK, q.Page(rv.Requests))
}

// handleRequestStream pushes logged requests over a websocket, one JSON
// entry per text message: first every one held after ?after=ID, then each
// new one, with no gap and no duplicate. The feed keeps a bounded number
// of requests and nothing is queued per client: a client so slow that the
// feed dropped requests it was not sent yet is closed with code 1013 and
// told the id to reconnect after. An after greater than the id of the
// newest request held (the service restarted, its ids start at 1 again)
// starts at the oldest held, as if after were 0.
func (rv *Receiver) handleRequestStream(c echo.Context) error {
	if rv.Requests == nil {
		return apiError(http.StatusNotFound, msgNoRequests)
	}
	q, err := firmakit.ParseRequestsQuery(c.QueryParam("after"), "")
	if err != nil {
		return apiError(http.StatusBadRequest, err.Error())
	}
	conn, release, err := rv.openStream(c)
	if conn == nil {
		return err
	}
	defer release()
	k := rv.keepAlive(conn)
	defer k.stop()
	const writeWait = 30 * time.Second
	last, first := q.After, true
	if last > rv.Requests.Last() {
		// Ids from before a restart: the log held now is another one.
		last = 0
	}
	for {
		changed := rv.Requests.Changed()
		news := rv.Requests.Since(last, requestsPage)
		if len(news) > 0 && !first && news[0].ID != last+1 {
			k.closeWith(websocket.CloseTryAgainLater, fmt.Sprintf("too slow; reconnect with after=%d", last), writeWait)
			return nil
		}
		// Only the first read may start past after: the requests before
		// the oldest held were dropped before this client asked.
		first = false
		for _, e := range news {
			b, err := json.Marshal(e)
			if err != nil {
				return err
			}
			conn.SetWriteDeadline(time.Now().Add(writeWait))
			if err := conn.WriteMessage(websocket.TextMessage, b); err != nil {
				return nil
			}
			last = e.ID
		}
		if len(news) == requestsPage {
			continue
		}
		if _, _, alive := await(k, changed); !alive {
			return nil
		}
	}
}
