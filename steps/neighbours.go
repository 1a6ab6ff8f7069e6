package steps

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cucumber/godog"
	"golang.org/x/text/unicode/norm"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/receiver"
	"github.com/firmakit/firmakit/reports"
	"github.com/firmakit/firmakit/steps/engine"
)

// Rows by operator. A listed row covers one case; a service that is wrong
// one step away from it passes. An operator derives, from the valid
// request of a scenario, every neighbour of one kind (a key one character
// longer at either end, a signature behind a prefix, a body cut across a
// multi-byte character at the limit, a title with a line break) and knows,
// from the rule it serves, how each neighbour must be answered. Where no
// sentence of the documents decides a neighbour's answer, the operator
// does not send it, or judges only what a sentence does decide (never a
// 5xx, the error body's shape): precision holds.

// Operator classes, as the rule table's operator column and make power
// group them.
const (
	ClassIdentifier = "identifier"  // a value compared to one the service knows
	ClassHeaderForm = "header-form" // how a header's value is written
	ClassFraming    = "framing"     // how the body is framed on the wire
	ClassEncoding   = "encoding"    // how the JSON body is written
	ClassEcho       = "echo"        // a value the service must echo byte for byte
	ClassDemo       = "demo"        // how the demo prefix is represented
	ClassWorld      = "world"       // requests around the one under test
)

// neighbour is one request an operator derives from a scenario's valid
// request: what it is (for a failure's message), how it changes the
// request, and how its answer is judged.
type neighbour struct {
	name  string
	apply func(v *scenario) error
	judge func(s *Steps, ctx context.Context) error
}

// operator derives the neighbours of a scenario's request.
type operator struct {
	Class string
	Value string // what it changes
	Want  string // how its neighbours are judged (neighbourSentences)
	// Ref is the rule its neighbours are judged by (a ref of the rule
	// table); Only names the one target it is sent to, when the rule
	// applies to more (empty: every target of the rule).
	Ref, Only string
	derive    func(s *Steps, sc *scenario) ([]neighbour, string)
	// together sends the neighbours all at the same instant; all judges
	// them together, once each was judged.
	together bool
	all      func(ns []sentNeighbour) error
}

// Operators are the service suite's operators, by name; the features'
// Examples name them in an "operator" column.
var operators = map[string]operator{
	"key-case":             {ClassIdentifier, "credential key", wantInvalidCredentials, "defaults §A check 3", "", keyNeighbours(caseNeighbours), false, nil},
	"key-one-more":         {ClassIdentifier, "credential key", wantInvalidCredentials, "defaults §A check 3", "", keyNeighbours(oneMore), false, nil},
	"key-one-less":         {ClassIdentifier, "credential key", wantInvalidCredentials, "defaults §A check 3", "", keyNeighbours(oneLess), false, nil},
	"key-look-alike":       {ClassIdentifier, "credential key", wantInvalidCredentials, "defaults §A check 3", "", keyNeighbours(lookAlikes), false, nil},
	"merchant-case":        {ClassIdentifier, "merchant segment", wantInvalidCredentials, "defaults §A check 3", "", merchantNeighbours(caseNeighbours), false, nil},
	"merchant-one-more":    {ClassIdentifier, "merchant segment", wantInvalidCredentials, "defaults §A check 3", "", merchantNeighbours(oneMore), false, nil},
	"merchant-one-less":    {ClassIdentifier, "merchant segment", wantInvalidCredentials, "defaults §A check 3", "", merchantNeighbours(oneLess), false, nil},
	"merchant-look-alike":  {ClassIdentifier, "merchant segment", wantInvalidCredentials, "defaults §A check 3", "", merchantNeighbours(lookAlikes), false, nil},
	"document-name":        {ClassIdentifier, "document name", wantBadRequest, "defaults §C bullet 1", "", fieldNeighbours("document"), false, nil},
	"signer-key":           {ClassIdentifier, "signer key", wantBadRequest, "defaults §C bullet 2", "", fieldNeighbours("signer"), false, nil},
	"data-key":             {ClassIdentifier, "data key", wantBadRequest, "defaults §C bullet 3", "", fieldNeighbours("data"), false, nil},
	"routing-value":        {ClassIdentifier, "routing", wantBadRequest, "defaults §C bullet 4", "", fieldNeighbours("routing"), false, nil},
	"signature-prefix":     {ClassHeaderForm, "signature header", wantInvalidSignature, "defaults §A check 4", "", signatureNeighbours(sigPrefixes), false, nil},
	"signature-whitespace": {ClassHeaderForm, "signature header", wantInvalidSignature, "defaults §A check 4", "", signatureNeighbours(sigWhitespace), false, nil},
	"signature-encoding":   {ClassHeaderForm, "signature header", wantInvalidSignature, "defaults §A check 4", "", signatureNeighbours(sigOtherEncodings), false, nil},
	"signature-length":     {ClassHeaderForm, "signature header", wantInvalidSignature, "defaults §A check 4", "", signatureNeighbours(sigLengths), false, nil},
	"signature-alphabet":   {ClassHeaderForm, "signature header", wantInvalidSignature, "defaults §A check 4", "", signatureNeighbours(sigAlphabet), false, nil},
	"signature-case":       {ClassHeaderForm, "signature header", wantAccepted, "defaults §A check 4", "", sigCase, false, nil},
	"timestamp-digits":     {ClassHeaderForm, "timestamp header", wantExpired, "defaults §A check 2", "", stampNeighbours(stampDigits), false, nil},
	"timestamp-separators": {ClassHeaderForm, "timestamp header", wantExpired, "defaults §A check 2", "", stampNeighbours(stampSeparators), false, nil},
	"timestamp-notation":   {ClassHeaderForm, "timestamp header", wantExpired, "defaults §A check 2", "", stampNeighbours(stampNotations), false, nil},
	"body-framing":         {ClassFraming, "body", wantLimit, "defaults §A paragraph 5", "", bodyFraming, false, nil},
	"body-escapes":         {ClassEncoding, "body", wantAcceptedDecoded, "defaults §A check 5", "", bodyEscapes, false, nil},
	"body-controls":        {ClassEncoding, "body", wantBadRequest, "defaults §A check 5", "", bodyControls, false, nil},
	"body-open":            {ClassEncoding, "body", wantNo5xx, "defaults §A paragraph 5", "check", bodyOpen, false, nil},
	"title-echo":           {ClassEcho, "title", wantEcho, "§2.2 title", "", echoNeighbours("title"), false, nil},
	"demo-escaped":         {ClassDemo, "title", wantNotified, "defaults §D bullet 1", "", demoEscaped, false, nil},
	"demo-near":            {ClassDemo, "title", wantNotNotified, "defaults §D bullet 1", "", demoNear, false, nil},
	"many-at-once":         {ClassWorld, "contract", wantEachOwn, "defaults §D bullet 1", "", manyAtOnce, true, distinctIDs},
}

// operatorNote begins the part of a result's example that names the
// operator whose neighbours its row sent.
const operatorNote = "neighbours by "

// OperatorOf is the operator whose neighbours a result's row sent (read
// from its example), "" for a listed row.
func OperatorOf(example string) string {
	_, after, ok := strings.Cut(example, operatorNote)
	if !ok {
		return ""
	}
	op, err := strconv.Unquote(after)
	if err != nil {
		return ""
	}
	return op
}

// OperatorClass is the class of the named operator, "" for none: the
// rule table's operator column reads it.
func OperatorClass(name string) string { return operators[name].Class }

