package engine

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// header builds a header from name, value pairs.
func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// pacerState reads a pacer's rate and slow start under its lock.
func pacerState(p *Pacer) (rate float64, slow bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rate, p.slow
}

// acquireN acquires n times in a row and returns how long it took.
func acquireN(t *testing.T, p *Pacer, n int) time.Duration {
	t.Helper()
	start := time.Now()
	for range n {
		require.NoError(t, p.Acquire(context.Background()))
	}
	return time.Since(start)
}

// minSpan is the least time n requests at rate r take: (n-1)/r.
func minSpan(n int, r float64) time.Duration {
	return time.Duration(float64(n-1) / r * float64(time.Second))
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name, value string
		want        time.Duration
		ok          bool
	}{
		{"seconds", "3", 3 * time.Second, true},
		{"zero", "0", 0, true},
		{"spaces around", " 2 ", 2 * time.Second, true},
		{"fractional", "1.5", 1500 * time.Millisecond, true},
		{"HTTP date", now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second, true},
		{"HTTP date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"RFC 850 date", now.Add(90 * time.Second).Format(time.RFC850), 90 * time.Second, true},
		{"garbage", "soon", 0, false},
		{"negative", "-5", 0, false},
		{"infinite", "Inf", 0, false},
		{"not a number", "NaN", 0, false},
		{"empty", "", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RetryAfter(header("Retry-After", tc.value), now)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("absent", func(t *testing.T) {
		got, ok := RetryAfter(http.Header{}, now)
		assert.False(t, ok)
		assert.Zero(t, got)
	})
	t.Run("larger than a Duration holds", func(t *testing.T) {
		// 10^11 s does not fit in a Duration's nanoseconds: it must not
		// wrap round to a negative wait, which would hold nothing.
		got, ok := RetryAfter(header("Retry-After", "100000000000"), now)
		assert.True(t, ok)
		assert.Greater(t, got, 24*time.Hour)
	})
}

func TestReadRateLimit(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		h    http.Header
		want rateLimit
	}{
		{"none", header("Content-Type", "text/html"), rateLimit{}},
		{"draft: limit, remaining, reset, policy",
			header("RateLimit-Limit", "10", "RateLimit-Remaining", "4", "RateLimit-Reset", "2", "RateLimit-Policy", "10;w=1"),
			rateLimit{policy: 10, remaining: 4, hasRemaining: true, reset: 2 * time.Second}},
		{"draft: a policy over a minute",
			header("RateLimit-Policy", "120;w=60"),
			rateLimit{policy: 2}},
		{"draft: nothing remaining",
			header("RateLimit-Limit", "10", "RateLimit-Remaining", "0", "RateLimit-Reset", "1"),
			rateLimit{remaining: 0, hasRemaining: true, reset: time.Second}},
		{"newer draft: RateLimit and a named policy",
			header("RateLimit", `"default";r=5;t=30`, "RateLimit-Policy", `"default";q=100;w=60`),
			rateLimit{policy: 100.0 / 60, remaining: 5, hasRemaining: true, reset: 30 * time.Second}},
		{"newer draft: several policies, the strictest",
			header("RateLimit-Policy", `"burst";q=100;w=1, "day";q=8640;w=86400`),
			rateLimit{policy: 0.1}},
		{"draft: several policies, the strictest",
			header("RateLimit-Policy", "100;w=60, 10;w=1"),
			rateLimit{policy: 100.0 / 60}},
		{"X-: reset as delta seconds",
			header("X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "20"),
			rateLimit{remaining: 7, hasRemaining: true, reset: 20 * time.Second}},
		{"X-: reset as Unix seconds",
			header("X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Unix()+15, 10)),
			rateLimit{remaining: 0, hasRemaining: true, reset: 15 * time.Second}},
		{"X-: reset as Unix milliseconds",
			header("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", strconv.FormatInt(now.UnixMilli()+2500, 10)),
			rateLimit{remaining: 3, hasRemaining: true, reset: 2500 * time.Millisecond}},
		{"X-: a limit naming its policies, the strictest",
			header("X-RateLimit-Limit", "10, 10;w=1, 50;w=60"),
			rateLimit{policy: 50.0 / 60}},
		{"X-: a plain limit is no policy",
			header("X-RateLimit-Limit", "10"),
			rateLimit{}},
		{"draft wins over X-",
			header("RateLimit-Remaining", "2", "RateLimit-Reset", "4", "X-RateLimit-Remaining", "9", "X-RateLimit-Reset", "1"),
			rateLimit{remaining: 2, hasRemaining: true, reset: 4 * time.Second}},
		{"garbage",
			header("RateLimit-Remaining", "lots", "RateLimit-Reset", "later", "RateLimit-Policy", "many"),
			rateLimit{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := readRateLimit(tc.h, now)
			assert.InDelta(t, tc.want.policy, got.policy, 1e-9, "policy")
			got.policy, tc.want.policy = 0, 0
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNewPacerDefaults(t *testing.T) {
	cases := []struct {
		start, ceiling float64
		rate           float64
		slow           bool
	}{
		{0, 0, 0, false},  // unpaced until a limit is seen
		{10, 0, 10, true}, // slow start from 10
		{0, 5, 5, false},  // at the ceiling from the start
		{20, 5, 5, false}, // a start over the ceiling is the ceiling
		{3, 5, 3, true},   // slow start up to the ceiling
		{5, 5, 5, false},  // nothing to grow into
	}
	for _, tc := range cases {
		p := NewPacer(tc.start, tc.ceiling)
		rate, slow := pacerState(p)
		assert.Equal(t, tc.rate, rate, "NewPacer(%v, %v)", tc.start, tc.ceiling)
		assert.Equal(t, tc.slow, slow, "NewPacer(%v, %v) slow start", tc.start, tc.ceiling)
		assert.Equal(t, tc.ceiling, p.Ceiling)
		assert.Equal(t, DefaultMaxWait, p.MaxWait, "NewPacer sets the documented MaxWait")
		st := p.Stats()
		assert.Equal(t, tc.rate, st.Start)
		assert.Equal(t, tc.rate, st.Rate)
		assert.Zero(t, st.Requests)
		assert.Empty(t, st.String(), "nothing sent, nothing to say")
	}
}

func TestNilPacerPacesNothing(t *testing.T) {
	var p *Pacer
	assert.NoError(t, p.Acquire(context.Background()))
	p.Observe(http.StatusTooManyRequests, header("Retry-After", "5"))
	p.NoteTransient("gateway 502", true)
	assert.Equal(t, NetworkStats{}, p.Stats())
}

func TestPacerAcquireSpacing(t *testing.T) {
	const n, rate = 21, 40.0
	t.Run("in a row", func(t *testing.T) {
		p := NewPacer(rate, rate)
		took := acquireN(t, p, n)
		assert.GreaterOrEqual(t, took, minSpan(n, rate))
		assert.Equal(t, n, p.Stats().Requests)
	})
	t.Run("concurrently", func(t *testing.T) {
		p := NewPacer(rate, rate)
		start := time.Now()
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() { assert.NoError(t, p.Acquire(context.Background())) })
		}
		wg.Wait()
		assert.GreaterOrEqual(t, time.Since(start), minSpan(n, rate))
		assert.Equal(t, n, p.Stats().Requests)
	})
	t.Run("unpaced", func(t *testing.T) {
		p := NewPacer(0, 0)
		acquireN(t, p, n)
		rate, _ := pacerState(p)
		assert.Zero(t, rate, "no limit seen, no pace")
		assert.Equal(t, n, p.Stats().Requests)
	})
	t.Run("a canceled context", func(t *testing.T) {
		p := NewPacer(1, 1)
		require.NoError(t, p.Acquire(context.Background()))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		assert.ErrorIs(t, p.Acquire(ctx), context.Canceled, "the next slot is a second away")
		assert.Equal(t, 1, p.Stats().Requests, "a request that never left is not counted")
	})
}

// TestPacerSlowStartWaitsASecond: slow start doubles the rate after a
// second in which requests waited, not as soon as one waits, and not
// because the pacer was made (or last changed) long before.
func TestPacerSlowStartWaitsASecond(t *testing.T) {
	const n, rate = 15, 20.0 // 700 ms at 20/s, all within the first second
	t.Run("new", func(t *testing.T) {
		p := NewPacer(rate, 0)
		took := acquireN(t, p, n)
		assert.GreaterOrEqual(t, took, minSpan(n, rate))
	})
	t.Run("idle a while first", func(t *testing.T) {
		p := NewPacer(rate, 0)
		p.mu.Lock()
		p.changed = time.Now().Add(-time.Minute)
		p.mu.Unlock()
		took := acquireN(t, p, n)
		assert.GreaterOrEqual(t, took, minSpan(n, rate))
	})
}

func TestPacerSlowStartDoublesWhileRequestsWait(t *testing.T) {
	const start = 20.0
	p := NewPacer(start, 0)
	begin := time.Now()
	for time.Since(begin) < 1200*time.Millisecond {
		require.NoError(t, p.Acquire(context.Background()))
	}
	rate, slow := pacerState(p)
	doublings := math.Log2(rate / start)
	assert.GreaterOrEqual(t, doublings, 1.0, "rate %v after %s of waiting requests", rate, time.Since(begin))
	assert.Equal(t, math.Round(doublings), doublings, "slow start doubles: rate %v", rate)
	assert.LessOrEqual(t, doublings, math.Ceil(time.Since(begin).Seconds()), "once a second at most")
	assert.True(t, slow, "still in slow start: no limit seen")
}

func TestPacerSlowStartDoesNotGrowWhileNoRequestWaits(t *testing.T) {
	p := NewPacer(20, 0) // a slot every 50 ms
	begin := time.Now()
	for time.Since(begin) < 1300*time.Millisecond {
		require.NoError(t, p.Acquire(context.Background()))
		time.Sleep(80 * time.Millisecond)
	}
	rate, _ := pacerState(p)
	assert.Equal(t, 20.0, rate, "requests slower than the rate never waited for it")
}

// TestPacerGrow checks the growth rule itself, with the clock in hand.
func TestPacerGrow(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name    string
		p       *Pacer
		want    float64
		changed bool
	}{
		{"slow start doubles", &Pacer{rate: 10, slow: true, waited: true, changed: now.Add(-time.Second)}, 20, true},
		{"after slow start, one more", &Pacer{rate: 10, waited: true, changed: now.Add(-time.Second)}, 11, true},
		{"not a second yet", &Pacer{rate: 10, slow: true, waited: true, changed: now.Add(-999 * time.Millisecond)}, 10, false},
		{"nobody waited", &Pacer{rate: 10, slow: true, changed: now.Add(-time.Hour)}, 10, false},
		{"unpaced stays unpaced", &Pacer{waited: true, changed: now.Add(-time.Hour)}, 0, false},
		{"up to the ceiling", &Pacer{Ceiling: 15, rate: 10, slow: true, waited: true, changed: now.Add(-time.Second)}, 15, true},
		{"up to the policy", &Pacer{policy: 10.5, rate: 10, waited: true, changed: now.Add(-time.Second)}, 10.5, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			before := p.changed
			p.grow(now)
			assert.Equal(t, tc.want, p.rate)
			if tc.changed {
				assert.Equal(t, now, p.changed)
				assert.False(t, p.waited, "a new second of waiting starts")
			} else {
				assert.Equal(t, before, p.changed)
			}
		})
	}
}

func TestPacerAdditiveIncreaseAfterALimit(t *testing.T) {
	p := NewPacer(20, 0)
	p.Observe(http.StatusTooManyRequests, nil)
	rate, slow := pacerState(p)
	require.Equal(t, 10.0, rate)
	require.False(t, slow)
	begin := time.Now()
	for time.Since(begin) < 1200*time.Millisecond {
		require.NoError(t, p.Acquire(context.Background()))
	}
	rate, _ = pacerState(p)
	grew := rate - 10
	assert.GreaterOrEqual(t, grew, 5.0, "a quarter of the rate of the last 429 after a busy second, back towards it")
	assert.Equal(t, 0.0, math.Mod(grew, 5), "steps of a quarter of 20: rate %v", rate)
	assert.LessOrEqual(t, grew, 5*math.Ceil(time.Since(begin).Seconds()), "once a second at most, never doubling")
}

func TestPacerProbesSlowlyNearTheLastLimit(t *testing.T) {
	p := NewPacer(20, 0)
	p.Observe(http.StatusTooManyRequests, nil) // limited at 20: now 10
	p.mu.Lock()
	p.rate = 18 // past 85% of 20
	p.changed = time.Now().Add(-2 * time.Second)
	p.waited = true
	p.grow(time.Now())
	rate := p.rate
	p.mu.Unlock()
	assert.Equal(t, 19.0, rate, "a twentieth of the last limit's rate")
}

func TestPacerRespacesRequestsAfterADecrease(t *testing.T) {
	// Requests given slots at 20/s, then a 429 halves the rate: those
	// still waiting are spaced at 10/s, not sent at the old spacing.
	p := NewPacer(20, 20)
	ctx := context.Background()
	require.NoError(t, p.Acquire(ctx))
	done := make(chan time.Time, 8)
	for range 8 {
		go func() {
			if p.Acquire(ctx) == nil {
				done <- time.Now()
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // all have their slots at 20/s
	p.Observe(http.StatusTooManyRequests, nil)
	start := time.Now()
	var last time.Time
	for range 8 {
		last = <-done
	}
	// At 20/s the eight would be out in 400 ms; at 10/s, some 750 ms
	// after the decrease (the first slot is now+100 ms).
	assert.GreaterOrEqual(t, last.Sub(start), 700*time.Millisecond, "spaced at the new rate")
}

func TestPacerHalvesOnceASecond(t *testing.T) {
	p := NewPacer(16, 0)
	for range 5 {
		p.Observe(http.StatusTooManyRequests, nil)
	}
	rate, slow := pacerState(p)
	assert.Equal(t, 8.0, rate, "a burst of 429s is one signal")
	assert.False(t, slow, "slow start ends at the first limit")
	assert.Equal(t, 5, p.Stats().RateLimited, "each 429 is counted")

	p.mu.Lock()
	p.decreased = time.Now().Add(-1100 * time.Millisecond)
	p.mu.Unlock()
	p.Observe(http.StatusTooManyRequests, nil)
	p.Observe(http.StatusTooManyRequests, nil)
	rate, _ = pacerState(p)
	assert.Equal(t, 4.0, rate, "a second later, a 429 halves again, once")

	t.Run("503 with Retry-After is a limit, without it is not", func(t *testing.T) {
		p := NewPacer(16, 16)
		p.Observe(http.StatusServiceUnavailable, nil)
		rate, _ := pacerState(p)
		assert.Equal(t, 16.0, rate)
		p.Observe(http.StatusServiceUnavailable, header("Retry-After", "0"))
		rate, _ = pacerState(p)
		assert.Equal(t, 8.0, rate)
		assert.Equal(t, 1, p.Stats().RateLimited)
	})
	t.Run("never below the floor", func(t *testing.T) {
		p := NewPacer(1, 1)
		for range 5 {
			p.mu.Lock()
			p.decreased = time.Time{}
			p.mu.Unlock()
			p.Observe(http.StatusTooManyRequests, nil)
		}
		rate, _ := pacerState(p)
		assert.Equal(t, minRate, rate)
	})
	t.Run("unpaced: half the rate requests left at", func(t *testing.T) {
		p := NewPacer(0, 0)
		acquireN(t, p, 10)
		p.Observe(http.StatusTooManyRequests, nil)
		rate, _ := pacerState(p)
		assert.Greater(t, rate, 0.0, "a limit seen, the run is paced")
		took := acquireN(t, p, 3)
		assert.GreaterOrEqual(t, took, minSpan(3, rate))
	})
}

func TestPacerRetryAfterHoldsEveryRequest(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			p := NewPacer(100, 100) // halved to 50/s: the hold is what keeps them
			start := time.Now()
			p.Observe(status, header("Retry-After", "0.3"))
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					assert.NoError(t, p.Acquire(context.Background()))
					assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
				})
			}
			wg.Wait()
			st := p.Stats()
			assert.Equal(t, 1, st.Held)
			assert.Equal(t, 1, st.RateLimited)
			assert.Equal(t, 4, st.Requests)
		})
	}
	t.Run("not on an answer that is no limit", func(t *testing.T) {
		p := NewPacer(0, 0)
		p.Observe(http.StatusOK, header("Retry-After", "30"))
		p.Observe(http.StatusBadGateway, header("Retry-After", "30"))
		p.mu.Lock()
		hold := p.hold
		p.mu.Unlock()
		assert.True(t, hold.IsZero(), "held until %v", hold)
		assert.Zero(t, p.Stats().Held)
		assert.Zero(t, p.Stats().RateLimited)
	})
	t.Run("capped by MaxWait", func(t *testing.T) {
		p := NewPacer(0, 0)
		p.MaxWait = 200 * time.Millisecond
		before := time.Now()
		p.Observe(http.StatusTooManyRequests, header("Retry-After", "3600"))
		after := time.Now()
		p.mu.Lock()
		hold := p.hold
		p.mu.Unlock()
		require.False(t, hold.After(after.Add(p.MaxWait)), "held until %v, more than MaxWait", hold.Sub(after))
		assert.False(t, hold.Before(before.Add(p.MaxWait)))
		took := acquireN(t, p, 1)
		assert.GreaterOrEqual(t, took, 200*time.Millisecond-after.Sub(before))
	})
	t.Run("a hold set while a request waits for its slot", func(t *testing.T) {
		p := NewPacer(2, 2)
		start := time.Now()
		require.NoError(t, p.Acquire(context.Background()))
		time.AfterFunc(50*time.Millisecond, func() { p.Observe(http.StatusTooManyRequests, header("Retry-After", "1")) })
		require.NoError(t, p.Acquire(context.Background())) // its slot was at 500 ms
		assert.GreaterOrEqual(t, time.Since(start), 1050*time.Millisecond)
	})
	t.Run("a canceled context", func(t *testing.T) {
		p := NewPacer(0, 0)
		p.Observe(http.StatusTooManyRequests, header("Retry-After", "10"))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		assert.ErrorIs(t, p.Acquire(ctx), context.Canceled)
	})
}

