package firmakit_test

import (
	"bufio"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The keys of RFC 9421 Appendix B.1.4 (test-key-ed25519) and B.1.5
// (test-shared-secret, base64).
const (
	rfcEd25519Private = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----`
	rfcEd25519Public = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----`
	rfcSharedSecret = "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ=="
)

// rfcTestRequest is the test-request message of RFC 9421 Appendix B.2.
const rfcTestRequest = "POST /foo?param=Value&Pet=dog HTTP/1.1\r\n" +
	"Host: example.com\r\n" +
	"Date: Tue, 20 Apr 2021 02:07:55 GMT\r\n" +
	"Content-Type: application/json\r\n" +
	"Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:\r\n" +
	"Content-Length: 18\r\n" +
	"\r\n" +
	`{"hello": "world"}`

// rfcCreated is the created parameter of every Appendix B.2 signature.
const rfcCreated = 1618884473

// rfcMessage reads the Appendix B.2 request as a server does.
func rfcMessage(t *testing.T) (firmakit.HTTPSigMessage, []byte) {
	t.Helper()
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(rfcTestRequest)))
	require.NoError(t, err)
	body, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	u := *r.URL
	u.Scheme, u.Host = "https", r.Host
	return firmakit.HTTPSigMessage{Method: r.Method, URL: &u, Header: r.Header}, body
}

func rfcEd25519(t *testing.T) (ed25519.PrivateKey, ed25519.PublicKey) {
	t.Helper()
	b, _ := pem.Decode([]byte(rfcEd25519Private))
	require.NotNil(t, b)
	priv, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	require.NoError(t, err)
	b, _ = pem.Decode([]byte(rfcEd25519Public))
	require.NotNil(t, b)
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	require.NoError(t, err)
	require.Equal(t, pub, priv.(ed25519.PrivateKey).Public(), "B.1.4's public key is its private key's")
	return priv.(ed25519.PrivateKey), pub.(ed25519.PublicKey)
}

func rfcSecret(t *testing.T) []byte {
	t.Helper()
	s, err := base64.StdEncoding.DecodeString(rfcSharedSecret)
	require.NoError(t, err)
	require.Len(t, s, 64, "B.1.5: 64 random bytes")
	return s
}

// The vectors of RFC 9421 Appendix B.2.5 and B.2.6, byte for byte: the
// signature base, Signature-Input and Signature firmakit writes are the
// RFC's, and the RFC's headers verify. The RFC wraps long lines (RFC
// 8792); they are joined here.
func TestHTTPSigRFC9421AppendixB(t *testing.T) {
	priv, pub := rfcEd25519(t)
	secret := rfcSecret(t)
	cases := []struct {
		name, label string
		components  []string
		key         firmakit.HTTPSigKey
		verifyKey   firmakit.HTTPSigKey
		base        string
		input, sig  string
	}{
		{
			name: "B.2.5 hmac-sha256", label: "sig-b25",
			components: []string{"date", "@authority", "content-type"},
			key:        firmakit.HTTPSigKey{ID: "test-shared-secret", Alg: firmakit.HTTPSigHMACSHA256, Secret: secret},
			verifyKey:  firmakit.HTTPSigKey{ID: "test-shared-secret", Alg: firmakit.HTTPSigHMACSHA256, Secret: secret},
			base: `"date": Tue, 20 Apr 2021 02:07:55 GMT` + "\n" +
				`"@authority": example.com` + "\n" +
				`"content-type": application/json` + "\n" +
				`"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`,
			input: `sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`,
			sig:   `sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:`,
		},
		{
			name: "B.2.6 ed25519", label: "sig-b26",
			components: []string{"date", "@method", "@path", "@authority", "content-type", "content-length"},
			key:        firmakit.HTTPSigKey{ID: "test-key-ed25519", Alg: firmakit.HTTPSigEd25519, Private: priv},
			verifyKey:  firmakit.HTTPSigKey{ID: "test-key-ed25519", Alg: firmakit.HTTPSigEd25519, Public: pub},
			base: `"date": Tue, 20 Apr 2021 02:07:55 GMT` + "\n" +
				`"@method": POST` + "\n" +
				`"@path": /foo` + "\n" +
				`"@authority": example.com` + "\n" +
				`"content-type": application/json` + "\n" +
				`"content-length": 18` + "\n" +
				`"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`,
			input: `sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`,
			sig:   `sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := rfcMessage(t)
			params := strings.TrimPrefix(c.input, c.label+"=")
			base, err := firmakit.HTTPSigBase(m, c.components, params)
			require.NoError(t, err)
			assert.Equal(t, c.base, base, "signature base")

			input, sig, err := firmakit.HTTPSigSign(m, firmakit.HTTPSigOptions{
				Label: c.label, Components: c.components, Created: time.Unix(rfcCreated, 0),
			}, c.key)
			require.NoError(t, err)
			assert.Equal(t, c.input, input, "Signature-Input")
			assert.Equal(t, c.sig, sig, "Signature")

			m.Header.Set("Signature-Input", c.input)
			m.Header.Set("Signature", c.sig)
			other := firmakit.HTTPSigKey{ID: "another", Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("another secret")}
			r, err := firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{other, c.verifyKey}, firmakit.HTTPSigVerifyOptions{
				Required: c.components, Tolerance: time.Minute, Now: time.Unix(rfcCreated+30, 0),
			})
			require.NoError(t, err)
			assert.Equal(t, firmakit.HTTPSigResult{Label: c.label, KeyID: c.key.ID, Key: 1, Created: time.Unix(rfcCreated, 0)}, r)

			// One byte of a covered field changed, the RFC's signature fails.
			m.Header.Set("Content-Type", "application/jsoN")
			_, err = firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{c.verifyKey}, firmakit.HTTPSigVerifyOptions{})
			assert.ErrorIs(t, err, firmakit.ErrInvalidSignature)
		})
	}
}

// ContentDigest writes the sha-256 digest of RFC 9530's example content,
// and CheckContentDigest takes the sha-512 digest of RFC 9421's B.2
// request for its body.
func TestContentDigest(t *testing.T) {
	body := []byte(`{"hello": "world"}`)
	assert.Equal(t, "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", firmakit.ContentDigest(body))
	require.NoError(t, firmakit.CheckContentDigest(firmakit.ContentDigest(body), body))

	m, rfcBody := rfcMessage(t)
	require.Equal(t, body, rfcBody)
	require.NoError(t, firmakit.CheckContentDigest(m.Header.Get("Content-Digest"), body))
	both := firmakit.ContentDigest(body) + ", " + m.Header.Get("Content-Digest")
	require.NoError(t, firmakit.CheckContentDigest(both, body))
	require.NoError(t, firmakit.CheckContentDigest(`md5=:AAAA:, `+both+`, unknown=?1`, body), "unknown algorithms are ignored")

	sha512 := strings.TrimPrefix(m.Header.Get("Content-Digest"), "sha-512=")
	cases := []struct {
		name, value string
		body        []byte
		want        error
		says        string
	}{
		{"other body", firmakit.ContentDigest(body), []byte(`{"hello": "World"}`), firmakit.ErrInvalidSignature, "sha-256 does not match"},
		{"sha-512 of another body", "sha-512=" + sha512, []byte(`{}`), firmakit.ErrInvalidSignature, "sha-512 does not match"},
		{"one of two wrong", firmakit.ContentDigest([]byte("x")) + ", sha-512=" + sha512, body, firmakit.ErrInvalidSignature, "sha-256"},
		{"not a dictionary", "sha-256=:abc", body, firmakit.ErrMalformedHeader, "not a structured-field dictionary"},
		{"not bytes", `sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="`, body, firmakit.ErrMalformedHeader, "sha-256 is not a byte sequence"},
		{"inner list", `sha-512=(:AAAA:)`, body, firmakit.ErrMalformedHeader, "sha-512 is not a byte sequence"},
		{"no known algorithm", "md5=:AAAA:, sha=:AAAA:", body, firmakit.ErrMalformedHeader, "no known algorithm"},
		{"empty", "", body, firmakit.ErrMalformedHeader, "empty"},
		{"upper-case key", "SHA-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", body, firmakit.ErrMalformedHeader, "dictionary"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := firmakit.CheckContentDigest(c.value, c.body)
			require.ErrorIs(t, err, c.want)
			assert.ErrorContains(t, err, c.says)
		})
	}
}

