package explore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps"
	"pgregory.net/rapid"
)

// Explorer sends generated requests to a target and reports the
// properties they found broken, each with its smallest failing request.
type Explorer struct {
	// Target is the service and everything needed to talk to it: its
	// profile, merchant, credentials (its other merchant's and disabled
	// ones are used when given), template, HTTP client, pacer and retries.
	Target *steps.Target
	// Seed chooses the sequence of requests: the same seed draws the
	// same sequence.
	Seed int64
	// Budget is how long to look for findings; a finding's shrinking
	// comes on top, within ShrinkBudget (default DefaultShrinkBudget).
	Budget, ShrinkBudget time.Duration
	// Stop, when it closes, ends the search early, as the end of Budget
	// does.
	Stop <-chan struct{}
	// Rate caps the requests per second (0: none), beside the target's
	// pacer, until Unpaced closes: an exploration that runs beside a
	// suite leaves it the CPU and the target it needs.
	Rate    float64
	Unpaced <-chan struct{}
	// Line says how the lines that send a finding's request again name
	// the target and its profile (Line.BaseURL defaults to Target.URL).
	Line Line
	// MaxFindings ends the exploration after this many findings; 0 goes
	// on until every property has one, or the budget is spent.
	MaxFindings int
	// BodyDir is where the body of a finding too long for a command line
	// is written, for its line to name (default: the system's temporary
	// folder).
	BodyDir string
}

// DefaultShrinkBudget bounds the shrinking of one finding.
const DefaultShrinkBudget = 10 * time.Second

// longBody is the size from which a finding's body goes to a file rather
// than on its command line, as does a body that is not printable text.
const longBody = 4 << 10

// Report is what an exploration did and found.
type Report struct {
	Seed int64
	// Requests counts the requests judged, Unjudged those that got no
	// answer of the target's own (a transport error, a rate limit, a
	// gateway's 5xx), both while searching; Shrinking the requests sent
	// to shrink the findings.
	Requests, Unjudged, Shrinking int
	Elapsed                       time.Duration
	Findings                      []Finding
}

// Finding is a property broken, by the smallest request rapid found.
type Finding struct {
	Property Property
	// Breaks is the item of the documents whose sentence the answer
	// breaks (a ref of features.Items); Sentence that sentence, when the
	// item says more than it.
	Breaks, Sentence string
	// Want is the answer due, in words; Status and Body the answer got.
	Want   string
	Status int
	Body   []byte
	// Request is the request, shrunk; Command the 'firmakit sign' line
	// that sends it again and Row the example row that would pin it.
	Request      *Request
	Command, Row string
	// After is how many requests were judged before the first failing
	// one; Shrinking how many were sent to shrink it.
	After, Shrinking int
}

// Cite is the item the finding breaks with its sentence, quoted.
func (f Finding) Cite() string {
	if f.Sentence != "" {
		return fmt.Sprintf("%s: %q", f.Breaks, f.Sentence)
	}
	return reports.Cite(f.Breaks)
}

// Error says what the finding is, in the reports' way: expected, got,
// then how to send the request again.
func (f Finding) Error(seed int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "expected %s, got %d %s\n", f.Want, f.Status, firmakit.Excerpt(strings.TrimSpace(string(f.Body)), 300))
	fmt.Fprintf(&b, "  request to the %q endpoint: %s\n", f.Request.Endpoint, firmakit.EscapeText(orValid(f.Request.Words())))
	fmt.Fprintf(&b, "  send it again: %s\n", firmakit.EscapeText(f.Command))
	fmt.Fprintf(&b, "  pin it with the example row:\n    %s\n    %s\n", RowHeader, firmakit.EscapeText(f.Row))
	fmt.Fprintf(&b, "  found after %d requests with seed %d (replay: --seed %d), shrunk in %d more", f.After, seed, seed, f.Shrinking)
	return b.String()
}

func orValid(words string) string {
	if words == "" {
		return "a valid request"
	}
	return words
}

