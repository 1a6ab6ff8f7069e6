package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"github.com/labstack/echo/v4"
)

// runLoad compares the reference server's check endpoint with a bare echo
// handler that answers the same 200 body, with one load generator that
// signs every request afresh for both.
func runLoad(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	duration := fs.Duration("duration", 10*time.Second, "length of each measured round")
	conns := fs.Int("conns", 32, "concurrent keep-alive connections")
	rounds := fs.Int("rounds", 3, "rounds per target, interleaved")
	_ = fs.Parse(args)
	return withRig(out, "", func(r *rig) error { return benchLoad(r, *duration, *conns, *rounds) })
}

func benchLoad(r *rig, duration time.Duration, conns, rounds int) error {
	ref := &reference.Server{Addr: "127.0.0.1:0"}
	if err := r.open(ref); err != nil {
		return err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/:api_version/check/:merchant_id", func(c echo.Context) error {
		return c.JSON(http.StatusOK, firmakit.APIResponse{StatusCode: http.StatusOK, Message: "Authenticated"})
	})
	bare, err := r.serve(e)
	if err != nil {
		return err
	}
	targets := []struct{ name, url string }{
		{"bare echo handler", bare},
		{"reference /v1/check", ref.URL()},
	}
	results := map[string][]float64{}
	for i := 0; i < rounds; i++ {
		for _, t := range targets {
			rps, errs, err := loadRound(t.url+"/v1/check/"+demoMerchant.MerchantID, conns, duration)
			if err != nil {
				return err
			}
			if errs > 0 {
				return fmt.Errorf("%s: %d requests did not answer 200", t.name, errs)
			}
			results[t.name] = append(results[t.name], rps)
			r.printf("round %d  %-20s %8.0f req/s\n", i+1, t.name, rps)
		}
	}
	b, rf := median(results[targets[0].name]), median(results[targets[1].name])
	r.printf("\nmedian  bare echo %0.f req/s, reference %0.f req/s: reference at %.1f%% of bare (target >= 70%%)\n", b, rf, 100*rf/b)
	return nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// loadRound sends freshly signed requests on conns connections for d,
// each connection at least one whole request however slow the machine
// (a round of 200 ms on a busy one completed none), and returns the rate
// of 200 answers.
func loadRound(url string, conns int, d time.Duration) (float64, int64, error) {
	p := firmakit.BundledProfile()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	body := []byte(`{"ping":"bench"}`)
	target := "/v1/check/" + demoMerchant.MerchantID
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := true; first || time.Now().Before(deadline); first = false {
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				for k, v := range p.SignedHeaders(demoMerchant.Credential.KeyID, demoMerchant.Credential.Secret, "POST", target, body, time.Now()) {
					req.Header[k] = v
				}
				resp, err := client.Do(req)
				if err != nil {
					bad.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	client.CloseIdleConnections()
	return float64(ok.Load()) / time.Since(start).Seconds(), bad.Load(), nil
}
