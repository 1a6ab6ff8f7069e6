package gateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"time"
)

// authority is a CA made for one gateway and the certificate it signed
// for the gateway's loopback names.
type authority struct {
	caPEM []byte
	pool  *x509.CertPool
	leaf  tls.Certificate
}

func newAuthority(now time.Time) (*authority, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("gateway: CA key: %w", err)
	}
	notBefore, notAfter := now.Add(-time.Hour), now.Add(7*24*time.Hour)
	caTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "firmakit test gateway CA"},
		NotBefore: notBefore, NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("gateway: CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("gateway: CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("gateway: key: %w", err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: notBefore, NotAfter: notAfter, DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("gateway: certificate: %w", err)
	}
	a := &authority{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), pool: x509.NewCertPool(),
		leaf: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
	a.pool.AddCert(ca)
	return a, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// CACertPEM returns, after Open with TLS set, the PEM of the CA that
// signed the gateway's certificate: what a client (certify's --ca-cert)
// must trust. It returns nil without TLS.
func (s *Server) CACertPEM() []byte {
	if s.ca == nil {
		return nil
	}
	return append([]byte(nil), s.ca.caPEM...)
}

// Client returns an HTTP client for the gateway: with TLS set, one that
// trusts its CA and offers HTTP/2.
func (s *Server) Client() *http.Client {
	t := &http.Transport{ForceAttemptHTTP2: true, IdleConnTimeout: 30 * time.Second}
	if s.ca != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: s.ca.pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: t}
}
