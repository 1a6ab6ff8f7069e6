package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A `go test -json` stream as go test writes it: a build failure's text
// between the events, subtests, a package without test files.
const goTestJSON = `{"Time":"2025-11-26T06:00:00Z","Action":"start","Package":"github.com/firmakit/firmakit/steps"}
{"Time":"2025-11-26T06:00:00.1Z","Action":"run","Package":"github.com/firmakit/firmakit/steps","Test":"TestConformanceSuite"}
{"Time":"2025-11-26T06:00:20Z","Action":"pass","Package":"github.com/firmakit/firmakit/steps","Test":"TestConformanceSuite/es","Elapsed":19.5}
{"Time":"2025-11-26T06:00:20Z","Action":"pass","Package":"github.com/firmakit/firmakit/steps","Test":"TestConformanceSuite","Elapsed":19.9}
{"Time":"2025-11-26T06:00:21Z","Action":"fail","Package":"github.com/firmakit/firmakit/steps","Test":"TestPacerGrow","Elapsed":1.25}
{"Time":"2025-11-26T06:00:00.2Z","Action":"run","Package":"github.com/firmakit/firmakit/steps","Test":"TestBehindAGateway"}
{"Time":"2025-11-26T06:00:00.2Z","Action":"pause","Package":"github.com/firmakit/firmakit/steps","Test":"TestBehindAGateway"}
{"Time":"2025-11-26T06:00:10Z","Action":"cont","Package":"github.com/firmakit/firmakit/steps","Test":"TestBehindAGateway"}
{"Time":"2025-11-26T06:00:20Z","Action":"pass","Package":"github.com/firmakit/firmakit/steps","Test":"TestBehindAGateway/429","Elapsed":9.5}
{"Time":"2025-11-26T06:00:20Z","Action":"pass","Package":"github.com/firmakit/firmakit/steps","Test":"TestBehindAGateway","Elapsed":0}
{"Time":"2025-11-26T06:00:21Z","Action":"fail","Package":"github.com/firmakit/firmakit/steps","Elapsed":21}
# github.com/firmakit/firmakit/reports [build failed]
{"Time":"2025-11-26T06:00:01Z","Action":"pass","Package":"github.com/firmakit/firmakit","Test":"TestSign","Elapsed":0.5}
{"Time":"2025-11-26T06:00:01Z","Action":"pass","Package":"github.com/firmakit/firmakit","Elapsed":1}
{"Time":"2025-11-26T06:00:01Z","Action":"skip","Package":"github.com/firmakit/firmakit/internal/guard","Elapsed":0}
`

func TestSummarizeTests(t *testing.T) {
	run, err := readTestRun("race", strings.NewReader(goTestJSON))
	require.NoError(t, err)
	assert.Len(t, run.Tests, 4, "top-level tests only")
	assert.Len(t, run.Packages, 3)
	assert.Equal(t, 21*time.Second, run.Wall, "from the first event to the last")
	assert.Equal(t, `the 3 slowest tests:
     19.9 s  race   steps          TestConformanceSuite
     10.0 s  race   steps          TestBehindAGateway
      1.2 s  race   steps          TestPacerGrow  (fail)
race: 3 packages, 4 tests, 21.0 s wall
     21.0 s  steps  (fail)
      1.0 s  .
`, summarizeTests([]testRun{run}, 3), "a parallel test from when it went on to its end, its parallel subtests included")
}