// OperatorRule is the rule the named operator's neighbours are judged
// by, and the one target it is sent to when the rule has more ("" for
// all).
func OperatorRule(name string) (ref, only string) { return operators[name].Ref, operators[name].Only }

// OperatorNames lists every operator, sorted.
func OperatorNames() []string {
	out := make([]string, 0, len(operators))
	for n := range operators {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// --- identifiers -----------------------------------------------------

// caseNeighbours are id with one letter's case changed (the first, the
// last) and with every letter's.
func caseNeighbours(id string) []string {
	var out []string
	swap := func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}
	rs := []rune(id)
	first, last := -1, -1
	for i, r := range rs {
		if unicode.IsLetter(r) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for _, i := range []int{first, last} {
		if i >= 0 {
			c := slices.Clone(rs)
			c[i] = swap(c[i])
			out = append(out, string(c))
		}
	}
	all := strings.Map(swap, id)
	out = append(out, all)
	return out
}

// oneMore is id with one character more at either end: a separator, a
// digit, a letter and its own first or last character again.
func oneMore(id string) []string {
	var out []string
	if id == "" {
		return nil
	}
	first, _ := utf8.DecodeRuneInString(id)
	last, _ := utf8.DecodeLastRuneInString(id)
	for _, c := range []string{"_", "0", "x", string(last)} {
		out = append(out, id+c)
	}
	for _, c := range []string{"_", "0", "x", string(first)} {
		out = append(out, c+id)
	}
	return out
}

// oneLess is id with one character less at either end.
func oneLess(id string) []string {
	if utf8.RuneCountInString(id) < 2 {
		return nil
	}
	_, n := utf8.DecodeRuneInString(id)
	_, m := utf8.DecodeLastRuneInString(id)
	return []string{id[n:], id[:len(id)-m]}
}

// lookAlikes is id with a letter replaced by one that looks the same or
// that Unicode compatibility folding (NFKC) turns into it: a Cyrillic
// letter, the fullwidth form of the whole id, a ligature.
func lookAlikes(id string) []string {
	var out []string
	cyr := map[rune]rune{'a': 'а', 'e': 'е', 'o': 'о', 'c': 'с', 'p': 'р', 'x': 'х', 'y': 'у'}
	for i, r := range id {
		if c, ok := cyr[r]; ok {
			out = append(out, id[:i]+string(c)+id[i+1:])
			break
		}
	}
	full := strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7f {
			return r + 0xFEE0
		}
		return r
	}, id)
	if full != id {
		out = append(out, full)
	}
	if i := strings.Index(id, "fi"); i >= 0 {
		out = append(out, id[:i]+"ﬁ"+id[i+2:])
	}
	return out
}

// keyNeighbours signs, with the merchant's own secret, a request under
// each neighbour of its credential key: a key is compared exactly
// (defaults §A check 3), so each is unknown.
func keyNeighbours(derive func(string) []string) func(*Steps, *scenario) ([]neighbour, string) {
	return func(s *Steps, sc *scenario) ([]neighbour, string) {
		own := sc.cred
		var out []neighbour
		for _, k := range derive(own.KeyID) {
			if k == own.KeyID || k == s.T.Other.KeyID || k == s.T.Disabled.KeyID || !headerSafe(k) {
				continue
			}
			out = append(out, neighbour{
				name:  fmt.Sprintf("key %q", k),
				apply: func(v *scenario) error { v.cred = firmakit.Credential{KeyID: k, Secret: own.Secret}; return nil },
				judge: refusedWith(http.StatusUnauthorized, firmakit.ErrInvalidCredentials.Error()),
			})
		}
		return out, "the merchant's key has no such neighbour"
	}
}

// merchantNeighbours sends the merchant's own key on a path whose
// merchant segment is each neighbour of the merchant's id: the key is
// owned by another merchant than the path names (defaults §A check 3).
func merchantNeighbours(derive func(string) []string) func(*Steps, *scenario) ([]neighbour, string) {
	return func(s *Steps, sc *scenario) ([]neighbour, string) {
		own := s.T.MerchantID
		var out []neighbour
		for _, m := range derive(own) {
			if m == own {
				continue
			}
			seg := url.PathEscape(m)
			out = append(out, neighbour{
				name:  fmt.Sprintf("merchant segment %q", seg),
				apply: func(v *scenario) error { v.merchant = &seg; return nil },
				judge: refusedWith(http.StatusUnauthorized, firmakit.ErrInvalidCredentials.Error()),
			})
		}
		return out, "the merchant's id has no such neighbour"
	}
}

// valueNeighbours are the neighbours of a value the service compares
// with the ones it assigned: another case, a character more or less,
// white space around (inside a JSON string it is part of the value), a
// leading zero before a number in it, look-alike letters.
func valueNeighbours(id string) []string {
	out := slices.Concat(caseNeighbours(id), oneMore(id), oneLess(id), lookAlikes(id), []string{" " + id, id + " ", id + "\t"})
	if i := strings.IndexAny(id, "0123456789"); i >= 0 {
		out = append(out, id[:i]+"0"+id[i:])
	}
	return out
}