// The derived components of RFC 9421 §2.2 and the field values of §2.1,
// each as the RFC's examples write it.
func TestHTTPSigBaseComponents(t *testing.T) {
	msg := func(method, rawURL string, h http.Header) firmakit.HTTPSigMessage {
		u, err := url.Parse(rawURL)
		require.NoError(t, err)
		if h == nil {
			h = http.Header{}
		}
		return firmakit.HTTPSigMessage{Method: method, URL: u, Header: h}
	}
	cases := []struct {
		name      string
		m         firmakit.HTTPSigMessage
		component string
		want      string
	}{
		{"method kept as sent", msg("post", "https://example.com/", nil), "@method", "post"},
		{"target-uri", msg("POST", "https://www.example.com/path?param=value", nil), "@target-uri", "https://www.example.com/path?param=value"},
		{"target-uri empty path", msg("GET", "https://example.com", nil), "@target-uri", "https://example.com/"},
		{"authority lower-case", msg("GET", "https://WWW.Example.COM/", nil), "@authority", "www.example.com"},
		{"authority default https port", msg("GET", "https://example.com:443/", nil), "@authority", "example.com"},
		{"authority default http port", msg("GET", "http://example.com:80/", nil), "@authority", "example.com"},
		{"authority other port", msg("GET", "https://example.com:8443/", nil), "@authority", "example.com:8443"},
		{"authority http on 443", msg("GET", "http://example.com:443/", nil), "@authority", "example.com:443"},
		{"authority IPv6", msg("GET", "https://[2001:DB8::1]:8443/", nil), "@authority", "[2001:db8::1]:8443"},
		{"scheme", msg("GET", "HTTP://example.com/", nil), "@scheme", "http"},
		{"request-target", msg("POST", "https://www.example.com/path?param=value", nil), "@request-target", "/path?param=value"},
		{"request-target no query", msg("POST", "https://www.example.com/path", nil), "@request-target", "/path"},
		{"path", msg("GET", "https://www.example.com/path?param=value", nil), "@path", "/path"},
		{"path percent-encoding kept", msg("GET", "https://example.com/a%2Fb/%7Ec", nil), "@path", "/a%2Fb/%7Ec"},
		{"path empty", msg("GET", "https://www.example.com?x=1", nil), "@path", "/"},
		{"query", msg("GET", "https://www.example.com/path?param=value&foo=bar&baz=bat%2Dman", nil), "@query", "?param=value&foo=bar&baz=bat%2Dman"},
		{"query empty", msg("GET", "https://www.example.com/path?", nil), "@query", "?"},
		{"query absent", msg("GET", "https://www.example.com/path", nil), "@query", "?"},
		{"field lines joined", msg("GET", "https://example.com/", http.Header{"Cache-Control": {"max-age=60", "   must-revalidate"}}), "cache-control", "max-age=60, must-revalidate"},
		{"field trimmed", msg("GET", "https://example.com/", http.Header{"X-Obs-Fold-Header": {"  Obsolete\r\n    line folding.  "}}), "x-obs-fold-header", "Obsolete line folding."},
		{"field empty", msg("GET", "https://example.com/", http.Header{"X-Empty-Header": {""}}), "x-empty-header", ""},
		{"field under a key not canonical", msg("GET", "https://example.com/", http.Header{"x-example": {"Example header with some whitespace."}}), "x-example", "Example header with some whitespace."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, err := firmakit.HTTPSigBase(c.m, []string{c.component}, `("`+c.component+`")`)
			require.NoError(t, err)
			assert.Equal(t, `"`+c.component+`": `+c.want+"\n"+`"@signature-params": ("`+c.component+`")`, base)
		})
	}

	t.Run("params written as RFC 8941 serializes them", func(t *testing.T) {
		base, err := firmakit.HTTPSigBase(msg("GET", "https://example.com/", nil), []string{"@method"}, ` ( "@method" );created=01;keyid="k" `)
		require.NoError(t, err)
		assert.Equal(t, `"@method": GET`+"\n"+`"@signature-params": ("@method");created=1;keyid="k"`, base)
	})

	refused := []struct {
		name       string
		m          firmakit.HTTPSigMessage
		components []string
		params     string
		says       string
	}{
		{"params list other components", msg("GET", "https://example.com/", nil), []string{"@method"}, `("@path")`, `cover (@path), components are (@method)`},
		{"params not an inner list", msg("GET", "https://example.com/", nil), []string{"@method"}, `"@method"`, "not an inner list"},
		{"params unparsable", msg("GET", "https://example.com/", nil), []string{"@method"}, `("@method"`, "not one inner list"},
		{"absent field", msg("GET", "https://example.com/", nil), []string{"date"}, `("date")`, `covered field "date" is absent`},
		{"upper-case field", msg("GET", "https://example.com/", http.Header{"Date": {"x"}}), []string{"Date"}, `("Date")`, `"Date" is not lower-case`},
		{"unsupported derived", msg("GET", "https://example.com/", nil), []string{"@status"}, `("@status")`, `derived component "@status" is not supported`},
		{"query-param", msg("GET", "https://example.com/?a=1", nil), []string{"@query-param"}, `("@query-param")`, `"@query-param" is not supported`},
		{"component with a parameter", msg("GET", "https://example.com/", http.Header{"Example-Dict": {"a=1"}}), []string{"example-dict"}, `("example-dict";sf)`, `parameter ;sf`},
		{"twice", msg("GET", "https://example.com/", nil), []string{"@method", "@method"}, `("@method" "@method")`, `"@method" is covered twice`},
		{"no URL", firmakit.HTTPSigMessage{Method: "GET"}, []string{"@path"}, `("@path")`, `"@path": the message has no absolute target URI`},
		{"relative URL", msg("GET", "/foo", nil), []string{"@authority"}, `("@authority")`, "no absolute target URI"},
		{"no method", msg("", "https://example.com/", nil), []string{"@method"}, `("@method")`, "no method"},
		{"line break in a field", msg("GET", "https://example.com/", http.Header{"X-A": {"a\nb"}}), []string{"x-a"}, `("x-a")`, `component "x-a" has byte 0x0a`},
		{"non-ASCII field", msg("GET", "https://example.com/", http.Header{"X-A": {"caf\xc3\xa9"}}), []string{"x-a"}, `("x-a")`, `component "x-a" has byte 0xc3`},
	}
	for _, c := range refused {
		t.Run("refused "+c.name, func(t *testing.T) {
			_, err := firmakit.HTTPSigBase(c.m, c.components, c.params)
			assert.ErrorContains(t, err, c.says)
		})
	}
}

