package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/internal/peer"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/steps/engine"
)

// Notifications is where the suite finds the target's notifications: an
// in-process *receiver.Receiver, or a *receiver.Client of a remote one.
type Notifications interface {
	Wait(ctx context.Context, f receiver.Filter) (*receiver.Record, error)
	List(ctx context.Context, f receiver.Filter) ([]*receiver.Record, error)
}

// Target is the service under test and everything the suite needs to talk
// to it.
type Target struct {
	URL        string // base URL, e.g. http://127.0.0.1:8080
	APIVersion string // version segment of the check path; default v1
	MerchantID string
	Credential firmakit.Credential // the merchant's enabled credential
	Disabled   firmakit.Credential // a disabled credential of the merchant; scenarios needing it are not run without it
	Other      firmakit.Credential // another merchant's credential; likewise
	// OtherMerchantID is that merchant's id, and OtherWebhookSecrets its
	// webhook secrets: its signature_webhook is the receiver's channel of
	// its id (/hooks/<id>), as the merchant's is of the merchant's. The
	// scenarios of two merchants are not run without them.
	OtherMerchantID     string
	OtherWebhookSecrets []string
	// Sender is the name and e-mail the merchant is configured with, which
	// its envelopes name (defaults.md C); scenarios judging it are not run
	// without it.
	Sender firmakit.Sender
	// DocumentHost is a host, besides the target's own, where the target
	// serves the documents its document_url links open (defaults.md D).
	DocumentHost string
	// WebhookSecrets verify the notifications (several for rotation).
	WebhookSecrets []string
	// Template is the template the create requests use, Data its values.
	Template firmakit.Template
	Data     map[string]string
	Profile  *firmakit.Profile
	// Notifications is where notifications land; SharedClock tells that it
	// runs on this process's clock, so its receive times can be compared
	// with the suite's.
	Notifications Notifications
	SharedClock   bool
	// SenderInProcess tells that the service sending the notifications
	// runs in this process too (the bundled reference): its lateness is
	// this process's, and counts when timing is judged.
	SenderInProcess bool
	// Channel is the receiver channel of the notifications (default: the
	// merchant id, as the in-process receiver's hook URL names it).
	Channel string
	// ClockAllowance bounds the skew between the target's clock and the
	// suite's (default DefaultClockAllowance).
	ClockAllowance time.Duration
	// HTTPClient sends the requests to the target (default: one with
	// DefaultRequestTimeout that follows no redirect; give yours
	// CheckRedirect NoRedirect).
	HTTPClient *http.Client
	// Pacer spaces the requests to the target and adapts to its rate
	// limits; nil sends them as fast as the scenarios go (the bundled
	// reference).
	Pacer *engine.Pacer
	// Retries is how many times a request whose answer was transient is
	// sent again (0: DefaultRetries; negative: never).
	Retries int
}

// DemoTarget returns the bundled reference server's demo merchant at url,
// with notifications read from n. sharedClock tells that both the
// reference and the receiver run in this process.
func DemoTarget(url string, n Notifications, sharedClock bool) *Target {
	d := firmakit.Demo()
	return &Target{
		URL: url, APIVersion: d.APIVersion, MerchantID: d.MerchantID,
		Credential:      firmakit.Credential{KeyID: d.Credential.KeyID, Secret: d.Credential.Secret},
		Disabled:        firmakit.Credential{KeyID: d.Disabled.KeyID, Secret: d.Disabled.Secret},
		Other:           firmakit.Credential{KeyID: d.Other.KeyID, Secret: d.Other.Secret},
		OtherMerchantID: d.OtherMerchantID, OtherWebhookSecrets: d.OtherWebhookSecrets,
		Sender:         d.Sender,
		WebhookSecrets: d.WebhookSecrets,
		Template:       d.Template,
		Data:           d.Data,
		Profile:        firmakit.BundledProfile(),
		Notifications:  n, SharedClock: sharedClock, SenderInProcess: sharedClock,
	}
}

