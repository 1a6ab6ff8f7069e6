// Package interop checks firmakit's webhook schemes against the schemes'
// own libraries, both ways: what they sign, firmakit verifies (the root
// and the receiver); what firmakit signs, they verify; a forged one is
// refused by both.
package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
)

// lib is one scheme's library and the preset that speaks its scheme:
// secret signs; public, for an asymmetric scheme, verifies (else secret).
type lib struct {
	name, preset, secret, public string
}

// verifier is the key a receiver of the scheme holds.
func (l lib) verifier() string {
	if l.public != "" {
		return l.public
	}
	return l.secret
}

var libs = []lib{
	{"standardwebhooks", "standard-webhooks", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", ""},
	{"svix", "standard-webhooks", "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", ""},
	{"octokit", "github", "It's a Secret to Everybody", ""},
	{"stripe", "stripe", "whsec_test_interop", ""},
	// v1a: no npm library of the scheme signs it; Node's crypto, following
	// the specification's text, does (js/interop.mjs).
	{"node-ed25519", "standard-webhooks-ed25519", "whsk_Sg36gITFIcSJEudY+Z/tRi01Mm6rI6gosz1w47Fpim4=", "whpk_6+vT5lZZhcUZgkNS/dGInN8eZoX+vH99TOTOGJFSBOU="},
}

type request struct {
	Op        string            `json:"op"`
	Lib       string            `json:"lib"`
	Secret    string            `json:"secret"`
	ID        string            `json:"id,omitempty"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Body      string            `json:"body"`
	Headers   map[string]string `json:"headers,omitempty"`
}

type answer struct {
	Headers map[string]string `json:"headers"`
	OK      bool              `json:"ok"`
	Error   string            `json:"error"`
}

const installHint = "the interop tests need Node and the schemes' npm packages: run 'make deps' (apt-get install nodejs npm; npm ci in internal/interop/js)"

// node runs the interop script with one request.
func node(t *testing.T, r request) answer {
	t.Helper()
	return runNode(t, "interop.mjs", "standardwebhooks", r)
}

// runNode runs one of js/'s scripts with one JSON request on its standard
// input and reads its JSON answer; module is an npm package it imports,
// whose absence fails the test with the install hint.
func runNode(t *testing.T, script, module string, r any) answer {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: %s", installHint)
	}
	if _, err := os.Stat(filepath.Join("js", "node_modules", module)); err != nil {
		t.Fatalf("npm packages not installed: %s", installHint)
	}
	in, _ := json.Marshal(r)
	cmd := exec.Command("node", script)
	cmd.Dir = "js"
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v: %s (%s)", script, err, stderr.String(), installHint)
	}
	var a answer
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("node %s answered %q: %v", script, out, err)
	}
	return a
}

func header(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func flat(h http.Header) map[string]string {
	m := map[string]string{}
	for k := range h {
		m[k] = h.Get(k)
	}
	return m
}

const body = `{"event_id":"evt_0001","type":"signature.updated","signature_id":"sig_0001","status":"signed"}`

// What each library signs, firmakit verifies; the same headers over
// another body are refused.
func TestTheirSignaturesVerify(t *testing.T) {
	now := time.Now()
	for _, l := range libs {
		t.Run(l.name, func(t *testing.T) {
			p, err := firmakit.Preset(l.preset)
			if err != nil {
				t.Fatal(err)
			}
			a := node(t, request{Op: "sign", Lib: l.name, Secret: l.secret, ID: "msg_interop", Timestamp: now.Unix(), Body: body})
			if len(a.Headers) == 0 {
				t.Fatalf("%s signed nothing: %+v", l.name, a)
			}
			h := header(a.Headers)
			if err := p.VerifyWebhookHeaders(h, []byte(body), []string{l.verifier()}, now); err != nil {
				t.Fatalf("firmakit (%s) refused %s's signature %v: %v", l.preset, l.name, a.Headers, err)
			}
			forged := strings.Replace(body, "signed", "rejected", 1)
			if err := p.VerifyWebhookHeaders(h, []byte(forged), []string{l.verifier()}, now); !errors.Is(err, firmakit.ErrInvalidSignature) {
				t.Fatalf("firmakit took a forged body under %s's signature: %v", l.name, err)
			}
		})
	}
}

// What firmakit signs under each preset, the scheme's library verifies;
// a forged body is refused by the library too.
func TestOurSignaturesVerify(t *testing.T) {
	now := time.Now()
	for _, l := range libs {
		t.Run(l.name, func(t *testing.T) {
			p, _ := firmakit.Preset(l.preset)
			h := http.Header{}
			p.SignWebhook(h, "msg_interop", []string{l.secret}, now, []byte(body))
			a := node(t, request{Op: "verify", Lib: l.name, Secret: l.verifier(), Body: body, Headers: flat(h)})
			if !a.OK {
				t.Fatalf("%s refused firmakit's %s signature %v: %s", l.name, l.preset, flat(h), a.Error)
			}
			forged := strings.Replace(body, "signed", "rejected", 1)
			a = node(t, request{Op: "verify", Lib: l.name, Secret: l.verifier(), Body: forged, Headers: flat(h)})
			if a.OK {
				t.Fatalf("%s took a forged body under firmakit's signature", l.name)
			}
		})
	}
}

// A receiver with a channel per scheme records each library's
// notification as valid, and a forged one as invalid.
func TestReceiverVerifiesTheirSignatures(t *testing.T) {
	profiles := map[string]*firmakit.Profile{}
	secrets := map[string][]string{}
	for _, l := range libs {
		p, _ := firmakit.Preset(l.preset)
		profiles[l.name] = p
		secrets[l.name] = []string{l.verifier()}
	}
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", ChannelProfiles: profiles, Secrets: secrets}
	if err := rv.Open(); err != nil {
		t.Fatal(err)
	}
	defer rv.Close()
	for _, l := range libs {
		for _, forge := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s forged=%v", l.name, forge), func(t *testing.T) {
				a := node(t, request{Op: "sign", Lib: l.name, Secret: l.secret, ID: "msg_interop", Timestamp: time.Now().Unix(), Body: body})
				sent := body
				if forge {
					sent = strings.Replace(body, "signed", "rejected", 1)
				}
				req, _ := http.NewRequest("POST", rv.URL()+"/hooks/"+l.name, strings.NewReader(sent))
				for k, v := range a.Headers {
					req.Header.Set(k, v)
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var out map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				r2, err := http.Get(fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]))
				if err != nil {
					t.Fatal(err)
				}
				var rec receiver.Record
				_ = json.NewDecoder(r2.Body).Decode(&rec)
				r2.Body.Close()
				want := "valid"
				if forge {
					want = "invalid"
				}
				if rec.Check != want {
					t.Fatalf("record of %s's notification (forged %v): check %q (%s), want %q", l.name, forge, rec.Check, rec.Reason, want)
				}
			})
		}
	}
}

// The reference's notifications under each preset (serve --profile) are
// verified by the scheme's own library.
func TestReferenceNotificationsVerify(t *testing.T) {
	for _, l := range libs {
		t.Run(l.name, func(t *testing.T) {
			p, _ := firmakit.Preset(l.preset)
			got := make(chan *http.Request, 4)
			bodies := make(chan string, 4)
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- r
				bodies <- string(b)
			}))
			defer endpoint.Close()
			cfg := reference.DemoConfig()
			demo := firmakit.Demo()
			cfg.Merchant(demo.MerchantID).WebhookSecrets = []string{l.secret}
			if err := cfg.SetWebhook(demo.MerchantID, endpoint.URL+"/hook"); err != nil {
				t.Fatal(err)
			}
			ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: cfg, DemoDelay: time.Millisecond}
			if err := ref.Open(); err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			mc := cfg.Merchant(demo.MerchantID)
			cred, _ := mc.EnabledCredential()
			tpl := mc.Templates[0]
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := reference.CreateDemo(ctx, reference.DemoRequest{URL: ref.URL(), MerchantID: mc.ID, Key: cred.KeyID, Secret: cred.Secret,
				Profile: p, Template: tpl.Template, Data: tpl.ExampleData(), State: firmakit.StateSigned, Title: "interop"}); err != nil {
				t.Fatal(err)
			}
			var r *http.Request
			var b string
			select {
			case r = <-got:
				b = <-bodies
			case <-ctx.Done():
				t.Fatal("the reference sent no notification")
			}
			a := node(t, request{Op: "verify", Lib: l.name, Secret: l.verifier(), Body: b, Headers: flat(r.Header)})
			if !a.OK {
				t.Fatalf("%s refused the reference's notification under %s (%v): %s", l.name, l.preset, flat(r.Header), a.Error)
			}
			a = node(t, request{Op: "verify", Lib: l.name, Secret: l.verifier(), Body: b + " ", Headers: flat(r.Header)})
			if a.OK {
				t.Fatalf("%s took a changed body under the reference's signature", l.name)
			}
		})
	}
}
