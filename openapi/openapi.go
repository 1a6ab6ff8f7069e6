package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/reference"
	"go.yaml.in/yaml/v3"
)

// DocsURL is where the pages of firmakit's manual are read on the web;
// the document links its signing page and its own page there.
const DocsURL = "https://github.com/firmakit/firmakit/blob/main/docs/"

// Version is the OpenAPI version the document is written in.
const Version = "3.1.1"

// WebhookName is the key of the notifications under the document's
// "webhooks".
const WebhookName = "signature.status"

// Formats of a written document.
const (
	FormatJSON = "json"
	FormatYAML = "yaml"
)

// Options say which document to write. Zero fields take the bundled
// profile, the bundled demo merchants and the reference's default address.
type Options struct {
	// Profile is the profile the interface is written under.
	Profile *firmakit.Profile
	// Config holds the merchants: the accepted api_version values, and the
	// merchant whose template the examples use.
	Config *reference.Config
	// Merchant, when set, narrows the document to that merchant of
	// Config: merchant_id is its id only, and the create body names its
	// templates, signer keys and data keys. Otherwise the document is any
	// merchant's, with the examples of the default merchant (the demo
	// merchant in the bundled configuration).
	Merchant string
	// ServerURL is the service's base URL (servers[0]); default
	// http://127.0.0.1:8080, where 'firmakit serve' listens.
	ServerURL string
}

// Build writes the interface as an OpenAPI 3.1 document. It fails when
// Merchant names no merchant of the configuration, or one without a
// template.
func Build(o Options) (*Document, error) {
	if o.Profile == nil {
		o.Profile = firmakit.BundledProfile()
	}
	if o.Config == nil {
		o.Config = reference.DemoConfig()
	}
	if o.ServerURL == "" {
		o.ServerURL = "http://" + reference.DefaultAddr
	}
	o.ServerURL = strings.TrimRight(o.ServerURL, "/")
	b := &builder{o: o, p: o.Profile, cfg: o.Config}
	if err := b.chooseMerchant(); err != nil {
		return nil, err
	}
	t, err := newTracer()
	if err != nil {
		return nil, err
	}
	b.tracer = t
	return b.document()
}

// builder holds what one document is written from, and the first error
// of a requirement lookup (see tags).
type builder struct {
	o        Options
	p        *firmakit.Profile
	cfg      *reference.Config
	merchant *reference.Merchant       // whose examples (nil: none has a template); the only one when o.Merchant is set
	template *reference.TemplateConfig // the examples' template, nil with merchant
	tracer   *tracer
	err      error
}

// chooseMerchant picks the merchant of the examples: the one the document
// is narrowed to, else the default merchant, else the first with a
// template. Without any, the create operation has no example.
func (b *builder) chooseMerchant() error {
	if b.o.Merchant != "" {
		b.merchant = b.cfg.Merchant(b.o.Merchant)
		if b.merchant == nil {
			return fmt.Errorf("openapi: no merchant %q in the configuration", b.o.Merchant)
		}
		if len(b.merchant.Templates) == 0 {
			return fmt.Errorf("openapi: merchant %s has no template, so it cannot create a contract", b.merchant.ID)
		}
	} else if m, err := b.cfg.DefaultMerchant(); err == nil && len(m.Templates) > 0 {
		b.merchant = m
	} else {
		for _, m := range b.cfg.Merchants {
			if len(m.Templates) > 0 {
				b.merchant = m
				break
			}
		}
	}
	if b.merchant != nil {
		b.template = b.merchant.Templates[0]
	}
	return nil
}

// merchantID is the merchant id of the examples: the examples'
// merchant's, else the default or first merchant's.
func (b *builder) merchantID() string {
	if b.merchant != nil {
		return b.merchant.ID
	}
	if m, err := b.cfg.DefaultMerchant(); err == nil {
		return m.ID
	}
	if len(b.cfg.Merchants) > 0 {
		return b.cfg.Merchants[0].ID
	}
	return firmakit.Demo().MerchantID
}

// tags returns the requirement tags of items; the first error is kept in
// b.err, so that the document's code reads as the document.
func (b *builder) tags(items ...item) []string {
	var out []string
	for _, it := range items {
		tags, err := b.tracer.tags(it)
		if err != nil && b.err == nil {
			b.err = err
		}
		for _, t := range tags {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (b *builder) document() (*Document, error) {
	doc := &Document{
		OpenAPI: Version,
		Info: Info{
			Title:       "Digital contract signature: merchant API",
			Summary:     "The credential check and create-signature endpoints, and the signature status notifications, under the profile " + quote(b.p.Name) + ".",
			Description: b.description(),
			License:     &License{Name: "MIT", Identifier: "MIT"},
			Version:     strings.Join(b.cfg.APIVersions, ", "),
		},
		ExternalDocs: &ExternalDocs{Description: "Where this document comes from, and what only firmakit checks", URL: DocsURL + "openapi.md"},
		Servers:      []Server{{URL: b.o.ServerURL}},
		Tags: []Tag{
			{Name: "verification", Description: "Checking that a merchant's headers and signature are accepted (interface §4.1)."},
			{Name: "signature", Description: "Creating a digital contract signature request from a template (interface §4.2)."},
		},
		Paths: map[string]*PathItem{
			"/{api_version}/check/{merchant_id}": {Post: b.checkOperation()},
			"/v1/signature/{merchant_id}":        {Post: b.createOperation()},
		},
		Webhooks:   map[string]*PathItem{WebhookName: {Post: b.notificationOperation()}},
		Components: Components{Schemas: b.schemas(), SecuritySchemes: b.securitySchemes()},
		Profile:    b.p.Name,
	}
	if b.err != nil {
		return nil, b.err
	}
	return doc, nil
}

// JSON renders the document as indented JSON, HTML characters unescaped.
func (d *Document) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return buf.Bytes(), nil
}

// YAML renders the document as YAML: its JSON, keys in the same order,
// in block style.
func (d *Document) YAML() ([]byte, error) {
	j, err := d.JSON()
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(j, &n); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	blockStyle(&n)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return buf.Bytes(), nil
}

// Render renders the document in a format, FormatJSON or FormatYAML.
func (d *Document) Render(format string) ([]byte, error) {
	switch format {
	case FormatJSON:
		return d.JSON()
	case FormatYAML:
		return d.YAML()
	}
	return nil, fmt.Errorf("openapi: unknown format %q (want json or yaml)", format)
}

// blockStyle clears the flow and quoting styles that JSON text gave the
// nodes; the encoder quotes again only the strings that need it. Long
// texts become literal blocks, as a reader writes them.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	switch {
	case n.Kind != yaml.ScalarNode || n.Tag != "!!str":
	case strings.ContainsAny(n.Value, "\u0085\u2028\u2029"):
		// YAML 1.1 readers take NEL, LS and PS for line breaks and fold
		// them: only a double-quoted scalar's escapes (\N, \L, \P) keep
		// them, as in the patterns of NotBlankPattern.
		n.Style = yaml.DoubleQuotedStyle
	case strings.Contains(n.Value, "\n"):
		n.Style = yaml.LiteralStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

func quote(s string) string { return "`" + s + "`" }