var (
	hmacOld  = firmakit.HTTPSigKey{ID: "hmac-2024", Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("the secret of 2024, rotated out")}
	hmacNew  = firmakit.HTTPSigKey{ID: "hmac-2025", Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("the secret of 2025, current")}
	hmacAnon = firmakit.HTTPSigKey{Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("a secret known by no id")}
	edOld    = edKey("ed-2024", 1)
	edNew    = edKey("ed-2025", 2)
)

func edKey(id string, seed byte) firmakit.HTTPSigKey {
	priv := ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize)))
	return firmakit.HTTPSigKey{ID: id, Alg: firmakit.HTTPSigEd25519, Private: priv, Public: priv.Public().(ed25519.PublicKey)}
}

// verifying strips k to what a verifier holds: no private key.
func verifying(k firmakit.HTTPSigKey) firmakit.HTTPSigKey {
	k.Private = nil
	return k
}

var sigNow = time.Unix(1763805600, 0)

var sigComponents = []string{"@method", "@target-uri", "@authority", "@path", "@query", "content-digest", "content-type"}

func sigMessage() firmakit.HTTPSigMessage {
	u, _ := url.Parse("https://hooks.example.com/v1/notify?merchant=demo")
	body := []byte(`{"event_id":"evt_1","status":"signed"}`)
	return firmakit.HTTPSigMessage{Method: "POST", URL: u, Header: http.Header{
		"Content-Type":   {"application/json"},
		"Content-Digest": {firmakit.ContentDigest(body)},
	}}
}

func signed(t *testing.T, m firmakit.HTTPSigMessage, o firmakit.HTTPSigOptions, k firmakit.HTTPSigKey) firmakit.HTTPSigMessage {
	t.Helper()
	if o.Components == nil {
		o.Components = sigComponents
	}
	if o.Created.IsZero() {
		o.Created = sigNow
	}
	in, sig, err := firmakit.HTTPSigSign(m, o, k)
	require.NoError(t, err)
	m.Header = m.Header.Clone()
	m.Header.Add("Signature-Input", in)
	m.Header.Add("Signature", sig)
	return m
}

var sigVerify = firmakit.HTTPSigVerifyOptions{Required: []string{"@method", "@path", "content-digest"}, Tolerance: 5 * time.Minute, Now: sigNow}

