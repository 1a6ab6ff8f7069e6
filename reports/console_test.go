package reports

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Elsewhere than on a terminal, each scenario is a plain line, and a long
// run says every few seconds how far it has got.
func TestConsoleOffATerminal(t *testing.T) {
	var b bytes.Buffer // read once Stop has returned: nothing writes then
	c := NewConsole(&b, false, 0)
	c.every = 100 * time.Millisecond
	assert.NotNil(t, c.Lines(), "the suite's lines go to the console's output")
	c.Start(3)
	c.OnResult(ScenarioResult{Status: Failed, Requirement: "X"}, Tally{Done: 1, Total: 3, Failed: 1})
	time.Sleep(consoleAfter + 250*time.Millisecond)
	c.Stop()
	s := b.String()
	assert.Regexp(t, `^(… 1 of 3 done, 1 failed, \d+\.\ds\n)+$`, s, "plain lines, no escape codes")
	assert.NotContains(t, s, "FAIL", "the suite prints its own line per scenario")
}
