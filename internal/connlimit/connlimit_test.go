package connlimit_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit/internal/connlimit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve runs handler behind a listener capped at max connections.
func serve(t *testing.T, max int, handler http.Handler) (*connlimit.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := connlimit.Listen(ln, max)
	srv := &http.Server{Handler: l.WatchBodies(handler), ConnState: l.Hook, ConnContext: l.ConnContext}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, ln.Addr().String()
}

// closedByServer tells whether the server closed c within wait.
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout()) && !errors.Is(err, os.ErrDeadlineExceeded)
}

func get(t *testing.T, url string) int {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestIdleConnectionsMakeRoom(t *testing.T) {
	l, addr := serve(t, 3, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	var idle []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		idle = append(idle, c)
	}
	require.Eventually(t, func() bool { return l.Open() == 3 }, 5*time.Second, 5*time.Millisecond)
	// The cap is reached with connections that send nothing; a request
	// still gets through, in place of the oldest of them.
	assert.Equal(t, 200, get(t, "http://"+addr+"/"))
	assert.True(t, closedByServer(idle[0], 2*time.Second), "the oldest idle connection made room")
	assert.False(t, closedByServer(idle[2], 50*time.Millisecond), "the newest stays")
	assert.LessOrEqual(t, l.Open(), 3)
	assert.GreaterOrEqual(t, l.Evicted(), int64(1))
}

func TestBusyConnectionsAreNotClosed(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 8)
	l, addr := serve(t, 2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
	}))
	codes := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := c.Get("http://" + addr + "/slow")
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	<-entered
	<-entered
	// Both slots hold a request in flight: a third connection waits for
	// one of them rather than cutting it off.
	third := make(chan int, 1)
	go func() {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get("http://" + addr + "/")
		if err != nil {
			third <- 0
			return
		}
		resp.Body.Close()
		third <- resp.StatusCode
	}()
	select {
	case code := <-third:
		t.Fatalf("the third request was served (%d) while both slots were busy", code)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	assert.Equal(t, 200, <-codes)
	assert.Equal(t, 200, <-codes)
	assert.Equal(t, 200, <-third)
	assert.Equal(t, int64(0), l.Evicted())
}

// trickle opens a connection that sends a request's header and one byte
// of its 1,000-byte body, then nothing.
func trickle(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /body HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\nx", addr)
	return c
}

func TestSlowBodiesMakeRoom(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{}, 8)
	l, addr := serve(t, 4, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/body":
			io.Copy(io.Discard, r.Body)
		case "/answering":
			// Body read whole, then a long answer: never closed for it.
			io.Copy(io.Discard, r.Body)
			entered <- struct{}{}
			<-release
		}
	}))
	answering := make(chan int, 1)
	go func() {
		c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Post("http://"+addr+"/answering", "text/plain", strings.NewReader("a body read at once"))
		if err != nil {
			answering <- 0
			return
		}
		resp.Body.Close()
		answering <- resp.StatusCode
	}()
	<-entered
	var slow []net.Conn
	for i := 0; i < 2; i++ {
		slow = append(slow, trickle(t, addr))
	}
	// And one that trickles its header.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	fmt.Fprintf(c, "POST /body HTTP/1.1\r\nHost: %s\r\nContent-Le", addr)
	slow = append(slow, c)
	require.Eventually(t, func() bool { return l.Open() == 4 }, 5*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return l.Open() == 4 }, 5*time.Second, 5*time.Millisecond)
	// Every slot is busy: one answering, three trickling requests. Once
	// they have come for SlowAfter, requests get in in place of them.
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Post("http://"+addr+"/body", "text/plain", strings.NewReader(strings.Repeat("y", 1000)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	// Requests that stay being answered: each must make room anew.
	for i := 0; i < 3; i++ {
		k, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer k.Close()
		fmt.Fprintf(k, "POST /answering HTTP/1.1\r\nHost: %s\r\nContent-Length: 3\r\n\r\nabc", addr)
		<-entered
	}
	for i, c := range slow {
		assert.True(t, closedByServer(c, 5*time.Second), "trickling request %d made room", i)
	}
	// A header still coming leaves a connection new: closed as silent,
	// not counted as a slow body.
	assert.Equal(t, int64(3), l.Evicted())
	assert.Equal(t, int64(2), l.EvictedSlow())
	select {
	case code := <-answering:
		t.Fatalf("the request being answered was cut off (%d)", code)
	default:
	}
	assert.Equal(t, 4, l.Open())
}
