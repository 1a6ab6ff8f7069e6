package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildFirmakit builds the binary the rounds start, as make build does.
func buildFirmakit(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "firmakit")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/firmakit/firmakit/cmd/firmakit").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// Every round of every benchmark runs, briefly (tiny durations and
// counts), against the real components (the built binary, PostgreSQL,
// Chromium), on loopback, and prints its figures: a round cannot rot
// between two runs of make bench. What the figures say is not judged here
// (speed is measured, not asserted); what a round itself checks is.
func TestEveryRoundRuns(t *testing.T) {
	bin := buildFirmakit(t)
	goTest := filepath.Join(t.TempDir(), "race.json")
	require.NoError(t, os.WriteFile(goTest, []byte(goTestJSON), 0o600))
	cases := []struct {
		bench string
		args  []string
		// says are lines the output must have, as regular expressions.
		says []string
	}{
		{"load", []string{"--duration", "200ms", "--conns", "2", "--rounds", "1"},
			[]string{`(?m)^round 1  reference /v1/check +\d+ req/s$`, `reference at [\d.]+% of bare`}},
		{"demo", []string{"--bin", bin, "--n", "10", "--rate", "50"},
			[]string{`(?m)^created 10 demo contracts in .*, 0 create failures, 0 notifications missing$`, `delay 201 -> notification: min `}},
		{"reference", []string{"--bin", bin, "--blackhole-n", "20", "--hold", "200ms", "--burst-n", "20", "--conns", "4"},
			[]string{`(?m)^== blackhole$`, `created 20 of 20 demo contracts`, `(?m)^== burst$`, `30 parallel pages of 1000: .*, 0 errors`}},
		{"receiver", []string{"--bin", bin, "--ingest", "300ms", "--workers", "4", "--clients", "2", "--rate", "50", "--stream", "300ms",
			"--records", "100", "--memory", "300ms", "--memory-senders", "2", "--idle-conns", "10", "--idle-wait", "100ms",
			"--replica-rate", "50", "--profiles", "all"},
			[]string{`(?m)^== ingest$`, `stored \d+, 2xx answers \d+: equal`, `(?m)^== stream$`, `delay 2xx -> frame: p50 `,
				`(?m)^== kill$`, `of the 2xx lost \(target 0\)`, `(?m)^== large$`, `stored 100 records`, `search text in the body \(no match\)`,
				`(?m)^== memory$`, `in-memory store budget`, `(?m)^== idle$`, `10 idle connections opened`,
				`(?m)^== replicas$`, `PostgreSQL, two replicas \(senders split\)`, `B's 2xx -> frame on A`, `kill -9 of one of two replicas`,
				`(?m)^== presets$`, `(?m)^stripe +\d+ notifications/s`}},
		{"abuse", []string{"--bin", bin, "--records", "2", "--pages", "1", "--streams", "2", "--duration", "1s",
			"--slow-conns", "10", "--delayed", "10", "--forwards", "10", "--bounded-runs", "1"},
			[]string{`(?m)^== memory$`, `pages and streams \(1 pages at once, 2 streams`, `(?m)^== slow$`, `reference, the same 10 connections`,
				`(?m)^== headers$`, `receiver --forward-to an endpoint answering`, `(?m)^== delayed$`, `held back: `, `(?m)^== forward$`, `forwards waiting for the endpoint: `,
				`certify-webhook --max-duration 3s against it: ended after `,
				`every process stayed under the 256 MiB ceiling`}},
		{"verdict", []string{"--bin", bin, "--hogs", "0", "--runs", "1", "--tags", "@AUTH-OK", "--faults", "notification-twice", "--fault-runs", "1"},
			[]string{`(?m)^bundled run  1: exit 0 in `, `bundled reference: 1 of 1 runs passed`, `fault notification-twice: \d of 1 runs failed`}},
		{"sandbox", []string{"--bin", bin, "--latency", "1ms", "--", "--lang", "en", "--tags", "@AUTH-OK"},
			[]string{`(?m)^a, the correct reference: map\[passed:1\]$`, `(?m)^b, the correct reference: map\[passed:1\]$`,
				`(?m)^c, the correct reference: map\[passed:1\]$`, `(?m)^d, the correct reference: map\[passed:1\]$`, `gateway: \d+ requests`}},
		{"tests", []string{"--n", "2", goTest},
			[]string{`(?m)^the 2 slowest tests:$`, `(?m)^race: 3 packages, 4 tests, 21.0 s wall$`}},
		{"suite", []string{"--bin", bin, "--runs", "1", "--lang", "en", "--tags", "@AUTH-OK,@DEMO-RETRY-3XX"},
			[]string{`(?m)^floor [\d.]+ s: `, `(?m)^run 1: wall time [\d.]+ s, [\d.]+x the floor; exit 0, firmakit: `, `(?m)^one scenario at a time: wall time [\d.]+ s; exit 0, `}},
		{"webhook", []string{"--bin", bin, "--runs", "1", "--delay", "200ms", "--lang", "en"},
			[]string{`(?m)^endpoint answering after 0s: floor 0.0 s`, `(?m)^endpoint answering after 200ms: floor 1.2 s`,
				`(?m)^run 1: wall time [\d.]+ s, [\d.]+x the floor; exit 0, firmakit: 77 scenarios: 77 passed`}},
		{"dashboard", []string{"--stored", "10", "--rate", "20", "--duration", "1s", "--clicks", "2", "--min-fps", "0", "--max-click", "1h"},
			[]string{`ok: at least 0 frames/s`}},
	}
	tested := map[string]bool{}
	for _, tc := range cases {
		tested[tc.bench] = true
		t.Run(tc.bench, func(t *testing.T) {
			t.Parallel() // most of a round's time is waiting
			var out bytes.Buffer
			require.NoError(t, run(&out, tc.bench, tc.args), "%s", out.String())
			t.Logf("bench %s:\n%s", tc.bench, out.String())
			for _, says := range tc.says {
				assert.Regexp(t, regexp.MustCompile(says), out.String())
			}
		})
	}
	for _, b := range benchmarks {
		assert.True(t, tested[b.name], "the benchmark %s has no case here", b.name)
	}
}

// An unknown benchmark is an error that names it.
func TestUnknownBenchmark(t *testing.T) {
	err := run(&bytes.Buffer{}, "lod", nil)
	assert.EqualError(t, err, `unknown benchmark "lod"`)
}
