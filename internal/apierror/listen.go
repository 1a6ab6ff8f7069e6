package apierror

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/firmakit/firmakit"
)

// net/http answers a request it cannot parse (a malformed request line or
// request target, a bad method or header, a header block over
// MaxHeaderBytes, an unknown Transfer-Encoding) without calling any
// handler, with a text/plain body, writing these headers and nothing else
// on the connection, which it then closes.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// headCapture is how much of the bytes read since the last answer a
// connection keeps, to say what was wrong with a request net/http refused.
const headCapture = 1024

// Listen wraps ln so that the answers net/http writes on its own, outside
// any handler, are in shape too: each is recognised by its fixed form (a
// status line, then exactly the Content-Type text/plain and
// Connection: close headers) and written instead as JSON with the same
// status and a message that says what to fix. maxHeaderBytes is the
// server's MaxHeaderBytes, for the message of a 431. Every other byte
// passes unchanged.
func Listen(ln net.Listener, shape Shape, maxHeaderBytes int) net.Listener {
	if maxHeaderBytes <= 0 {
		maxHeaderBytes = http.DefaultMaxHeaderBytes
	}
	return &listener{Listener: ln, shape: shape, maxHeader: maxHeaderBytes}
}

type listener struct {
	net.Listener
	shape     Shape
	maxHeader int
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, l: l}, nil
}

// conn keeps the first bytes read since the last write: the start of the
// request being read, which net/http may refuse.
type conn struct {
	net.Conn
	l    *listener
	mu   sync.Mutex
	head [headCapture]byte
	n    int
}

// NetConn returns the connection the listener accepted, as tls.Conn's
// does: what a handler that hijacks it may set socket options on.
func (c *conn) NetConn() net.Conn { return c.Conn }

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.n += copy(c.head[c.n:], p[:n])
		c.mu.Unlock()
	}
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	status, text, refused := plainError(p)
	c.mu.Lock()
	var head []byte
	if refused {
		head = append(head, c.head[:c.n]...)
	}
	c.n = 0
	c.mu.Unlock()
	if !refused {
		return c.Conn.Write(p)
	}
	msg := c.l.message(status, text, head)
	if _, err := c.Conn.Write(jsonAnswer(status, c.l.shape(status, msg))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// plainError recognises an answer net/http wrote on its own and returns
// its status and the text of its body. 417 is also net/http's own (an
// Expect other than 100-continue); the servers never answer it themselves.
func plainError(p []byte) (int, string, bool) {
	const proto = "HTTP/1.1 "
	if len(p) < len(proto)+4 || !bytes.HasPrefix(p, []byte(proto)) || p[len(proto)+3] != ' ' {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	if status == http.StatusExpectationFailed {
		return status, "", true
	}
	_, rest, ok := bytes.Cut(p, []byte("\r\n"))
	if !ok {
		return 0, "", false
	}
	body, ok := bytes.CutPrefix(rest, []byte(plainErrorHeaders[2:]))
	if !ok {
		return 0, "", false
	}
	return status, string(body), true
}

func jsonAnswer(status int, body any) []byte {
	b, err := json.Marshal(body)
	if err != nil {
		b = []byte(`{}`)
	}
	b = append(b, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(b), b)
}

// message says what was wrong with a request net/http refused, from the
// status, net/http's text and the start of the request as it was read.
func (l *listener) message(status int, text string, head []byte) string {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return fmt.Sprintf("Request header fields too large: the request line and headers may take at most %d bytes", l.maxHeader)
	case http.StatusNotImplemented:
		return "Unsupported Transfer-Encoding: send the body with a Content-Length, or chunked"
	case http.StatusHTTPVersionNotSupported:
		return "HTTP version not supported: send HTTP/1.1"
	case http.StatusExpectationFailed:
		return "Expectation failed: the only Expect header this server takes is 100-continue"
	}
	if msg := requestLineProblem(head); msg != "" {
		return msg
	}
	// net/http's text is "400 Bad Request" or "400 Bad Request: <why>".
	if _, why, ok := strings.Cut(text, ": "); ok && why != "" {
		return "Bad request: " + firmakit.ClipBytes(why, 200)
	}
	return "Bad request: the request line or a header could not be parsed"
}

// requestLineProblem names what is wrong with the request line at the
// start of head, or returns "" when it cannot tell.
func requestLineProblem(head []byte) string {
	head = bytes.TrimLeft(head, "\r\n")
	line, _, ok := bytes.Cut(head, []byte("\n"))
	if !ok {
		return "" // not the whole line: the header limit or a partial read
	}
	s := strings.TrimSuffix(string(line), "\r")
	method, rest, ok1 := strings.Cut(s, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 {
		return fmt.Sprintf("Malformed request line %q: send METHOD /path HTTP/1.1", firmakit.ClipRunes(s, 200))
	}
	if method == "" || strings.IndexFunc(method, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
		return fmt.Sprintf("Invalid method %q: a method is letters such as POST", firmakit.ClipRunes(method, 40))
	}
	if _, _, ok := strings.Cut(proto, "HTTP/"); !ok || !strings.HasPrefix(proto, "HTTP/") {
		return fmt.Sprintf("Malformed HTTP version %q: send HTTP/1.1", firmakit.ClipRunes(proto, 40))
	}
	if _, err := url.ParseRequestURI(target); err != nil {
		return badTargetMessage(target, err)
	}
	return ""
}

// isTokenChar tells whether r may appear in an HTTP token (RFC 9110 5.6.2).
func isTokenChar(r rune) bool {
	return r < 0x7f && r > 0x20 && !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
}
