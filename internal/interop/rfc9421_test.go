package interop_test

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reference"
	"github.com/stretchr/testify/require"
)

// libraryKey is a preset key text as http-message-signatures reads it
// (httpsig.mjs): the keyid, and a base64 HMAC secret or a PEM key, the
// public one to verify, the private one to sign.
func libraryKey(t *testing.T, text string, sign bool) (alg, keyid, key string) {
	t.Helper()
	keyid, material, ok := strings.Cut(text, ":")
	if !ok || strings.HasPrefix(text, "whsk_") || strings.HasPrefix(text, "whpk_") {
		keyid, material = "", text
	}
	if !strings.HasPrefix(material, "whsk_") && !strings.HasPrefix(material, "whpk_") {
		return firmakit.HTTPSigHMACSHA256, keyid, material
	}
	priv, pub, err := firmakit.ParseEd25519Key(material)
	require.NoError(t, err)
	if keyid == "" {
		keyid = firmakit.Ed25519PublicPrefix + base64.StdEncoding.EncodeToString(pub) // firmakit's keyid of a bare key
	}
	if sign {
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		require.NoError(t, err)
		return firmakit.HTTPSigEd25519, keyid, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	require.NoError(t, err)
	return firmakit.HTTPSigEd25519, keyid, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// digestOf is the RFC 9530 sha-256 Content-Digest, computed here apart
// from firmakit.
func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha-256=:" + base64.StdEncoding.EncodeToString(s[:]) + ":"
}

// The reference's notifications under each RFC 9421 preset verify in the
// independent library, and their Content-Digest is the body's.
func TestReferenceRFC9421NotificationsVerifyInTheLibrary(t *testing.T) {
	for _, l := range rfcLibs {
		t.Run(l.preset, func(t *testing.T) {
			p, err := firmakit.Preset(l.preset)
			require.NoError(t, err)
			got := make(chan *http.Request, 4)
			bodies := make(chan []byte, 4)
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- r
				bodies <- b
			}))
			defer endpoint.Close()
			cfg := reference.DemoConfig()
			demo := firmakit.Demo()
			cfg.Merchant(demo.MerchantID).WebhookSecrets = []string{l.secret}
			require.NoError(t, cfg.SetWebhook(demo.MerchantID, endpoint.URL+"/hooks/shop?x=1"))
			ref := &reference.Server{Addr: "127.0.0.1:0", Profile: p, Config: cfg, DemoDelay: time.Millisecond}
			require.NoError(t, ref.Open())
			defer ref.Close()
			mc := cfg.Merchant(demo.MerchantID)
			cred, _ := mc.EnabledCredential()
			tpl := mc.Templates[0]
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = reference.CreateDemo(ctx, reference.DemoRequest{URL: ref.URL(), MerchantID: mc.ID, Key: cred.KeyID, Secret: cred.Secret,
				Profile: p, Template: tpl.Template, Data: tpl.ExampleData(), State: firmakit.StateSigned, Title: "interop"})
			require.NoError(t, err)
			var r *http.Request
			var b []byte
			select {
			case r = <-got:
				b = <-bodies
			case <-ctx.Done():
				t.Fatal("the reference sent no notification")
			}
			require.Equal(t, digestOf(b), r.Header.Get("Content-Digest"))
			alg, keyid, key := libraryKey(t, l.verifier(), false)
			headers := flat(r.Header)
			msg := httpSigRequest{Op: "verify", Alg: alg, Key: key, KeyID: keyid, Method: r.Method, URL: endpoint.URL + r.RequestURI,
				Headers: headers, Components: p.Webhook.Components}
			a := httpSigNode(t, msg)
			require.True(t, a.OK, "the library refused the reference's notification %v: %s", headers, a.Error)
			msg.Headers = flat(r.Header)
			msg.Headers["Content-Type"] = "text/plain"
			require.False(t, httpSigNode(t, msg).OK, "the library took a changed content type")
		})
	}
}

// What the library signs under each RFC 9421 preset's components, a
// receiver holding the verifying key records as valid and names the key;
// a changed body (its digest kept) is recorded invalid.
func TestReceiverVerifiesRFC9421LibrarySignatures(t *testing.T) {
	profiles := map[string]*firmakit.Profile{}
	secrets := map[string][]string{}
	for _, l := range rfcLibs {
		p, _ := firmakit.Preset(l.preset)
		profiles[l.preset] = p
		secrets[l.preset] = []string{l.verifier()}
	}
	rv := &receiver.Receiver{Addr: "127.0.0.1:0", DB: ":memory:", ChannelProfiles: profiles, Secrets: secrets}
	require.NoError(t, rv.Open())
	defer rv.Close()
	for _, l := range rfcLibs {
		for _, forge := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/forged=%v", l.preset, forge), func(t *testing.T) {
				p := profiles[l.preset]
				alg, keyid, key := libraryKey(t, l.secret, true)
				target := rv.URL() + "/hooks/" + l.preset
				headers := map[string]string{"Content-Type": "application/json", "Content-Digest": digestOf([]byte(body))}
				a := httpSigNode(t, httpSigRequest{Op: "sign", Alg: alg, Key: key, KeyID: keyid, WriteAlg: true, Method: "POST", URL: target,
					Headers: headers, Components: p.Webhook.Components, Created: time.Now().Unix()})
				require.NotEmpty(t, a.Headers, a.Error)
				sent := body
				if forge {
					sent = strings.Replace(body, "signed", "rejected", 1)
				}
				req, err := http.NewRequest("POST", target, strings.NewReader(sent))
				require.NoError(t, err)
				for k, v := range headers {
					req.Header.Set(k, v)
				}
				for k, v := range a.Headers {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				var out map[string]any
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
				resp.Body.Close()
				r2, err := http.Get(fmt.Sprintf("%s/api/events/%v", rv.URL(), out["received"]))
				require.NoError(t, err)
				var rec receiver.Record
				require.NoError(t, json.NewDecoder(r2.Body).Decode(&rec))
				r2.Body.Close()
				if forge {
					require.Equal(t, receiver.CheckInvalid, rec.Check, rec.Reason)
					require.Contains(t, rec.Reason, "Content-Digest")
					return
				}
				require.Equal(t, receiver.CheckValid, rec.Check, rec.Reason)
				require.Equal(t, keyid, rec.VerifiedBy)
			})
		}
	}
}
