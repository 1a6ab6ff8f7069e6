package firmakit

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"
)

// The prefixes Standard Webhooks gives an Ed25519 key pair's base64: the
// secret key (whsk_) and the public key (whpk_).
const (
	Ed25519SecretPrefix = "whsk_"
	Ed25519PublicPrefix = "whpk_"
)

// ParseEd25519Key reads an Ed25519 key written as Standard Webhooks
// writes it (whsk_ and base64 of the 32-byte seed or the 64-byte private
// key; whpk_ and base64 of the 32-byte public key) or as PEM (PKCS #8
// "PRIVATE KEY", PKIX "PUBLIC KEY"). It returns the private key (nil for a
// public key) and the public key, or an error saying what the text should
// look like.
func ParseEd25519Key(text string) (ed25519.PrivateKey, ed25519.PublicKey, error) {
	text = strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(text, Ed25519SecretPrefix):
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(text, Ed25519SecretPrefix))
		if err != nil {
			return nil, nil, fmt.Errorf("an Ed25519 secret key is %s followed by base64", Ed25519SecretPrefix)
		}
		return privateFromBytes(b)
	case strings.HasPrefix(text, Ed25519PublicPrefix):
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(text, Ed25519PublicPrefix))
		if err != nil || len(b) != ed25519.PublicKeySize {
			return nil, nil, fmt.Errorf("an Ed25519 public key is %s followed by the base64 of its %d bytes", Ed25519PublicPrefix, ed25519.PublicKeySize)
		}
		return nil, ed25519.PublicKey(b), nil
	case strings.HasPrefix(text, "-----BEGIN"):
		block, _ := pem.Decode([]byte(text))
		if block == nil {
			return nil, nil, fmt.Errorf("the PEM key does not decode")
		}
		switch block.Type {
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, nil, fmt.Errorf("the PEM private key: %v", err)
			}
			priv, ok := k.(ed25519.PrivateKey)
			if !ok {
				return nil, nil, fmt.Errorf("the PEM private key is a %T, not Ed25519", k)
			}
			return priv, priv.Public().(ed25519.PublicKey), nil
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, nil, fmt.Errorf("the PEM public key: %v", err)
			}
			pub, ok := k.(ed25519.PublicKey)
			if !ok {
				return nil, nil, fmt.Errorf("the PEM public key is a %T, not Ed25519", k)
			}
			return nil, pub, nil
		}
		return nil, nil, fmt.Errorf("a PEM %q is not an Ed25519 key (want PRIVATE KEY or PUBLIC KEY)", block.Type)
	}
	return nil, nil, fmt.Errorf("an Ed25519 key is %s<base64> (secret), %s<base64> (public) or PEM", Ed25519SecretPrefix, Ed25519PublicPrefix)
}

func privateFromBytes(b []byte) (ed25519.PrivateKey, ed25519.PublicKey, error) {
	switch len(b) {
	case ed25519.SeedSize:
		priv := ed25519.NewKeyFromSeed(b)
		return priv, priv.Public().(ed25519.PublicKey), nil
	case ed25519.PrivateKeySize:
		priv := ed25519.NewKeyFromSeed(b[:ed25519.SeedSize])
		if !priv.Equal(ed25519.PrivateKey(b)) {
			return nil, nil, fmt.Errorf("the Ed25519 secret key's public half is not its seed's")
		}
		return priv, priv.Public().(ed25519.PublicKey), nil
	}
	return nil, nil, fmt.Errorf("an Ed25519 secret key is %d bytes (the seed) or %d, it has %d", ed25519.SeedSize, ed25519.PrivateKeySize, len(b))
}

// ed25519KeyOrDerived is the key pair of a key text for signing and
// verifying alike: the key it writes, or, for a text that is no key (the
// demo merchant's whsec_test_demo under an Ed25519 scheme), the pair whose
// seed is the SHA-256 of the text. firmakit's own parts agree on it, as
// they do on keyOrRaw; the scheme's libraries refuse such a text.
func ed25519KeyOrDerived(text string) (ed25519.PrivateKey, ed25519.PublicKey) {
	if priv, pub, err := ParseEd25519Key(text); err == nil {
		return priv, pub
	}
	seed := sha256.Sum256([]byte(text))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return priv, priv.Public().(ed25519.PublicKey)
}

// Ed25519KeyPair writes a key pair as Standard Webhooks does: the secret
// key (whsk_, base64 of the 32-byte seed) and the public key (whpk_).
func Ed25519KeyPair(priv ed25519.PrivateKey) (secret, public string) {
	return Ed25519SecretPrefix + base64.StdEncoding.EncodeToString(priv.Seed()),
		Ed25519PublicPrefix + base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
}

// CheckWebhookKey says what is wrong with a key given to the scheme: to
// sign with (sign) or to verify with. Under an Ed25519 scheme a public key
// cannot sign, and a text written as a key (whsk_, whpk_, PEM) must read
// as one: a typo would otherwise be taken as another key and every
// signature would fail. An HMAC secret is any text.
func (w *WebhookProfile) CheckWebhookKey(secret string, sign bool) error {
	if w.IsRFC9421() {
		_, secret = splitKeyID(secret)
	}
	if !w.Asymmetric() {
		return nil
	}
	t := strings.TrimSpace(secret)
	if !strings.HasPrefix(t, Ed25519SecretPrefix) && !strings.HasPrefix(t, Ed25519PublicPrefix) && !strings.HasPrefix(t, "-----BEGIN") {
		if b, err := base64.StdEncoding.DecodeString(t); err == nil && (len(b) == ed25519.SeedSize || len(b) == ed25519.PrivateKeySize) {
			// The bytes of a key without its prefix: a seed and a public
			// key are both 32 bytes, so which it is cannot be told.
			return fmt.Errorf("a bare base64 key could be a secret or a public key: write %s<base64> for the secret key, %s<base64> for the public key", Ed25519SecretPrefix, Ed25519PublicPrefix)
		}
		return nil
	}
	priv, _, err := ParseEd25519Key(t)
	if err != nil {
		return err
	}
	if sign && priv == nil {
		return fmt.Errorf("a public key cannot sign: give the secret key (%s<base64> or a PEM PRIVATE KEY); the endpoint keeps the public key", Ed25519SecretPrefix)
	}
	return nil
}
