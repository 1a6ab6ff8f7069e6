package receiver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"github.com/firmakit/firmakit"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Outcomes of a record's signature check (Record.Check, "check" in the
// API and the store).
const (
	CheckValid      = "valid"      // a signature entry matches a channel secret
	CheckInvalid    = "invalid"    // malformed header, stale or future timestamp, or no match
	CheckMissing    = "missing"    // no signature header
	CheckUnverified = "unverified" // no secret known for the channel
)

// Until VerdictSunset the record's check is also readable by its former
// name, "verdict": a record's JSON carries both keys and the API takes
// ?verdict= (answering with a Deprecation header), so that clients of
// earlier versions keep working. The first release after that date drops
// the old name (docs/receiver.md, "The check, formerly verdict").
const (
	VerdictSunset = firmakit.VerdictSunset
	// verdictDeprecated is the day the old name was deprecated, as the
	// Deprecation header (RFC 9745) writes it: 2026-11-26.
	verdictDeprecated = "@1795651200"
	// verdictSunsetHTTP is VerdictSunset's end as the Sunset header
	// (RFC 8594) writes it.
	verdictSunsetHTTP = "Mon, 31 May 2027 23:59:59 GMT"
)

// Record is one request received on a hook, exactly as it came.
type Record struct {
	ID          int64       `json:"id"`
	Channel     string      `json:"channel"`
	Method      string      `json:"method"`
	Path        string      `json:"path"`
	Query       string      `json:"query"`
	Header      http.Header `json:"headers"`
	Body        []byte      `json:"-"`
	Size        int64       `json:"size"`
	BodyDropped bool        `json:"body_dropped,omitempty"`
	ReceivedAt  time.Time   `json:"-"`
	RemoteAddr  string      `json:"remote_addr"`
	Check       string      `json:"check"`
	Reason      string      `json:"reason,omitempty"`
	// VerifiedBy names the key that verified a valid record, without
	// giving it away (firmakit.Profile.KeyName): an Ed25519 public key,
	// whpk_…, or "secret" and a fingerprint of an HMAC secret. With several
	// keys (rotation) it says which one the sender used.
	VerifiedBy string `json:"verified_by,omitempty"`
	// Extracted from the body when it is a notification.
	EventID     string `json:"event_id,omitempty"`
	SignatureID string `json:"signature_id,omitempty"`
	State       string `json:"state,omitempty"`
	CreatedAt   string `json:"created_at,omitempty"`
	Duplicate   bool   `json:"duplicate"`
	// ContractCreatedAt is the created_at of the contract, when the
	// receiver was told it (see Receiver.NoteContract).
	ContractCreatedAt string `json:"contract_created_at,omitempty"`
	// Status is the HTTP status the receiver answered: 200, a programmed
	// answer (see Receiver.FailNext), 401 under Strict, 413 for a body
	// over MaxBody; 0 when it hung up without an answer (Answer.HangUp).
	// It tells a first attempt answered 503 from the retry answered 200.
	Status int `json:"answer_status"`
	// Forward is what the merchant's endpoint answered when the receiver
	// forwards notifications to it (Receiver.ForwardTo); nil otherwise.
	Forward *Forward `json:"forward,omitempty"`

	// headerJSON is Header encoded for storage, in the request's goroutine
	// rather than on the single writer.
	headerJSON []byte
	// wire holds the record's JSON for live records, encoded once by the
	// first stream that pushes it and shared by the others.
	wire *lazyJSON
}

type lazyJSON struct {
	once sync.Once
	b    []byte
	err  error
}

// wireJSON returns the record's JSON, encoding a live record at most once.
func (r *Record) wireJSON() ([]byte, error) {
	if r.wire == nil {
		return json.Marshal(r)
	}
	r.wire.once.Do(func() { r.wire.b, r.wire.err = json.Marshal(r) })
	return r.wire.b, r.wire.err
}

// MarshalJSON adds the body (as text when it is UTF-8, else base64), the
// formatted receive time, and the check's former name until VerdictSunset.
func (r *Record) MarshalJSON() ([]byte, error) {
	type plain Record
	out := struct {
		*plain
		Verdict    string   `json:"verdict"` // deprecated: check
		ReceivedAt string   `json:"received_at"`
		Body       *string  `json:"body,omitempty"`
		BodyBase64 *string  `json:"body_base64,omitempty"`
		DelayMS    *float64 `json:"delay_ms,omitempty"`
	}{plain: (*plain)(r), Verdict: r.Check, ReceivedAt: r.ReceivedAt.UTC().Format(firmakit.ReceivedAtFormat)}
	if utf8.Valid(r.Body) {
		s := string(r.Body)
		out.Body = &s
	} else {
		s := base64.StdEncoding.EncodeToString(r.Body)
		out.BodyBase64 = &s
	}
	if r.ContractCreatedAt != "" {
		if t, err := time.Parse(time.RFC3339Nano, r.ContractCreatedAt); err == nil {
			d := float64(r.ReceivedAt.Sub(t).Microseconds()) / 1000
			out.DelayMS = &d
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a record as MarshalJSON writes it, for API clients;
// a record with verdict and no check (from a receiver of an earlier
// version) has it as its check.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	var in struct {
		*plain
		Verdict    string  `json:"verdict"`
		ReceivedAt string  `json:"received_at"`
		Body       *string `json:"body"`
		BodyBase64 *string `json:"body_base64"`
	}
	in.plain = (*plain)(r)
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	if r.Check == "" {
		r.Check = in.Verdict
	}
	r.ReceivedAt, _ = time.Parse(firmakit.ReceivedAtFormat, in.ReceivedAt)
	switch {
	case in.Body != nil:
		r.Body = []byte(*in.Body)
	case in.BodyBase64 != nil:
		r.Body, _ = base64.StdEncoding.DecodeString(*in.BodyBase64)
	}
	return nil
}

// Filter selects records; zero fields match everything.
type Filter struct {
	Channel       string
	ChannelPrefix string // channels that start with it
	State         string
	SignatureID   string
	EventID       string
	Check         string
	// Text is a byte string the stored body contains (case-sensitive; a
	// record whose body was dropped has none).
	Text     string
	AfterID  int64     // records with a greater id
	BeforeID int64     // records with a smaller id (0: no bound)
	Since    time.Time // records received at or after
	Limit    int       // at most this many (default 100, max 1000)
	Newest   bool      // newest first instead of oldest first
}

// MaxText bounds Filter.Text, so that a search costs at most one bounded
// substring scan of each stored body.
const MaxText = 200

// Match tells whether r passes the filter's conditions, paging bounds
// included (AfterID, BeforeID), so that a stream and a list agree.
func (f Filter) Match(r *Record) bool {
	return (f.Channel == "" || r.Channel == f.Channel) &&
		(f.ChannelPrefix == "" || strings.HasPrefix(r.Channel, f.ChannelPrefix)) &&
		(f.State == "" || r.State == f.State) &&
		(f.SignatureID == "" || r.SignatureID == f.SignatureID) &&
		(f.EventID == "" || r.EventID == f.EventID) &&
		(f.Check == "" || r.Check == f.Check) &&
		(f.Text == "" || (!r.BodyDropped && bytes.Contains(r.Body, []byte(f.Text)))) &&
		r.ID > f.AfterID && (f.BeforeID == 0 || r.ID < f.BeforeID) &&
		(f.Since.IsZero() || !r.ReceivedAt.Before(f.Since))
}
