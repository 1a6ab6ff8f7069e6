package engine

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Pacer spaces a run's requests to its target, across all scenarios, and
// slows down when the target (or a gateway before it) says it is limited:
// a 429, a 503 with Retry-After, or rate-limit headers announcing that
// little is left.
//
// The scheme is TCP's: a slow start that doubles the rate every second in
// which requests had to wait for it, until the first sign of a limit;
// then additive increase and multiplicative decrease (half, at most once
// a second, on a 429; requests already spaced for the old rate are spaced
// again). Each busy second adds a quarter of the rate of the last 429
// until 85% of it, then a twentieth (as TCP CUBIC returns fast to its
// last window, then probes slowly); 1 request/s when the target never
// refused. A
// Retry-After, or a RateLimit-Reset with nothing remaining, holds every
// request until then (capped by MaxWait). A RateLimit-Policy (quota over a
// window) becomes a ceiling; remaining over reset becomes the rate, so the
// run slows down before the first refusal.
//
// The zero value paces nothing until a limit is seen (but keeps to a
// Ceiling set on it); NewPacer sets the documented defaults.
type Pacer struct {
	// Ceiling is the most requests per second ever sent (--rate); 0 sets
	// none.
	Ceiling float64
	// MaxWait caps one hold that the target asks for (Retry-After,
	// RateLimit-Reset); 0 means DefaultMaxWait. Set it before the first
	// request.
	MaxWait time.Duration

	mu        sync.Mutex
	rate      float64   // current rate; 0 unlimited
	slow      bool      // slow start: doubling until the first limit
	policy    float64   // a rate the target announced (RateLimit-Policy)
	next      time.Time // the earliest time the next request may leave
	hold      time.Time // no request leaves before this
	changed   time.Time // when the rate last changed, or a busy second began
	decreased time.Time
	waited    bool        // a request waited for the rate since the last change
	passed    []time.Time // the latest answers that were not a refusal
	stats     NetworkStats
	limitedAt []float64 // the rate requests passed at, at each 429 measured
	// lastLimited is the rate at the last 429: the rate climbs back
	// quickly to 85% of it, then slowly.
	lastLimited float64
	// gen counts the decreases: a request whose slot was given at a rate
	// since lowered waits for a slot at the new rate, so that a queue of
	// requests spaced for the old rate does not keep meeting the limit.
	gen int
}

// DefaultMaxWait caps one Retry-After or RateLimit-Reset hold: a gateway
// that asks for longer is waited for this long, then asked again.
const DefaultMaxWait = 30 * time.Second

// DefaultStartRate is where a run against a --target starts when no
// --rate is given: 10 requests a second, doubled every second until the
// target shows a limit.
const DefaultStartRate = 10

// minRate is the slowest a run goes after halving.
const minRate = 0.5

// NewPacer returns a pacer that starts at start requests per second (0:
// unlimited until a limit is seen) and never exceeds ceiling (0: none).
// With no ceiling, the rate doubles every busy second until the first
// limit (slow start).
func NewPacer(start, ceiling float64) *Pacer {
	p := &Pacer{Ceiling: ceiling, MaxWait: DefaultMaxWait, rate: start, slow: start > 0}
	if ceiling > 0 && (start <= 0 || start > ceiling) {
		p.rate = ceiling
	}
	if ceiling > 0 && p.rate >= ceiling {
		p.slow = false
	}
	p.stats.Start = p.rate
	return p
}

// NetworkStats is what a run's requests met on the way to the target.
type NetworkStats struct {
	// Requests counts every request sent, again or not; Retried the
	// requests sent again after a transient answer; RateLimited the 429s
	// (and 503s with Retry-After); Held the times the run waited as the
	// target asked (Retry-After, RateLimit-Reset).
	Requests, Retried, RateLimited, Held int
	// Transient counts the transient answers by reason ("gateway 502",
	// "connection reset", …); GaveUp the requests still transient after
	// every retry (their scenarios are inconclusive).
	Transient map[string]int
	GaveUp    int
	// Start is the rate the run began at, Rate the rate it settled at
	// (0: unlimited), Policy a rate the target announced (0: none).
	Start, Rate, Policy float64
	// Suggest is the --rate that would probably have avoided every 429,
	// when there was one.
	Suggest float64
}

