package bundled

import (
	"fmt"
	"log/slog"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/firmakit/firmakit/steps"
)

// Stack is a running reference server and the receiver its demo
// merchant's notifications go to.
type Stack struct {
	Reference *reference.Server
	Receiver  *receiver.Receiver
	// Target describes them for steps.NewHarness: the demo merchant, its
	// credentials, template and webhook secret.
	Target *steps.Target
}

// Start opens a receiver (an in-memory store) and the reference server
// with the demo merchant's webhook pointing at it, both on 127.0.0.1 and
// free ports, under profile p (the bundled profile when nil). The
// reference logs to logger (nowhere when nil). It returns an
// error when either cannot listen; Close stops both.
func Start(p *firmakit.Profile, logger *slog.Logger) (*Stack, error) {
	if p == nil {
		p = firmakit.BundledProfile()
	}
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", Profile: p}
	if err := rv.Open(); err != nil {
		return nil, fmt.Errorf("bundled: the receiver: %w", err)
	}
	ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: reference.DemoConfig(), Logger: logger}
	if logger == nil {
		ref.Logger = slog.New(slog.DiscardHandler)
	}
	if err := ref.Config.SetWebhooks(rv.HookURL); err != nil {
		rv.Close()
		return nil, err
	}
	if err := ref.Open(); err != nil {
		rv.Close()
		return nil, fmt.Errorf("bundled: the reference server: %w", err)
	}
	t := steps.DemoTarget(ref.URL(), rv, true)
	t.Profile = p
	return &Stack{Reference: ref, Receiver: rv, Target: t}, nil
}

// Close stops the reference server, then the receiver.
func (s *Stack) Close() {
	s.Reference.Close()
	s.Receiver.Close()
}
