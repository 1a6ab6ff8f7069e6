package receiver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit/internal/peer"
)

// Client reads a remote receiver's records through its JSON API, with the
// same calls as an in-process Receiver.
type Client struct {
	URL   string // base URL of the receiver
	Token string // its token, if it has one
	HTTP  *http.Client
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultClient
}

// defaultClient bounds a remote receiver's answers (package peer): its
// headers, 16 MiB of body, and a minute, past the 30 s of a long poll.
var defaultClient = &http.Client{Timeout: time.Minute, Transport: peer.Transport()}

func query(f Filter) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"channel": f.Channel, "state": f.State, "signature_id": f.SignatureID,
		"event_id": f.EventID, "check": f.Check} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.AfterID > 0 {
		q.Set("after", strconv.FormatInt(f.AfterID, 10))
	}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if !f.Newest {
		q.Set("order", "asc")
	}
	return q
}

func (c *Client) get(ctx context.Context, path string, q url.Values, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.URL, "/")+path+"?"+q.Encode(), nil)
	if err != nil {
		return 0, err
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode == http.StatusOK {
		return resp.StatusCode, json.Unmarshal(b, out)
	}
	return resp.StatusCode, fmt.Errorf("receiver answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
}

// Wait long-polls the receiver's wait endpoint until a record matches f or
// ctx ends (ErrTimeout).
func (c *Client) Wait(ctx context.Context, f Filter) (*Record, error) {
	for {
		timeout := 30 * time.Second
		if dl, ok := ctx.Deadline(); ok {
			timeout = time.Until(dl)
		}
		if timeout <= 0 {
			return nil, ErrTimeout
		}
		q := query(f)
		q.Del("order")
		q.Del("limit")
		q.Set("timeout", timeout.Round(time.Millisecond).String())
		var r Record
		status, err := c.get(ctx, "/api/events/wait", q, &r)
		switch {
		case status == http.StatusOK && err == nil:
			return &r, nil
		case status == http.StatusRequestTimeout:
			if ctx.Err() != nil || timeout <= 30*time.Second {
				return nil, ErrTimeout
			}
		case ctx.Err() != nil:
			return nil, ErrTimeout
		default:
			return nil, err
		}
	}
}

// List returns the records matching f.
func (c *Client) List(ctx context.Context, f Filter) ([]*Record, error) {
	var out struct {
		Events []*Record `json:"events"`
	}
	if _, err := c.get(ctx, "/api/events", query(f), &out); err != nil {
		return nil, err
	}
	return out.Events, nil
}

// Ping checks that the receiver answers.
func (c *Client) Ping(ctx context.Context) error {
	var out map[string]any
	_, err := c.get(ctx, "/api/stats", url.Values{}, &out)
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("receiver %s did not answer", c.URL)
	}
	return err
}

// FailNext programs the remote receiver's answers as Receiver.FailNext
// does: status instead of 200 to the next count notifications on channel
// (count 0: until cleared), only to contract signatureID's when it is not
// empty. It returns the receiver's refusal (a bad status or count, too
// many rules) or the transport's error.
func (c *Client) FailNext(ctx context.Context, channel, signatureID string, status, count int) error {
	return c.AnswerNext(ctx, channel, signatureID, Answer{Status: status}, count)
}

// AnswerNext programs the remote receiver's answers as
// Receiver.AnswerNext does. It returns the receiver's refusal (a bad
// status, delay or count, too many rules; a receiver too old to hang up)
// or the transport's error.
func (c *Client) AnswerNext(ctx context.Context, channel, signatureID string, a Answer, count int) error {
	in := map[string]any{"status": a.Status, "count": count, "signature_id": signatureID}
	if a.Delay > 0 {
		in["delay"] = a.Delay.String()
	}
	if a.HangUp {
		in["hang_up"] = true
	}
	if a.Reset {
		in["reset"] = true
	}
	body, _ := json.Marshal(in)
	return c.post(ctx, "/api/channels/"+url.PathEscape(channel)+"/responses", body, http.StatusOK)
}

// NoteContract tells the remote receiver when a contract was created, as
// Receiver.NoteContract does, so that it shows each notification's delay
// since then. It returns the receiver's refusal or the transport's error.
func (c *Client) NoteContract(ctx context.Context, signatureID, createdAt string) error {
	body, _ := json.Marshal(map[string]string{"signature_id": signatureID, "created_at": createdAt})
	return c.post(ctx, "/api/contracts", body, http.StatusNoContent)
}

// post sends a JSON body to a path of the receiver's API and expects the
// status want.
func (c *Client) post(ctx context.Context, path string, body []byte, want int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != want {
		return fmt.Errorf("receiver answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}
