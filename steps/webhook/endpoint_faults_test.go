package webhook_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
	"github.com/firmakit/firmakit/steps/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shop is a merchant's webhook endpoint written from the profile alone
// (defaults §B), as a merchant's developer would write it: read the raw
// body, take t and the v1 entries of X-Service-Signature, refuse a t that
// is not whole seconds or is more than 300 s away, accept when any v1
// entry is the HMAC-SHA256 of "<t>." + body, look the contract up, and
// answer 2xx again to an event already handled. It computes its HMAC
// itself, as a merchant's code does, so that it checks the suite's
// signing as much as the suite checks it.
//
// Each field left nil is the correct behaviour; an endpoint fault sets one
// of them, as a developer gets one thing wrong.
type shop struct {
	secret string
	// open answers 2xx to everything, verifying nothing.
	open bool
	// legacy takes a header without t as a legacy scheme, without an age.
	legacy bool
	// known are the contracts the merchant created; nil: it does not
	// look contracts up.
	known map[string]bool

	now    func() time.Time
	read   func(r *http.Request) ([]byte, int)       // the body, or a status to answer
	check  func(r *http.Request, body []byte) int    // a check before verifying; 0 passes
	parse  func(h string) (ts string, sigs []string) // "" ts: none
	parseT func(ts string) (float64, bool)           // t in seconds
	fresh  func(age float64) bool                    // age: now - t, seconds
	signed func(ts string, body []byte) []string     // the texts a signature may cover
	match  func(want, sig string) bool               // want: lower-case hex
	verify func(matches []bool) bool                 // one bool per v1 entry; default: any
	bodyOf func(raw []byte) []byte                   // the bytes verified
	accept func(n map[string]any) int                // a check of the payload; 0 passes
	// okStatus and okBody are the answer to a notification taken
	// (default 204, no body); refuseStatus, when set, answers every
	// refusal; pause is how long it takes before answering.
	okStatus     int
	okBody       string
	refuseStatus int
	pause        time.Duration
	remember     func(r *http.Request, body []byte, n map[string]any) string // a key to refuse when seen again; "" none
	// signedT is the t the signed text is made with, from the header
	// (default: the t whose age was checked).
	signedT func(h string) string
	// early, when it gives a status, answers it before verifying.
	early func(r *http.Request, body []byte) int
	// skipAge leaves the age of t unchecked for such a body.
	skipAge func(body []byte) bool
	// replay answers an event_id seen before with the status it got the
	// first time.
	replay bool

	mu      sync.Mutex
	seen    map[string]bool
	answers map[string]int
}

// statusRecorder notes the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

