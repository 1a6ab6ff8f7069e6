package interop_test

// RFC 9421 HTTP Message Signatures checked against the npm package
// http-message-signatures, an implementation independent of firmakit,
// both ways: what firmakit signs, the library verifies; what the library
// signs, firmakit verifies; a tampered request is refused by both.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
)

type httpSigRequest struct {
	Op         string            `json:"op"`
	Alg        string            `json:"alg"`
	Key        string            `json:"key"`
	KeyID      string            `json:"keyid,omitempty"`
	Label      string            `json:"label,omitempty"`
	WriteAlg   bool              `json:"writeAlg,omitempty"`
	Method     string            `json:"method"`
	URL        string            `json:"url"`
	Headers    map[string]string `json:"headers"`
	Components []string          `json:"components"`
	Created    int64             `json:"created,omitempty"`
}

// httpSigNode runs the RFC 9421 script with one request.
func httpSigNode(t *testing.T, r httpSigRequest) answer {
	t.Helper()
	return runNode(t, "httpsig.mjs", "http-message-signatures", r)
}

// httpSigKey is one key of each algorithm, as firmakit holds it and as
// the library reads it (base64 secret, PKCS#8 or SPKI PEM).
type httpSigKey struct {
	key              firmakit.HTTPSigKey
	private, public  string
	rotatedOut       firmakit.HTTPSigKey
	description, alg string
}

func httpSigKeys(t *testing.T) []httpSigKey {
	secret := []byte("interop secret of 32 bytes, fixed")
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	old := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize))
	return []httpSigKey{
		{
			description: "hmac-sha256", alg: firmakit.HTTPSigHMACSHA256,
			key:        firmakit.HTTPSigKey{ID: "interop-hmac", Alg: firmakit.HTTPSigHMACSHA256, Secret: secret},
			rotatedOut: firmakit.HTTPSigKey{ID: "interop-hmac-old", Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("the secret before")},
			private:    base64.StdEncoding.EncodeToString(secret), public: base64.StdEncoding.EncodeToString(secret),
		},
		{
			description: "ed25519", alg: firmakit.HTTPSigEd25519,
			key:        firmakit.HTTPSigKey{ID: "interop-ed25519", Alg: firmakit.HTTPSigEd25519, Private: priv, Public: priv.Public().(ed25519.PublicKey)},
			rotatedOut: firmakit.HTTPSigKey{ID: "interop-ed25519-old", Alg: firmakit.HTTPSigEd25519, Public: old.Public().(ed25519.PublicKey)},
			private:    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
			public:     string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})),
		},
	}
}

const httpSigURL = "https://Hooks.Example.com:8443/v1/notify?merchant=demo&b=2"

var httpSigComponents = []string{"@method", "@target-uri", "@authority", "@scheme", "@request-target", "@path", "@query", "content-type", "content-digest", "x-firmakit-note"}

// httpSigMessage is the request both sides sign: body is what its
// Content-Digest covers.
func httpSigMessage(t *testing.T) (firmakit.HTTPSigMessage, []byte) {
	u, err := url.Parse(httpSigURL)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Digest", firmakit.ContentDigest([]byte(body)))
	h.Set("X-Firmakit-Note", "delivery 1 of 3, retried")
	return firmakit.HTTPSigMessage{Method: "POST", URL: u, Header: h}, []byte(body)
}

// tampered is m with one covered field changed, as a forger who swaps the
// body (and its digest) would send it.
func tampered(m firmakit.HTTPSigMessage) firmakit.HTTPSigMessage {
	h := m.Header.Clone()
	h.Set("Content-Digest", firmakit.ContentDigest([]byte(body+" ")))
	return firmakit.HTTPSigMessage{Method: m.Method, URL: m.URL, Header: h}
}

// What firmakit signs, with or without the alg parameter, the library
// verifies; the same signature over a changed request it refuses.
func TestHTTPSigOursVerifyInLibrary(t *testing.T) {
	for _, k := range httpSigKeys(t) {
		for _, writeAlg := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s alg=%v", k.description, writeAlg), func(t *testing.T) {
				m, _ := httpSigMessage(t)
				in, sig, err := firmakit.HTTPSigSign(m, firmakit.HTTPSigOptions{Components: httpSigComponents, Created: time.Now(), WriteAlg: writeAlg}, k.key)
				if err != nil {
					t.Fatal(err)
				}
				req := httpSigRequest{Op: "verify", Alg: k.alg, Key: k.public, KeyID: k.key.ID, Method: m.Method, URL: httpSigURL, Components: httpSigComponents}
				m.Header.Set("Signature-Input", in)
				m.Header.Set("Signature", sig)
				req.Headers = flat(m.Header)
				if a := httpSigNode(t, req); !a.OK {
					t.Fatalf("the library refused firmakit's signature %v: %s", req.Headers, a.Error)
				}
				req.Headers = flat(tampered(m).Header)
				if a := httpSigNode(t, req); a.OK {
					t.Fatalf("the library took firmakit's signature over a changed Content-Digest %v", req.Headers)
				}
			})
		}
	}
}

// What the library signs, firmakit verifies among rotated keys; the same
// signature over a changed request it refuses.
func TestHTTPSigLibrarySignaturesVerify(t *testing.T) {
	for _, k := range httpSigKeys(t) {
		for _, writeAlg := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s alg=%v", k.description, writeAlg), func(t *testing.T) {
				m, b := httpSigMessage(t)
				now := time.Now()
				a := httpSigNode(t, httpSigRequest{Op: "sign", Alg: k.alg, Key: k.private, KeyID: k.key.ID, Label: "lib", WriteAlg: writeAlg,
					Method: m.Method, URL: httpSigURL, Headers: flat(m.Header), Components: httpSigComponents, Created: now.Unix()})
				if a.Headers["Signature-Input"] == "" || a.Headers["Signature"] == "" {
					t.Fatalf("the library signed nothing: %+v", a)
				}
				m.Header.Set("Signature-Input", a.Headers["Signature-Input"])
				m.Header.Set("Signature", a.Headers["Signature"])
				verifier := k.key
				verifier.Private = nil
				keys := []firmakit.HTTPSigKey{k.rotatedOut, verifier}
				o := firmakit.HTTPSigVerifyOptions{Label: "lib", Required: httpSigComponents, Tolerance: 5 * time.Minute, Now: now}
				r, err := firmakit.HTTPSigVerify(m, keys, o)
				if err != nil {
					t.Fatalf("firmakit refused the library's signature %v: %v", a.Headers, err)
				}
				if r.Key != 1 || r.KeyID != k.key.ID || r.Created.Unix() != now.Unix() {
					t.Fatalf("verified with %+v, want key 1 (%s) created %d", r, k.key.ID, now.Unix())
				}
				if err := firmakit.CheckContentDigest(m.Header.Get("Content-Digest"), b); err != nil {
					t.Fatalf("Content-Digest of the signed request: %v", err)
				}
				if _, err := firmakit.HTTPSigVerify(tampered(m), keys, o); !errors.Is(err, firmakit.ErrInvalidSignature) {
					t.Fatalf("firmakit took the library's signature over a changed Content-Digest: %v", err)
				}
			})
		}
	}
}