// Round trips with rotated keys of both algorithms: the keyid chooses the
// key; a signature whose keyid no key has is tried with the keys that have
// no ID; one without keyid with every key.
func TestHTTPSigRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		signer  firmakit.HTTPSigKey
		o       firmakit.HTTPSigOptions
		keys    []firmakit.HTTPSigKey
		wantKey int
		keyID   string
	}{
		{"hmac current key", hmacNew, firmakit.HTTPSigOptions{}, []firmakit.HTTPSigKey{hmacOld, hmacNew}, 1, "hmac-2025"},
		{"hmac old key still held", hmacOld, firmakit.HTTPSigOptions{}, []firmakit.HTTPSigKey{hmacOld, hmacNew}, 0, "hmac-2024"},
		{"hmac with alg", hmacNew, firmakit.HTTPSigOptions{WriteAlg: true}, []firmakit.HTTPSigKey{hmacOld, hmacNew}, 1, "hmac-2025"},
		{"hmac no keyid", hmacAnon, firmakit.HTTPSigOptions{}, []firmakit.HTTPSigKey{hmacOld, hmacNew, hmacAnon}, 2, ""},
		{"unknown keyid, anonymous key", firmakit.HTTPSigKey{ID: "nobody-knows", Alg: firmakit.HTTPSigHMACSHA256, Secret: hmacAnon.Secret}, firmakit.HTTPSigOptions{}, []firmakit.HTTPSigKey{hmacOld, hmacAnon}, 1, "nobody-knows"},
		{"ed25519 current key", edNew, firmakit.HTTPSigOptions{}, []firmakit.HTTPSigKey{verifying(edOld), verifying(edNew)}, 1, "ed-2025"},
		{"ed25519 old key", edOld, firmakit.HTTPSigOptions{WriteAlg: true}, []firmakit.HTTPSigKey{verifying(edOld), verifying(edNew)}, 0, "ed-2024"},
		{"ed25519 public derived from private", edNew, firmakit.HTTPSigOptions{}, []firmakit.HTTPSigKey{{ID: "ed-2025", Alg: firmakit.HTTPSigEd25519, Private: edNew.Private}}, 0, "ed-2025"},
		{"mixed algorithms, same id, alg chooses", firmakit.HTTPSigKey{ID: "shared", Alg: firmakit.HTTPSigHMACSHA256, Secret: hmacNew.Secret}, firmakit.HTTPSigOptions{WriteAlg: true},
			[]firmakit.HTTPSigKey{{ID: "shared", Alg: firmakit.HTTPSigEd25519, Public: edNew.Public}, {ID: "shared", Alg: firmakit.HTTPSigHMACSHA256, Secret: hmacNew.Secret}}, 1, "shared"},
		{"all parameters", edNew, firmakit.HTTPSigOptions{Label: "webhook", Expires: sigNow.Add(time.Minute), Nonce: "n-0001", Tag: "firmakit", WriteAlg: true}, []firmakit.HTTPSigKey{verifying(edNew)}, 0, "ed-2025"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := signed(t, sigMessage(), c.o, c.signer)
			r, err := firmakit.HTTPSigVerify(m, c.keys, sigVerify)
			require.NoError(t, err)
			label := c.o.Label
			if label == "" {
				label = "sig1"
			}
			assert.Equal(t, firmakit.HTTPSigResult{Label: label, KeyID: c.keyID, Key: c.wantKey, Created: sigNow}, r)
		})
	}

	t.Run("parameters written in order", func(t *testing.T) {
		in, sig, err := firmakit.HTTPSigSign(sigMessage(), firmakit.HTTPSigOptions{Label: "webhook", Components: []string{"@method"},
			Created: sigNow, Expires: sigNow.Add(time.Minute), Nonce: "n-1", Tag: "t", WriteAlg: true}, edNew)
		require.NoError(t, err)
		assert.Equal(t, `webhook=("@method");created=1763805600;expires=1763805660;keyid="ed-2025";nonce="n-1";alg="ed25519";tag="t"`, in)
		assert.Regexp(t, `^webhook=:[A-Za-z0-9+/]{86}==:$`, sig)
	})

	t.Run("no components, no created", func(t *testing.T) {
		in, sig, err := firmakit.HTTPSigSign(sigMessage(), firmakit.HTTPSigOptions{}, hmacAnon)
		require.NoError(t, err)
		assert.Equal(t, "sig1=()", in)
		m := sigMessage()
		m.Header.Set("Signature-Input", in)
		m.Header.Set("Signature", sig)
		_, err = firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{hmacAnon}, firmakit.HTTPSigVerifyOptions{})
		require.NoError(t, err)
		_, err = firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{hmacAnon}, firmakit.HTTPSigVerifyOptions{Tolerance: time.Minute})
		require.ErrorIs(t, err, firmakit.ErrMalformedHeader, "a tolerance requires created")
		assert.ErrorContains(t, err, "no created parameter")
	})

	t.Run("other header names", func(t *testing.T) {
		in, sig, err := firmakit.HTTPSigSign(sigMessage(), firmakit.HTTPSigOptions{Components: sigComponents, Created: sigNow}, hmacNew)
		require.NoError(t, err)
		m := sigMessage()
		m.Header.Set("X-Sig-Input", in)
		m.Header.Set("X-Sig", sig)
		_, err = firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{hmacNew}, sigVerify)
		require.ErrorIs(t, err, firmakit.ErrMissingHeaders)
		o := sigVerify
		o.InputHeader, o.SignatureHeader = "X-Sig-Input", "X-Sig"
		_, err = firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{hmacNew}, o)
		require.NoError(t, err)
	})
}

// Several signatures: with no label, the first that verifies is returned;
// with a label, only that one is looked at.
func TestHTTPSigSeveralSignatures(t *testing.T) {
	m := signed(t, sigMessage(), firmakit.HTTPSigOptions{Label: "proxy"}, hmacOld)
	m = signed(t, m, firmakit.HTTPSigOptions{Label: "origin"}, edNew)
	m = signed(t, m, firmakit.HTTPSigOptions{Label: "late"}, hmacNew)
	require.Len(t, m.Header.Values("Signature-Input"), 3, "three field lines, one dictionary")

	keys := []firmakit.HTTPSigKey{verifying(edNew), hmacNew}
	r, err := firmakit.HTTPSigVerify(m, keys, sigVerify)
	require.NoError(t, err)
	assert.Equal(t, "origin", r.Label, "proxy's key is unknown; origin comes before late")
	assert.Equal(t, 0, r.Key)

	o := sigVerify
	o.Label = "late"
	r, err = firmakit.HTTPSigVerify(m, keys, o)
	require.NoError(t, err)
	assert.Equal(t, firmakit.HTTPSigResult{Label: "late", KeyID: "hmac-2025", Key: 1, Created: sigNow}, r)

	o.Label = "proxy"
	_, err = firmakit.HTTPSigVerify(m, keys, o)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature)
	assert.ErrorContains(t, err, `signature "proxy" (keyid "hmac-2024")`)

	o.Label = "absent"
	_, err = firmakit.HTTPSigVerify(m, keys, o)
	require.ErrorIs(t, err, firmakit.ErrMissingHeaders)
	assert.ErrorContains(t, err, `no signature labelled "absent" (labels: proxy, origin, late)`)

	_, err = firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{hmacAnon}, sigVerify)
	require.ErrorIs(t, err, firmakit.ErrInvalidSignature)
	assert.ErrorContains(t, err, `signature "proxy"`, "the first signature's error")
}