const shopTolerance = 300

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.pause > 0 {
		time.Sleep(s.pause)
	}
	refuse := func(status int, why string) {
		if s.refuseStatus != 0 {
			status = s.refuseStatus
		}
		http.Error(w, why, status)
	}
	if s.open {
		w.WriteHeader(http.StatusOK)
		return
	}
	if s.replay {
		raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var ev struct {
			EventID string `json:"event_id"`
		}
		_ = json.Unmarshal(raw, &ev)
		s.mu.Lock()
		st, ok := s.answers[ev.EventID]
		s.mu.Unlock()
		if ok {
			w.WriteHeader(st)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		rec := &statusRecorder{ResponseWriter: w}
		w = rec
		defer func() {
			if ev.EventID == "" {
				return
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.answers == nil {
				s.answers = map[string]int{}
			}
			s.answers[ev.EventID] = max(rec.status, http.StatusOK)
		}()
	}
	var raw []byte
	if s.read != nil {
		var st int
		if raw, st = s.read(r); st != 0 {
			refuse(st, "body refused")
			return
		}
	} else {
		var err error
		if raw, err = io.ReadAll(io.LimitReader(r.Body, 1<<20)); err != nil {
			refuse(http.StatusBadRequest, err.Error())
			return
		}
	}
	if s.check != nil {
		if st := s.check(r, raw); st != 0 {
			refuse(st, "request refused")
			return
		}
	}
	if s.early != nil {
		if st := s.early(r, raw); st != 0 {
			w.WriteHeader(st)
			return
		}
	}
	h := r.Header.Get("X-Service-Signature")
	var ts string
	var sigs []string
	if s.parse != nil {
		ts, sigs = s.parse(h)
	} else {
		ts, sigs = parseShopHeader(h)
	}
	if ts != "" || !s.legacy {
		t, ok := wholeSeconds(ts)
		if s.parseT != nil {
			t, ok = s.parseT(ts)
		}
		if !ok {
			refuse(http.StatusUnauthorized, "t is not a Unix time")
			return
		}
		now := time.Now()
		if s.now != nil {
			now = s.now()
		}
		age := float64(now.Unix()) + float64(now.Nanosecond())/1e9 - t
		fresh := math.Abs(age) <= shopTolerance
		if s.fresh != nil {
			fresh = s.fresh(age)
		}
		if !fresh && (s.skipAge == nil || !s.skipAge(raw)) {
			refuse(http.StatusUnauthorized, "t outside the tolerance")
			return
		}
	}
	if s.signedT != nil {
		ts = s.signedT(h)
	}
	body := raw
	if s.bodyOf != nil {
		body = s.bodyOf(raw)
	}
	texts := []string{ts + "." + string(body)}
	if s.signed != nil {
		texts = s.signed(ts, body)
	}
	matches := make([]bool, len(sigs))
	for i, sig := range sigs {
		for _, text := range texts {
			m := hmac.New(sha256.New, []byte(s.secret))
			m.Write([]byte(text))
			want := hex.EncodeToString(m.Sum(nil))
			if s.match != nil {
				matches[i] = matches[i] || s.match(want, sig)
			} else {
				got, err := hex.DecodeString(sig)
				matches[i] = matches[i] || (err == nil && hmac.Equal(got, m.Sum(nil)))
			}
		}
	}
	ok := false
	if s.verify != nil {
		ok = s.verify(matches)
	} else {
		for _, m := range matches {
			ok = ok || m
		}
	}
	if !ok {
		refuse(http.StatusUnauthorized, "invalid signature")
		return
	}
	var n map[string]any
	if err := json.Unmarshal(raw, &n); err != nil {
		refuse(http.StatusBadRequest, "not JSON")
		return
	}
	if id, _ := n["signature_id"].(string); s.known != nil && !s.known[id] {
		refuse(http.StatusNotFound, "unknown contract")
		return
	}
	if s.accept != nil {
		if st := s.accept(n); st != 0 {
			refuse(st, "payload refused")
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.remember != nil {
		key := s.remember(r, raw, n)
		if s.seen[key] {
			refuse(http.StatusConflict, "already seen")
			return
		}
		s.seen[key] = true
	}
	event, _ := n["event_id"].(string)
	if s.seen["event "+event] {
		w.WriteHeader(http.StatusOK) // handled already: nothing more to do
		return
	}
	s.seen["event "+event] = true
	if s.okStatus == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if s.okBody != "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(s.okStatus)
	_, _ = io.WriteString(w, s.okBody)
}

// parseShopHeader takes t (exactly once) and the v1 entries; other keys
// are other schemes, ignored.
func parseShopHeader(h string) (ts string, sigs []string) {
	seenT := false
	for _, item := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		switch {
		case !ok:
			return "", nil
		case k == "t" && seenT:
			return "", nil
		case k == "t":
			ts, seenT = v, true
		case k == "v1":
			sigs = append(sigs, v)
		}
	}
	return ts, sigs
}

// wholeSeconds reads t as base-10 digits only.
func wholeSeconds(ts string) (float64, bool) {
	if ts == "" || len(ts) > 18 || strings.Trim(ts, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	return float64(n), err == nil
}

// endpointFault is one realistic mistake of a merchant's endpoint.
type endpointFault struct {
	name, mistake string
	make          func(s *shop)
	// hint, when set, must be in the run's hints: the cause named.
	hint string
}

// anyKeyParse takes every entry but t as a signature, v0 and v2 too.
func anyKeyParse(h string) (string, []string) {
	var ts string
	var sigs []string
	for _, item := range strings.Split(h, ",") {
		k, v, _ := strings.Cut(item, "=")
		if k == "t" {
			ts = v
		} else {
			sigs = append(sigs, v)
		}
	}
	return ts, sigs
}

func endpointFaults() []endpointFault {
	tol := float64(shopTolerance)
	refuseSeen := func(key func(r *http.Request, body []byte, n map[string]any) string) func(*shop) {
		return func(s *shop) { s.remember = key }
	}
	return []endpointFault{
		{"accepts-everything", "answers 200 without verifying anything",
			func(s *shop) { s.open = true }, "Everything was accepted"},
		{"verifies-reserialised-body", "verifies the parsed body written back out, keys sorted",
			func(s *shop) { s.bodyOf = reserialised }, "Everything was refused, the valid notifications too"},
		{"verifies-compacted-body", "takes insignificant spaces out of the body before verifying",
			func(s *shop) { s.bodyOf = compacted }, ""},
		{"normalises-line-ends", "turns CRLF into LF before verifying",
			func(s *shop) {
				s.bodyOf = func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }
			}, "verifies a re-serialised or re-formatted body"},
		{"trims-the-body", "trims white space around the body before verifying",
			func(s *shop) { s.bodyOf = bytes.TrimSpace }, ""},
		{"reads-first-2KiB", "reads the body into a 2 KiB buffer once",
			func(s *shop) {
				s.read = func(r *http.Request) ([]byte, int) {
					b := make([]byte, 2048)
					n, _ := io.ReadFull(r.Body, b)
					return b[:n], 0
				}
			}, "verifies only part of the body"},
		{"caps-body-at-4KiB", "refuses bodies over 4 KiB with 413",
			func(s *shop) {
				s.read = func(r *http.Request) ([]byte, int) {
					b, _ := io.ReadAll(r.Body)
					if len(b) > 4096 {
						return nil, http.StatusRequestEntityTooLarge
					}
					return b, 0
				}
			}, ""},
		{"drops-4-byte-utf8", "stores the body in a 3-byte UTF-8 column (MySQL utf8) and verifies what it read back",
			func(s *shop) {
				s.bodyOf = func(b []byte) []byte {
					return []byte(strings.Map(func(r rune) rune {
						if utf8.RuneLen(r) == 4 {
							return '?'
						}
						return r
					}, string(b)))
				}
			}, ""},
		{"latin1-roundtrip", "decodes the body as Latin-1 and verifies it re-encoded in UTF-8",
			func(s *shop) {
				s.bodyOf = func(b []byte) []byte {
					var out []rune
					for _, c := range b {
						out = append(out, rune(c))
					}
					return []byte(string(out))
				}
			}, "reads the body in another charset than UTF-8"},
		{"first-v1-only", "checks only the first v1 entry",
			func(s *shop) { s.verify = func(m []bool) bool { return len(m) > 0 && m[0] } }, ""},
		{"every-v1-must-match", "refuses when any v1 entry fails, accepts when none failed",
			func(s *shop) {
				s.verify = func(m []bool) bool {
					for _, ok := range m {
						if !ok {
							return false
						}
					}
					return true
				}
				s.parse = func(h string) (string, []string) {
					ts, sigs := parseShopHeader(h)
					var kept []string
					for _, sig := range sigs {
						if sig != "" {
							kept = append(kept, sig)
						}
					}
					return ts, kept
				}
			}, ""},
		{"any-key-is-a-signature", "takes an entry under any key (v0, v2) as a signature",
			func(s *shop) { s.parse = anyKeyParse }, "only v1 entries are signatures"},
		{"prefix-compare", "compares only as many hex digits as were sent",
			func(s *shop) { s.match = func(want, sig string) bool { return strings.HasPrefix(want, sig) } }, ""},
		{"ignores-extra-digits", "compares the first 64 hex digits sent and ignores the rest",
			func(s *shop) { s.match = func(want, sig string) bool { return strings.HasPrefix(sig, want) } }, ""},
		{"tries-other-constructions", "accepts a signature over t.body, t+body, body alone or body.t, for compatibility",
			func(s *shop) {
				s.signed = func(ts string, b []byte) []string {
					return []string{ts + "." + string(b), ts + string(b), string(b), string(b) + "." + ts}
				}
			}, ""},
		{"legacy-body-only-without-t", "with no t, verifies a signature over the body alone (a legacy scheme)",
			func(s *shop) {
				s.legacy = true
				s.signed = func(ts string, b []byte) []string {
					if ts == "" {
						return []string{string(b)}
					}
					return []string{ts + "." + string(b)}
				}
			}, ""},
		{"no-age-check", "checks the signature but not the age of t",
			func(s *shop) { s.fresh = func(float64) bool { return true } }, ""},
		{"future-unchecked", "refuses an old t but not one ahead",
			func(s *shop) { s.fresh = func(age float64) bool { return age <= tol } }, ""},
		{"future-refused", "refuses any t ahead of its clock",
			func(s *shop) { s.fresh = func(age float64) bool { return age >= 0 && age <= tol } }, "refuses any t in the future"},
		{"tolerance-60s", "allows 60 s instead of 300 s",
			func(s *shop) { s.fresh = func(age float64) bool { return math.Abs(age) <= 60 } }, "allows less than 300 s either way"},
		{"tolerance-320s", "allows 300 s plus a 20 s grace",
			func(s *shop) { s.fresh = func(age float64) bool { return math.Abs(age) <= 320 } }, "allows more than the profile's tolerance"},
		{"tolerance-in-ms", "compares the age in milliseconds with 300",
			func(s *shop) { s.fresh = func(age float64) bool { return math.Abs(age*1000) <= tol } }, "allows less than"},
		{"clock-an-hour-ahead", "runs on a clock an hour ahead (local time taken for UTC)",
			func(s *shop) { s.now = func() time.Time { return time.Now().Add(time.Hour) } }, "one whose t was +3600 s (+1 h) from firmakit's clock was accepted"},
		{"t-compared-in-ms", "compares t with the clock in milliseconds (Date.now())",
			func(s *shop) { s.now = func() time.Time { return time.Unix(time.Now().UnixMilli(), 0) } }, "one whose t was written in milliseconds was accepted"},
		{"exact-content-type", "refuses a Content-Type other than exactly application/json",
			func(s *shop) {
				s.check = func(r *http.Request, _ []byte) int {
					if r.Header.Get("Content-Type") != "application/json" {
						return http.StatusUnsupportedMediaType
					}
					return 0
				}
			}, "a Content-Type may carry parameters"},
		{"demo-key-required", "decodes the payload into a type whose demo field is required",
			func(s *shop) {
				s.accept = func(n map[string]any) int {
					if _, ok := n["demo"]; !ok {
						return http.StatusBadRequest
					}
					return 0
				}
			}, "requires what only demo notifications carry"},
		{"demo-titles-only", "routes notifications by the DEMO_ prefix of the title and refuses the rest",
			func(s *shop) {
				s.accept = func(n map[string]any) int {
					if t, _ := n["title"].(string); !strings.HasPrefix(t, "DEMO_") {
						return http.StatusUnprocessableEntity
					}
					return 0
				}
			}, ""},
		{"dedupes-by-contract", "refuses a second notification of a contract with 409",
			refuseSeen(func(_ *http.Request, _ []byte, n map[string]any) string {
				return fmt.Sprint("contract ", n["signature_id"])
			}), "drops duplicates by signature_id"},
		{"dedupes-by-signature-header", "refuses a signature header it has seen with 409 (a replay guard)",
			refuseSeen(func(r *http.Request, _ []byte, _ map[string]any) string {
				return "header " + r.Header.Get("X-Service-Signature")
			}), "guards against replays by the header or the bytes"},
		{"dedupes-by-body", "refuses bytes it has seen with 409",
			refuseSeen(func(_ *http.Request, b []byte, _ map[string]any) string { return "body " + string(b) }), ""},
		{"refuses-a-retry", "refuses an event_id it has handled with 409",
			refuseSeen(func(_ *http.Request, _ []byte, n map[string]any) string { return fmt.Sprint("event! ", n["event_id"]) }), ""},

		// One per class of the generated rows (operators.go), written
		// from the operators, not from the rows.
		{"age-of-first-t-hmac-of-last", "with t given twice, checks the age of the first and signs with the last",
			func(s *shop) {
				s.parse = func(h string) (string, []string) { return allTs(h)[0], v1Entries(h) }
				s.signedT = func(h string) string { ts := allTs(h); return ts[len(ts)-1] }
			}, "Forged signature headers were accepted in some layouts only"},
		{"any-key-starting-v1", "takes every entry whose key starts with v1 as a signature (v10, v1_…)",
			func(s *shop) {
				s.parse = func(h string) (string, []string) {
					ts, _ := parseShopHeader(h)
					var sigs []string
					for _, item := range strings.Split(h, ",") {
						if k, v, ok := strings.Cut(strings.TrimSpace(item), "="); ok && strings.HasPrefix(k, "v1") {
							sigs = append(sigs, v)
						}
					}
					return ts, sigs
				}
			}, "a key that only starts like v1"},
		{"large-signed-queued-unverified", "acknowledges a SIGNED notification over 16 KiB with 202 before verifying, queueing it",
			func(s *shop) {
				s.early = func(_ *http.Request, b []byte) int {
					if len(b) > 16<<10 && bytes.Contains(b, []byte(`"status":"SIGNED"`)) {
						return http.StatusAccepted
					}
					return 0
				}
			}, "Forgeries were accepted on some paths only"},
		{"no-age-check-on-large-bodies", "checks the age of t on bodies up to 8 KiB only",
			func(s *shop) { s.skipAge = func(b []byte) bool { return len(b) > 8<<10 } }, "Forgeries were accepted on some paths only"},
		{"decodes-in-4KiB-chunks", "reads the body in 4 KiB chunks and decodes each to text on its own before verifying",
			func(s *shop) {
				s.read = func(r *http.Request) ([]byte, int) {
					var out []byte
					buf := make([]byte, 4096)
					for {
						n, err := io.ReadFull(r.Body, buf)
						out = append(out, strings.ToValidUTF8(string(buf[:n]), "\uFFFD")...)
						if err != nil {
							return out, 0
						}
					}
				}
			}, "a buffer boundary cuts"},
		{"replays-first-answer-per-event", "answers an event_id with the status it answered the first time, a refusal too",
			func(s *shop) { s.replay = true }, "The valid retry of an event whose first delivery failed was refused"},
		{"dedupes-by-contract-and-state", "refuses with 409 a second event (another event_id) of one contract in one state",
			func(s *shop) {
				var mu sync.Mutex
				first := map[string]any{} // contract and state: the event that came first
				s.accept = func(n map[string]any) int {
					mu.Lock()
					defer mu.Unlock()
					key := fmt.Sprint(n["signature_id"], " ", n["status"])
					if ev, ok := first[key]; ok && ev != n["event_id"] {
						return http.StatusConflict
					}
					first[key] = n["event_id"]
					return 0
				}
			}, "drops duplicates by contract and state"},
		{"refuses-a-state-going-back", "refuses with 409 a CREATED event of a contract it already saw in a later state",
			func(s *shop) {
				var mu sync.Mutex
				later := map[any]bool{} // contracts seen in a state after CREATED
				s.accept = func(n map[string]any) int {
					mu.Lock()
					defer mu.Unlock()
					if n["status"] != "CREATED" {
						later[n["signature_id"]] = true
						return 0
					}
					if later[n["signature_id"]] {
						return http.StatusConflict
					}
					return 0
				}
			}, "arrived out of order"},
	}
}

// allTs are the values of every t entry of a header ("" when none).
func allTs(h string) []string {
	var ts []string
	for _, item := range strings.Split(h, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(item), "="); ok && k == "t" {
			ts = append(ts, v)
		}
	}
	if len(ts) == 0 {
		ts = []string{""}
	}
	return ts
}

// v1Entries are the values of every v1 entry of a header.
func v1Entries(h string) []string {
	var sigs []string
	for _, item := range strings.Split(h, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(item), "="); ok && k == "v1" {
			sigs = append(sigs, v)
		}
	}
	return sigs
}

