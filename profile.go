package firmakit

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	_ "embed"
	"errors"
	"fmt"
	"hash"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

//go:embed profile.yaml
var bundledProfileYAML []byte

// Parts of the request string to sign that a profile may name.
const (
	PartTimestamp     = "timestamp" // the timestamp header's value, exactly as sent
	PartMethod        = "method"    // the HTTP method, upper case
	PartRequestTarget = "target"    // the path as sent on the wire, plus "?" and the raw query
	PartPath          = "path"      // the path as sent on the wire, without the query
	PartKey           = "key"       // the credential id of the key header
	PartBody          = "body"      // the raw body bytes
)

// Profile is every choice the service interface leaves open: header names,
// what is signed and how, tolerances and the notification's field names.
// The zero value is not usable; start from BundledProfile or LoadProfile.
type Profile struct {
	Name         string              `yaml:"name" json:"name"`
	Request      RequestProfile      `yaml:"request" json:"request"`
	Webhook      WebhookProfile      `yaml:"webhook" json:"webhook"`
	Notification NotificationProfile `yaml:"notification" json:"notification"`
}

// RequestProfile describes how a merchant signs its requests.
type RequestProfile struct {
	KeyHeader       string        `yaml:"key_header" json:"key_header"`
	TimestampHeader string        `yaml:"timestamp_header" json:"timestamp_header"`
	SignatureHeader string        `yaml:"signature_header" json:"signature_header"`
	StringToSign    []string      `yaml:"string_to_sign" json:"string_to_sign"`
	Separator       string        `yaml:"separator" json:"separator"`
	Hash            string        `yaml:"hash" json:"hash"`
	Encoding        string        `yaml:"encoding" json:"encoding"`
	Tolerance       time.Duration `yaml:"tolerance" json:"tolerance"`
}

// WebhookProfile describes how the service signs its notifications. The
// bundled scheme is one header holding "<timestamp_key>=<t>" and one or
// more "<signature_key>=<mac>" entries, the MAC taken over
// "<t><payload_separator><raw body>"; the other fields describe schemes
// that take the id and timestamp from headers of their own, sign other
// parts, write "<prefix><mac>" entries or decode the secret.
type WebhookProfile struct {
	SignatureHeader string `yaml:"signature_header" json:"signature_header"`
	TimestampKey    string `yaml:"timestamp_key" json:"timestamp_key"`
	SignatureKey    string `yaml:"signature_key" json:"signature_key"`
	// SignatureFormat is "fields" (key=value entries, comma-separated, the
	// bundled scheme) or "entries" (each "<signature_prefix><mac>",
	// separated by signature_separator; any entry may match).
	// Under "rfc9421" (RFC 9421 HTTP Message Signatures) signature_header
	// is the Signature field, signature_input_header the Signature-Input
	// field, signature_key the label (sig1), components the covered
	// components, and timestamp_key created (timestamp_from field).
	SignatureFormat    string `yaml:"signature_format" json:"signature_format"`
	SignaturePrefix    string `yaml:"signature_prefix" json:"signature_prefix"`
	SignatureSeparator string `yaml:"signature_separator" json:"signature_separator"`
	// SignatureInputHeader and Components are the rfc9421 format's:
	// the Signature-Input field and the components each signature covers
	// ("@method", "@path", "@target-uri", "content-digest", …).
	SignatureInputHeader string   `yaml:"signature_input_header,omitempty" json:"signature_input_header,omitempty"`
	Components           []string `yaml:"components,omitempty" json:"components,omitempty"`
	// TimestampFrom is "field" (timestamp_key of the signature header),
	// "header" (timestamp_header) or "none" (replay cannot be judged).
	TimestampFrom   string `yaml:"timestamp_from" json:"timestamp_from"`
	TimestampHeader string `yaml:"timestamp_header" json:"timestamp_header"`
	// IDFrom is "header" (id_header) or "none".
	IDFrom   string `yaml:"id_from" json:"id_from"`
	IDHeader string `yaml:"id_header" json:"id_header"`
	// SignedContent is the ordered list of parts the MAC is taken over
	// (id, timestamp, body), joined by payload_separator.
	SignedContent    []string `yaml:"signed_content" json:"signed_content"`
	PayloadSeparator string   `yaml:"payload_separator" json:"payload_separator"`
	// SecretEncoding is "raw" (the secret's bytes are the key),
	// "whsec-base64" (base64 after an optional "whsec_" prefix) or
	// "ed25519" (with hash ed25519: whsk_/whpk_ keys or PEM, see
	// ParseEd25519Key).
	SecretEncoding string `yaml:"secret_encoding" json:"secret_encoding"`
	// Hash is the HMAC's hash (sha256, sha512), or ed25519: an Ed25519
	// signature, made with a private key and verified with the public one.
	Hash      string        `yaml:"hash" json:"hash"`
	Encoding  string        `yaml:"encoding" json:"encoding"`
	Tolerance time.Duration `yaml:"tolerance" json:"tolerance"`
	// Retries is the wait before each retry of a notification that was not
	// answered 2xx within Timeout: the service's schedule, which a receiver
	// and the conformance suite expect.
	Retries []time.Duration `yaml:"retries" json:"retries"`
	// Timeout is how long the service waits for an answer to a delivery.
	Timeout time.Duration `yaml:"timeout" json:"timeout"`
}