// Results are the report's findings as scenario results of the
// exploration feature (reports.ExplorationFeature), so that they fail a
// run's verdict and show in every report like any failure. No finding
// gives no result.
func (r *Report) Results() []reports.ScenarioResult {
	var out []reports.ScenarioResult
	for _, f := range r.Findings {
		res := reports.ScenarioResult{Feature: reports.ExplorationFeature, Lang: "all", Kind: "profile",
			Name:        "generated requests: " + f.Property.Name,
			Requirement: f.Property.ID, Status: reports.Failed, FailedStep: "a generated request is sent and judged",
			Error: f.Error(r.Seed), Breaks: f.Breaks}
		if f.Property == NoServerError {
			res.FailureKind = reports.FailureServerError
		}
		out = append(out, res)
	}
	return out
}

// Run explores the target for the budget, stopping early when Stop
// closes or ctx ends, and returns what it did and found. It returns an
// error for an explorer without a target, and for a fault of the
// exploration itself.
func (e *Explorer) Run(ctx context.Context) (*Report, error) {
	t := e.Target
	if t == nil || t.Profile == nil || !t.Credential.Given() || t.MerchantID == "" {
		return nil, errors.New("explore: a target with its profile, merchant and credential is needed")
	}
	shrink := e.ShrinkBudget
	if shrink <= 0 {
		shrink = DefaultShrinkBudget
	}
	engineMu.Lock()
	defer engineMu.Unlock()
	eng := newEngine(shrink)
	defer eng.close()

	x := &run{e: e, ctx: ctx, space: newSpace(t), start: time.Now(), found: map[string]bool{}, rep: &Report{Seed: e.Seed}}
	enough := len(Properties)
	if e.MaxFindings > 0 {
		enough = min(enough, e.MaxFindings)
	}
	for b := uint64(0); !x.over() && len(x.found) < enough; b++ {
		x.batch = &batch{last: map[string]*Finding{}, seen: map[string]reply{}}
		s := eng.check(batchSeed(e.Seed, b), x.prop)
		f := x.batch.last[x.batch.first]
		switch {
		case f != nil:
			x.finish(f)
		case s.panicked != nil:
			return nil, fmt.Errorf("explore: %v", s.panicked)
		case x.batch.fault != "":
			return nil, fmt.Errorf("explore: %s", x.batch.fault)
		case s.crashed() != "":
			return nil, fmt.Errorf("explore: %s", s.crashed())
		}
	}
	x.rep.Elapsed = time.Since(x.start)
	return x.rep, nil
}

// batchSeed is the seed of the b-th run of rapid of an exploration.
func batchSeed(seed int64, b uint64) uint64 {
	h := fnv.New64a()
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], uint64(seed))
	binary.LittleEndian.PutUint64(buf[8:], b)
	h.Write(buf[:])
	return h.Sum64()
}

// run is one exploration under way.
type run struct {
	e     *Explorer
	ctx   context.Context
	space *space
	start time.Time
	found map[string]bool
	rep   *Report
	batch *batch
	next  time.Time // the earliest time the next request may leave (Rate)
}

// batch is one run of rapid: once a request failed, rapid shrinks it.
type batch struct {
	// first is the ID of the property the first failure broke, which
	// rapid shrinks; last the latest failing request of each property,
	// which ends as the smallest.
	first string
	last  map[string]*Finding
	// fault is a failure of the exploration itself.
	fault string
	// seen are the answers to the requests sent while shrinking, by
	// request: rapid tries many draws that make the same request, which
	// need not go again.
	seen map[string]reply
}

// reply is a target's answer to judge.
type reply struct {
	status      int
	contentType string
	body        []byte
}

// over tells whether the search is over: the budget spent, Stop closed,
// or ctx ended.
func (x *run) over() bool {
	if x.ctx.Err() != nil || time.Since(x.start) >= x.e.Budget {
		return true
	}
	select {
	case <-x.e.Stop:
		return true
	default:
		return false
	}
}