// fieldNeighbours sends a create request with one of its assigned values
// (the template's name, a signer key, a data key, the routing) replaced by
// each of its neighbours: the documents compare them exactly (defaults §C
// bullets 1 to 4), so each is refused with a 400 naming the problem.
func fieldNeighbours(field string) func(*Steps, *scenario) ([]neighbour, string) {
	return func(s *Steps, sc *scenario) ([]neighbour, string) {
		if sc.endpoint != "signature" {
			return nil, "only a create request holds documents, signers, data and a routing"
		}
		body, err := cloneBody(sc.body)
		if err != nil {
			return nil, err.Error()
		}
		var valid string
		switch field {
		case "document":
			docs, _ := body["documents"].([]any)
			if len(docs) > 0 {
				valid, _ = docs[0].(string)
			}
		case "signer":
			signers, _ := body["signers"].([]any)
			if len(signers) > 0 {
				first, _ := signers[0].(map[string]any)
				valid, _ = first["key"].(string)
			}
		case "data":
			data, _ := body["data"].(map[string]any)
			keys := make([]string, 0, len(data))
			for k := range data {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if len(keys) > 0 {
				valid = keys[0]
			}
		case "routing":
			valid = "parallel"
		}
		if valid == "" {
			return nil, fmt.Sprintf("the create request has no %s to derive from", field)
		}
		var out []neighbour
		for _, n := range valueNeighbours(valid) {
			if n == valid {
				continue
			}
			out = append(out, neighbour{
				name: fmt.Sprintf("%s %q for %q", field, n, valid),
				apply: func(v *scenario) error {
					body, err := cloneBody(v.body)
					if err != nil {
						return err
					}
					switch field {
					case "document":
						body["documents"].([]any)[0] = n
					case "signer":
						body["signers"].([]any)[0].(map[string]any)["key"] = n
					case "data":
						data := body["data"].(map[string]any)
						data[n] = data[valid]
						delete(data, valid)
					case "routing":
						body["routing"] = n
					}
					v.body = body
					return nil
				},
				judge: badRequest,
			})
		}
		return out, ""
	}
}

// headerSafe says whether v can go as a header value as it is: no
// control characters, no white space at either end (a reader drops it).
func headerSafe(v string) bool {
	if v == "" || strings.TrimSpace(v) != v {
		return false
	}
	for _, r := range v {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// --- header forms ----------------------------------------------------

// sigForm is a neighbour of the right signature's header value: what it
// is, and how it is written from the right one.
type sigForm struct {
	what  string
	write func(sig string) string
}

// signatureNeighbours sends each neighbour of the right signature: the
// same bytes written another way than the profile's encoding, or not the
// signature at all; each is "not hex, or not equal to the expected HMAC"
// (defaults §A check 4), refused with Invalid signature. A form that the
// profile's own decoder reads as the same bytes (base64 without its
// padding, where the profile's decoder takes both) is the signature, not
// a neighbour: it is not sent.
func signatureNeighbours(derive func(p *firmakit.Profile) []sigForm) func(*Steps, *scenario) ([]neighbour, string) {
	return func(s *Steps, sc *scenario) ([]neighbour, string) {
		var out []neighbour
		p := s.T.Profile
		sample := p.RequestSignature("firmakit", firmakit.RequestParts{Timestamp: "1"})
		want, _ := p.DecodeRequestSignature(sample)
		for _, f := range derive(p) {
			form := f.write(sample)
			if form == sample {
				continue
			}
			if got, err := p.DecodeRequestSignature(form); err == nil && bytes.Equal(got, want) {
				continue
			}
			out = append(out, neighbour{
				name:  "the signature " + f.what,
				apply: func(v *scenario) error { v.sigForm = f.write; return nil },
				judge: refusedWith(http.StatusUnauthorized, firmakit.ErrInvalidSignature.Error()),
			})
		}
		return out, fmt.Sprintf("the profile's %s signatures have no such neighbour", p.Request.Encoding)
	}
}

func sigPrefixes(*firmakit.Profile) []sigForm {
	var out []sigForm
	for _, pre := range []string{"sha256=", "hmac-sha256=", "v1=", "0x", "SHA256:", "Signature "} {
		out = append(out, sigForm{fmt.Sprintf("behind %q", pre), func(sig string) string { return pre + sig }})
	}
	return out
}

func sigWhitespace(*firmakit.Profile) []sigForm {
	return []sigForm{
		{"with a space in its middle", func(sig string) string { h := len(sig) / 2; return sig[:h] + " " + sig[h:] }},
		{"with a tab in its middle", func(sig string) string { h := len(sig) / 2; return sig[:h] + "\t" + sig[h:] }},
		{"with a space after its second character", func(sig string) string { return sig[:2] + " " + sig[2:] }},
		{"with two spaces in its middle", func(sig string) string { h := len(sig) / 2; return sig[:h] + "  " + sig[h:] }},
	}
}

// sigOtherEncodings are the signature's bytes in the encodings the
// profile does not use: base64's for a hex profile, hex for a base64 one.
// Among base64's own variants (padding, URL-safe alphabet) no sentence
// decides what a base64 profile's reader takes: they are not sent.
func sigOtherEncodings(p *firmakit.Profile) []sigForm {
	redo := func(enc func([]byte) string) func(string) string {
		return func(sig string) string {
			b, err := p.DecodeRequestSignature(sig)
			if err != nil {
				return sig
			}
			return enc(b)
		}
	}
	hexForms := []sigForm{
		{"in hex", redo(hex.EncodeToString)},
		{"in upper-case hex", redo(func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) })},
	}
	if !strings.EqualFold(p.Request.Encoding, "hex") {
		return hexForms
	}
	return []sigForm{
		{"in base64", redo(base64.StdEncoding.EncodeToString)},
		{"in base64 without padding", redo(base64.RawStdEncoding.EncodeToString)},
		{"in URL-safe base64", redo(base64.URLEncoding.EncodeToString)},
		{"in URL-safe base64 without padding", redo(base64.RawURLEncoding.EncodeToString)},
	}
}

func sigLengths(*firmakit.Profile) []sigForm {
	return []sigForm{
		{"without its last character", func(sig string) string { return sig[:len(sig)-1] }},
		{"without its last two characters", func(sig string) string { return sig[:len(sig)-2] }},
		{"without its first character", func(sig string) string { return sig[1:] }},
		{`with "0" after it`, func(sig string) string { return sig + "0" }},
		{`with "00" after it`, func(sig string) string { return sig + "00" }},
		{"twice", func(sig string) string { return sig + sig }},
	}
}

// sigAlphabet replaces one character of the signature by one outside its
// alphabet: a letter past f, a fullwidth digit, a character of base64.
func sigAlphabet(p *firmakit.Profile) []sigForm {
	at := func(c string) func(string) string {
		return func(sig string) string { h := len(sig) / 2; return sig[:h] + c + sig[h+1:] }
	}
	if !strings.EqualFold(p.Request.Encoding, "hex") {
		return []sigForm{{`with "!" for a character`, at("!")}, {`with "~" for a character`, at("~")}, {"with a fullwidth letter for a character", at("Ａ")}}
	}
	return []sigForm{{`with "g" for a character`, at("g")}, {`with "G" for a character`, at("G")}, {`with "+" for a character`, at("+")}, {"with a fullwidth digit for a character", at("０")}}
}

// sigCase is the accepting side: a hex signature with letters in another
// case decodes to the same bytes, which are compared (defaults §A check
// 4), so every such form is accepted.
func sigCase(s *Steps, sc *scenario) ([]neighbour, string) {
	p := s.T.Profile
	if !strings.EqualFold(p.Request.Encoding, "hex") {
		return nil, fmt.Sprintf("the profile's request signatures are %s, which has no case variant", p.Request.Encoding)
	}
	forms := []func(string) string{
		strings.ToUpper,
		func(sig string) string { // alternate letters upper case
			b := []byte(sig)
			up := false
			for i, c := range b {
				if c >= 'a' && c <= 'f' {
					if up {
						b[i] = c - 'a' + 'A'
					}
					up = !up
				}
			}
			return string(b)
		},
		func(sig string) string { // the first letter only
			i := strings.IndexAny(sig, "abcdef")
			if i < 0 {
				return sig
			}
			return sig[:i] + strings.ToUpper(sig[i:i+1]) + sig[i+1:]
		},
	}
	var out []neighbour
	for i, f := range forms {
		out = append(out, neighbour{
			name:  fmt.Sprintf("signature in case form %d", i+1),
			apply: func(v *scenario) error { v.sigForm = f; return nil },
			judge: accepted,
		})
	}
	return out, ""
}

// stampNeighbours writes the current time otherwise than base-10 ASCII
// digits, signed as sent: "timestamp not a base-10 integer" (defaults §A
// check 2), refused with Request expired.
func stampNeighbours(forms func(sec string) []string) func(*Steps, *scenario) ([]neighbour, string) {
	return func(s *Steps, sc *scenario) ([]neighbour, string) {
		var out []neighbour
		for i := range forms("1763805600") {
			out = append(out, neighbour{
				name: fmt.Sprintf("timestamp %q", forms("1763805600")[i]),
				apply: func(v *scenario) error {
					v.stamp = func(now time.Time) string { return forms(strconv.FormatInt(now.Unix(), 10))[i] }
					return nil
				},
				judge: refusedWith(http.StatusUnauthorized, firmakit.ErrExpired.Error()),
			})
		}
		return out, ""
	}
}

// stampDigits are the current time in other scripts' decimal digits, all
// of which Unicode calls digits and a loose parser may read.
func stampDigits(sec string) []string {
	var out []string
	for _, zero := range []rune{'０', '٠', '۰', '०', '𝟎'} {
		out = append(out, strings.Map(func(r rune) rune { return zero + (r - '0') }, sec))
	}
	return out
}

func stampSeparators(sec string) []string {
	return []string{
		sec[:1] + "," + sec[1:4] + "," + sec[4:7] + "," + sec[7:],
		sec[:1] + "_" + sec[1:4] + "_" + sec[4:7] + "_" + sec[7:],
		sec[:4] + "\t" + sec[4:],
		sec[:5] + "." + sec[5:],
	}
}

func stampNotations(sec string) []string {
	return []string{sec + "e0", sec + "E0", sec[:1] + "." + sec[1:] + "e9", sec + ".00", sec + ".", "0" + "x" + strings.ToUpper(hexOf(sec)), sec + "n", "0o" + octOf(sec)}
}

func hexOf(sec string) string { n, _ := strconv.ParseInt(sec, 10, 64); return strconv.FormatInt(n, 16) }
func octOf(sec string) string { n, _ := strconv.ParseInt(sec, 10, 64); return strconv.FormatInt(n, 8) }

// --- the body --------------------------------------------------------

// bodyLimit is the profile's body limit (defaults §A paragraph 5).
const bodyLimit = 1 << 20

// bodyFraming sends bodies exactly at and one byte past the limit, with
// text of 1- to 4-byte characters (a limit counted in characters is not
// one in bytes), each with its length stated and chunked (a limit read
// off Content-Length is no limit): a body up to the limit is read, a
// larger one refused with 413, however it is framed.
func bodyFraming(s *Steps, sc *scenario) ([]neighbour, string) {
	var out []neighbour
	for _, chunked := range []bool{false, true} {
		frame := "with Content-Length"
		if chunked {
			frame = "chunked"
		}
		// One-byte text, and four-byte text, whose bytes outnumber its
		// characters the most: a limit counted in characters lets the
		// most through it.
		for _, ch := range []string{"a", "𝄞"} {
			for _, size := range []int{bodyLimit, bodyLimit + 1} {
				judge := accepted
				if size > bodyLimit {
					judge = statusIs(http.StatusRequestEntityTooLarge)
				}
				out = append(out, neighbour{
					name: fmt.Sprintf("a body of %d bytes of %d-byte text, %s", size, len(ch), frame),
					apply: func(v *scenario) error {
						b, err := paddedBody(v, size, ch)
						v.rawBody, v.chunked = b, chunked
						return err
					},
					judge: judge,
				})
			}
		}
	}
	return out, ""
}

// paddedBody is the scenario's request (on the check endpoint, an object
// with one string) grown to exactly size bytes with text of ch.
func paddedBody(v *scenario, size int, ch string) ([]byte, error) {
	const marker = "firmakit-padding-marker"
	var body any = map[string]any{"padding": marker}
	if v.endpoint != "check" {
		// The first data value grows: the body stays the create request
		// the endpoint takes.
		b, err := cloneBody(v.body)
		if err != nil {
			return nil, err
		}
		data, _ := b["data"].(map[string]any)
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if len(keys) == 0 {
			return nil, fmt.Errorf("the create request has no data value to grow")
		}
		data[keys[0]] = marker
		body = b
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(b, []byte(marker))
	room := size - (len(b) - len(marker))
	if room < 0 {
		return nil, fmt.Errorf("the request is %d bytes, more than the %d asked for", len(b)-len(marker), size)
	}
	// Text of ch (on the create endpoint, as much as a data value is
	// sure to take), then ASCII letters, or on the create endpoint white
	// space before the closing brace, to the size: a limit counted in
	// characters rather than bytes lets the larger bodies in.
	n := room / len(ch)
	if v.endpoint != "check" {
		n = min(n, createValueRunes)
	}
	rest := room - n*len(ch)
	if v.endpoint == "check" {
		return slices.Concat(b[:i], []byte(strings.Repeat("a", rest)+strings.Repeat(ch, n)), b[i+len(marker):]), nil
	}
	tail := b[i+len(marker):]
	return slices.Concat(b[:i], []byte(strings.Repeat(ch, n)), tail[:len(tail)-1], bytes.Repeat([]byte(" "), rest), tail[len(tail)-1:]), nil
}

// createValueRunes is how many characters a data value of a create
// request holds in the framing rows: a service may bound a value's
// length, and the documents name no bound.
const createValueRunes = 2000

// bodyEscapes writes the request with JSON escapes where a reader of raw
// text would not find the names and values it looks for: every key and
// string value escaped character by character (\u0074 for t), and
// non-ASCII text as surrogate pairs. The same request to any JSON reader
// (RFC 8259 §7), so it is accepted, and a create echoes the decoded title.
func bodyEscapes(s *Steps, sc *scenario) ([]neighbour, string) {
	var out []neighbour
	for _, how := range []string{"every character", "keys only", "values only", "solidus and surrogates"} {
		out = append(out, neighbour{
			name: fmt.Sprintf("the request with JSON escapes in %s", how),
			apply: func(v *scenario) error {
				body := v.body
				if v.endpoint == "check" {
					body = map[string]any{"titular": "Ana Pérez / 😀", "monto": 450000}
				}
				b, err := escapedJSON(body, how)
				v.rawBody = b
				return err
			},
			judge: acceptedEchoing,
		})
	}
	return out, ""
}

// escapedJSON writes v as JSON with its strings escaped as how says.
func escapedJSON(v any, how string) ([]byte, error) {
	var b bytes.Buffer
	var write func(v any, key bool) error
	str := func(s string, esc bool) {
		b.WriteByte('"')
		for _, r := range s {
			switch {
			case how == "solidus and surrogates" && r == '/':
				b.WriteString(`\/`)
			case how == "solidus and surrogates" && r > 0xFFFF:
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04x\u%04X`, r1, r2)
			case esc && r <= 0xFFFF:
				fmt.Fprintf(&b, `\u%04x`, r)
			case esc:
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			default:
				e, _ := json.Marshal(string(r))
				b.Write(e[1 : len(e)-1])
			}
		}
		b.WriteByte('"')
	}
	write = func(v any, _ bool) error {
		switch x := v.(type) {
		case map[string]any:
			b.WriteByte('{')
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				str(k, how == "every character" || how == "keys only")
				b.WriteByte(':')
				if err := write(x[k], false); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := write(e, false); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		case string:
			str(x, how == "every character" || how == "values only")
		default:
			e, err := json.Marshal(x)
			if err != nil {
				return err
			}
			b.Write(e)
		}
		return nil
	}
	err := write(v, false)
	return b.Bytes(), err
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// bodyControls puts a control character unescaped inside a string of the
// request: JSON allows none (RFC 8259 §7), so the body is not JSON
// (defaults §A check 5), refused with a 400 naming the problem.
func bodyControls(s *Steps, sc *scenario) ([]neighbour, string) {
	var out []neighbour
	for _, c := range []byte{0x00, 0x01, '\t', '\n', '\r', 0x1b, 0x1f} {
		out = append(out, neighbour{
			name: fmt.Sprintf("a string holding the raw byte 0x%02x", c),
			apply: func(v *scenario) error {
				b, err := v.bodyBytes()
				if err != nil {
					return err
				}
				if v.endpoint == "check" {
					b = []byte(`{"titular":"Ana Pérez"}`)
				}
				i := bytes.Index(b, []byte(`":"`))
				if i < 0 {
					return fmt.Errorf("the request has no string value")
				}
				i += 3 // at the head of the first string value
				v.rawBody = slices.Concat(b[:i], []byte{c}, b[i:])
				return nil
			},
			judge: badRequest,
		})
	}
	return out, ""
}

// bodyOpen sends bodies whose answer no sentence decides: a byte order
// mark, a key twice, deep nesting, numbers past a double's range, text
// that is not UTF-8 (RFC 8259 leaves a parser free to take or refuse
// each). What is decided is judged: no client input may produce a 5xx
// (defaults §A paragraph 5), and a refusal's body has the documented
// shape; anything else is the service's choice.
func bodyOpen(s *Steps, sc *scenario) ([]neighbour, string) {
	if sc.endpoint != "check" {
		return nil, "the open encodings are sent to the check endpoint, whose body is any JSON object"
	}
	bodies := map[string][]byte{
		"a byte order mark":         []byte("\xef\xbb\xbf{}"),
		"a key twice":               []byte(`{"monto":1,"monto":2}`),
		"10,000 nested arrays":      []byte(`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`),
		"100,000 nested objects":    []byte(strings.Repeat(`{"a":`, 100000) + `{}` + strings.Repeat("}", 100000)),
		"a number past a double":    []byte(`{"monto":1e400}`),
		"a number under a double":   []byte(`{"monto":1e-400}`),
		"a 400-digit integer":       []byte(`{"monto":` + strings.Repeat("9", 400) + `}`),
		"a lone surrogate escaped":  []byte(`{"a":"\ud800"}`),
		"a byte that is not UTF-8":  []byte("{\"a\":\"\xff\"}"),
		"an overlong UTF-8 slash":   []byte("{\"a\":\"\xc0\xaf\"}"),
		"a surrogate in UTF-8":      []byte("{\"a\":\"\xed\xa0\x80\"}"),
		"U+0000 escaped in a key":   []byte(`{"\u0000":1}`),
		"U+FFFF and U+FFFE escaped": []byte(`{"a":"\uffff\ufffe"}`),
	}
	names := make([]string, 0, len(bodies))
	for n := range bodies {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []neighbour
	for _, n := range names {
		b := bodies[n]
		out = append(out, neighbour{
			name:  "a body with " + n,
			apply: func(v *scenario) error { v.rawBody = b; return nil },
			judge: notAServerError,
		})
	}
	return out, ""
}

// --- echoes ----------------------------------------------------------

// echoBase is the text the echo operators change: accented, so that its
// normalization forms differ.
const echoBase = "Contrato de arriendo ñandú 42"

// echoForms are the echo neighbours of a text: line breaks and tabs where
// text has none, line and paragraph separators, NEL, invisible characters,
// its decomposed form, markup and escapes that a writer may change.
func echoForms(base string) map[string]string {
	h := strings.Index(base, " ") + 1
	ins := func(s string) string { return base[:h] + s + base[h:] }
	return map[string]string{
		"a line feed":               ins("\n"),
		"CR LF":                     ins("\r\n"),
		"a carriage return":         ins("\r"),
		"a line feed at the end":    base + "\n",
		"a line feed at the start":  "\n" + base,
		"a tab at the end":          base + "\t",
		"U+2028":                    ins("\u2028"),
		"U+2029":                    ins("\u2029"),
		"NEL (U+0085)":              ins("\u0085"),
		"a no-break space":          ins("\u00a0"),
		"a zero-width space":        ins("\u200b"),
		"a byte order mark inside":  ins("\ufeff"),
		"the decomposed form (NFD)": norm.NFD.String(base),
		"the composed form (NFC)":   norm.NFC.String(norm.NFD.String(base)),
		"markup":                    ins(`<script>alert("x")</script> &amp; `),
		"backslashes and quotes":    ins(`\"\\n\u00f1" '`),
		"a bidi override":           ins("\u202eabc\u202c"),
	}
}

// echoNeighbours sends each echo neighbour as the contract's title or
// its first signer's name: "echoed from the request" (interface §2.2)
// means byte for byte.
func echoNeighbours(field string) func(*Steps, *scenario) ([]neighbour, string) {
	return func(s *Steps, sc *scenario) ([]neighbour, string) {
		if sc.endpoint != "signature" {
			return nil, "only a create echoes a title and names"
		}
		forms := echoForms(echoBase)
		names := make([]string, 0, len(forms))
		for n := range forms {
			names = append(names, n)
		}
		slices.Sort(names)
		var out []neighbour
		for _, n := range names {
			text := forms[n]
			if field == "name" {
				text = strings.Replace(text, echoBase, "Ana Pérez", 1)
				text = strings.Replace(text, norm.NFD.String(echoBase), norm.NFD.String("Ana Pérez"), 1)
			}
			out = append(out, neighbour{
				name: fmt.Sprintf("a %s with %s: %q", field, n, text),
				apply: func(v *scenario) error {
					body, err := cloneBody(v.body)
					if err != nil {
						return err
					}
					if field == "title" {
						body["title"] = text
						v.titleSent = text
					} else {
						signers, _ := body["signers"].([]any)
						if len(signers) == 0 {
							return fmt.Errorf("the create request has no signer")
						}
						first, _ := signers[0].(map[string]any)
						first["name"] = text
					}
					v.body = body
					return nil
				},
				judge: echoes(field, text),
			})
		}
		return out, ""
	}
}

// cloneBody is a deep copy of a create request.
func cloneBody(body any) (map[string]any, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	err = json.Unmarshal(b, &out)
	return out, err
}

// --- the demo prefix -------------------------------------------------

// demoEscaped writes a demo title's prefix with JSON escapes: the title
// decoded starts with the prefix, so it is a demo title (defaults §D
// bullet 1) however the JSON text spells it.
func demoEscaped(s *Steps, sc *scenario) ([]neighbour, string) {
	var out []neighbour
	for _, how := range []string{"first letter", "whole prefix", "underscore"} {
		title := "DEMO_SIGNED contrato escapado " + how
		out = append(out, neighbour{
			name: fmt.Sprintf("a title %q whose %s is written with JSON escapes", title, how),
			apply: func(v *scenario) error {
				body, err := cloneBody(v.body)
				if err != nil {
					return err
				}
				body["title"] = title
				b, err := json.Marshal(body)
				if err != nil {
					return err
				}
				var esc string
				switch how {
				case "first letter":
					esc = `\u0044EMO_SIGNED`
				case "whole prefix":
					esc = `\u0044\u0045\u004d\u004f\u005f\u0053\u0049\u0047\u004e\u0045\u0044`
				default:
					esc = `DEMO\u005fSIGNED`
				}
				v.rawBody = bytes.Replace(b, []byte(`"DEMO_SIGNED`), []byte(`"`+esc), 1)
				v.titleSent = title
				return nil
			},
			judge: notifiedOnce("SIGNED"),
		})
	}
	return out, ""
}

// demoNear sends the prefix's neighbours that are not demo titles (the
// title does not start with a prefix, case-sensitive, at its very first
// character: defaults §D bullets 1 and 2): an invisible or look-alike
// character before or inside it, a letter less or in another case, and
// the prefix in the body's other strings but not the title.
func demoNear(s *Steps, sc *scenario) ([]neighbour, string) {
	titles := map[string]string{
		"a byte order mark before":  "\ufeffDEMO_SIGNED contrato",
		"a zero-width space before": "\u200bDEMO_SIGNED contrato",
		"a no-break space before":   "\u00a0DEMO_SIGNED contrato",
		"a line feed before":        "\nDEMO_SIGNED contrato",
		"fullwidth letters":         "ＤＥＭＯ_SIGNED contrato",
		"a Cyrillic O":              "DEMО_SIGNED contrato",
		"a hyphen":                  "DEMO-SIGNED contrato",
		"the state in lower case":   "DEMO_signed contrato",
		"a letter less":             "DEMO_SIGNE contrato",
		"a letter less at the head": "EMO_SIGNED contrato",
	}
	names := make([]string, 0, len(titles))
	for n := range titles {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []neighbour
	for _, n := range names {
		title := titles[n]
		out = append(out, neighbour{
			name: fmt.Sprintf("a title with %s: %q", n, title),
			apply: func(v *scenario) error {
				body, err := cloneBody(v.body)
				if err != nil {
					return err
				}
				body["title"] = title
				v.body, v.titleSent = body, title
				return nil
			},
			judge: notNotified,
		})
	}
	// The prefix elsewhere in the body: in a data value and a signer's
	// name, and as the first text of the JSON after the title's key.
	out = append(out, neighbour{
		name: `the prefix in a data value and a signer's name, the title "Contrato ` + "DEMO" + `"`,
		apply: func(v *scenario) error {
			body, err := cloneBody(v.body)
			if err != nil {
				return err
			}
			body["title"] = "Contrato DEMO"
			if data, ok := body["data"].(map[string]any); ok {
				for k := range data {
					data[k] = "DEMO_SIGNED " + fmt.Sprint(data[k])
					break
				}
			}
			if signers, ok := body["signers"].([]any); ok && len(signers) > 0 {
				if first, ok := signers[0].(map[string]any); ok {
					first["name"] = "DEMO_SIGNED Ana"
				}
			}
			v.body, v.titleSent = body, "Contrato DEMO"
			return nil
		},
		judge: notNotified,
	}, neighbour{
		name: `the title "\"DEMO_SIGNED\" contrato", whose JSON text holds "DEMO_SIGNED right after a quote`,
		apply: func(v *scenario) error {
			body, err := cloneBody(v.body)
			if err != nil {
				return err
			}
			body["title"] = `"DEMO_SIGNED" contrato`
			v.body, v.titleSent = body, `"DEMO_SIGNED" contrato`
			return nil
		},
		judge: notNotified,
	})
	return out, ""
}

// --- the world around a request -------------------------------------

// manyAtOnce creates demo contracts all at the same instant: each gets
// its own signature_id (defaults §C, a new UUID), and exactly one
// notification that names its own contract and title (defaults §B
// bullet 1, §D bullet 1), whatever the others do at the same time.
func manyAtOnce(s *Steps, sc *scenario) ([]neighbour, string) {
	var out []neighbour
	for i := range manyContracts {
		title := fmt.Sprintf("DEMO_SIGNED a la vez %d de %d", i+1, manyContracts)
		out = append(out, neighbour{
			name: fmt.Sprintf("contract %q", title),
			apply: func(v *scenario) error {
				body, err := cloneBody(v.body)
				if err != nil {
					return err
				}
				body["title"] = title
				v.body, v.titleSent = body, title
				return nil
			},
			judge: notifiedAsItself,
		})
	}
	return out, ""
}

// manyContracts is how many contracts manyAtOnce creates at once.
const manyContracts = 8

// notifiedAsItself creates the contract and waits for its one SIGNED
// notification, which must carry its own signature_id and title. When it
// came is other scenarios' to judge: eight requests at once behind a
// gateway's rate limit come back at times this one cannot place.
func notifiedAsItself(s *Steps, ctx context.Context) error {
	if err := s.createdNeighbour(ctx); err != nil {
		return err
	}
	sc := get(ctx)
	wctx, cancel := context.WithDeadline(ctx, sc.answered.Add(missingAfter))
	defer cancel()
	r, err := s.T.Notifications.Wait(wctx, receiver.Filter{SignatureID: sc.created})
	waited := time.Now()
	if errors.Is(err, receiver.ErrTimeout) {
		r, err = s.storedLate(ctx, receiver.Filter{SignatureID: sc.created}, sc.answered.Add(missingAfter))
	}
	if errors.Is(err, receiver.ErrTimeout) {
		if lag := s.Lag.Max(sc.sentAt, waited); s.excused(lag, missingAfter-quietAfter) {
			return s.inconclusive(ctx, "no SIGNED notification within %s of the 201, but this process ran up to %s ms late meanwhile", missingAfter, engine.Millis(lag))
		}
		return engine.BreaksAs(reports.FailureNotificationMissing, refDemo, "expected a SIGNED notification for signature_id %s, created with %d others at the same instant; none arrived within %s",
			sc.created, manyContracts-1, missingAfter)
	}
	if err != nil {
		return err
	}
	sc.note, sc.noteAt = r, s.arrival(r, waited)
	if err := engine.SleepUntil(ctx, r.ReceivedAt.Add(quietAfter)); err != nil {
		return err
	}
	all, err := s.T.Notifications.List(ctx, receiver.Filter{SignatureID: sc.created, Limit: 20})
	if err != nil {
		return err
	}
	if within := inQuietWindow(all); len(within) != 1 {
		return engine.Breaks(refDemo, "expected exactly one notification for signature_id %s, created with %d others at the same instant, got %d: %s",
			sc.created, manyContracts-1, len(within), s.listing(sc, within))
	}
	if r.State != "SIGNED" {
		return engine.Breaks(refDemo, "expected a SIGNED notification for signature_id %s, got %q", sc.created, clip(r.State, 60))
	}
	if err := s.itsSignatureIDIsTheOneCreated(ctx); err != nil {
		return err
	}
	return s.itsTitleIsTheTitleSent(ctx)
}

// distinctIDs judges that no two contracts got the same signature_id.
func distinctIDs(ns []sentNeighbour) error {
	seen := map[string]string{}
	for _, n := range ns {
		if n.v.created == "" {
			continue
		}
		if other, ok := seen[n.v.created]; ok {
			return engine.Breaks("defaults §C paragraph 1", "expected a new signature_id for each contract; %s and %s, created at the same instant, both got %q", other, n.name, n.v.created)
		}
		seen[n.v.created] = n.name
	}
	return nil
}

// --- judging ---------------------------------------------------------

func refusedWith(status int, label string) func(*Steps, context.Context) error {
	return func(s *Steps, ctx context.Context) error { return s.theResponseIs(ctx, status, label) }
}

func statusIs(status int) func(*Steps, context.Context) error {
	return func(s *Steps, ctx context.Context) error { return s.theResponseStatusIs(ctx, status) }
}

// accepted judges the endpoint's success answer.
func accepted(s *Steps, ctx context.Context) error {
	return s.theResponseStatusIs(ctx, s.success(get(ctx)))
}

// acceptedEchoing is accepted, and a create echoes the title decoded.
func acceptedEchoing(s *Steps, ctx context.Context) error {
	if err := accepted(s, ctx); err != nil {
		return err
	}
	sc := get(ctx)
	if sc.endpoint != "signature" {
		return nil
	}
	var req map[string]any
	if err := json.Unmarshal(sc.rawBody, &req); err != nil {
		return err
	}
	title, _ := req["title"].(string)
	return s.fieldIs(ctx, "title", title)
}

func badRequest(s *Steps, ctx context.Context) error { return s.theResponseIsA400NamingTheProblem(ctx) }

// notAServerError judges only what the documents decide of a request
// they leave open: no 5xx, and a refusal in the documented shape.
func notAServerError(s *Steps, ctx context.Context) error {
	sc := get(ctx)
	switch {
	case sc.status >= 500:
		return sc.answerBreaks(refErrorBody, "expected no 5xx: no client input may produce one, %s", sc.got())
	case sc.status >= 400:
		_, err := sc.apiShape(ctx, refErrorBody, apiKeys...)
		return err
	}
	return nil
}

// echoes judges that the create echoed text as field, byte for byte.
func echoes(field, text string) func(*Steps, context.Context) error {
	return func(s *Steps, ctx context.Context) error {
		sc := get(ctx)
		if sc.status != http.StatusCreated {
			return sc.answerBreaks(refCreate, "expected 201 for a %s of text with %s, %s", field, "ordinary characters", sc.got())
		}
		if field == "title" {
			return s.fieldIs(ctx, "title", text)
		}
		recipients, _ := envelope(sc)["recipients"].([]any)
		for _, r := range recipients {
			m, _ := r.(map[string]any)
			if m["key"] == firstSignerKey(sc) {
				if m["name"] != text {
					return sc.answerBreaks("§2.2 recipients", "expected recipient %v's name %q echoed byte for byte, got %q", m["key"], text, m["name"])
				}
				return nil
			}
		}
		return sc.answerBreaks("§2.2 recipients", "expected a recipient %q in the envelope, %s", firstSignerKey(sc), sc.got())
	}
}

// firstSignerKey is the key of the request's first signer.
func firstSignerKey(sc *scenario) string {
	body, _ := sc.body.(map[string]any)
	signers, _ := body["signers"].([]any)
	if len(signers) == 0 {
		return ""
	}
	first, _ := signers[0].(map[string]any)
	k, _ := first["key"].(string)
	return k
}

// notifiedOnce creates the contract and waits for its one notification
// of state.
func notifiedOnce(state string) func(*Steps, context.Context) error {
	return func(s *Steps, ctx context.Context) error {
		if err := s.createdNeighbour(ctx); err != nil {
			return err
		}
		return s.exactlyOneNotificationArrivesBetween(ctx, state, 300, 1500)
	}
}

// notNotified creates the contract and sees that no notification comes.
func notNotified(s *Steps, ctx context.Context) error {
	if err := s.createdNeighbour(ctx); err != nil {
		return err
	}
	return s.noNotificationArrivesWithin(ctx, 3000)
}

// createdNeighbour judges that a neighbour's create was answered 201.
func (s *Steps) createdNeighbour(ctx context.Context) error {
	sc := get(ctx)
	if sc.status != http.StatusCreated {
		return sc.answerBreaks(refCreate, "expected 201 for the contract %q, %s", clip(sc.titleSent, 80), sc.got())
	}
	if sc.created == "" {
		return sc.answerBreaks("§2.2 signature_id", "expected data.signature_id in the 201, %s", sc.got())
	}
	return nil
}

// --- the steps -------------------------------------------------------

// neighbourRuns bounds how many neighbours of one scenario are sent, or
// judged, at once.
const neighbourRuns = 8

// sentNeighbour is a neighbour sent: its request and answer.
type sentNeighbour struct {
	neighbour
	v   *scenario
	err error // what kept it from being sent
}

// eachNeighbourIsSent derives the scenario's neighbours by the operator
// and sends each as its own request: a copy of the scenario's, changed
// by the neighbour.
func (s *Steps) eachNeighbourIsSent(ctx context.Context, name string) error {
	op, ok := operators[name]
	if !ok {
		return fmt.Errorf("the feature names an unknown operator %q", name)
	}
	base := get(ctx)
	ns, none := op.derive(s, base)
	if len(ns) == 0 {
		return s.notRun(ctx, none)
	}
	base.operator = name
	base.sentNeighbours = make([]sentNeighbour, len(ns))
	for i, n := range ns {
		v := base.variant()
		base.sentNeighbours[i] = sentNeighbour{neighbour: n, v: v, err: n.apply(v)}
	}
	runs := neighbourRuns
	var ready sync.WaitGroup
	start := make(chan struct{})
	if op.together {
		// Every request waits at the start line, then all go at once.
		runs = len(ns)
		ready.Add(len(ns))
		go func() { ready.Wait(); close(start) }()
	} else {
		close(start)
	}
	s.eachNeighbourN(ctx, len(ns), runs, func(i int) {
		n := &base.sentNeighbours[i]
		if op.together {
			ready.Done()
		}
		<-start
		if n.err == nil {
			n.err = s.send(n.v.context(ctx), n.v)
		}
	})
	return s.neighboursOutcome(ctx, func(n sentNeighbour) error { return n.err })
}

// eachNeighbour runs f for 0..n-1, neighbourRuns at once.
func (s *Steps) eachNeighbour(ctx context.Context, n int, f func(i int)) {
	s.eachNeighbourN(ctx, n, neighbourRuns, f)
}

// eachNeighbourN runs f for 0..n-1, runs at once.
func (s *Steps) eachNeighbourN(ctx context.Context, n, runs int, f func(i int)) {
	sem := make(chan struct{}, runs)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

// context is ctx running v instead of the scenario: v's own warnings.
func (v *scenario) context(ctx context.Context) context.Context {
	return engine.WithWarnings(context.WithValue(ctx, scenarioKey{}, v), &v.warnings)
}

// eachOneIsJudged judges every neighbour sent as its operator says: the
// step fails with every neighbour that broke its rule, and is
// inconclusive when one could not be judged. want is what the feature's
// sentence says of them, which must be what the operator judges.
func (s *Steps) eachOneIsJudged(want string) func(context.Context) error {
	return func(ctx context.Context) error {
		base := get(ctx)
		if base.operator == "" || len(base.sentNeighbours) == 0 {
			return fmt.Errorf("no neighbour was sent")
		}
		if got := operators[base.operator].Want; got != want {
			return fmt.Errorf("the feature says the neighbours by %s are %s; the operator judges them %s", base.operator, want, got)
		}
		errs := make([]error, len(base.sentNeighbours))
		s.eachNeighbour(ctx, len(base.sentNeighbours), func(i int) {
			n := base.sentNeighbours[i]
			errs[i] = n.judge(s, n.v.context(ctx))
		})
		err := s.neighboursOutcome(ctx, func(n sentNeighbour) error {
			for i := range base.sentNeighbours {
				if base.sentNeighbours[i].v == n.v {
					return errs[i]
				}
			}
			return nil
		})
		if all := operators[base.operator].all; err == nil && all != nil {
			return all(base.sentNeighbours)
		}
		return err
	}
}

// neighboursOutcome is the step's outcome from each neighbour's error:
// the neighbours' warnings become the scenario's; one not judged makes
// it inconclusive; those that broke their rule fail it, all named, citing
// the first one's rule.
func (s *Steps) neighboursOutcome(ctx context.Context, errOf func(sentNeighbour) error) error {
	base := get(ctx)
	var failed []string
	var first error // the first neighbour's breach
	var plain error
	for _, n := range base.sentNeighbours {
		base.warnings = append(base.warnings, n.v.warnings...)
		n.v.warnings = nil
		err := errOf(n)
		switch {
		case n.v.inconclusive != "":
			if base.inconclusive == "" {
				base.inconclusive = fmt.Sprintf("%s: %s", n.name, n.v.inconclusive)
				base.inconclusiveKind = n.v.inconclusiveKind
				if f := n.v.inconclusiveFacts; f != nil {
					facts := *f
					facts.Shape, facts.Summary = "…: "+f.Shape, n.name+": "+f.Summary
					base.inconclusiveFacts = &facts
				}
			}
		case err == nil:
		case errors.Is(err, godog.ErrSkip):
			if base.inconclusive == "" {
				msg, facts := engine.Describe("%s could not be judged", n.name)
				base.inconclusive, base.inconclusiveFacts = msg, &facts
			}
		default:
			if breach := engine.BreachOf(err) != ""; breach && first == nil {
				first = err
			} else if !breach && plain == nil {
				plain = err
			}
			failed = append(failed, fmt.Sprintf("%s: %s", n.name, strings.ReplaceAll(strings.SplitN(err.Error(), "\n  rule:", 2)[0], "\n", "\n      ")))
		}
	}
	switch {
	case len(failed) > 0 && first != nil:
		return engine.BreaksAs(engine.FailureKindOf(first), engine.BreachOf(first),
			"%d of %d neighbours by %s broke the rule:\n    %s", len(failed), len(base.sentNeighbours), base.operator, strings.Join(failed, "\n    "))
	case len(failed) > 0:
		return fmt.Errorf("%d of %d neighbours by %s: %s", len(failed), len(base.sentNeighbours), base.operator, strings.Join(failed, "; "))
	case base.inconclusive != "":
		return godog.ErrSkip
	}
	return nil
}

// variant is a copy of the scenario's request to change for a neighbour:
// what was sent and what came back, and the outcome, start empty.
func (sc *scenario) variant() *scenario {
	v := &scenario{
		endpoint: sc.endpoint, body: sc.body, rawBody: sc.rawBody, query: sc.query, cred: sc.cred,
		offset: sc.offset, stamp: sc.stamp, missing: map[string]bool{}, empty: map[string]bool{},
		verb: sc.verb, version: sc.version, merchant: sc.merchant, contentType: sc.contentType,
		titleSent: sc.titleSent, nameCase: sc.nameCase,
	}
	for k := range sc.missing {
		v.missing[k] = true
	}
	for k := range sc.empty {
		v.empty[k] = true
	}
	return v
}

// The judgements an operator makes of its neighbours, as the features'
// sentences name them.
const (
	wantInvalidCredentials = "refused-credentials"
	wantInvalidSignature   = "refused-signature"
	wantExpired            = "refused-expired"
	wantAccepted           = "accepted"
	wantLimit              = "limit"
	wantAcceptedDecoded    = "accepted-decoded"
	wantBadRequest         = "bad-request"
	wantNo5xx              = "no-5xx"
	wantEcho               = "echoed"
	wantNotified           = "notified"
	wantNotNotified        = "not-notified"
	wantEachOwn            = "each-own"
)

// neighbourSentences are the Then sentences of the operators' scenarios,
// English and Spanish, by judgement.
var neighbourSentences = map[string][2]string{
	wantInvalidCredentials: {`each one is refused with 401 "Invalid credentials"`, `cada uno se rechaza con 401 "Invalid credentials"`},
	wantInvalidSignature:   {`each one is refused with 401 "Invalid signature"`, `cada uno se rechaza con 401 "Invalid signature"`},
	wantExpired:            {`each one is refused with 401 "Request expired"`, `cada uno se rechaza con 401 "Request expired"`},
	wantAccepted:           {`each one is accepted`, `cada uno se acepta`},
	wantLimit:              {`each one up to 1 MiB is accepted, and each larger one refused with 413`, `cada uno de hasta 1 MiB se acepta, y cada uno mayor se rechaza con 413`},
	wantAcceptedDecoded:    {`each one is accepted, and a create echoes the title decoded`, `cada uno se acepta, y una creación devuelve el título decodificado`},
	wantBadRequest:         {`each one is refused with a 400 naming the problem`, `cada uno se rechaza con un 400 que nombra el problema`},
	wantNo5xx:              {`none gets a 5xx, and each refusal has the documented error shape`, `ninguno recibe un 5xx, y cada rechazo tiene la forma de error documentada`},
	wantEcho:               {`each one is created and its envelope echoes the text byte for byte`, `cada uno se crea y su sobre devuelve el texto byte a byte`},
	wantNotified:           {`each one is created and notified once, as its decoded title says`, `cada uno se crea y se notifica una vez, como dice su título decodificado`},
	wantNotNotified:        {`each one is created and gets no notification`, `cada uno se crea y no recibe ninguna notificación`},
	wantEachOwn:            {`each one gets its own signature_id and exactly one notification, naming its own contract and title`, `cada uno recibe su propio signature_id y exactamente una notificación, que nombra su propio contrato y título`},
}

// The Then sentences of the operators' scenarios, one method each: a
// sentence is bound to a method of its own (see sentences.go).
func (s *Steps) eachOneIsRefusedAsUnknownKey(ctx context.Context) error {
	return s.eachOneIsJudged(wantInvalidCredentials)(ctx)
}
func (s *Steps) eachOneIsRefusedAsInvalidSignature(ctx context.Context) error {
	return s.eachOneIsJudged(wantInvalidSignature)(ctx)
}
func (s *Steps) eachOneIsRefusedAsExpired(ctx context.Context) error {
	return s.eachOneIsJudged(wantExpired)(ctx)
}
func (s *Steps) eachOneIsAccepted(ctx context.Context) error {
	return s.eachOneIsJudged(wantAccepted)(ctx)
}
func (s *Steps) eachOneIsJudgedByTheLimit(ctx context.Context) error {
	return s.eachOneIsJudged(wantLimit)(ctx)
}
func (s *Steps) eachOneIsAcceptedDecoded(ctx context.Context) error {
	return s.eachOneIsJudged(wantAcceptedDecoded)(ctx)
}
func (s *Steps) eachOneIsABadRequest(ctx context.Context) error {
	return s.eachOneIsJudged(wantBadRequest)(ctx)
}
func (s *Steps) noneGetsAServerError(ctx context.Context) error {
	return s.eachOneIsJudged(wantNo5xx)(ctx)
}
func (s *Steps) eachOneIsEchoed(ctx context.Context) error {
	return s.eachOneIsJudged(wantEcho)(ctx)
}
func (s *Steps) eachOneIsNotified(ctx context.Context) error {
	return s.eachOneIsJudged(wantNotified)(ctx)
}
func (s *Steps) eachOneIsNotNotified(ctx context.Context) error {
	return s.eachOneIsJudged(wantNotNotified)(ctx)
}
func (s *Steps) eachOneIsItsOwn(ctx context.Context) error {
	return s.eachOneIsJudged(wantEachOwn)(ctx)
}

func (s *Steps) bindNeighbourSentences(sc registrar) {
	sc.Step(engine.Compiled(`^each neighbour of the request by "([a-z0-9-]+)" is sent$`), s.eachNeighbourIsSent)
	sc.Step(engine.Compiled(`^se envía cada vecino de la solicitud por "([a-z0-9-]+)"$`), s.eachNeighbourIsSent)
	for _, b := range []struct {
		want string
		f    func(context.Context) error
	}{
		{wantInvalidCredentials, s.eachOneIsRefusedAsUnknownKey},
		{wantInvalidSignature, s.eachOneIsRefusedAsInvalidSignature},
		{wantExpired, s.eachOneIsRefusedAsExpired},
		{wantAccepted, s.eachOneIsAccepted},
		{wantLimit, s.eachOneIsJudgedByTheLimit},
		{wantAcceptedDecoded, s.eachOneIsAcceptedDecoded},
		{wantBadRequest, s.eachOneIsABadRequest},
		{wantNo5xx, s.noneGetsAServerError},
		{wantEcho, s.eachOneIsEchoed},
		{wantNotified, s.eachOneIsNotified},
		{wantNotNotified, s.eachOneIsNotNotified},
		{wantEachOwn, s.eachOneIsItsOwn},
	} {
		for _, text := range neighbourSentences[b.want] {
			sc.Step(engine.Compiled("^"+regexp.QuoteMeta(text)+"$"), b.f)
		}
	}
}
