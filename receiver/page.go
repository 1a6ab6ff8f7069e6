package receiver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// What a page of records may hold and write. JSON writes a body byte as up
// to six ('<' is \u003c), so pages are bounded by what they write, and
// records are encoded straight into the answer a piece at a time: a page
// holds at most listChunk bytes of bodies read from storage (plus one
// record), and only pageReaders pages (lists, exports) and streamReaders
// stream backlogs read from storage at once; the others wait their turn.
const (
	listChunk     = 1 << 20
	pageBytes     = 8 << 20 // a list answer stops past this, with next
	pageReaders   = 4
	streamReaders = 8
	// pieceBytes is how much of a body is escaped at once.
	pieceBytes = 32 << 10
	// wireCached is the largest body whose live record's JSON is encoded
	// once and shared by the streams; larger ones are encoded by each
	// stream as it writes, so that records queued for slow clients hold
	// their body only.
	wireCached = 16 << 10
)

// errBusy is returned by acquire when the receiver closes first.
var errBusy = errors.New("receiver closed")

// acquire takes a slot of sem, waiting for one until ctx ends or the
// receiver closes; the caller gives it back with <-sem.
func (rv *Receiver) acquire(ctx context.Context, sem chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-rv.stop:
		return errBusy
	}
}

// bodyKey is how MarshalJSON writes an empty body; encodeRecord writes the
// record's JSON around it.
var bodyKey = []byte(`,"body":""`)

// encodeRecord writes r's JSON to w, byte for byte what MarshalJSON
// returns, escaping the body a piece at a time so that no copy of the
// encoded body is ever held whole. It returns the first write error.
func encodeRecord(w io.Writer, r *Record) error {
	meta := *r
	meta.Body, meta.wire = nil, nil
	b, err := meta.MarshalJSON()
	if err != nil {
		return err
	}
	// Headers and other strings have their quotes escaped, so the last
	// unescaped occurrence is the key; only delay_ms follows it.
	i := bytes.LastIndex(b, bodyKey)
	if i < 0 {
		return errors.New("record JSON without its body key")
	}
	if len(r.Body) == 0 {
		_, err := w.Write(b)
		return err
	}
	key := `,"body":"`
	if !utf8.Valid(r.Body) {
		key = `,"body_base64":"`
	}
	if _, err := w.Write(b[:i]); err != nil {
		return err
	}
	if _, err := io.WriteString(w, key); err != nil {
		return err
	}
	if err := writeBody(w, r.Body); err != nil {
		return err
	}
	if _, err := w.Write(append([]byte{'"'}, b[i+len(bodyKey):]...)); err != nil {
		return err
	}
	return nil
}

// writeBody writes body as the inside of a JSON string, as MarshalJSON
// does: text when it is UTF-8, else base64.
func writeBody(w io.Writer, body []byte) error {
	if !utf8.Valid(body) {
		// Whole groups of 3 bytes encode without padding, so pieces
		// join into the encoding of the whole.
		buf := make([]byte, base64.StdEncoding.EncodedLen(pieceBytes/3*3))
		for len(body) > 0 {
			n := min(len(body), pieceBytes/3*3)
			m := base64.StdEncoding.EncodedLen(n)
			base64.StdEncoding.Encode(buf[:m], body[:n])
			if _, err := w.Write(buf[:m]); err != nil {
				return err
			}
			body = body[n:]
		}
		return nil
	}
	for len(body) > 0 {
		// Cut at a rune's start: JSON escapes rune by rune.
		n := min(len(body), pieceBytes)
		for n < len(body) && !utf8.RuneStart(body[n]) {
			n--
		}
		s, err := json.Marshal(string(body[:n]))
		if err != nil {
			return err
		}
		if _, err := w.Write(s[1 : len(s)-1]); err != nil {
			return err
		}
		body = body[n:]
	}
	return nil
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
