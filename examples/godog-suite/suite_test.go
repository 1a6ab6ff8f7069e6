// Package contratos is a QA team's own godog suite: its features mix
// firmakit's Spanish sentences with the team's own steps, run against the
// bundled reference server (steps/bundled) or any service described as a
// steps.Target.
package contratos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/bundled"
)

// registry stands for the team's own system: what it keeps of each
// contract it was told about.
type registry struct {
	mu        sync.Mutex
	contracts map[string]string // signature_id -> last status
}

// ourRegistryKeepsTheContract is the team's own step: it reads what
// firmakit's steps did in the scenario (the contract created, the
// notifications received) through the context.
func (r *registry) ourRegistryKeepsTheContract(ctx context.Context, status string) error {
	id := steps.CreatedSignatureID(ctx)
	if id == "" {
		return fmt.Errorf("no contract was created in this scenario")
	}
	for _, rec := range steps.ReceivedNotifications(ctx) {
		var n struct {
			SignatureID string `json:"signature_id"`
			Status      string `json:"status"`
		}
		if err := json.Unmarshal(rec.Body, &n); err != nil || n.SignatureID != id {
			continue
		}
		r.mu.Lock()
		r.contracts[id] = n.Status
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if got := r.contracts[id]; got != status {
		return fmt.Errorf("expected our registry to keep contract %s as %s, it has %q", id, status, got)
	}
	return nil
}

func TestFeatures(t *testing.T) {
	stack, err := bundled.Start(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()
	h, err := steps.NewHarness(stack.Target)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	reg := &registry{contracts: map[string]string{}}

	status := godog.TestSuite{
		Name:                 "contratos",
		TestSuiteInitializer: h.InitializeTestSuite,
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			h.InitializeScenario(sc)
			sc.Step(`^nuestro registro guarda el contrato "([A-Z]+)"$`, reg.ourRegistryKeepsTheContract)
		},
		Options: &godog.Options{Format: "pretty", Paths: []string{"features"}, Output: os.Stdout, Strict: true, TestingT: t},
	}.Run()
	if status != 0 {
		t.Fatalf("godog exit status %d", status)
	}
	// firmakit's own judgement: an inconclusive timing is not a pass.
	for _, r := range h.Results() {
		if r.Status != reports.Passed {
			t.Errorf("%s: %s: %s", r.Name, r.Status, r.Error)
		}
	}
	if r, ok := h.LedgerResult(); ok && r.Status != reports.Passed {
		t.Errorf("the run's notifications: %s: %s", r.Status, r.Error)
	}
}