// prop is rapid's property: draw a request, send it, judge its answer.
func (x *run) prop(t *rapid.T) {
	shrinking := x.batch.first != ""
	if !shrinking && x.over() {
		t.SkipNow() // the budget is spent: the rest of the batch is drawn as nothing
	}
	r := x.space.draw(t)
	key := r.key()
	a, ok := x.batch.seen[key]
	switch {
	case ok:
	case shrinking:
		x.rep.Shrinking++
		if a, ok = x.send(r); !ok {
			t.SkipNow()
		}
		x.batch.seen[key] = a
	default:
		if a, ok = x.send(r); !ok {
			x.rep.Unjudged++
			t.SkipNow()
		}
		x.rep.Requests++
	}
	v := judge(r.Endpoint, expect(r), a.status, a.contentType, a.body)
	if v == nil || x.found[v.property.ID] {
		return
	}
	f := &Finding{Property: v.property, Breaks: v.ref, Sentence: v.sentence, Want: v.want, Status: a.status, Body: a.body, Request: r}
	if !shrinking {
		x.batch.first = v.property.ID
		x.batch.seen[key] = a
		f.After = x.rep.Requests - 1
	} else if prev := x.batch.last[x.batch.first]; prev != nil {
		f.After = prev.After
	}
	x.batch.last[v.property.ID] = f
	// One call per property, each on its own line: rapid tells failures
	// apart by where they fail, and shrinks a failure only to requests
	// that fail the same property. The message depends on the request
	// only, so that rapid finds it the same when it sends it again.
	switch v.property {
	case NoServerError:
		t.Fatalf("%s: want %s", v.property.ID, v.want)
	case ErrorShape:
		t.Fatalf("%s: want %s", v.property.ID, v.want)
	case CheckOrder:
		t.Fatalf("%s: want %s (%s)", v.property.ID, v.want, v.ref)
	case Accepted:
		t.Fatalf("%s: want %s", v.property.ID, v.want)
	}
}

// paced tells whether Rate still applies.
func (x *run) paced() bool {
	if x.e.Rate <= 0 {
		return false
	}
	select {
	case <-x.e.Unpaced:
		return false
	default:
		return true
	}
}

// send sends r through the target's client and pacer, with its retries,
// signed afresh for each attempt. ok is false when no answer of the
// target's own came: nothing to judge.
func (x *run) send(r *Request) (reply, bool) {
	if x.paced() {
		if wait := time.Until(x.next); wait > 0 {
			select {
			case <-time.After(wait):
			case <-x.ctx.Done():
				return reply{}, false
			}
		}
		x.next = time.Now().Add(time.Duration(float64(time.Second) / x.e.Rate))
	}
	t := x.e.Target
	ex, err := t.Do(x.ctx, func(int) (*http.Request, error) {
		return r.build(x.ctx, t.Profile, t.URL, t.APIVersion, time.Now())
	})
	if err != nil {
		if !errors.Is(err, steps.ErrTransient) && x.ctx.Err() == nil {
			// Not the target's doing: a request that could not be built.
			x.batch.fault = err.Error()
		}
		return reply{}, false
	}
	if gateway(ex.Status, ex.Body) {
		return reply{}, false
	}
	return reply{ex.Status, ex.Header.Get("Content-Type"), ex.Body}, true
}

// gateway tells a 502, 503 or 504 whose body is not the API's shape: a
// gateway's answer, not the service's, which the same gateway failing
// every attempt does not make the service's either.
func gateway(status int, body []byte) bool {
	switch status {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		a := readAnswer(body)
		return !a.shaped || a.code != int64(status)
	}
	return false
}

// finish makes a batch's finding final: its lines written, its property
// no longer looked for.
func (x *run) finish(f *Finding) {
	x.found[f.Property.ID] = true
	f.Shrinking = x.rep.Shrinking - sumShrinking(x.rep.Findings)
	l := x.e.Line
	if l.BaseURL == "" {
		l.BaseURL = x.e.Target.URL
	}
	if l.APIVersion == "" {
		l.APIVersion = x.e.Target.APIVersion
	}
	if b := f.Request.Sent(); len(b) > longBody || !firmakit.Printable(string(b)) {
		if path, err := x.writeBody(f); err == nil {
			l.BodyFile = path
		}
	}
	f.Command = f.Request.Command(l)
	f.Row = f.Request.Row(f.Want)
	x.rep.Findings = append(x.rep.Findings, *f)
}

func sumShrinking(fs []Finding) int {
	n := 0
	for _, f := range fs {
		n += f.Shrinking
	}
	return n
}

// writeBody writes a finding's body to a file of its own, named after
// its property and the seed.
func (x *run) writeBody(f *Finding) (string, error) {
	dir := x.e.BodyDir
	if dir == "" {
		dir = os.TempDir()
	}
	name := fmt.Sprintf("firmakit-%s-seed%d.body", strings.ToLower(f.Property.ID), x.rep.Seed)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, f.Request.Sent(), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
