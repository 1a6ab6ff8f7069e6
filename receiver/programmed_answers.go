package receiver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Messages of a refused answer rule. A 1xx is an interim answer, not an
// answer: net/http would send it and then wait for the handler's final one
// (or, for 101, hand the connection over), so the sender would hang.
const (
	msgRuleStatus    = "status must be an HTTP status from 200 to 599"
	msgInterimStatus = "status must be an HTTP status from 200 to 599: 100-199 are interim answers, which leave the sender waiting for a final one"
	msgRuleCount     = "count must be from 0 (until cleared) to 1000000"
)

// maxRules bounds the programmed answers held at once, over all channels.
var maxRules = 10000

// ErrTooManyRules is returned when maxRules answer rules are already set.
var ErrTooManyRules = errors.New("too many programmed answers; clear some with DELETE /api/channels/{channel}/responses")

// answerRule is a programmed answer: to every notification of a channel,
// or, with a SignatureID, only to those of that contract.
type answerRule struct {
	SignatureID string `json:"signature_id,omitempty"`
	Status      int    `json:"status"`
	Delay       string `json:"delay,omitempty"`
	HangUp      bool   `json:"hang_up,omitempty"`
	Reset       bool   `json:"reset,omitempty"`
	Remaining   int    `json:"remaining"` // 0: until cleared
	delay       time.Duration
}

// Answer is what the receiver gives a notification instead of an
// immediate 200: Status after Delay, or, with HangUp, no answer at all
// (the connection is closed once the notification is stored; Status is
// then not used). With Reset too, the connection is reset (a TCP RST:
// the sender reads "connection reset by peer") instead of closed (a FIN:
// the sender reads an EOF), as a crashing process or a proxy that drops
// it leaves it.
type Answer struct {
	Status int
	Delay  time.Duration
	HangUp bool
	Reset  bool
}

// maxAnswerDelay bounds a programmed answer's delay.
const maxAnswerDelay = time.Minute

// maxRuleCount bounds a programmed answer's count. Numbers from outside
// are checked once, here at the edge (validRule, for the API and for
// AnswerNext alike), so that every backend stores exactly what was
// accepted: PostgreSQL keeps the count in an INTEGER, which 2^31 would
// overflow, while SQLite's store is Go memory. A million notifications
// is more than any test sends; "until cleared" is count 0.
const maxRuleCount = 1_000_000

func (a Answer) rule(signatureID string, count int) *answerRule {
	r := &answerRule{SignatureID: signatureID, Status: a.Status, HangUp: a.HangUp, Reset: a.Reset, Remaining: count, delay: a.Delay}
	if a.Delay > 0 {
		r.Delay = a.Delay.String()
	}
	return r
}

// answerBook holds the programmed answers of every channel: in memory
// beside SQLite (answers), in the database on PostgreSQL (pgRules), where
// a rule with a count is used up exactly once across replicas.
type answerBook interface {
	// set adds r to channel, in place of the rule for the same contract
	// (or the channel-wide one); ErrTooManyRules past maxRules.
	set(ctx context.Context, channel string, r *answerRule) error
	// clear removes the rule of one contract, or with signatureID "" every
	// rule of the channel.
	clear(ctx context.Context, channel, signatureID string) error
	// take returns the answer for one notification of channel about
	// contract signatureID, if a rule applies, and counts it. A
	// contract's own rule wins over the channel's.
	take(ctx context.Context, channel, signatureID string) (Answer, bool, error)
	// list returns a channel's rules: the channel-wide one (or nil), and
	// every rule, the channel-wide one first, then by signature_id.
	list(ctx context.Context, channel string) (*answerRule, []answerRule, error)
}

// answers holds the programmed answers of every channel in memory.
type answers struct {
	mu sync.Mutex
	n  int // rules held
	ch map[string]*channelRules
}

type channelRules struct {
	all   *answerRule            // for every notification of the channel
	bySig map[string]*answerRule // for one contract's; they come first
}

func validRule(channel string, a Answer, count int) error {
	switch {
	case channel == "" || len(channel) > 200:
		return errors.New("the channel must be 1 to 200 bytes")
	case a.Reset && !a.HangUp:
		return errors.New("reset is a way to hang up: set hang_up too")
	case !a.HangUp && a.Status >= 100 && a.Status <= 199:
		return errors.New(msgInterimStatus)
	case !a.HangUp && (a.Status < 200 || a.Status > 599):
		return errors.New(msgRuleStatus)
	case count < 0 || count > maxRuleCount:
		return errors.New(msgRuleCount)
	case a.Delay < 0 || a.Delay > maxAnswerDelay:
		return errors.New("delay must be a duration from 0 to 1m, such as 2s")
	}
	return nil
}

