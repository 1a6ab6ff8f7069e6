package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"

	"github.com/firmakit/firmakit"
)

// keygenCommand makes a webhook key for a scheme: an Ed25519 key pair for
// the asymmetric ones (the service signs with the secret key, the
// endpoint holds the public key), a random secret for the HMAC ones.
func (m *Main) keygenCommand() command {
	return command{name: "keygen", summary: "make a webhook key: an Ed25519 key pair (whsk_/whpk_, or PEM) or a random whsec_ secret",
		usage: "firmakit keygen [--profile NAME|FILE] [--pem] [--key-id ID] [--json]",
		flags: func(fs *flag.FlagSet) func(context.Context, []string) error {
			asPEM := fs.Bool("pem", false, "write an Ed25519 pair as PEM (PKCS #8 and PKIX), as RFC 9421 tools take it")
			keyID := fs.String("key-id", "", "under an RFC 9421 profile, the keyid to write before the key (ID:KEY)")
			asJSON := fs.Bool("json", false, "print {\"secret\": …, \"public\": …} instead of two lines")
			profile := profileFlag(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageError("unexpected argument %q", args[0])
				}
				p, err := profile()
				if err != nil {
					return err
				}
				if *keyID != "" && !p.Webhook.IsRFC9421() {
					return usageError("--key-id is for an RFC 9421 profile (rfc9421, rfc9421-ed25519): its keyid selects the key")
				}
				var secret, public string
				if p.Webhook.Asymmetric() {
					_, priv, err := ed25519.GenerateKey(rand.Reader)
					if err != nil {
						return err
					}
					secret, public = firmakit.Ed25519KeyPair(priv)
					if *asPEM {
						der, _ := x509.MarshalPKCS8PrivateKey(priv)
						pubDER, _ := x509.MarshalPKIXPublicKey(priv.Public())
						secret = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
						public = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
					}
				} else {
					if *asPEM {
						return usageError("--pem is for an Ed25519 profile; %s signs with an HMAC secret", p.Name)
					}
					b := make([]byte, 32)
					if _, err := rand.Read(b); err != nil {
						return err
					}
					secret = base64.StdEncoding.EncodeToString(b)
					if p.Webhook.SecretEncoding == "whsec-base64" && !p.Webhook.IsRFC9421() {
						secret = "whsec_" + secret
					}
				}
				if *keyID != "" {
					secret = *keyID + ":" + secret
					if public != "" {
						public = *keyID + ":" + public
					}
				}
				if *asJSON {
					out := map[string]string{"secret": secret}
					if public != "" {
						out["public"] = public
					}
					return json.NewEncoder(m.Stdout).Encode(out)
				}
				if public == "" {
					fmt.Fprintf(m.Stdout, "secret: %s\n", secret)
					fmt.Fprintf(m.Stderr, "%s signs with an HMAC secret: the service and the endpoint both hold it\n", p.Name)
					return nil
				}
				if *asPEM {
					fmt.Fprint(m.Stdout, secret, public)
				} else {
					fmt.Fprintf(m.Stdout, "secret: %s\npublic: %s\n", secret, public)
				}
				fmt.Fprintf(m.Stderr, "the service (serve's merchants file, certify-webhook --webhook-secret) signs with the secret key; "+
					"the endpoint (receive --secret, your own) holds only the public key\n")
				return nil
			}
		}}
}