func TestPacerRemainingZeroHoldsUntilReset(t *testing.T) {
	cases := []struct {
		name string
		h    func(now time.Time) http.Header
	}{
		{"draft", func(time.Time) http.Header {
			return header("RateLimit-Remaining", "0", "RateLimit-Reset", "0.3")
		}},
		{"newer draft", func(time.Time) http.Header { return header("RateLimit", `"default";r=0;t=0.3`) }},
		{"X- in Unix milliseconds", func(now time.Time) http.Header {
			return header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Add(300*time.Millisecond).UnixMilli()+1, 10))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPacer(0, 0)
			start := time.Now()
			p.Observe(http.StatusOK, tc.h(start))
			took := acquireN(t, p, 1)
			assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "took %s", took)
			st := p.Stats()
			assert.Equal(t, 1, st.Held)
			assert.Zero(t, st.RateLimited, "no request was refused")
		})
	}
	t.Run("a reset in the past holds nothing", func(t *testing.T) {
		p := NewPacer(0, 0)
		p.Observe(http.StatusOK, header("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(time.Now().Unix()-60, 10)))
		assert.Zero(t, p.Stats().Held)
	})
}

func TestPacerRemainingSetsThePace(t *testing.T) {
	p := NewPacer(10, 0)
	p.Observe(http.StatusOK, header("RateLimit-Remaining", "3", "RateLimit-Reset", "2"))
	rate, slow := pacerState(p)
	assert.Equal(t, 1.5, rate, "what is left spread over what is left of the window")
	assert.False(t, slow)
	p.Observe(http.StatusOK, header("RateLimit-Remaining", "100", "RateLimit-Reset", "1"))
	rate, _ = pacerState(p)
	assert.Equal(t, 1.5, rate, "plenty left does not speed the run up by itself")
	took := acquireN(t, p, 3)
	assert.GreaterOrEqual(t, took, minSpan(3, 1.5))
}

func TestPacerPolicyIsACeiling(t *testing.T) {
	p := NewPacer(10, 0)
	p.Observe(http.StatusOK, header("RateLimit-Policy", "4;w=1"))
	rate, slow := pacerState(p)
	assert.Equal(t, 4.0, rate)
	assert.False(t, slow)
	assert.Equal(t, 4.0, p.Stats().Policy)
	p.mu.Lock()
	p.waited, p.changed = true, time.Now().Add(-time.Second)
	p.grow(time.Now())
	p.mu.Unlock()
	rate, _ = pacerState(p)
	assert.Equal(t, 4.0, rate, "never grows past the policy")

	t.Run("a looser policy leaves the rate", func(t *testing.T) {
		p := NewPacer(2, 0)
		p.Observe(http.StatusOK, header("RateLimit-Policy", `"default";q=6000;w=60`))
		rate, slow := pacerState(p)
		assert.Equal(t, 2.0, rate)
		assert.False(t, slow, "a known limit ends slow start")
		assert.Equal(t, 100.0, p.Stats().Policy)
	})
	t.Run("an unpaced run takes it", func(t *testing.T) {
		p := NewPacer(0, 0)
		p.Observe(http.StatusOK, header("RateLimit-Policy", "50;w=10"))
		rate, _ := pacerState(p)
		assert.Equal(t, 5.0, rate)
	})
}

func TestPacerCeilingIsNeverExceeded(t *testing.T) {
	p := NewPacer(5, 8)
	p.mu.Lock()
	p.waited, p.changed = true, time.Now().Add(-time.Second)
	p.grow(time.Now())
	p.mu.Unlock()
	rate, _ := pacerState(p)
	assert.Equal(t, 8.0, rate, "slow start stops at the ceiling")
	p.Observe(http.StatusOK, header("RateLimit-Policy", "50;w=1"))
	p.Observe(http.StatusOK, header("RateLimit-Remaining", "1000", "RateLimit-Reset", "1"))
	rate, _ = pacerState(p)
	assert.Equal(t, 8.0, rate, "a looser policy or plenty remaining does not lift the ceiling")

	t.Run("set on a zero Pacer", func(t *testing.T) {
		const n, ceiling = 11, 20.0
		p := &Pacer{Ceiling: ceiling}
		took := acquireN(t, p, n)
		assert.GreaterOrEqual(t, took, minSpan(n, ceiling))
	})
	t.Run("under slow start, at full speed", func(t *testing.T) {
		const ceiling = 20.0
		p := NewPacer(10, ceiling)
		begin := time.Now()
		n := 0
		for time.Since(begin) < 2200*time.Millisecond {
			require.NoError(t, p.Acquire(context.Background()))
			n++
		}
		took := time.Since(begin)
		assert.GreaterOrEqual(t, took, minSpan(n, ceiling), "%d requests", n)
		rate, _ := pacerState(p)
		assert.LessOrEqual(t, rate, ceiling)
	})
}

func TestPacerStatsAndSuggest(t *testing.T) {
	p := NewPacer(16, 0)
	acquireN(t, p, 2)
	p.Observe(http.StatusTooManyRequests, nil) // in slow start: 8
	p.mu.Lock()
	p.decreased = time.Time{}
	p.mu.Unlock()
	p.Observe(http.StatusTooManyRequests, nil) // at 8 after slow start: 4
	p.NoteTransient("rate-limited (429)", true)
	p.NoteTransient("gateway 502", true)
	p.NoteTransient("gateway 502", false)
	st := p.Stats()
	assert.Equal(t, 2, st.Requests)
	assert.Equal(t, 2, st.RateLimited)
	assert.Equal(t, 2, st.Retried)
	assert.Equal(t, 1, st.GaveUp)
	assert.Equal(t, map[string]int{"rate-limited (429)": 1, "gateway 502": 2}, st.Transient)
	assert.Equal(t, 16.0, st.Start)
	assert.Equal(t, 4.0, st.Rate)
	assert.Equal(t, 3.0, st.Suggest, "no pass rate measured yet: 80% of the settled rate (4 × 0.8, to the half below)")

	st.Transient["gateway 502"] = 99
	assert.Equal(t, 2, p.Stats().Transient["gateway 502"], "Stats returns a copy")

	t.Run("no suggestion without a limit", func(t *testing.T) {
		p := NewPacer(16, 0)
		acquireN(t, p, 1)
		assert.Zero(t, p.Stats().Suggest)
	})
	t.Run("a refusal only in slow start: a little under the settled rate", func(t *testing.T) {
		p := NewPacer(10, 0)
		p.Observe(http.StatusTooManyRequests, nil)
		assert.Equal(t, 4.0, p.Stats().Suggest, "5 × 0.8")
	})
	t.Run("an announced policy", func(t *testing.T) {
		p := NewPacer(10, 0)
		p.Observe(http.StatusTooManyRequests, header("RateLimit-Policy", "3;w=1"))
		st := p.Stats()
		assert.Equal(t, 3.0, st.Suggest)
		assert.Equal(t, 3.0, st.Policy)
	})
}

func TestPacerNetworkStatsString(t *testing.T) {
	cases := []struct {
		name string
		s    NetworkStats
		want string
	}{
		{"nothing sent", NetworkStats{Start: 10, Rate: 10}, ""},
		{"unpaced, nothing met", NetworkStats{Requests: 12}, "network: 12 request(s) to the target"},
		{"paced, nothing met", NetworkStats{Requests: 12, Start: 10, Rate: 40},
			"network: 12 request(s) to the target; the run settled at 40 requests/s"},
		{"everything", NetworkStats{Requests: 40, Retried: 5, RateLimited: 3, Held: 2, GaveUp: 1,
			Transient: map[string]int{"rate-limited (429)": 3, "gateway 502": 2, "connection reset": 1},
			Start:     10, Rate: 4.25, Policy: 5, Suggest: 5},
			"network: 40 request(s) to the target, 3 rate-limited (429, or 503 with Retry-After), 2 wait(s) as the target asked, " +
				"6 transient answer(s) (1 connection reset, 2 gateway 502, 3 rate-limited (429)), 5 sent again, " +
				"1 still transient after every retry (their scenarios are inconclusive); " +
				"the run settled at 4.3 requests/s (the target announced 5/s); to avoid the limit next time: --rate 5"},
		{"unpaced and refused", NetworkStats{Requests: 3, RateLimited: 1, Retried: 1, Transient: map[string]int{"rate-limited (429)": 1}},
			"network: 3 request(s) to the target, 1 rate-limited (429, or 503 with Retry-After), " +
				"1 transient answer(s) (1 rate-limited (429)), 1 sent again; the run went unpaced"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.s.String())
		})
	}
}

// TestPacerConcurrentUse runs every method at once, for the race
// detector.
func TestPacerConcurrentUse(t *testing.T) {
	p := NewPacer(1000, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 10 {
				if err := p.Acquire(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Error(err)
				}
				switch i % 4 {
				case 0:
					p.Observe(http.StatusTooManyRequests, header("Retry-After", "0.01"))
				case 1:
					p.Observe(http.StatusOK, header("RateLimit-Remaining", "500", "RateLimit-Reset", "1"))
				case 2:
					p.NoteTransient("gateway 502", i%2 == 0)
				default:
					_ = p.Stats().String()
				}
			}
		})
	}
	wg.Wait()
	assert.Positive(t, p.Stats().Requests)
}