// NotificationProfile names the fields of a notification's JSON body.
type NotificationProfile struct {
	EventID     string `yaml:"event_id" json:"event_id"`
	Type        string `yaml:"type" json:"type"`
	MerchantID  string `yaml:"merchant_id" json:"merchant_id"`
	SignatureID string `yaml:"signature_id" json:"signature_id"`
	Title       string `yaml:"title" json:"title"`
	Status      string `yaml:"status" json:"status"`
	DocumentURL string `yaml:"document_url" json:"document_url"`
	Reason      string `yaml:"reason" json:"reason"`
	Demo        string `yaml:"demo" json:"demo"`
	CreatedAt   string `yaml:"created_at" json:"created_at"`
}

var (
	bundledOnce sync.Once
	bundled     *Profile
)

// BundledProfile returns a fresh copy of the bundled profile of
// defaults.md, the one firmakit uses when no profile file is given. The
// embedded file is parsed once; callers may change their copy.
func BundledProfile() *Profile {
	bundledOnce.Do(func() {
		p, err := ParseProfile(bundledProfileYAML)
		if err != nil {
			panic("firmakit: embedded profile is invalid: " + err.Error())
		}
		bundled = p
	})
	return bundled.clone()
}

func (p *Profile) clone() *Profile {
	c := *p
	c.Request.StringToSign = append([]string(nil), p.Request.StringToSign...)
	c.Webhook.Retries = append([]time.Duration(nil), p.Webhook.Retries...)
	c.Webhook.SignedContent = append([]string(nil), p.Webhook.SignedContent...)
	c.Webhook.Components = append([]string(nil), p.Webhook.Components...)
	return &c
}

// BundledProfileYAML returns the text of the bundled profile, a starting
// point for a profile file of one's own.
func BundledProfileYAML() []byte { return bytes.Clone(bundledProfileYAML) }

// LoadProfile reads a profile file (YAML, or JSON, which YAML reads too).
// Fields the file leaves out keep the bundled profile's values.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	return p, nil
}

