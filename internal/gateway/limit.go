package gateway

import (
	"math"
	"sync"
	"time"
)

// bucket is a token bucket: it holds up to burst tokens, gains rate
// tokens a second, and each request passed takes one.
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  int
	tokens float64
	last   time.Time
}

// limitState is what the rate-limit headers of one answer say.
type limitState struct {
	limit     int
	remaining int       // whole tokens left after this request
	reset     int64     // seconds until the bucket is full, rounded up
	fullAt    time.Time // when it is full
	// window is the w of RateLimit-Policy: the seconds the bucket takes
	// to fill from empty, rounded up, so that a client spending limit
	// requests every window never meets a 429.
	window int64
	// retryAfter is, for a request refused, the seconds until a token is
	// free, rounded up.
	retryAfter int64
}

func newBucket(rate float64, burst int, now time.Time) *bucket {
	return &bucket{rate: rate, burst: burst, tokens: float64(burst), last: now}
}

// take takes a token if there is one, and says what the headers of the
// answer should say. emptied says that other clients of the key took
// every token first.
func (b *bucket) take(now time.Time, emptied bool) (bool, limitState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.After(b.last) {
		b.tokens = math.Min(float64(b.burst), b.tokens+now.Sub(b.last).Seconds()*b.rate)
		b.last = now
	}
	if emptied {
		b.tokens = 0
	}
	ok := b.tokens >= 1
	if ok {
		b.tokens--
	}
	st := limitState{limit: b.burst, remaining: int(b.tokens), window: max(1, int64(ceil(float64(b.burst)/b.rate)))}
	toFull := (float64(b.burst) - b.tokens) / b.rate
	st.reset = int64(ceil(toFull))
	st.fullAt = now.Add(time.Duration(toFull * float64(time.Second)))
	if !ok {
		st.retryAfter = max(1, int64(ceil((1-b.tokens)/b.rate)))
	}
	return ok, st
}

// ceil rounds up, forgiving the last bits of floating-point error, so
// that 2.0000000001 seconds is 2.
func ceil(x float64) float64 {
	return math.Ceil(x - 1e-9)
}
