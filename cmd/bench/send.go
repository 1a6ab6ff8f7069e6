package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/google/uuid"
)

// notification1KiB returns a signed notification of about 1 KiB.
func notification1KiB(prof *firmakit.Profile, eventID, sigID string) ([]byte, string) {
	n := firmakit.Notification{EventID: eventID, Type: firmakit.NotificationType, MerchantID: demoMerchant.MerchantID,
		SignatureID: sigID, Title: "DEMO_CANCELED " + strings.Repeat("x", 700), Status: firmakit.StateCanceled,
		Reason: "El comercio canceló la solicitud de firma antes de completarse (demo)", Demo: true, CreatedAt: firmakit.FormatTime(time.Now())}
	b, _ := prof.EncodeNotification(n)
	return b, prof.WebhookSignature(demoMerchant.WebhookSecrets, time.Now(), b)
}

// hookRequest is a POST of a notification's body to a receiver's hook
// for channel, with the bundled profile's signature header when sig is
// not empty.
func hookRequest(ctx context.Context, base, channel string, body []byte, sig string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/hooks/"+channel, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("X-Service-Signature", sig)
	}
	return req
}

// sender posts signed notifications; it returns the received id.
type sender struct {
	client *http.Client
	prof   *firmakit.Profile
	base   string
}

func newSender(base string, conns int) *sender {
	return &sender{client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}},
		prof: firmakit.BundledProfile(), base: base}
}

func (s *sender) send(eventID, sigID string) (int64, error) {
	body, sig := notification1KiB(s.prof, eventID, sigID)
	resp, err := s.client.Do(hookRequest(context.Background(), s.base, demoMerchant.MerchantID, body, sig))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct{ Received int64 }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("answered %d", resp.StatusCode)
	}
	return out.Received, nil
}

// postRaw posts body to the demo merchant's hook, signed with sig when
// not empty.
func postRaw(base string, body []byte, sig string) (int, error) {
	resp, err := http.DefaultClient.Do(hookRequest(context.Background(), base, demoMerchant.MerchantID, body, sig))
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// tally is what a load got: answers that were what it wanted, the others,
// and how long it went on.
type tally struct {
	ok, failed int64
	elapsed    time.Duration
}

func (t tally) perSecond() float64 { return float64(t.ok) / t.elapsed.Seconds() }

// hammer calls send from workers goroutines (w is the worker's number),
// each again and again until d has passed, and counts the calls that
// returned nil.
func hammer(workers int, d time.Duration, send func(w int) error) tally {
	var ok, failed atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if send(w) != nil {
					failed.Add(1)
				} else {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return tally{ok: ok.Load(), failed: failed.Load(), elapsed: time.Since(start)}
}

// ingestAt sends signed 1 KiB notifications from workers senders for d,
// the senders split evenly over bases.
func ingestAt(bases []string, d time.Duration, workers int) tally {
	senders := make([]*sender, len(bases))
	for i, b := range bases {
		senders[i] = newSender(b, workers)
	}
	return hammer(workers, d, func(w int) error {
		_, err := senders[w%len(senders)].send(uuid.NewString(), uuid.NewString())
		return err
	})
}

// paced sends n notifications with s at rate a second, each from its own
// goroutine, on an absolute schedule: a late send is followed by quicker
// ones, where a ticker would drop ticks and lower the rate. It returns
// when each 2xx came, by the id received, how many sends failed, and how
// long the sending took.
func paced(s *sender, rate, n int) (acked map[int64]time.Time, failed int64, took time.Duration) {
	var mu sync.Mutex
	acked = map[int64]time.Time{}
	var fails atomic.Int64
	interval := time.Second / time.Duration(rate)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := s.send(uuid.NewString(), uuid.NewString())
			at := time.Now()
			if err != nil {
				fails.Add(1)
				return
			}
			mu.Lock()
			acked[id] = at
			mu.Unlock()
		}()
	}
	wg.Wait()
	return acked, fails.Load(), time.Since(start)
}

// untilStopped sends notifications, each with an event id of its own,
// from workers goroutines, each through the sender pick gives it for
// each one, until stop is closed; the function it returns waits for the
// goroutines and returns the event ids that got a 2xx.
func untilStopped(stop <-chan struct{}, workers int, pick func(w int) *sender) func() []string {
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ev := uuid.NewString()
				if _, err := pick(w).send(ev, "kill"); err == nil {
					mu.Lock()
					acked = append(acked, ev)
					mu.Unlock()
				}
			}
		}()
	}
	return func() []string { wg.Wait(); return acked }
}

// realSenders posts signed 1 KiB notifications from n senders until ctx
// ends, each waiting up to 30 s for its answer (want, to count as
// answered) and pause before the next.
func realSenders(ctx context.Context, base string, n, want int, pause time.Duration) (ok, failed int, lat string) {
	prof := firmakit.BundledProfile()
	var mu sync.Mutex
	var lats []time.Duration
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			for i := 0; ctx.Err() == nil; i++ {
				b, sig := notification1KiB(prof, fmt.Sprintf("abuse-%d-%d", w, i), "abuse")
				t0 := time.Now()
				resp, err := client.Do(hookRequest(context.Background(), base, demoMerchant.MerchantID, b, sig))
				took := time.Since(t0)
				good := err == nil && resp.StatusCode == want
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				if good {
					ok++
					lats = append(lats, took)
				} else {
					failed++
				}
				mu.Unlock()
				time.Sleep(pause)
			}
		}()
	}
	wg.Wait()
	return ok, failed, latencies(lats)
}

// demoRequest is the demo merchant's signed request to create contract
// i, titled DEMO_SIGNED so that the reference notifies it, on a reference
// at base.
func demoRequest(base string, i int64) *http.Request {
	path := "/v1/signature/" + demoMerchant.MerchantID
	body, _ := json.Marshal(firmakit.NewCreateRequest(demoMerchant.Template, demoMerchant.Data, fmt.Sprintf("DEMO_SIGNED bench %d", i)))
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
	req.Header = firmakit.BundledProfile().SignedHeaders(demoMerchant.Credential.KeyID, demoMerchant.Credential.Secret, "POST", path, body, time.Now())
	req.Header.Set("Content-Type", "application/json")
	return req
}

// createDemos creates n DEMO_SIGNED contracts with conns clients and
// returns how many got a 201 and how long it took.
func createDemos(base string, n, conns int) (int64, time.Duration) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	var next, created atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				resp, err := client.Do(demoRequest(base, i))
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated {
					created.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return created.Load(), time.Since(start)
}
