package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/openapi"
	"github.com/firmakit/firmakit/reference"
)

// openapiCommand writes the interface under a profile as an OpenAPI 3.1
// document.
func (m *Main) openapiCommand() command {
	return command{name: "openapi", summary: "write the interface under a profile as an OpenAPI 3.1 document (YAML or JSON)",
		usage: "firmakit openapi [--profile NAME|FILE] [--merchants FILE] [--merchant ID] [--server URL] [--out FILE] [--format yaml|json]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			profile := profileFlag(fs)
			merchants := fs.String("merchants", "", "merchant configuration file (YAML): the accepted api versions, and the template of the examples; default: the bundled demo merchants")
			merchant := fs.String("merchant", "", "write the document of this merchant only: its id, its templates, signer keys and data keys; default: any merchant's")
			server := fs.String("server", "http://"+reference.DefaultAddr, "the service's base URL (servers)")
			out := fs.String("out", "", "write to this file; default: standard output")
			format := fs.String("format", "", "yaml or json; default: json for an --out ending .json, else yaml")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				f := strings.ToLower(*format)
				switch {
				case f == "" && strings.EqualFold(filepath.Ext(*out), ".json"):
					f = openapi.FormatJSON
				case f == "":
					f = openapi.FormatYAML
				case f != openapi.FormatJSON && f != openapi.FormatYAML:
					return usageError("--format %s: want yaml or json", *format)
				}
				if _, err := firmakit.ParseHTTPURL(*server); err != nil {
					return usageError("--server: %v", err)
				}
				p, err := profile()
				if err != nil {
					return err
				}
				cfg := reference.DemoConfig()
				if *merchants != "" {
					if cfg, err = reference.LoadConfig(*merchants); err != nil {
						return usageError("%v", err)
					}
				}
				doc, err := openapi.Build(openapi.Options{Profile: p, Config: cfg, Merchant: *merchant, ServerURL: *server})
				if err != nil {
					return usageError("%v", err)
				}
				b, err := doc.Render(f)
				if err != nil {
					return err
				}
				if *out == "" {
					_, err = m.Stdout.Write(b)
					return err
				}
				if err := os.WriteFile(*out, b, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(m.Stdout, "firmakit openapi: the interface under profile %q, OpenAPI %s (%s), written to %s\n", p.Name, openapi.Version, f, *out)
				return nil
			}
		}}
}

// openapiDocuments are the documents a reference server publishes: the
// interface under its profile, at /openapi.json and /openapi.yaml, with
// its own address as the server.
func openapiDocuments(s *reference.Server) func(publicURL string) ([]reference.Document, error) {
	return func(publicURL string) ([]reference.Document, error) {
		doc, err := openapi.Build(openapi.Options{Profile: s.Profile, Config: s.Config, ServerURL: publicURL})
		if err != nil {
			return nil, err
		}
		j, err := doc.JSON()
		if err != nil {
			return nil, err
		}
		y, err := doc.YAML()
		if err != nil {
			return nil, err
		}
		return []reference.Document{
			{Path: "/openapi.json", ContentType: "application/json", Body: j},
			{Path: "/openapi.yaml", ContentType: "application/yaml", Body: y},
		}, nil
	}
}