// ParseProfile reads a profile from YAML or JSON text over the bundled
// defaults and validates it.
func ParseProfile(data []byte) (*Profile, error) {
	var p Profile
	if !bytes.Equal(data, bundledProfileYAML) {
		p = *BundledProfile()
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("invalid profile: %w", explainYAML(data, err))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate reports the first inconsistency of the profile, so that a bad
// profile file fails at start and not in the middle of a run.
func (p *Profile) Validate() error {
	r := p.Request
	for name, v := range map[string]string{
		"request.key_header": r.KeyHeader, "request.timestamp_header": r.TimestampHeader,
		"request.signature_header": r.SignatureHeader, "webhook.signature_header": p.Webhook.SignatureHeader,
		"notification.event_id": p.Notification.EventID, "notification.status": p.Notification.Status,
		"notification.signature_id": p.Notification.SignatureID,
	} {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("invalid profile: %s is empty", name)
		}
	}
	if len(r.StringToSign) == 0 {
		return fmt.Errorf("invalid profile: request.string_to_sign is empty")
	}
	for _, part := range r.StringToSign {
		switch part {
		case PartTimestamp, PartMethod, PartRequestTarget, PartPath, PartKey, PartBody:
		default:
			return fmt.Errorf("invalid profile: unknown part %q in request.string_to_sign (want timestamp, method, target, path, key or body)", part)
		}
	}
	if _, err := hashFunc(r.Hash); err != nil {
		return fmt.Errorf("invalid profile: request.hash: %w", err)
	}
	if _, err := hashFunc(p.Webhook.Hash); err != nil && !p.Webhook.Asymmetric() {
		return fmt.Errorf("invalid profile: webhook.hash: %w (or ed25519, to sign with a private key)", err)
	}
	for _, e := range []struct{ name, v string }{{"request.encoding", r.Encoding}, {"webhook.encoding", p.Webhook.Encoding}} {
		if _, err := encodingOf(e.v); err != nil {
			return fmt.Errorf("invalid profile: %s: %w", e.name, err)
		}
	}
	if r.Tolerance <= 0 || p.Webhook.Tolerance <= 0 {
		return fmt.Errorf("invalid profile: tolerances must be positive durations such as 300s")
	}
	for _, d := range p.Webhook.Retries {
		if d <= 0 {
			return fmt.Errorf("invalid profile: webhook.retries must be positive durations such as 1s")
		}
	}
	if p.Webhook.Timeout <= 0 {
		return fmt.Errorf("invalid profile: webhook.timeout must be a positive duration such as 10s")
	}
	if err := p.Webhook.validateScheme(); err != nil {
		return fmt.Errorf("invalid profile: %w", err)
	}
	return nil
}

// SecretEd25519 is the webhook.secret_encoding of an Ed25519 scheme.
const SecretEd25519 = "ed25519"

// Webhook parts a profile may name in webhook.signed_content.
const (
	WebhookPartID        = "id"
	WebhookPartTimestamp = "timestamp"
	WebhookPartBody      = "body"
)

// validateScheme refuses the combinations of the webhook scheme's fields
// that describe no scheme, naming the field to change.
func (w *WebhookProfile) validateScheme() error {
	if w.IsRFC9421() {
		if err := w.validateRFC9421(); err != nil {
			return err
		}
		return w.validateSecretEncoding()
	}
	switch w.SignatureFormat {
	case "fields":
		if strings.TrimSpace(w.SignatureKey) == "" {
			return fmt.Errorf("webhook.signature_key is empty (signature_format fields writes <signature_key>=<mac>)")
		}
		if strings.ContainsAny(w.TimestampKey+w.SignatureKey, ",= ") {
			return fmt.Errorf("webhook keys may not contain ',', '=' or spaces")
		}
		if w.SignaturePrefix != "" {
			return fmt.Errorf("webhook.signature_prefix is for signature_format entries; fields writes <signature_key>=<mac>")
		}
	case "entries":
		if w.TimestampFrom == "field" {
			return fmt.Errorf("webhook.timestamp_from is field, but signature_format entries has no fields (want header or none)")
		}
	default:
		return fmt.Errorf("webhook.signature_format: unknown format %q (want fields, entries or %s)", w.SignatureFormat, FormatRFC9421)
	}
	switch w.TimestampFrom {
	case "field":
		if strings.TrimSpace(w.TimestampKey) == "" {
			return fmt.Errorf("webhook.timestamp_key is empty (timestamp_from field reads <timestamp_key>=<t>)")
		}
	case "header":
		if strings.TrimSpace(w.TimestampHeader) == "" {
			return fmt.Errorf("webhook.timestamp_header is empty (timestamp_from header reads it)")
		}
	case "none":
	default:
		return fmt.Errorf("webhook.timestamp_from: unknown source %q (want field, header or none)", w.TimestampFrom)
	}
	switch w.IDFrom {
	case "header":
		if strings.TrimSpace(w.IDHeader) == "" {
			return fmt.Errorf("webhook.id_header is empty (id_from header reads it)")
		}
	case "none":
	default:
		return fmt.Errorf("webhook.id_from: unknown source %q (want header or none)", w.IDFrom)
	}
	bodies := 0
	for _, part := range w.SignedContent {
		switch part {
		case WebhookPartBody:
			bodies++
		case WebhookPartID:
			if w.IDFrom == "none" {
				return fmt.Errorf("webhook.signed_content names id, but webhook.id_from is none")
			}
		case WebhookPartTimestamp:
			if w.TimestampFrom == "none" {
				return fmt.Errorf("webhook.signed_content names timestamp, but webhook.timestamp_from is none")
			}
		default:
			return fmt.Errorf("webhook.signed_content: unknown part %q (want id, timestamp or body)", part)
		}
	}
	if bodies != 1 {
		return fmt.Errorf("webhook.signed_content must name body exactly once, as in [timestamp, body]")
	}
	return w.validateSecretEncoding()
}

// validateSecretEncoding refuses a secret_encoding the hash cannot use.
func (w *WebhookProfile) validateSecretEncoding() error {
	switch w.SecretEncoding {
	case "raw", "whsec-base64":
		if w.Asymmetric() {
			return fmt.Errorf("webhook.hash is ed25519, so webhook.secret_encoding is %s: keys are whsk_/whpk_ or PEM, not %s secrets", SecretEd25519, w.SecretEncoding)
		}
	case SecretEd25519:
		if !w.Asymmetric() {
			return fmt.Errorf("webhook.secret_encoding %s is for webhook.hash ed25519", SecretEd25519)
		}
	default:
		return fmt.Errorf("webhook.secret_encoding: unknown encoding %q (want raw, whsec-base64 or %s)", w.SecretEncoding, SecretEd25519)
	}
	return nil
}

// The YAML decoder's messages name Go types; explainYAML says them again
// with the profile's own words.
var (
	unknownFieldRe = regexp.MustCompile(`^line (\d+): field (.+) not found in type firmakit\.(\w+)$`)
	wrongTypeRe    = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
)

// sections are the profile's maps by the Go type that holds them.
var sections = map[string]struct {
	name string
	t    reflect.Type
}{
	"Profile":             {"the profile", reflect.TypeFor[Profile]()},
	"RequestProfile":      {"request", reflect.TypeFor[RequestProfile]()},
	"WebhookProfile":      {"webhook", reflect.TypeFor[WebhookProfile]()},
	"NotificationProfile": {"notification", reflect.TypeFor[NotificationProfile]()},
}

// kinds says what a value of a Go type is written as in a profile.
var kinds = map[string]string{
	"time.Duration":   "a duration such as 300s or 1m",
	"[]time.Duration": "a list of durations such as [1s, 2s]",
	"[]string":        "a list such as [timestamp, method, target, body]",
	"string":          "text",
}

// explainYAML rewrites the decoder's errors about unknown fields and
// wrong types: the section and its allowed keys, the field's path and the
// kind of value it takes, never a Go type. Other errors pass unchanged.
func explainYAML(data []byte, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var lines []string
	for _, e := range te.Errors {
		if m := unknownFieldRe.FindStringSubmatch(e); m != nil {
			if sec, ok := sections[m[3]]; ok {
				var keys []string
				for i := 0; i < sec.t.NumField(); i++ {
					keys = append(keys, strings.Split(sec.t.Field(i).Tag.Get("yaml"), ",")[0])
				}
				lines = append(lines, fmt.Sprintf("line %s: %s has no field %q; its fields are %s", m[1], sec.name, m[2], strings.Join(keys, ", ")))
				continue
			}
		}
		if m := wrongTypeRe.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			what := "a value"
			if path := keyAtLine(data, line); path != "" {
				what = path
			}
			want := kinds[m[4]]
			if sec, ok := sections[strings.TrimPrefix(m[4], "firmakit.")]; ok {
				want = "a map of " + sec.name + " fields"
			}
			if want == "" {
				want = "another kind of value"
			}
			got := strconv.Quote(m[3])
			switch {
			case m[2] == "seq":
				got = "a list"
			case m[2] == "map":
				got = "a map"
			}
			lines = append(lines, fmt.Sprintf("line %s: %s: %s is not %s", m[1], what, got, want))
			continue
		}
		lines = append(lines, e)
	}
	return errors.New(strings.Join(lines, "; "))
}

// keyAtLine returns the dotted path of the key whose value starts on a
// line of a YAML document ("request.tolerance"), or "" when none does.
func keyAtLine(data []byte, line int) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return ""
	}
	var walk func(n *yaml.Node, path string) string
	walk = func(n *yaml.Node, path string) string {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				if p := walk(c, path); p != "" {
					return p
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if v.Line == line && v.Kind != yaml.MappingNode {
					return p
				}
				if found := walk(v, p); found != "" {
					return found
				}
			}
		}
		return ""
	}
	return walk(&doc, "")
}

func hashFunc(name string) (func() hash.Hash, error) {
	switch strings.ToLower(name) {
	case "sha256", "sha-256":
		return sha256.New, nil
	case "sha512", "sha-512":
		return sha512.New, nil
	}
	return nil, fmt.Errorf("unknown hash %q (want sha256 or sha512)", name)
}
