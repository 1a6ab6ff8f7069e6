package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/google/uuid"
)

// presetSecret is valid under every preset's secret encoding
// (whsec_ + base64 for standard-webhooks, raw bytes for the others).
const presetSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// benchIngestPresets runs the ingest round once per preset, the receiver
// started with --profile NAME and --strict (a notification that fails
// its check is answered 401 and counted as a failure), and prints each
// rate beside the bundled profile's.
func benchIngestPresets(bin, dir string, d time.Duration, workers int, list string) error {
	names := firmakit.Presets()
	if list != "all" {
		names = append([]string{"bundled"}, strings.Split(list, ",")...)
	}
	var base float64
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		prof, err := firmakit.Preset(name)
		if err != nil {
			return err
		}
		rate, failed, err := ingestUnder(bin, filepath.Join(dir, "ingest-"+name+".db"), prof, d, workers)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if name == "bundled" {
			base = rate
		}
		fmt.Printf("%-18s %6.0f notifications/s, %.2fx of bundled, failures %d\n", name, rate, rate/base, failed)
		if failed > 0 {
			return fmt.Errorf("%s: %d notifications were refused or lost", name, failed)
		}
	}
	return nil
}

func ingestUnder(bin, db string, prof *firmakit.Profile, d time.Duration, workers int) (float64, int64, error) {
	p, err := startReceiver(bin, db, "--profile", prof.Name, "--strict", "--secret", demoMerchant.MerchantID+"="+presetSecret)
	if err != nil {
		return 0, 0, err
	}
	defer p.stop()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}}
	var ok, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if sendUnder(client, p.base, prof) != nil {
					failed.Add(1)
				} else {
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(ok.Load()) / time.Since(start).Seconds(), failed.Load(), nil
}

// sendUnder posts a 1 KiB notification signed under prof.
func sendUnder(client *http.Client, base string, prof *firmakit.Profile) error {
	id := uuid.NewString()
	body, _ := notification1KiB(prof, id, uuid.NewString())
	req, _ := http.NewRequest("POST", base+"/hooks/"+demoMerchant.MerchantID, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	prof.SignWebhook(req.Header, id, []string{presetSecret}, time.Now(), body)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct{ Received int64 }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
	return nil
}
