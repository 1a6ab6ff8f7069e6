package receiver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/firmakit/firmakit"
	"io"
	"net/http"
	"strings"
	"time"
)

// Forward is what a merchant's endpoint (Receiver.ForwardTo) answered to
// one notification forwarded to it.
type Forward struct {
	// URL is where the notification was forwarded: Receiver.ForwardTo.
	URL string `json:"url"`
	// Status is the endpoint's HTTP status; 0 when it gave none.
	Status int `json:"status,omitempty"`
	// LatencyMS is how long the endpoint took to answer, or to fail.
	LatencyMS float64 `json:"latency_ms"`
	// Body is the start of the endpoint's answer, as text; Truncated
	// tells that there was more.
	Body      string `json:"body"`
	Truncated bool   `json:"body_truncated,omitempty"`
	// Error says why the endpoint's answer was not passed on: it could
	// not be reached, it took longer than the delivery timeout, or it
	// answered a redirect, which is not followed.
	Error string `json:"error,omitempty"`
}

// forwardExcerpt is how much of an endpoint's answer a record keeps.
const forwardExcerpt = 2 << 10

// checkForwardTo validates Receiver.ForwardTo at Open.
func checkForwardTo(raw string, strict bool) error {
	_, err := firmakit.ParseHTTPURL(raw)
	switch {
	case err != nil:
		return fmt.Errorf("receiver: forward URL %q is not an http(s) URL", raw)
	case strict:
		return errors.New("receiver: Strict and ForwardTo exclude each other: with ForwardTo the endpoint's own answer is the answer")
	}
	return nil
}

// forward posts a notification to rv.ForwardTo unchanged (its raw body,
// the headers that sign it under the channel's scheme, and Content-Type)
// and returns what the endpoint answered and the status to answer the
// sender with: the endpoint's own,
// or 502 (unreachable, a redirect) or 504 (no whole answer within
// ForwardTimeout) with the reason in Forward.Error.
func (rv *Receiver) forward(ctx context.Context, channel string, h http.Header, body []byte) (*Forward, int) {
	f := &Forward{URL: rv.ForwardTo}
	timeout := rv.ForwardTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rv.ForwardTo, bytes.NewReader(body))
	if err != nil {
		f.Error = "the forward URL is not usable: " + err.Error()
		return f, http.StatusBadGateway
	}
	for _, name := range append([]string{"Content-Type"}, rv.profileFor(channel).WebhookSignatureHeaders()...) {
		if vs := h.Values(name); len(vs) > 0 {
			req.Header[http.CanonicalHeaderKey(name)] = append([]string(nil), vs...)
		}
	}
	req.Header.Set("User-Agent", "firmakit-receive (forwarded)")
	start := time.Now()
	resp, err := rv.forwarder.Do(req)
	latency := func() { f.LatencyMS = float64(time.Since(start).Microseconds()) / 1000 }
	if err != nil {
		latency()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			f.Error = fmt.Sprintf("the endpoint did not answer within %s, the forward timeout (--forward-timeout; default the profile's webhook.timeout, the delivery timeout); the service would retry", timeout)
			return f, http.StatusGatewayTimeout
		case errors.Is(err, context.Canceled):
			f.Error = "the sender hung up before the endpoint answered"
			return f, http.StatusBadGateway
		}
		f.Error = "the endpoint could not be reached: " + err.Error()
		return f, http.StatusBadGateway
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, forwardExcerpt+1))
	latency()
	if len(b) > forwardExcerpt {
		b, f.Truncated = b[:forwardExcerpt], true
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	}
	f.Status, f.Body = resp.StatusCode, strings.ToValidUTF8(string(b), "\uFFFD")
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		f.Error = fmt.Sprintf("the endpoint answered %d but did not finish its body within %s, the forward timeout", resp.StatusCode, timeout)
		return f, http.StatusGatewayTimeout
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		f.Error = fmt.Sprintf("the endpoint answered %d, a redirect to %s; not followed: notifications go to the configured URL only, so point --forward-to at the final one",
			resp.StatusCode, resp.Header.Get("Location"))
		return f, http.StatusBadGateway
	}
	return f, resp.StatusCode
}
