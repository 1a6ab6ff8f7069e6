package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/google/uuid"
)

// ErrUnknownContract: the endpoint answered 404 to a valid notification
// of a contract firmakit made up, before the webhook suite ran. An
// endpoint that looks signature_id up answers so to every scenario; the
// run needs ids of contracts it knows (Endpoint.SignatureIDs).
var ErrUnknownContract = errors.New("the endpoint does not know the contract")

// probe posts a notification of a real contract signed with the
// endpoint's secret at ts, and returns the status answered.
func probe(ctx context.Context, e *Endpoint, id, ts string) (int, error) {
	p := e.profile()
	n := firmakit.Notification{EventID: uuid.NewString(), Type: firmakit.NotificationType, MerchantID: e.merchantID(),
		SignatureID: id, Title: "Contrato de arriendo 42", Status: firmakit.StateCreated, CreatedAt: firmakit.FormatTime(e.now())}
	body, err := p.EncodeNotification(n)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "firmakit-certify-webhook/1")
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return 0, err
	}
	hs, _ := (&webhookSteps{E: e}).headers(&webhookScenario{sign: "webhook"}, n.EventID, body, t)
	for _, h := range hs {
		req.Header[h.name] = []string{h.value}
	}
	resp, err := e.client().Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// probeContract sends one valid notification of a made-up contract
// before the run: an endpoint that answers it 404 would fail every
// scenario for one reason, which is said once instead. It gives up when
// ctx ends (the run's deadline), and the scenarios then say what was not
// judged.
func probeContract(ctx context.Context, e *Endpoint) error {
	id := e.signatureID()
	status, err := probe(ctx, e, id, strconv.FormatInt(e.now().Unix(), 10))
	if err != nil || status != http.StatusNotFound {
		return nil // the scenarios judge every other answer
	}
	return fmt.Errorf("%w: a valid notification of the contract %s, which firmakit made up, was answered 404. "+
		"An endpoint that looks signature_id up in its own records refuses every notification of a contract it never created: "+
		"give ids of contracts it knows with --signature-id ID (repeatable) or --signature-ids FILE. "+
		"If it does not look contracts up, 404 means %s is not the endpoint's path", ErrUnknownContract, id, e.URL)
}

// clockFinding is what probing an endpoint that refused everything found
// of its clock: a t offset (seconds) it accepted, or that it accepted t in
// milliseconds.
type clockFinding struct {
	Offset int64
	Millis bool
}

// probeOffsets are the clock errors looked for: whole hours either way,
// as a clock set to local time instead of UTC is off.
var probeOffsets = func() []int64 {
	var o []int64
	for h := int64(1); h <= 14; h++ {
		o = append(o, h*3600, -h*3600)
	}
	return o
}()

// millisAhead are how far ahead of now a t in milliseconds is tried.
var millisAhead = []time.Duration{0, 200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// probeClock looks for the clock under which an endpoint that refused
// every valid notification accepts one: t in milliseconds, or t off by
// whole hours. It stops at the first 2xx.
func probeClock(ctx context.Context, e *Endpoint) clockFinding {
	id := e.signatureID()
	// An endpoint that reads t in milliseconds allows as many
	// milliseconds as the tolerance's seconds: a t written when sent may
	// be out of its window by the time it arrives on a slow or busy path,
	// so it is tried a little ahead of now, then further.
	for _, ahead := range millisAhead {
		st, err := probe(ctx, e, id, strconv.FormatInt(e.now().Add(ahead).UnixMilli(), 10))
		if err != nil {
			break
		}
		if is2xx(st) {
			return clockFinding{Millis: true}
		}
	}
	now := e.now()
	for _, off := range probeOffsets {
		st, err := probe(ctx, e, id, strconv.FormatInt(now.Add(time.Duration(off)*time.Second).Unix(), 10))
		if err != nil {
			return clockFinding{}
		}
		if is2xx(st) {
			return clockFinding{Offset: off}
		}
	}
	return clockFinding{}
}

// refusedEverything tells whether every valid notification was refused
// with an answer, and every forged one too.
func refusedEverything(results []reports.ScenarioResult, observed []observation) bool {
	f := hintFacts{results, observed}
	accTotal, accFailed, _ := f.tally("accept")
	_, refFailed, _ := f.tally("refuse")
	return accTotal > 0 && accFailed == accTotal && refFailed == 0
}