// Each case starts from one valid signed request and changes one thing.
func TestHTTPSigVerifyRefuses(t *testing.T) {
	keys := []firmakit.HTTPSigKey{hmacOld, hmacNew, verifying(edNew)}
	valid := func(t *testing.T) firmakit.HTTPSigMessage {
		return signed(t, sigMessage(), firmakit.HTTPSigOptions{}, hmacNew)
	}
	setInput := func(v string) func(*testing.T, *firmakit.HTTPSigMessage) {
		return func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Set("Signature-Input", v) }
	}
	// resign signs the request again with other options.
	resign := func(o firmakit.HTTPSigOptions, k firmakit.HTTPSigKey) func(*testing.T, *firmakit.HTTPSigMessage) {
		return func(t *testing.T, m *firmakit.HTTPSigMessage) { *m = signed(t, sigMessage(), o, k) }
	}
	cases := []struct {
		name   string
		change func(*testing.T, *firmakit.HTTPSigMessage)
		keys   []firmakit.HTTPSigKey
		want   error
		says   string
	}{
		{"no Signature-Input", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Del("Signature-Input") }, nil, firmakit.ErrMissingHeaders, "Signature-Input"},
		{"no Signature", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Del("Signature") }, nil, firmakit.ErrMissingHeaders, "Signature"},
		{"blank headers", func(_ *testing.T, m *firmakit.HTTPSigMessage) {
			m.Header.Set("Signature", " ")
			m.Header.Set("Signature-Input", "")
		}, nil, firmakit.ErrMissingHeaders, "Signature-Input, Signature"},
		{"wrong key", nil, []firmakit.HTTPSigKey{{ID: "hmac-2025", Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("guess")}}, firmakit.ErrInvalidSignature, `(keyid "hmac-2025") matches no key: tried 1 of 1`},
		{"keyid known, signed by an anonymous key", resign(firmakit.HTTPSigOptions{}, firmakit.HTTPSigKey{ID: "hmac-2025", Alg: firmakit.HTTPSigHMACSHA256, Secret: hmacAnon.Secret}),
			[]firmakit.HTTPSigKey{hmacNew, hmacAnon}, firmakit.ErrInvalidSignature, "tried 1 of 2"},
		{"unknown keyid, no anonymous key", resign(firmakit.HTTPSigOptions{}, firmakit.HTTPSigKey{ID: "stranger", Alg: firmakit.HTTPSigHMACSHA256, Secret: hmacNew.Secret}),
			nil, firmakit.ErrInvalidSignature, `(keyid "stranger") matches no key: tried 0 of 3`},
		{"alg of another key type", resign(firmakit.HTTPSigOptions{WriteAlg: true}, hmacNew),
			[]firmakit.HTTPSigKey{{ID: "hmac-2025", Alg: firmakit.HTTPSigEd25519, Public: edNew.Public}}, firmakit.ErrInvalidSignature, `alg "hmac-sha256") matches no key: tried 0 of 1`},
		{"alg forged to ed25519", func(t *testing.T, m *firmakit.HTTPSigMessage) {
			m.Header.Set("Signature-Input", strings.Replace(m.Header.Get("Signature-Input"), `keyid="hmac-2025"`, `keyid="hmac-2025";alg="ed25519"`, 1))
		}, nil, firmakit.ErrInvalidSignature, "tried 0 of 3"},
		{"tampered method", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Method = "PUT" }, nil, firmakit.ErrInvalidSignature, `signature "sig1"`},
		{"tampered path", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.URL.Path = "/v1/notifz" }, nil, firmakit.ErrInvalidSignature, ""},
		{"tampered query", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.URL.RawQuery = "merchant=other" }, nil, firmakit.ErrInvalidSignature, ""},
		{"tampered host", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.URL.Host = "hooks.example.org" }, nil, firmakit.ErrInvalidSignature, ""},
		{"tampered digest", func(_ *testing.T, m *firmakit.HTTPSigMessage) {
			m.Header.Set("Content-Digest", firmakit.ContentDigest([]byte("{}")))
		}, nil, firmakit.ErrInvalidSignature, ""},
		{"tampered signature", func(_ *testing.T, m *firmakit.HTTPSigMessage) {
			s := m.Header.Get("Signature")
			c := "A"
			if s[6] == 'A' {
				c = "B"
			}
			m.Header.Set("Signature", s[:6]+c+s[7:])
		}, nil, firmakit.ErrInvalidSignature, ""},
		{"tampered created", func(_ *testing.T, m *firmakit.HTTPSigMessage) {
			m.Header.Set("Signature-Input", strings.Replace(m.Header.Get("Signature-Input"), "created=1763805600", "created=1763805601", 1))
		}, nil, firmakit.ErrInvalidSignature, ""},
		{"covered field removed", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Del("Content-Type") }, nil, firmakit.ErrMalformedHeader, `covered field "content-type" is absent`},
		{"required component not covered", resign(firmakit.HTTPSigOptions{Components: []string{"@method", "@path"}}, hmacNew), nil, firmakit.ErrMalformedHeader, `does not cover the required component "content-digest"`},
		{"created too old", resign(firmakit.HTTPSigOptions{Created: sigNow.Add(-6 * time.Minute)}, hmacNew), nil, firmakit.ErrTooOld, "created 360s ago (tolerance 300s)"},
		{"created in the future", resign(firmakit.HTTPSigOptions{Created: sigNow.Add(6 * time.Minute)}, hmacNew), nil, firmakit.ErrTooNew, "created 360s in the future (tolerance 300s)"},
		{"expired", resign(firmakit.HTTPSigOptions{Expires: sigNow.Add(-time.Second)}, hmacNew), nil, firmakit.ErrTooOld, `signature "sig1" expired 1s ago`},
		{"created not an integer", setInput(`sig1=("@method" "@path" "content-digest");created="1763805600"`), nil, firmakit.ErrMalformedHeader, `signature "sig1": parameter created is not an integer`},
		{"created a decimal", setInput(`sig1=("@method" "@path" "content-digest");created=1763805600.5`), nil, firmakit.ErrMalformedHeader, "parameter created is not an integer"},
		{"expires a date", setInput(`sig1=("@method" "@path" "content-digest");created=1763805600;expires=@1763805700`), nil, firmakit.ErrMalformedHeader, "parameter expires is not an integer"},
		{"keyid not a string", setInput(`sig1=("@method" "@path" "content-digest");created=1763805600;keyid=7`), nil, firmakit.ErrMalformedHeader, `signature "sig1": parameter keyid is not a string`},
		{"alg a token", setInput(`sig1=("@method" "@path" "content-digest");created=1763805600;alg=ed25519`), nil, firmakit.ErrMalformedHeader, "parameter alg is not a string"},
		{"input not a dictionary", setInput(`sig1=("@method" "@path"`), nil, firmakit.ErrMalformedHeader, "Signature-Input is not a structured-field dictionary"},
		{"signature not a dictionary", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Set("Signature", "sig1=:abc") }, nil, firmakit.ErrMalformedHeader, "Signature is not a structured-field dictionary"},
		{"signature not bytes", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Set("Signature", `sig1="abc"`) }, nil, firmakit.ErrMalformedHeader, `signature "sig1": Signature is not a byte sequence`},
		{"input an item", setInput(`sig1="@method"`), nil, firmakit.ErrMalformedHeader, `signature "sig1": Signature-Input is not an inner list`},
		{"label only in Signature-Input", func(_ *testing.T, m *firmakit.HTTPSigMessage) {
			m.Header.Add("Signature-Input", `sig2=("@method")`)
		}, nil, firmakit.ErrMalformedHeader, `label "sig2" is in Signature-Input but not in Signature`},
		{"label only in Signature", func(_ *testing.T, m *firmakit.HTTPSigMessage) { m.Header.Add("Signature", `sig2=:AAAA:`) }, nil, firmakit.ErrMalformedHeader, `label "sig2" is in Signature but not in Signature-Input`},
		{"component a token", setInput(`sig1=("@method" path "content-digest");created=1763805600`), nil, firmakit.ErrMalformedHeader, "component 2 is not a string (a token)"},
		{"component an integer", setInput(`sig1=("@method" 7 "content-digest");created=1763805600`), nil, firmakit.ErrMalformedHeader, "component 2 is not a string (an integer)"},
		{"component upper-case", setInput(`sig1=("@method" "@path" "Content-Digest");created=1763805600`), nil, firmakit.ErrMalformedHeader, `component "Content-Digest" is not lower-case`},
		{"component twice", setInput(`sig1=("@method" "@path" "content-digest" "@path");created=1763805600`), nil, firmakit.ErrMalformedHeader, `component "@path" is covered twice`},
		{"component ;sf", setInput(`sig1=("@method" "@path" "content-digest";sf);created=1763805600`), nil, firmakit.ErrMalformedHeader, `component "content-digest" has parameter ;sf`},
		{"component ;key", setInput(`sig1=("@method" "@path" "content-digest";key="sha-256");created=1763805600`), nil, firmakit.ErrMalformedHeader, `has parameter ;key`},
		{"component ;bs", setInput(`sig1=("@method" "@path" "content-digest";bs);created=1763805600`), nil, firmakit.ErrMalformedHeader, `has parameter ;bs`},
		{"component ;req", setInput(`sig1=("@method";req "@path" "content-digest");created=1763805600`), nil, firmakit.ErrMalformedHeader, `component "@method" has parameter ;req`},
		{"component ;tr", setInput(`sig1=("@method" "@path" "content-digest";tr);created=1763805600`), nil, firmakit.ErrMalformedHeader, `has parameter ;tr`},
		{"derived component of a response", setInput(`sig1=("@method" "@path" "content-digest" "@status");created=1763805600`), nil, firmakit.ErrMalformedHeader, `derived component "@status" is not supported`},
		{"signature-params covered", setInput(`sig1=("@method" "@path" "content-digest" "@signature-params");created=1763805600`), nil, firmakit.ErrMalformedHeader, `"@signature-params" is not supported`},
		{"no signature in the dictionary", func(_ *testing.T, m *firmakit.HTTPSigMessage) {
			m.Header.Set("Signature-Input", ",")
		}, nil, firmakit.ErrMalformedHeader, "Signature-Input"},
		{"header too long", setInput(`sig1=("@method" "@path" "content-digest");created=1763805600;nonce="` + strings.Repeat("n", 9000) + `"`), nil, firmakit.ErrMalformedHeader, "bytes long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := valid(t)
			if c.change != nil {
				c.change(t, &m)
			}
			k := c.keys
			if k == nil {
				k = keys
			}
			_, err := firmakit.HTTPSigVerify(m, k, sigVerify)
			require.ErrorIs(t, err, c.want)
			assert.ErrorContains(t, err, c.says)
		})
	}

	// The untouched request passes, so that each refusal above is the
	// change's.
	_, err := firmakit.HTTPSigVerify(valid(t), keys, sigVerify)
	require.NoError(t, err)
	r, err := firmakit.HTTPSigVerify(signed(t, sigMessage(), firmakit.HTTPSigOptions{Created: sigNow.Add(-5 * time.Minute)}, hmacNew), keys, sigVerify)
	require.NoError(t, err, "created exactly at the tolerance")
	assert.Equal(t, sigNow.Add(-5*time.Minute), r.Created)
	_, err = firmakit.HTTPSigVerify(signed(t, sigMessage(), firmakit.HTTPSigOptions{Expires: sigNow}, hmacNew), keys, sigVerify)
	require.NoError(t, err, "expires now is not past")
	for _, e := range []error{firmakit.ErrTooOld, firmakit.ErrTooNew} {
		assert.ErrorIs(t, e, firmakit.ErrExpired)
	}
}

