package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf16"
)

// CanonicalForm says which bytes a certificate's digest is taken over.
// RFC 8785 (the JSON Canonicalization Scheme) writes a JSON value one way
// only: object members sorted by key (as UTF-16 code units), no
// whitespace, strings with only '"', '\' and control characters escaped,
// numbers as ECMAScript writes them. Any JCS library recomputes it:
// sha256(jcs(certificate without "digest")).
const CanonicalForm = "RFC 8785 (JCS) of the certificate without its digest member"

// Digest lets a service provider check that a certificate.json is the
// one firmakit wrote: SHA256 is taken over the canonical form of every
// other member (CanonicalForm). Fields and Requirements keep the SHA-256
// of each top-level member's canonical form and of each requirement's
// entry, so that VerifyCertificate can say which one changed. It shows a
// change, not who made the file: anyone can compute a SHA-256.
type Digest struct {
	Algorithm    string            `json:"algorithm"` // "sha256"
	Canonical    string            `json:"canonical"` // CanonicalForm
	SHA256       string            `json:"sha256"`
	Fields       map[string]string `json:"fields"`
	Requirements map[string]string `json:"requirements"`
}

// ErrNoDigest is returned by VerifyCertificate for a certificate without
// a digest (one written before digests, or with it taken out).
var ErrNoDigest = errors.New("the certificate has no digest to check")

// DigestCheck is what VerifyCertificate found.
type DigestCheck struct {
	// Holds is true when the digest matches the certificate.
	Holds bool
	// SHA256 is the digest of the certificate as it is now; Recorded the
	// one it carries.
	SHA256, Recorded string
	// Changed names what differs from when the digest was taken, when it
	// does not hold: top-level members ("summary"), requirements
	// ("requirement AUTH-OK"), members added or removed ("added member
	// x", "removed requirement Y"). Empty when the digest does not match
	// but no member's own digest tells which changed.
	Changed []string
}

// sealCertificate sets c.Digest from the rest of c.
func sealCertificate(c *Certificate) error {
	c.Digest = Digest{}
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	doc, err := decodeObject(raw)
	if err != nil {
		return err
	}
	sum, fields, reqs, err := digests(doc)
	if err != nil {
		return err
	}
	c.Digest = Digest{Algorithm: "sha256", Canonical: CanonicalForm, SHA256: sum, Fields: fields, Requirements: reqs}
	return nil
}

// VerifyCertificate checks the digest of a certificate.json's content. It
// returns ErrNoDigest when there is none to check, and an error when data
// is not a JSON object or its digest is not one firmakit writes; a digest
// that does not match is not an error: see DigestCheck.Holds.
func VerifyCertificate(data []byte) (DigestCheck, error) {
	doc, err := decodeObject(data)
	if err != nil {
		return DigestCheck{}, fmt.Errorf("not a certificate: %w", err)
	}
	rawDigest, ok := doc["digest"]
	if !ok {
		return DigestCheck{}, ErrNoDigest
	}
	b, _ := json.Marshal(rawDigest)
	var d Digest
	if err := json.Unmarshal(b, &d); err != nil || d.SHA256 == "" {
		return DigestCheck{}, fmt.Errorf("%w: its digest member is not an object with sha256", ErrNoDigest)
	}
	if d.Algorithm != "sha256" {
		return DigestCheck{}, fmt.Errorf("digest algorithm %q: want sha256", d.Algorithm)
	}
	sum, fields, reqs, err := digests(doc)
	if err != nil {
		return DigestCheck{}, err
	}
	check := DigestCheck{Holds: sum == d.SHA256, SHA256: sum, Recorded: d.SHA256}
	if check.Holds {
		return check, nil
	}
	for _, k := range unionKeys(d.Fields, fields) {
		was, had := d.Fields[k]
		now, has := fields[k]
		switch {
		case !had:
			check.Changed = append(check.Changed, "added member "+k)
		case !has:
			check.Changed = append(check.Changed, "removed member "+k)
		case was != now && k == "requirements":
			n := len(check.Changed)
			for _, tag := range unionKeys(d.Requirements, reqs) {
				was, had := d.Requirements[tag]
				now, has := reqs[tag]
				switch {
				case !had:
					check.Changed = append(check.Changed, "added requirement "+tag)
				case !has:
					check.Changed = append(check.Changed, "removed requirement "+tag)
				case was != now:
					check.Changed = append(check.Changed, "requirement "+tag)
				}
			}
			if len(check.Changed) == n {
				check.Changed = append(check.Changed, k)
			}
		case was != now:
			check.Changed = append(check.Changed, k)
		}
	}
	return check, nil
}

// digests returns the SHA-256 of the canonical form of doc without its
// digest member, of each other member, and of each requirement entry by
// its tag.
func digests(doc map[string]any) (string, map[string]string, map[string]string, error) {
	rest := map[string]any{}
	fields := map[string]string{}
	for k, v := range doc {
		if k == "digest" {
			continue
		}
		rest[k] = v
		sum, err := canonicalSHA256(v)
		if err != nil {
			return "", nil, nil, fmt.Errorf("member %s: %w", k, err)
		}
		fields[k] = sum
	}
	reqs := map[string]string{}
	if list, ok := doc["requirements"].([]any); ok {
		for i, r := range list {
			tag := fmt.Sprintf("#%d", i)
			if m, ok := r.(map[string]any); ok {
				if t, ok := m["tag"].(string); ok {
					tag = t
				}
			}
			sum, err := canonicalSHA256(r)
			if err != nil {
				return "", nil, nil, err
			}
			reqs[tag] = sum
		}
	}
	sum, err := canonicalSHA256(rest)
	return sum, fields, reqs, err
}

func canonicalSHA256(v any) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, errors.New("not a JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return doc, nil
}

func unionKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// Canonical writes a decoded JSON value (maps, slices, strings,
// json.Number or float64, bools, nil) in the canonical form of RFC 8785.
// It returns an error for any other type and for numbers JSON cannot
// hold.
func Canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	err := canonical(&b, v)
	return b.Bytes(), err
}

func canonical(b *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case string:
		canonicalString(b, t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return fmt.Errorf("number %s: %w", t, err)
		}
		return canonical(b, f)
	case float64:
		// encoding/json writes a float64 as ECMAScript does, which is
		// what RFC 8785 asks.
		n, err := json.Marshal(t)
		if err != nil {
			return err
		}
		b.Write(n)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := canonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalString(b, k)
			b.WriteByte(':')
			if err := canonical(b, t[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("canonical JSON: unexpected %T", v)
	}
	return nil
}

// canonicalString escapes as RFC 8785 does: '"', '\' and the control
// characters, the usual five by their short forms.
func canonicalString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// lessUTF16 orders strings by their UTF-16 code units, as RFC 8785 sorts
// member names.
func lessUTF16(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}
