package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
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
func benchIngestPresets(r *rig, d time.Duration, workers int, list string) error {
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
		t, err := ingestUnder(r, r.file("ingest-"+name+".db"), prof, d, workers)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rate := t.perSecond()
		if name == "bundled" {
			base = rate
		}
		r.printf("%-18s %6.0f notifications/s, %.2fx of bundled, failures %d\n", name, rate, rate/base, t.failed)
		if t.failed > 0 {
			return fmt.Errorf("%s: %d notifications were refused or lost", name, t.failed)
		}
	}
	return nil
}

// ingestUnder runs the ingest round against a receiver on db under prof.
func ingestUnder(r *rig, db string, prof *firmakit.Profile, d time.Duration, workers int) (tally, error) {
	p, err := r.receiver(db, "--profile", prof.Name, "--strict", "--secret", demoMerchant.MerchantID+"="+presetSecret)
	if err != nil {
		return tally{}, err
	}
	defer p.stop()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}}
	return hammer(workers, d, func(int) error { return sendUnder(client, p.base, prof) }), nil
}

// sendUnder posts a 1 KiB notification signed under prof.
func sendUnder(client *http.Client, base string, prof *firmakit.Profile) error {
	id := uuid.NewString()
	body, _ := notification1KiB(prof, id, uuid.NewString())
	req := hookRequest(context.Background(), base, demoMerchant.MerchantID, body, "")
	prof.SignWebhookRequest(req, id, []string{presetSecret}, time.Now(), body)
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