// Acquire waits until the next request may leave: the rate's spacing,
// and any hold the target asked for. It returns ctx's error if ctx ends
// first.
func (p *Pacer) Acquire(ctx context.Context) error {
	if p == nil {
		return nil
	}
	for {
		p.mu.Lock()
		now := time.Now()
		if p.rate == 0 && p.Ceiling > 0 {
			// A Pacer made without NewPacer still keeps to its ceiling.
			p.setRate(p.Ceiling, now)
		}
		p.grow(now)
		at := now
		if p.hold.After(at) {
			at = p.hold
		}
		if p.rate > 0 && p.next.After(at) {
			at = p.next
			if !p.waited && now.Sub(p.changed) >= time.Second {
				// The rate has not changed for a while (or ever): the
				// second that may earn a change starts with this wait.
				p.changed = now
			}
			p.waited = true
		}
		if p.rate > 0 {
			p.next = at.Add(time.Duration(float64(time.Second) / p.rate))
		}
		gen := p.gen
		p.mu.Unlock()
		if err := SleepUntil(ctx, at); err != nil {
			return err
		}
		// A hold set while this request waited for its slot applies too,
		// and so does a lower rate.
		p.mu.Lock()
		held := p.hold.After(time.Now()) || (p.gen != gen && at.After(p.decreased))
		if !held {
			p.stats.Requests++
		}
		p.mu.Unlock()
		if !held {
			return nil
		}
	}
}

// grow raises the rate once a second while requests wait for it: doubling
// in slow start, one request/s more after. Called with p.mu held.
func (p *Pacer) grow(now time.Time) {
	if p.rate == 0 || !p.waited || now.Sub(p.changed) < time.Second || now.Sub(p.hold) < time.Second {
		return // a hold is a limit too: no growth during it, nor just after
	}
	var r float64
	switch last := p.lastLimited; {
	case p.slow:
		r = p.rate * 2
	case last == 0:
		r = p.rate + 1
	case p.rate < 0.85*last:
		// Back quickly towards where the target last refused…
		r = p.rate + 0.25*last
	default:
		// …then probe past it slowly.
		r = p.rate + 0.05*last
	}
	if r > maxPaced && p.Ceiling == 0 {
		r = 0 // as fast as the scenarios go
	}
	p.setRate(r, now)
}

// maxPaced is the rate past which a run without a ceiling stops pacing.
const maxPaced = 1000

// setRate sets the rate within the ceiling and the announced policy.
// Called with p.mu held.
func (p *Pacer) setRate(r float64, now time.Time) {
	if p.Ceiling > 0 && r > p.Ceiling {
		r = p.Ceiling
	}
	if p.policy > 0 && (r == 0 || r > p.policy) {
		r = p.policy
	}
	if r != 0 && r < minRate {
		r = minRate
	}
	p.rate, p.changed, p.waited = r, now, false
}

// passWindow is how far back the answers a refusal is weighed against
// go; maxPassed how many of them are kept.
const (
	passWindow = 2 * time.Second
	maxPassed  = 64
)

// passRate estimates the rate at which the target let requests through
// lately: its answers other than refusals over the last passWindow (or
// over the latest maxPassed, when they came faster). measured is false
// while the run's answers do not reach back that far: then the estimate
// tells more about the run's start than about the target. Called with
// p.mu held.
func (p *Pacer) passRate(now time.Time) (rate float64, measured bool) {
	n := len(p.passed)
	if n < 2 {
		return 1, false
	}
	from := now.Add(-passWindow)
	if !p.passed[0].After(from) {
		i := sort.Search(n, func(i int) bool { return p.passed[i].After(from) })
		return float64(n-i) / passWindow.Seconds(), true
	}
	span := now.Sub(p.passed[0]).Seconds()
	if span <= 0 {
		return float64(n), false
	}
	return float64(n) / span, n == maxPassed
}

