package firmakit

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Outcomes of a ReceivedRequest's authentication: what checks 1 to 4 of
// defaults.md A made of it ("check" in its JSON; "verdict", its former
// name, is written and read beside it until VerdictSunset).
const (
	// AuthAccepted: authentication passed, whatever was answered after
	// (a 201, or a 400 of check 5).
	AuthAccepted = "accepted"
	// AuthRefused: authentication refused the request (400 Missing
	// headers, 401, or a 413 of a body too large to check).
	AuthRefused = "refused"
	// AuthNotChecked: the request was answered before authentication
	// ran (an unknown api version, a wrong method, a malformed path).
	AuthNotChecked = "not_checked"
)

// ReceivedAtFormat is how firmakit writes the time something was received
// (a request by the reference, a notification by the receiver): UTC with
// microseconds.
const ReceivedAtFormat = "2006-01-02T15:04:05.000000Z"

// ReceivedRequest is one request a service received on its API routes and
// what it answered, as the reference server logs it (GET
// /_sandbox/requests) and a receiver shows it (GET /api/requests).
type ReceivedRequest struct {
	// ID increases with each request and is never reused.
	ID         uint64 `json:"id"`
	ReceivedAt string `json:"received_at"`
	Method     string `json:"method"`
	// RequestTarget is the path as sent plus "?" and the raw query.
	RequestTarget string `json:"target"`
	RemoteAddr    string `json:"remote_addr"`
	MerchantID    string `json:"merchant_id"`
	// KeyID is the value of the profile's key header, "" when absent.
	KeyID string `json:"key_id"`
	// Status is the HTTP status answered; Message the answer's message.
	Status int `json:"status"`
	// Auth is the outcome of authentication: AuthAccepted, AuthRefused
	// or AuthNotChecked ("check" in JSON, and "verdict" until
	// VerdictSunset).
	Auth    string `json:"check"`
	Message string `json:"message"`
	// BodyBytes is the size of the body the service read, or the declared
	// Content-Length when it did not read it, -1 when neither is known.
	BodyBytes int64 `json:"body_bytes"`
	// Diagnostic explains a refusal when the service runs with --explain.
	Diagnostic *Diagnostic `json:"diagnostic,omitempty"`
}

// VerdictSunset is the last day firmakit writes and reads "verdict", the
// former name of a check: a receiver's record's signature check and a
// received request's authentication ("check" both). The first release
// after it drops the old name.
const VerdictSunset = "2027-05-31"

// receivedRequestFields is ReceivedRequest without its JSON methods.
type receivedRequestFields ReceivedRequest

// receivedRequestWire is a received request as written: its fields and
// the check's former name.
type receivedRequestWire struct {
	receivedRequestFields
	Verdict string `json:"verdict"` // deprecated: check, until VerdictSunset
}

// MarshalJSON writes the request with its check under both names until
// VerdictSunset.
func (r ReceivedRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(receivedRequestWire{receivedRequestFields(r), r.Auth})
}

// UnmarshalJSON reads a request written by this version or an earlier
// one, which wrote its check as "verdict" only.
func (r *ReceivedRequest) UnmarshalJSON(b []byte) error {
	var in receivedRequestWire
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = ReceivedRequest(in.receivedRequestFields)
	if r.Auth == "" {
		r.Auth = in.Verdict
	}
	return nil
}

// RequestSource is a log of received requests that a page is read from.
type RequestSource interface {
	// Since returns up to limit requests with an id above after, oldest first.
	Since(after uint64, limit int) []ReceivedRequest
	// Newest returns up to limit of the newest requests, newest first.
	Newest(limit int) []ReceivedRequest
	// Len is how many requests the log holds; Last the id of the newest
	// (0 for none yet).
	Len() int
	Last() uint64
}

// RequestsQuery is the query of a page of received requests:
// ?after=ID&limit=N.
type RequestsQuery struct {
	After    uint64
	HasAfter bool
	Limit    int
}

// Limits of RequestsQuery.Limit.
const (
	DefaultRequestsLimit = 100
	MaxRequestsLimit     = 1000
)

// MaxRequestsPageBytes bounds a page of received requests: past about
// this many bytes of JSON, a page holds fewer entries than its limit (at
// least one). Count says how many it holds; the client pages on with
// after= the id of the last one it got.
const MaxRequestsPageBytes = 2 << 20

// ParseRequestsQuery reads the after and limit parameters ("" when not
// given). Its errors are messages for the client: after must be a whole
// number, limit one from 1 to MaxRequestsLimit.
func ParseRequestsQuery(after, limit string) (RequestsQuery, error) {
	q := RequestsQuery{Limit: DefaultRequestsLimit}
	if after != "" {
		n, err := strconv.ParseUint(after, 10, 64)
		if err != nil {
			return q, fmt.Errorf("after must be a request id, a whole number such as 0 or 42")
		}
		q.After, q.HasAfter = n, true
	}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > MaxRequestsLimit {
			return q, fmt.Errorf("limit must be a whole number from 1 to %d", MaxRequestsLimit)
		}
		q.Limit = n
	}
	return q, nil
}

// RequestsPage is the answer to a page of received requests.
type RequestsPage struct {
	// Requests are oldest first after an id (?after=), else newest first.
	Requests []ReceivedRequest `json:"requests"`
	Count    int               `json:"count"`
	// Total is how many requests the log holds; LastID the id of the
	// newest, to pass as after= to get only what comes next.
	Total  int    `json:"total"`
	LastID uint64 `json:"last_id"`
}

// Page reads the page q asks for from src, at most MaxRequestsPageBytes
// of its entries' JSON (always one at least).
func (q RequestsQuery) Page(src RequestSource) RequestsPage {
	var reqs []ReceivedRequest
	if q.HasAfter {
		reqs = src.Since(q.After, q.Limit)
	} else {
		reqs = src.Newest(q.Limit)
	}
	size := 0
	for i, e := range reqs {
		b, err := json.Marshal(e)
		if size += len(b) + 1; err != nil || size > MaxRequestsPageBytes && i > 0 {
			reqs = reqs[:i]
			break
		}
	}
	if reqs == nil {
		reqs = []ReceivedRequest{}
	}
	return RequestsPage{Requests: reqs, Count: len(reqs), Total: src.Len(), LastID: src.Last()}
}