// HTTPSigSign refuses what it cannot write.
func TestHTTPSigSignRefuses(t *testing.T) {
	cases := []struct {
		name string
		o    firmakit.HTTPSigOptions
		k    firmakit.HTTPSigKey
		says string
	}{
		{"label not a key", firmakit.HTTPSigOptions{Label: "Sig"}, hmacNew, `label "Sig" is not a structured-field key`},
		{"component twice", firmakit.HTTPSigOptions{Components: []string{"@path", "@path"}}, hmacNew, `"@path" is covered twice`},
		{"component unsupported", firmakit.HTTPSigOptions{Components: []string{"@status"}}, hmacNew, `"@status" is not supported`},
		{"component upper-case", firmakit.HTTPSigOptions{Components: []string{"Content-Type"}}, hmacNew, `"Content-Type" is not lower-case`},
		{"component with a quote", firmakit.HTTPSigOptions{Components: []string{`a"b`}}, hmacNew, `is not a field name`},
		{"component empty", firmakit.HTTPSigOptions{Components: []string{""}}, hmacNew, `empty`},
		{"field absent", firmakit.HTTPSigOptions{Components: []string{"date"}}, hmacNew, `covered field "date" is absent`},
		{"nonce not ASCII", firmakit.HTTPSigOptions{Nonce: "café"}, hmacNew, "signature parameters cannot be written"},
		{"hmac without secret", firmakit.HTTPSigOptions{}, firmakit.HTTPSigKey{Alg: firmakit.HTTPSigHMACSHA256}, "no secret"},
		{"ed25519 without private key", firmakit.HTTPSigOptions{}, verifying(edNew), "ed25519 private key is 0 bytes, want 64"},
		{"unknown alg", firmakit.HTTPSigOptions{}, firmakit.HTTPSigKey{Alg: "rsa-pss-sha512", Secret: []byte("x")}, `key algorithm "rsa-pss-sha512" is not supported`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := firmakit.HTTPSigSign(sigMessage(), c.o, c.k)
			assert.ErrorContains(t, err, c.says)
		})
	}
}

// propMessage draws a request, its body and a key.
type propMessage struct {
	method, host, path, query, contentType, note string
	body                                         []byte
}

func (p propMessage) message() firmakit.HTTPSigMessage {
	return firmakit.HTTPSigMessage{Method: p.method, URL: &url.URL{Scheme: "https", Host: p.host, Path: p.path, RawQuery: p.query}, Header: http.Header{
		"Content-Type":   {p.contentType},
		"X-Note":         {p.note},
		"Content-Digest": {firmakit.ContentDigest(p.body)},
	}}
}

// Alphabets of the drawn values; a flipped byte is replaced by another of
// its field's alphabet, so that the value stays one the field can hold.
const (
	propMethodChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	propHostChars   = "abcdefghijklmnopqrstuvwxyz0123456789.-"
	propPathChars   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~-/"
	propQueryChars  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789=&"
	propFieldChars  = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
)