// set adds r to channel, in place of the rule for the same contract (or
// the channel-wide one).
func (a *answers) set(_ context.Context, channel string, r *answerRule) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ch == nil {
		a.ch = map[string]*channelRules{}
	}
	cr := a.ch[channel]
	if cr == nil {
		cr = &channelRules{bySig: map[string]*answerRule{}}
	}
	replaces := (r.SignatureID == "" && cr.all != nil) || (r.SignatureID != "" && cr.bySig[r.SignatureID] != nil)
	if !replaces {
		if a.n >= maxRules {
			return ErrTooManyRules
		}
		a.n++
	}
	if r.SignatureID == "" {
		cr.all = r
	} else {
		cr.bySig[r.SignatureID] = r
	}
	a.ch[channel] = cr
	return nil
}

// clear removes the rule of one contract, or with signatureID "" every
// rule of the channel.
func (a *answers) clear(_ context.Context, channel, signatureID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	cr := a.ch[channel]
	if cr == nil {
		return nil
	}
	if signatureID != "" {
		if cr.bySig[signatureID] != nil {
			delete(cr.bySig, signatureID)
			a.n--
		}
	} else {
		a.n -= len(cr.bySig)
		if cr.all != nil {
			a.n--
		}
		cr.all, cr.bySig = nil, map[string]*answerRule{}
	}
	if cr.all == nil && len(cr.bySig) == 0 {
		delete(a.ch, channel)
	}
	return nil
}

// take returns the programmed answer for one notification of channel
// about contract signatureID, if a rule applies, and counts it. A
// contract's own rule wins over the channel's.
func (a *answers) take(_ context.Context, channel, signatureID string) (Answer, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cr := a.ch[channel]
	if cr == nil {
		return Answer{}, false, nil
	}
	r := cr.all
	if sr := cr.bySig[signatureID]; signatureID != "" && sr != nil {
		r = sr
	}
	if r == nil {
		return Answer{}, false, nil
	}
	if r.Remaining > 0 {
		r.Remaining--
		if r.Remaining == 0 {
			if r == cr.all {
				cr.all = nil
			} else {
				delete(cr.bySig, r.SignatureID)
			}
			a.n--
			if cr.all == nil && len(cr.bySig) == 0 {
				delete(a.ch, channel)
			}
		}
	}
	return Answer{Status: r.Status, Delay: r.delay, HangUp: r.HangUp, Reset: r.Reset}, true, nil
}

// list returns copies of a channel's rules: the channel-wide one (or nil),
// and every rule, the channel-wide one first, then by signature_id.
func (a *answers) list(_ context.Context, channel string) (*answerRule, []answerRule, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	rules := []answerRule{}
	cr := a.ch[channel]
	if cr == nil {
		return nil, rules, nil
	}
	var all *answerRule
	if cr.all != nil {
		c := *cr.all
		all = &c
		rules = append(rules, c)
	}
	start := len(rules)
	for _, r := range cr.bySig {
		rules = append(rules, *r)
	}
	sort.Slice(rules[start:], func(i, j int) bool { return rules[start+i].SignatureID < rules[start+j].SignatureID })
	return all, rules, nil
}

// FailNext makes the receiver answer status, instead of 200, to the next
// count notifications on channel (count 0: until the rule is cleared with
// DELETE /api/channels/{channel}/responses). With a signatureID, only the
// notifications whose signature_id (the profile's correlation field) is
// that one count, and other contracts on the channel are answered as
// before; several contracts may have rules at once, and a contract's rule
// wins over the channel's. The record of each notification keeps the
// status answered (Record.Status). The answer comes after the record is
// stored, as for any notification.
//
// It returns an error for a status outside 200-599 (1xx are interim
// answers, which would leave the sender hanging), a count outside 0 to
// 1,000,000, a
// channel that is empty or over 200 bytes, and ErrTooManyRules.
func (rv *Receiver) FailNext(ctx context.Context, channel, signatureID string, status, count int) error {
	return rv.AnswerNext(ctx, channel, signatureID, Answer{Status: status}, count)
}

// AnswerNext is FailNext with the whole answer: a status given after a
// delay (past the sender's timeout, say), or a connection closed without
// an answer (Answer.HangUp, recorded as Record.Status 0), or reset
// (Answer.Reset).
//
// It returns FailNext's errors, and one for a delay outside 0 to 1m.
func (rv *Receiver) AnswerNext(ctx context.Context, channel, signatureID string, a Answer, count int) error {
	if err := validRule(channel, a, count); err != nil {
		return err
	}
	if len(signatureID) > 200 {
		return fmt.Errorf("signature_id must be at most 200 bytes")
	}
	return rv.answers.set(ctx, channel, a.rule(signatureID, count))
}