// floatT reads t with a float parser.
func floatT(ts string) (float64, bool) {
	f, err := strconv.ParseFloat(ts, 64)
	return f, err == nil
}

// endpointLiberty is a variation of a merchant's endpoint that the
// profile allows, or leaves open: the webhook suite must pass it, with
// warnings at most. why cites the ground.
type endpointLiberty struct {
	name, why string
	make      func(s *shop)
}

func endpointLiberties() []endpointLiberty {
	return []endpointLiberty{
		{"t-parsed-with-parseint", "reads t with strconv.ParseInt, which takes a sign: no t the service writes has one, and one signed as written lets nobody in (defaults §B)",
			func(s *shop) {
				s.parseT = func(ts string) (float64, bool) {
					n, err := strconv.ParseInt(ts, 10, 64)
					return float64(n), err == nil
				}
			}},
		{"t-parsed-as-float", "reads t with a float parser: a fraction or an exponent signed as written names the time it says, so the window still holds (defaults §B bullet 2)",
			func(s *shop) { s.parseT = floatT }},
		{"t-parsed-leniently", "reads t as JavaScript's parseInt does (its leading digits): the window holds on what it reads (defaults §B bullet 2)",
			func(s *shop) {
				s.parseT = func(ts string) (float64, bool) {
					d := strings.TrimPrefix(ts, "+")
					end := 0
					for end < len(d) && d[end] >= '0' && d[end] <= '9' {
						end++
					}
					n, err := strconv.ParseInt(d[:end], 10, 64)
					return float64(n), err == nil
				}
			}},
		{"t-nan-passes", "reads t as a float and refuses only an age over 300 s, so NaN passes: the service never signs such a t, so nothing follows (a warning)",
			func(s *shop) {
				s.parseT = floatT
				s.fresh = func(age float64) bool { return !(math.Abs(age) > shopTolerance) }
			}},
		{"answers-200-with-json", "answers 200 with a JSON body: any 2xx is success (defaults §B bullet 6)",
			func(s *shop) { s.okStatus, s.okBody = http.StatusOK, `{"received":true}` }},
		{"answers-202", "answers 202 Accepted, processing later: any 2xx is success (defaults §B bullet 6)",
			func(s *shop) { s.okStatus = http.StatusAccepted }},
		{"answers-201", "answers 201 Created: any 2xx is success (defaults §B bullet 6)",
			func(s *shop) { s.okStatus = http.StatusCreated }},
		{"refuses-with-400", "refuses everything it refuses with 400: any status but 2xx refuses (features: the endpoint refuses with a status other than 2xx)",
			func(s *shop) { s.refuseStatus = http.StatusBadRequest }},
		{"refuses-with-403", "refuses everything it refuses with 403",
			func(s *shop) { s.refuseStatus = http.StatusForbidden }},
		{"hex-compared-as-text-any-case", "compares the hex signature as text, in any case: the service writes lower-case hex (defaults §B), which it matches",
			func(s *shop) { s.match = strings.EqualFold }},
		{"answers-after-300ms", "takes 300 ms to answer: the delivery timeout is 10 s (defaults §B bullet 6)",
			func(s *shop) { s.pause = 300 * time.Millisecond }},
		{"media-type-checked", "refuses a Content-Type whose media type is not application/json, parameters allowed: the service posts JSON (defaults §B paragraph 1)",
			func(s *shop) {
				s.check = func(r *http.Request, _ []byte) int {
					if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
						return http.StatusUnsupportedMediaType
					}
					return 0
				}
			}},
		{"caps-body-at-64KiB", "refuses a body over 64 KiB with 413: no notification of the profile comes near it",
			func(s *shop) {
				s.read = func(r *http.Request) ([]byte, int) {
					b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10+1))
					if err != nil || len(b) > 64<<10 {
						return nil, http.StatusRequestEntityTooLarge
					}
					return b, 0
				}
			}},
		{"takes-the-last-t", "reads a header with t given twice by its last t, as Python's and Node's parsers do: a header the service never writes, and one t signs and ages alike (defaults §B)",
			func(s *shop) {
				s.parse = func(h string) (string, []string) { ts := allTs(h); return ts[len(ts)-1], v1Entries(h) }
			}},
		{"requires-t-first", "refuses a header whose first entry is not t: the service writes t first (defaults §B paragraph 1)",
			func(s *shop) {
				s.parse = func(h string) (string, []string) {
					if !strings.HasPrefix(h, "t=") {
						return "", nil
					}
					return parseShopHeader(h)
				}
			}},
		{"trims-spaces-in-the-header", "trims spaces around keys and values: a header the service never writes with spaces, and one signature still signs one t (defaults §B)",
			func(s *shop) {
				s.parse = func(h string) (string, []string) {
					var parts []string
					for _, item := range strings.Split(h, ",") {
						k, v, _ := strings.Cut(item, "=")
						parts = append(parts, strings.TrimSpace(k)+"="+strings.TrimSpace(v))
					}
					return parseShopHeader(strings.Join(parts, ","))
				}
			}},
		{"answers-after-1s", "takes a second to answer every delivery: the delivery timeout is 10 s (defaults §B bullet 6)",
			func(s *shop) { s.pause = time.Second }},
		{"answers-200-with-a-page", "answers 200 with an HTML page: any 2xx is success, whatever its body (defaults §B bullet 6)",
			func(s *shop) { s.okStatus, s.okBody = http.StatusOK, "<html><body>ok</body></html>" }},
		{"validates-the-payload", "refuses with 400 a payload without event_id, status or signature_id: every notification the service sends has them (defaults §B)",
			func(s *shop) {
				s.accept = func(n map[string]any) int {
					for _, k := range []string{"event_id", "status", "signature_id"} {
						if v, _ := n[k].(string); v == "" {
							return http.StatusBadRequest
						}
					}
					return 0
				}
			}},
	}
}