// Observe reads an answer's rate-limit signals: a 429 (or a 503 with
// Retry-After) halves the rate and holds the run as Retry-After says;
// RateLimit-* and X-RateLimit-* headers set the pace before any refusal.
func (p *Pacer) Observe(status int, h http.Header) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	maxWait := p.WaitBound()
	limited := status == http.StatusTooManyRequests || (status == http.StatusServiceUnavailable && h.Get("Retry-After") != "")
	if wait, ok := RetryAfter(h, now); ok && limited {
		p.holdFor(min(wait, maxWait), now)
	}
	rl := readRateLimit(h, now)
	if rl.policy > 0 {
		p.policy = rl.policy
		p.stats.Policy = rl.policy
		if p.rate == 0 || p.rate > rl.policy {
			p.setRate(rl.policy, now)
		}
		p.slow = false
	}
	if rl.hasRemaining && rl.reset > 0 {
		if rl.remaining <= 0 {
			p.holdFor(min(rl.reset, maxWait), now)
		} else if r := float64(rl.remaining) / rl.reset.Seconds(); p.rate == 0 || r < p.rate {
			// Spread what is left over what is left of the window.
			p.setRate(r, now)
			p.slow = false
		}
	}
	if !limited {
		p.passed = append(p.passed, now)
		if len(p.passed) > maxPassed {
			p.passed = p.passed[len(p.passed)-maxPassed:]
		}
		return
	}
	p.stats.RateLimited++
	if now.Sub(p.decreased) < time.Second {
		return // one burst of refusals is one signal
	}
	// The refusal tells about the rate the target let requests through
	// at, which is below the pacer's when the scenarios asked for less
	// or the target refused some: halving an unused rate would not slow
	// the run, and a --rate suggested from it would be refused again.
	base := p.rate
	passed, measured := p.passRate(now)
	if base == 0 || (measured && passed < base) {
		base = passed
	}
	if measured {
		p.limitedAt = append(p.limitedAt, base)
	}
	p.lastLimited = base
	p.slow = false
	p.setRate(math.Max(minRate, base/2), now)
	p.decreased = now
	p.gen++
	p.next = now.Add(time.Duration(float64(time.Second) / p.rate))
}

// WaitBound is MaxWait or its default; a nil pacer's is the default.
func (p *Pacer) WaitBound() time.Duration {
	if p == nil || p.MaxWait <= 0 {
		return DefaultMaxWait
	}
	return p.MaxWait
}

// holdFor keeps every request back for d. Called with p.mu held.
func (p *Pacer) holdFor(d time.Duration, now time.Time) {
	if d <= 0 {
		return
	}
	if until := now.Add(d); until.After(p.hold) {
		p.hold = until
		p.stats.Held++
	}
}

// NoteTransient counts a transient answer by reason; retried tells that
// the request will be sent again, else that the run gave up on it.
func (p *Pacer) NoteTransient(reason string, retried bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stats.Transient == nil {
		p.stats.Transient = map[string]int{}
	}
	p.stats.Transient[reason]++
	if retried {
		p.stats.Retried++
	} else {
		p.stats.GaveUp++
	}
}