// Validate reports what the target lacks to run the suite at all.
func (t *Target) Validate() error {
	switch {
	case t.URL == "":
		return fmt.Errorf("no target URL")
	case t.MerchantID == "":
		return fmt.Errorf("no merchant id")
	case !t.Credential.Given():
		return fmt.Errorf("no credential: give the merchant's key and secret")
	case t.Template.Name == "" || len(t.Template.Signers) == 0:
		return fmt.Errorf("no template: give its name and signer keys")
	case t.Notifications == nil:
		return fmt.Errorf("no receiver for the notifications")
	case t.Profile == nil:
		return fmt.Errorf("no profile")
	}
	for _, k := range t.Template.Data {
		if _, ok := t.Data[k]; !ok {
			return fmt.Errorf("no value for the template's data key %q", k)
		}
	}
	return nil
}

func (t *Target) client() *http.Client {
	if t.HTTPClient != nil {
		return t.HTTPClient
	}
	return defaultClient
}

// defaultClient follows no redirect: a 3xx is the target's answer, to be
// judged, and a document_url is opened on the host it names only. What
// the target answers is bounded (package peer): its headers by the
// transport, its body by what do keeps, its time by the Timeout.
var defaultClient = &http.Client{Timeout: DefaultRequestTimeout, CheckRedirect: engine.NoRedirect, Transport: peer.Transport()}

// NoRedirect is for a Target's HTTPClient: a redirect is the target's
// answer, not a way elsewhere with the signed headers.
var NoRedirect = engine.NoRedirect

// DefaultClockAllowance is how far a time the target writes (created_at,
// a signature's t) may stray from the suite's clock: clock skew between
// two machines, not the receiver's replay tolerance.
const DefaultClockAllowance = 30 * time.Second

func (t *Target) clockAllowance() time.Duration {
	if t.ClockAllowance > 0 {
		return t.ClockAllowance
	}
	return DefaultClockAllowance
}

// channel is the receiver channel the target's notifications land on.
func (t *Target) channel() string {
	if t.Channel != "" {
		return t.Channel
	}
	return t.MerchantID
}

// TemplateChoice is the template a run's create requests use, as
// certify's flags name it; its errors name those flags.
type TemplateChoice struct {
	// FromDocx is a template read from a Word file (--template-docx),
	// whose data keys get their values from Data alone.
	FromDocx *firmakit.Template
	// Name, Title and Signers (comma-separated keys) name another
	// template (--template, --template-title, --template-signers); Name
	// and Signers also rename a FromDocx template and its signers.
	Name, Title, Signers string
	// Data are values of the template's data keys, key=value
	// (--template-data); for a Name'd template, its data keys too.
	Data []string
}

// Apply sets t's Template and Data as c chooses: with nothing chosen,
// the demo template and its data. Every data key of the template must
// have a value.
func (c TemplateChoice) Apply(t *Target) error {
	demo := DemoTarget("", nil, false)
	t.Template, t.Data = demo.Template, demo.Data
	switch {
	case c.FromDocx != nil:
		t.Template, t.Data = *c.FromDocx, map[string]string{}
	case c.Name != "":
		if c.Signers == "" {
			return errors.New("--template-signers is required with --template")
		}
		t.Template, t.Data = firmakit.Template{Name: c.Name, Title: c.Title}, map[string]string{}
	}
	if c.Name != "" {
		t.Template.Name = c.Name
	}
	if c.Signers != "" {
		t.Template.Signers = strings.Split(c.Signers, ",")
	}
	for _, kv := range c.Data {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--template-data %q: want key=value", kv)
		}
		t.Data[k] = v
		if c.FromDocx == nil && c.Name != "" {
			t.Template.Data = append(t.Template.Data, k)
		}
	}
	for _, k := range t.Template.Data {
		if _, ok := t.Data[k]; !ok {
			return fmt.Errorf("the template's data key %q has no value: add --template-data %s=…", k, k)
		}
	}
	return nil
}