// runShop runs the webhook set in lang against s.
func runShop(t *testing.T, s *shop, lang string, change func(*webhook.Endpoint)) *webhook.Suite {
	srv := httptest.NewServer(s)
	defer srv.Close()
	e := &webhook.Endpoint{URL: srv.URL + "/webhooks/firmakit", Secret: s.secret, MerchantID: "shop"}
	if change != nil {
		change(e)
	}
	suite := &webhook.Suite{Endpoint: e, RunOptions: engine.RunOptions{Lang: lang, Randomize: -1, Output: io.Discard}}
	_, err := suite.Run()
	require.NoError(t, err)
	return suite
}

// unpassedWebhook says every result of a run that did not pass.
func unpassedWebhook(s *webhook.Suite) string {
	var b strings.Builder
	for _, r := range s.Results() {
		if r.Status != reports.Passed {
			fmt.Fprintf(&b, "%s %s (%s): %s\n", r.Status, r.Requirement, r.Row, r.Error)
		}
	}
	return b.String()
}

// TestAnEndpointThatLooksContractsUp: an endpoint that answers 404 to a
// contract it never created gets one diagnosis before anything runs,
// passes with the ids of contracts it knows, and is told so when the ids
// given are not its own.
func TestAnEndpointThatLooksContractsUp(t *testing.T) {
	s := &shop{secret: shopSecret, known: map[string]bool{"ctr-41": true, "ctr-42": true}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	e := &webhook.Endpoint{URL: srv.URL, Secret: shopSecret, MerchantID: "shop"}
	suite := &webhook.Suite{Endpoint: e, RunOptions: engine.RunOptions{Lang: "en", Output: io.Discard}}
	_, err := suite.Run()
	require.ErrorIs(t, err, webhook.ErrUnknownContract)
	assert.ErrorContains(t, err, "--signature-id")
	assert.Empty(t, suite.Results(), "no scenario ran")

	known := runShop(t, s, "all", func(e *webhook.Endpoint) { e.SignatureIDs = []string{"ctr-41", "ctr-42"} })
	assert.Equal(t, reports.Passed, known.Verdict(), unpassedWebhook(known))

	other := runShop(t, s, "en", func(e *webhook.Endpoint) { e.SignatureIDs = []string{"ctr-7"} })
	assert.Equal(t, reports.Failed, other.Verdict())
	assert.Contains(t, hintText(t, other.Hints()), "though about contracts given as known (ctr-7)")
}