// Stats returns what the run's requests met so far.
func (p *Pacer) Stats() NetworkStats {
	if p == nil {
		return NetworkStats{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Transient = map[string]int{}
	for k, v := range p.stats.Transient {
		s.Transient[k] = v
	}
	s.Rate = p.rate
	if s.RateLimited > 0 {
		s.Suggest = p.suggest()
	}
	return s
}

// suggest is the --rate to give next time: what the target announced,
// else 80% of the lowest rate requests passed at when it refused, else
// 80% of the rate the run settled at. Called with p.mu held.
func (p *Pacer) suggest() float64 {
	if p.policy > 0 {
		return p.policy
	}
	r := p.rate
	if len(p.limitedAt) > 0 {
		r = slices.Min(p.limitedAt)
	}
	return math.Max(minRate, math.Floor(r*0.8*2)/2)
}

// String says the stats in a line for the run's recap, or "" when the
// requests met nothing worth saying.
func (s NetworkStats) String() string {
	if s.Requests == 0 {
		return ""
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("%d request(s) to the target", s.Requests))
	if s.RateLimited > 0 {
		parts = append(parts, fmt.Sprintf("%d rate-limited (429, or 503 with Retry-After)", s.RateLimited))
	}
	if s.Held > 0 {
		parts = append(parts, fmt.Sprintf("%d wait(s) as the target asked", s.Held))
	}
	var reasons []string
	transient := 0
	for k, n := range s.Transient {
		reasons = append(reasons, k)
		transient += n
	}
	sort.Strings(reasons)
	for i, k := range reasons {
		reasons[i] = fmt.Sprintf("%d %s", s.Transient[k], k)
	}
	// The reasons count every transient answer, the last one to a request
	// given up on too: they are not the requests sent again.
	if transient > 0 {
		parts = append(parts, fmt.Sprintf("%d transient answer(s) (%s)", transient, strings.Join(reasons, ", ")))
	}
	if s.Retried > 0 {
		parts = append(parts, fmt.Sprintf("%d sent again", s.Retried))
	}
	if s.GaveUp > 0 {
		parts = append(parts, fmt.Sprintf("%d still transient after every retry (their scenarios are inconclusive)", s.GaveUp))
	}
	line := "network: " + strings.Join(parts, ", ")
	switch {
	case s.Rate > 0:
		line += fmt.Sprintf("; the run settled at %s requests/s", rateText(s.Rate))
	case s.Start > 0 || s.RateLimited > 0:
		line += "; the run went unpaced"
	}
	if s.Policy > 0 {
		line += fmt.Sprintf(" (the target announced %s/s)", rateText(s.Policy))
	}
	if s.Suggest > 0 {
		line += fmt.Sprintf("; to avoid the limit next time: --rate %s", rateText(s.Suggest))
	}
	return line
}

func rateText(r float64) string { return strconv.FormatFloat(math.Round(r*10)/10, 'f', -1, 64) }

// RetryAfter reads Retry-After: delay seconds or an HTTP date.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && !math.IsInf(n, 0) {
		return seconds(n), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// seconds converts n ≥ 0 seconds to a Duration, the longest one for
// more than a Duration holds (a conversion out of range would wrap round
// to a negative wait, which holds nothing).
func seconds(n float64) time.Duration {
	if d := n * float64(time.Second); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}

// rateLimit is what an answer's rate-limit headers say.
type rateLimit struct {
	policy       float64 // announced requests per second; 0 unknown
	remaining    int64
	hasRemaining bool
	reset        time.Duration
}

// readRateLimit reads the headers gateways send before they refuse: the
// IETF draft's RateLimit-Limit/-Remaining/-Reset and RateLimit-Policy
// ("10;w=1", or the later draft's `"name";q=10;w=1` and RateLimit
// `"name";r=5;t=1`), and the common X-RateLimit-Limit/-Remaining/-Reset
// (a reset beyond 10^9 is a Unix time, in seconds or milliseconds).
func readRateLimit(h http.Header, now time.Time) rateLimit {
	var rl rateLimit
	if v := h.Get("RateLimit-Policy"); v != "" {
		rl.policy = policyRate(v)
	}
	if v := h.Get("RateLimit"); v != "" {
		item, params := sfItem(firstItem(v))
		_ = item
		if r, ok := params["r"]; ok {
			if n, err := strconv.ParseInt(r, 10, 64); err == nil {
				rl.remaining, rl.hasRemaining = n, true
			}
		}
		if t, ok := params["t"]; ok {
			if n, err := strconv.ParseFloat(t, 64); err == nil && n >= 0 {
				rl.reset = seconds(n)
			}
		}
	}
	for _, prefix := range []string{"RateLimit-", "X-RateLimit-"} {
		if v := h.Get(prefix + "Remaining"); v != "" && !rl.hasRemaining {
			if n, err := strconv.ParseInt(strings.TrimSpace(firstItem(v)), 10, 64); err == nil {
				rl.remaining, rl.hasRemaining = n, true
			}
		}
		if v := h.Get(prefix + "Reset"); v != "" && rl.reset == 0 {
			if n, err := strconv.ParseFloat(strings.TrimSpace(firstItem(v)), 64); err == nil && n >= 0 {
				switch {
				case n > 1e12:
					rl.reset = time.UnixMilli(int64(n)).Sub(now)
				case n > 1e9:
					rl.reset = time.Unix(int64(n), 0).Sub(now)
				default:
					rl.reset = seconds(n)
				}
			}
		}
		if v := h.Get(prefix + "Limit"); v != "" && rl.policy == 0 && strings.Contains(v, "w=") {
			rl.policy = policyRate(v)
		}
	}
	return rl
}

// policyRate reads a quota policy, "10;w=1" or `"default";q=10;w=1`, of
// several the strictest, as requests per second.
func policyRate(v string) float64 {
	best := 0.0
	for _, it := range strings.Split(v, ",") {
		item, params := sfItem(it)
		q, err := strconv.ParseFloat(params["q"], 64)
		if err != nil {
			q, err = strconv.ParseFloat(item, 64)
		}
		w, werr := strconv.ParseFloat(params["w"], 64)
		if err != nil || werr != nil || q <= 0 || w <= 0 {
			continue
		}
		if r := q / w; best == 0 || r < best {
			best = r
		}
	}
	return best
}

// sfItem splits a structured-field item, `value;k=v;k2=v2`.
func sfItem(s string) (string, map[string]string) {
	parts := strings.Split(s, ";")
	params := map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		params[strings.ToLower(k)] = strings.Trim(v, `"`)
	}
	return strings.Trim(strings.TrimSpace(parts[0]), `"`), params
}

func firstItem(v string) string { s, _, _ := strings.Cut(v, ","); return s }
