package bundled_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cucumber/godog"
	"github.com/firmakit/firmakit/steps"
	"github.com/firmakit/firmakit/steps/bundled"
)

// A team's feature, in Spanish: firmakit's sentences, then one of the
// team's own steps.
const feature = `# language: es
Característica: un contrato de demostración, visto por el equipo

  Escenario: el equipo guarda el contrato creado y su aviso
    Dado un contrato titulado "DEMO_SIGNED contrato del equipo"
    Cuando se crea el contrato
    Entonces la respuesta es un sobre de firma creado
    Y llega una notificación "SIGNED" entre 300 y 1500 ms después del 201
    Y el equipo guarda el contrato creado
`

// A QA team's own godog suite runs firmakit's sentences beside its own
// step, which reads what firmakit's steps did through the context.
func Example() {
	stack, err := bundled.Start(nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stack.Close()
	h, err := steps.NewHarness(stack.Target)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()

	var kept []string
	theTeamKeepsTheContract := func(ctx context.Context) error {
		id := steps.CreatedSignatureID(ctx)
		if id == "" {
			return errors.New("no contract was created")
		}
		ex, _ := steps.LastExchange(ctx)
		var note struct{ SignatureID, Status string }
		for _, r := range steps.ReceivedNotifications(ctx) {
			var n struct {
				SignatureID string `json:"signature_id"`
				Status      string `json:"status"`
			}
			if json.Unmarshal(r.Body, &n) == nil && n.SignatureID == id {
				note.SignatureID, note.Status = n.SignatureID, n.Status
			}
		}
		kept = append(kept, fmt.Sprintf("answer %d, notification %s about the contract created: %t", ex.Status, note.Status, note.SignatureID == id))
		return nil
	}

	status := godog.TestSuite{
		Name:                 "team",
		TestSuiteInitializer: h.InitializeTestSuite,
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			h.InitializeScenario(sc)
			sc.Step(`^el equipo guarda el contrato creado$`, theTeamKeepsTheContract)
		},
		Options: &godog.Options{Format: "progress", Output: io.Discard, Strict: true,
			FeatureContents: []godog.Feature{{Name: "equipo.feature", Contents: []byte(feature)}}},
	}.Run()
	fmt.Println("godog exit status:", status)
	for _, k := range kept {
		fmt.Println(k)
	}
	for _, r := range h.Results() {
		fmt.Println("firmakit:", r.Name, "-", r.Status)
	}
	if r, ok := h.LedgerResult(); ok {
		fmt.Println("ledger:", r.Status)
	}
	// Output:
	// godog exit status: 0
	// answer 201, notification SIGNED about the contract created: true
	// firmakit: el equipo guarda el contrato creado y su aviso - passed
	// ledger: passed
}