func drawMessage(t *rapid.T) propMessage {
	return propMessage{
		method:      rapid.StringMatching(`[A-Z]{1,10}`).Draw(t, "method"),
		host:        rapid.StringMatching(`[a-z0-9]{1,10}(\.[a-z0-9-]{1,10}){0,2}`).Draw(t, "host"),
		path:        rapid.StringMatching(`(/[a-zA-Z0-9._~-]{0,8}){1,4}`).Draw(t, "path"),
		query:       rapid.StringMatching(`([a-zA-Z0-9]{1,5}=[a-zA-Z0-9]{0,5}(&[a-zA-Z0-9]{1,5}=[a-zA-Z0-9]{0,5}){0,3})?`).Draw(t, "query"),
		contentType: rapid.StringMatching(`[!-~]([ -~]{0,30}[!-~])?`).Draw(t, "contentType"),
		note:        rapid.StringMatching(`[!-~]([ -~]{0,30}[!-~])?`).Draw(t, "note"),
		body:        rapid.SliceOf(rapid.Byte()).Draw(t, "body"),
	}
}

// flip replaces the byte at a drawn index of s with another of chars:
// often the same letter in the other case, when chars has it, as a
// verifier that folds case would miss that change.
func flip(t *rapid.T, s, chars string) string {
	i := rapid.IntRange(0, len(s)-1).Draw(t, "index")
	others := strings.ReplaceAll(chars, s[i:i+1], "")
	c := rapid.SampledFrom([]byte(others)).Draw(t, "byte")
	if twin := s[i] ^ 0x20; ('a' <= twin && twin <= 'z' || 'A' <= twin && twin <= 'Z') && strings.IndexByte(chars, twin) >= 0 && rapid.Bool().Draw(t, "case") {
		c = twin
	}
	return s[:i] + string(c) + s[i+1:]
}

var propComponents = []string{"@method", "@target-uri", "@authority", "@path", "@query", "content-digest", "content-type", "x-note"}

// Signing then verifying succeeds for any request; one byte of a covered
// value replaced, verifying fails; one byte of the body changed, the
// Content-Digest the signature covers no longer matches it.
func TestHTTPSigProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawMessage(t)
		k := rapid.SampledFrom([]firmakit.HTTPSigKey{hmacNew, edNew}).Draw(t, "key")
		m := p.message()
		in, sig, err := firmakit.HTTPSigSign(m, firmakit.HTTPSigOptions{Components: propComponents, Created: sigNow}, k)
		if err != nil {
			t.Fatalf("sign %+v: %v", p, err)
		}
		keys := []firmakit.HTTPSigKey{hmacOld, hmacNew, verifying(edOld), verifying(edNew)}
		verify := func(q propMessage) error {
			m := q.message()
			m.Header.Set("Signature-Input", in)
			m.Header.Set("Signature", sig)
			_, err := firmakit.HTTPSigVerify(m, keys, firmakit.HTTPSigVerifyOptions{Required: propComponents, Tolerance: time.Minute, Now: sigNow})
			return err
		}
		if err := verify(p); err != nil {
			t.Fatalf("verify %+v: %v", p, err)
		}
		if err := firmakit.CheckContentDigest(p.message().Header.Get("Content-Digest"), p.body); err != nil {
			t.Fatalf("content digest: %v", err)
		}

		q := p
		targets := []string{"method", "host", "path", "content-type", "note"}
		if p.query != "" {
			targets = append(targets, "query")
		}
		if len(p.body) > 0 {
			targets = append(targets, "body")
		}
		switch target := rapid.SampledFrom(targets).Draw(t, "target"); target {
		case "method":
			q.method = flip(t, p.method, propMethodChars)
		case "host":
			q.host = flip(t, p.host, propHostChars)
		case "path":
			q.path = flip(t, p.path, propPathChars)
		case "query":
			q.query = flip(t, p.query, propQueryChars)
		case "content-type":
			q.contentType = flip(t, p.contentType, propFieldChars)
		case "note":
			q.note = flip(t, p.note, propFieldChars)
		case "body":
			q.body = []byte(flip(t, string(p.body), string(rune(0))+"\x01\x80\xff"))
			changed := q.body
			q.body = p.body // the signed Content-Digest is the one sent
			if err := verify(q); err != nil {
				t.Fatalf("the signature does not cover the body itself, yet: %v", err)
			}
			err := firmakit.CheckContentDigest(q.message().Header.Get("Content-Digest"), changed)
			if !errors.Is(err, firmakit.ErrInvalidSignature) {
				t.Fatalf("body %q changed to %q: Content-Digest check gave %v", p.body, changed, err)
			}
			return
		}
		if err := verify(q); !errors.Is(err, firmakit.ErrInvalidSignature) {
			t.Fatalf("%+v changed to %+v: verify gave %v, want ErrInvalidSignature", p, q, err)
		}
	})
}

// The sentinel errors a verifier may return.
var httpSigSentinels = []error{firmakit.ErrMissingHeaders, firmakit.ErrMalformedHeader, firmakit.ErrExpired, firmakit.ErrInvalidSignature}

func wrapsSentinel(err error) bool {
	for _, s := range httpSigSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// Nothing sent in Signature-Input and Signature makes a verifier panic or
// answer an error that is not one of the sentinels: random text, text made
// of structured-field pieces, and valid headers with one byte changed.
func TestHTTPSigVerifyAnyHeaders(t *testing.T) {
	pieces := []string{"sig1", "sig2", "=", "(", ")", `"@method"`, `"@path"`, `"content-type"`, `"@query-param"`, ";name=", ";created=", "1763805600", "-1",
		"999999999999999", "1.5", ";expires=", ";keyid=", `"hmac-2025"`, `"ed-2025"`, ";alg=", `"ed25519"`, `"hmac-sha256"`, ":", "AAAA", "YWJj", "==", ",", " ", "\t",
		";sf", ";req", ";key=", "@1", "?1", "?0", "*", `%"x"`, `"`, `\`, "tok", "%", "\x00", "é"}
	keys := []firmakit.HTTPSigKey{hmacOld, hmacNew, hmacAnon, verifying(edNew), {Alg: firmakit.HTTPSigEd25519}}
	join := func(sep string) func([]string) string { return func(p []string) string { return strings.Join(p, sep) } }
	// Dictionaries whose members are well formed, with labels shared by
	// both headers, reach the checks past the parser.
	params := rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]string{";created=1763805600", `;created="1763805600"`, ";created=1.5", ";created=@1763805600",
		";expires=1", ";expires=9999999999", ";keyid=\"hmac-2025\"", ";keyid=\"ed-2025\"", ";keyid=\"\"", ";keyid=1", ";alg=\"ed25519\"", ";alg=\"hmac-sha256\"", ";alg=hs",
		";sf", ";req", ";bs", ";tr", `;key="a"`, `;nonce="n"`, ";tag=t", ";name=\"a\""}), 0, 4), join(""))
	item := rapid.OneOf(rapid.SampledFrom([]string{`"@method"`, `"@path"`, `"@query"`, `"@authority"`, `"@target-uri"`, `"@scheme"`, `"@request-target"`,
		`"content-type"`, `"content-digest"`, `"date"`, `"Date"`, `"@status"`, `"@query-param"`, `"@signature-params"`, `""`, `"a b"`,
		"tok", "7", "-1", "1.5", "?1", ":AAAA:", "@1", `%"x"`}))
	innerList := rapid.Custom(func(t *rapid.T) string {
		return "(" + strings.Join(rapid.SliceOfN(item, 0, 5).Draw(t, "items"), " ") + ")" + params.Draw(t, "params")
	})
	member := rapid.OneOf(
		innerList, innerList,
		rapid.Custom(func(t *rapid.T) string { return item.Draw(t, "item") + params.Draw(t, "params") }),
		rapid.Custom(func(t *rapid.T) string {
			return ":" + base64.StdEncoding.EncodeToString(rapid.SliceOfN(rapid.Byte(), 0, 70).Draw(t, "bytes")) + ":" + params.Draw(t, "params")
		}),
	)
	labels := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"sig1", "sig2", "sig-b26"}), 0, 3, rapid.ID[string])
	dictOf := func(t *rapid.T, labels []string) string {
		var out []string
		for _, l := range labels {
			if rapid.IntRange(0, 9).Draw(t, "bare") == 0 {
				out = append(out, l+params.Draw(t, "params"))
			} else {
				out = append(out, l+"="+member.Draw(t, "member"))
			}
		}
		return strings.Join(out, ", ")
	}
	text := rapid.OneOf(
		rapid.String(),
		rapid.Map(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 30), join("")),
		rapid.Custom(func(t *rapid.T) string { return dictOf(t, labels.Draw(t, "labels")) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		m := sigMessage()
		if rapid.Bool().Draw(t, "from a valid signature") {
			in, sig, err := firmakit.HTTPSigSign(m, firmakit.HTTPSigOptions{Components: sigComponents, Created: sigNow, WriteAlg: rapid.Bool().Draw(t, "alg")},
				rapid.SampledFrom([]firmakit.HTTPSigKey{hmacNew, edNew}).Draw(t, "key"))
			if err != nil {
				t.Fatal(err)
			}
			h := rapid.SampledFrom([]string{"Signature-Input", "Signature"}).Draw(t, "header")
			m.Header.Set("Signature-Input", in)
			m.Header.Set("Signature", sig)
			v := m.Header.Get(h)
			i := rapid.IntRange(0, len(v)-1).Draw(t, "index")
			m.Header.Set(h, v[:i]+string(rapid.Byte().Draw(t, "byte"))+v[i+1:])
		} else if rapid.Bool().Draw(t, "same labels") {
			l := labels.Draw(t, "labels")
			m.Header.Set("Signature-Input", dictOf(t, l))
			m.Header.Set("Signature", dictOf(t, l))
		} else {
			m.Header.Set("Signature-Input", text.Draw(t, "input"))
			m.Header.Set("Signature", text.Draw(t, "signature"))
		}
		o := firmakit.HTTPSigVerifyOptions{Label: rapid.SampledFrom([]string{"", "", "sig1", "sig2"}).Draw(t, "label"), Now: sigNow,
			Tolerance: rapid.SampledFrom([]time.Duration{0, time.Minute}).Draw(t, "tolerance")}
		_, err := firmakit.HTTPSigVerify(m, keys, o)
		if err != nil && !wrapsSentinel(err) {
			t.Fatalf("error %v wraps none of the sentinels", err)
		}
		cd := text.Draw(t, "content-digest")
		if err := firmakit.CheckContentDigest(cd, []byte("{}")); err != nil && !errors.Is(err, firmakit.ErrMalformedHeader) && !errors.Is(err, firmakit.ErrInvalidSignature) {
			t.Fatalf("Content-Digest %q: error %v wraps neither ErrMalformedHeader nor ErrInvalidSignature", cd, err)
		}
	})

	// Random text never verifies.
	rapid.Check(t, func(t *rapid.T) {
		m := sigMessage()
		m.Header.Set("Signature-Input", text.Draw(t, "input"))
		m.Header.Set("Signature", text.Draw(t, "signature"))
		if _, err := firmakit.HTTPSigVerify(m, keys, firmakit.HTTPSigVerifyOptions{Now: sigNow}); err == nil {
			t.Fatalf("random headers %q, %q verified", m.Header.Get("Signature-Input"), m.Header.Get("Signature"))
		}
	})
}

// Signing a webhook request with an HMAC key, and verifying it as the
// receiver does: the signature, then the body against the Content-Digest
// it covers.
func ExampleHTTPSigSign() {
	body := []byte(`{"hello": "world"}`)
	u, _ := url.Parse("https://example.com/foo?param=Value&Pet=dog")
	m := firmakit.HTTPSigMessage{Method: "POST", URL: u, Header: http.Header{
		"Content-Type":   {"application/json"},
		"Content-Digest": {firmakit.ContentDigest(body)},
	}}
	key := firmakit.HTTPSigKey{ID: "merchant-key-1", Alg: firmakit.HTTPSigHMACSHA256, Secret: []byte("a shared secret")}
	created := time.Unix(1618884473, 0)
	input, sig, err := firmakit.HTTPSigSign(m, firmakit.HTTPSigOptions{
		Components: []string{"@method", "@path", "@query", "content-digest"},
		Created:    created,
	}, key)
	if err != nil {
		panic(err)
	}
	fmt.Println("Content-Digest:", m.Header.Get("Content-Digest"))
	fmt.Println("Signature-Input:", input)

	m.Header.Set("Signature-Input", input)
	m.Header.Set("Signature", sig)
	r, err := firmakit.HTTPSigVerify(m, []firmakit.HTTPSigKey{key}, firmakit.HTTPSigVerifyOptions{
		Required: []string{"@method", "@path", "content-digest"}, Tolerance: 5 * time.Minute, Now: created.Add(time.Minute),
	})
	fmt.Println(r.Label, r.KeyID, err, firmakit.CheckContentDigest(m.Header.Get("Content-Digest"), body))
	// Output:
	// Content-Digest: sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:
	// Signature-Input: sig1=("@method" "@path" "@query" "content-digest");created=1618884473;keyid="merchant-key-1"
	// sig1 merchant-key-1 <nil> <nil>
}
