package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/firmakit/firmakit"
	"github.com/firmakit/firmakit/steps"
	"pgregory.net/rapid"
)

// How the draws are laid out: each choice is one draw whose smallest value
// is the valid request's (no change), so that rapid, which shrinks a draw
// towards its smallest value, shrinks a failing request towards the valid
// one, keeping only the changes the failure needs.

// coin is one even bit; percent draws seven.
var coin = rapid.Bool()

// percent draws a whole number from 0 to 99, evenly: rapid's own integers
// lean towards small numbers, which would make every change far rarer
// than its weight says. Each bit shrinks to 0, and so does the number.
func percent(t *rapid.T, label string) int {
	u := 0
	for i := 0; i < 7; i++ {
		u <<= 1
		if coin.Draw(t, label) {
			u |= 1
		}
	}
	return u * 100 / 128
}

// pick draws one of n options: the first, no change, with keep percent
// of the draws, the others evenly with the rest.
func pick(t *rapid.T, label string, keep, n int) int {
	u := percent(t, label)
	if n <= 1 || u < keep {
		return 0
	}
	return 1 + (u-keep)*(n-1)/(100-keep)
}

// Sentences of the documents that a change refers to.
const (
	refCheck5    = "defaults §A check 5"
	refRefusals  = "defaults §C paragraph 2"
	refDocuments = "defaults §C bullet 1"
	refSigners   = "defaults §C bullet 2"
	refDataKey   = "defaults §C bullet 3"
	refRouting   = "defaults §C bullet 4"
	refSize      = "defaults §A paragraph 5"
)

// space is what the requests to one target are drawn from: its merchant,
// its credentials, its template and its profile.
type space struct {
	t *steps.Target
	// keys are the credentials a request may be signed with, the
	// target's own first; merchants the merchant segments of the path,
	// its own first; forms the signature's written forms, "" first.
	keys      []keyChoice
	merchants []string
	forms     []string
	// dataKeys are the template's data keys, sorted.
	dataKeys []string
	// tolerance is the profile's, in seconds.
	tolerance int64
}

type keyChoice struct {
	cred     firmakit.Credential
	name     string
	words    string
	breaking bool
}

func newSpace(t *steps.Target) *space {
	s := &space{t: t}
	own := t.Credential
	s.keys = []keyChoice{{cred: own, name: credOwn},
		{cred: unknownCredential, name: credUnknown, words: "signed with an unknown key", breaking: true},
		{cred: firmakit.Credential{KeyID: own.KeyID + "x", Secret: own.Secret}, name: credOwn, words: "the key with a character more", breaking: true}}
	if len(own.KeyID) > 1 {
		s.keys = append(s.keys, keyChoice{cred: firmakit.Credential{KeyID: own.KeyID[:len(own.KeyID)-1], Secret: own.Secret}, name: credOwn,
			words: "the key with a character less", breaking: true})
	}
	if upper := strings.ToUpper(own.KeyID); upper != own.KeyID {
		// A key is an identity, compared exactly: in another case it is
		// a key the merchant does not have.
		s.keys = append(s.keys, keyChoice{cred: firmakit.Credential{KeyID: upper, Secret: own.Secret}, name: credOwn,
			words: "the key in upper case", breaking: true})
	}
	if t.Other.Given() {
		s.keys = append(s.keys, keyChoice{cred: t.Other, name: credOther, words: "signed with another merchant's key", breaking: true})
	}
	if t.Disabled.Given() {
		s.keys = append(s.keys, keyChoice{cred: t.Disabled, name: credDisabled, words: "signed with a disabled key", breaking: true})
	}
	s.merchants = []string{t.MerchantID, t.MerchantID + "_2"}
	if upper := strings.ToUpper(t.MerchantID); upper != t.MerchantID {
		s.merchants = append(s.merchants, upper)
	}
	s.forms = []string{""}
	if strings.EqualFold(t.Profile.Request.Encoding, "hex") {
		s.forms = append(s.forms, firmakit.SignatureUpper, firmakit.SignatureBase64)
	} else {
		s.forms = append(s.forms, firmakit.SignatureHex)
	}
	s.forms = append(s.forms, firmakit.SignatureCut, firmakit.SignatureSHA256Prefix, firmakit.SignatureWrong)
	s.dataKeys = slices.Clone(t.Template.Data)
	for k := range t.Data {
		if !slices.Contains(s.dataKeys, k) {
			s.dataKeys = append(s.dataKeys, k)
		}
	}
	sort.Strings(s.dataKeys)
	s.tolerance = int64(t.Profile.Request.Tolerance / time.Second)
	return s
}

// draw draws one request. Every choice draws what it needs whichever
// option it takes, so that the draws line up the same whatever was
// chosen: rapid can then shrink one choice to no change and keep the
// others as they were.
func (s *space) draw(t *rapid.T) *Request {
	r := &Request{Endpoint: Check, Merchant: s.t.MerchantID, Cred: s.t.Credential, credential: credOwn}
	if pick(t, "endpoint", 50, 2) == 1 {
		r.Endpoint = Create
	}
	s.drawHeaders(t, r)
	s.drawTimestamp(t, r)
	s.drawCredential(t, r)
	s.drawSignature(t, r)
	check := s.drawCheckBody(t)
	create := s.drawCreateBody(t)
	if r.Endpoint == Check {
		r.Body = check.body
		r.changes = append(r.changes, check.changes...)
	} else {
		r.Body = create.body
		r.changes = append(r.changes, create.changes...)
	}
	drawSize(t, r)
	return r
}

func (s *space) drawHeaders(t *rapid.T, r *Request) {
	for _, role := range []string{"key", "timestamp", "signature"} {
		switch pick(t, role+" header", 94, 3) {
		case 1:
			r.Omit = append(r.Omit, role)
			r.note(fmt.Sprintf("the %s header missing", role), checkHeaders, "")
		case 2:
			r.Empty = append(r.Empty, role)
			r.note(fmt.Sprintf("the %s header empty", role), checkHeaders, "")
		}
	}
}

// Timestamps not written as base-10 digits (defaults.md A, check 2), and
// written with leading zeros, which are still digits. A sign is left out:
// "+{now}" is digits only after a sign, which the documents do not settle.
var (
	malformedStamps = []string{"yesterday", "{now}.5", "{now}.0", "0x{now-hex}", "-{now}", "{now-spaced}", "{now}Z", "{now}{now}", "{now-ms}"}
	zeroStamps      = []string{"0{now}", "00000{now}"}
	aDay            = rapid.Int64Range(0, 86400)
)

// margin keeps a timestamp off by far from the tolerance's edge, so that
// neither clock skew nor a slow answer moves it across.
const margin = 60

func (s *space) drawTimestamp(t *rapid.T, r *Request) {
	choice := pick(t, "timestamp", 82, 6)
	older, ahead := aDay.Draw(t, "seconds older"), aDay.Draw(t, "seconds ahead")
	within := rapid.Int64Range(0, max(s.tolerance-margin, 0)).Draw(t, "seconds off within")
	past := rapid.Bool().Draw(t, "in the past")
	form, zeros := rapid.SampledFrom(malformedStamps).Draw(t, "timestamp form"), rapid.SampledFrom(zeroStamps).Draw(t, "leading zeros")
	switch choice {
	case 1:
		r.Offset = -(s.tolerance + margin + older)
		r.note(fmt.Sprintf("the timestamp %d s old", -r.Offset), checkTimestamp, "")
	case 2:
		r.Offset = s.tolerance + margin + ahead
		r.note(fmt.Sprintf("the timestamp %d s ahead", r.Offset), checkTimestamp, "")
	case 3:
		if within > 0 {
			r.Offset = within
			if past {
				r.Offset = -within
			}
			r.note(fmt.Sprintf("the timestamp %d s off, within the tolerance", r.Offset), valid, "")
		}
	case 4:
		r.Stamp = form
		r.note(fmt.Sprintf("the timestamp written %q", r.Stamp), checkTimestamp, "")
	case 5:
		r.Stamp = zeros
		r.note(fmt.Sprintf("the timestamp written %q", r.Stamp), valid, "")
	}
}

func (s *space) drawCredential(t *rapid.T, r *Request) {
	if k := s.keys[pick(t, "key", 88, len(s.keys))]; k.breaking {
		r.Cred, r.credential = k.cred, k.name
		r.note(k.words, checkCredentials, "")
	}
	// A merchant the key does not belong to (check 3).
	if m := s.merchants[pick(t, "merchant", 95, len(s.merchants))]; m != r.Merchant {
		r.Merchant = m
		r.note(fmt.Sprintf("the path names the merchant %q", m), checkCredentials, "")
	}
	// A query, signed as sent (defaults.md A: the request target).
	if q := queries[pick(t, "query", 94, len(queries))]; q != "" {
		r.Query = q
		r.note(fmt.Sprintf("the URL with the query %q", q), valid, "")
	}
}

// queries are the raw queries of a URL, none first.
var queries = []string{"", "lang=es", "q=%C3%B1and%C3%BA%20a+b&lang=es"}

func (s *space) drawSignature(t *rapid.T, r *Request) {
	r.SigForm = s.forms[pick(t, "signature", 85, len(s.forms))]
	switch r.SigForm {
	case "":
	case firmakit.SignatureUpper:
		// Check 4 compares the decoded bytes: upper case is accepted.
		r.note("the signature in upper case", valid, "")
	case firmakit.SignatureSHA256Prefix:
		r.note(`the signature after "sha256="`, checkSignature, "")
	case firmakit.SignatureCut:
		r.note("the signature with its last character cut off", checkSignature, "")
	case firmakit.SignatureWrong:
		r.note("the signature of other bytes", checkSignature, "")
	default:
		r.note("the same signature bytes in "+r.SigForm, checkSignature, "")
	}
}

// body is a body drawn with its changes.
type body struct {
	body    []byte
	changes []change
}

func (b *body) note(words string, check int, ref string) {
	b.changes = append(b.changes, change{words: words, check: check, ref: ref})
}

// Bodies that are not JSON, JSON that is not an object (check 5), and a
// string with bytes that are not UTF-8, which the documents leave open.
var (
	notJSON     = []string{"not json", "{", `{"monto":}`, `{"monto": 1,}`, `{/* firmakit */}`, `{'monto': 1}`, `{} {}`, ``, `{"monto": NaN}`}
	notObjects  = []string{"[]", "[{}]", `[{"monto": 1}]`, `"texto"`, "42", "null", "true"}
	invalidUTF8 = `{"titular": "Ana ` + "\xff\xfe" + `"}`
)

// text is a short text with what a JSON writer escapes or a service may
// mishandle: quotes, a backslash, a tab, a line break, non-ASCII letters,
// an emoji, a line separator.
var text = rapid.StringOfN(rapid.SampledFrom([]rune{'a', ' ', '\t', 'é', '"', '\\', 'Ñ', '\n', '😀', '/', '<', '&', 'Z', '7', '\u2028', '\'', '|'}), 0, 12, -1)

// members are the members of a check body, whose content the service
// must not mind (interface §4.1: any valid JSON object).
var members = rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) member {
	name := rapid.SampledFrom([]string{"monto", "titular", "ñandú", "a b", "", "status_code", "title"}).Draw(t, "name")
	return member{name, rapid.OneOf(
		rapid.Map(text, func(s string) any { return s }),
		rapid.Map(rapid.IntRange(-1000000, 1000000), func(n int) any { return n }),
		rapid.SampledFrom([]any{true, false, nil, []any{1, 2, 3}, map[string]any{"anidado": "sí"}, 3.25}),
	).Draw(t, "value")}
}), 0, 3, func(m member) string { return m.name })

func (s *space) drawCheckBody(t *rapid.T) body {
	choice := pick(t, "check body", 80, 4)
	bad, array := rapid.SampledFrom(notJSON).Draw(t, "not JSON"), rapid.SampledFrom(notObjects).Draw(t, "not an object")
	ms := members.Draw(t, "members")
	var b body
	obj := writeObject(ms, "")
	if len(ms) > 0 {
		b.note("the body "+string(obj), valid, "")
	}
	laid := layout(t, &b, obj)
	switch choice {
	case 1:
		return body{body: []byte(bad), changes: []change{{fmt.Sprintf("the body %q, not JSON", bad), checkBody, refCheck5}}}
	case 2:
		return body{body: []byte(array), changes: []change{{fmt.Sprintf("the body %s, JSON but not an object", array), checkBody, refCheck5}}}
	case 3:
		return body{body: []byte(invalidUTF8), changes: []change{{"the body with bytes that are not UTF-8 in a string", open, refCheck5}}}
	}
	b.body = laid
	return b
}

// member is one member of a JSON object, in the order written.
type member struct {
	name  string
	value any
}

// writeObject writes members as a JSON object, each value as encoding/json
// writes it, or as it is when it is json.RawMessage; sep follows each
// colon and comma.
func writeObject(members []member, sep string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteString("," + sep)
		}
		b.Write(marshal(m.name))
		b.WriteString(":" + sep)
		b.Write(marshal(m.value))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal writes v as JSON, leaving <, > and & as they are.
func marshal(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("explore: " + err.Error()) // only values of this file are written
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// layout writes a compact JSON text another way that is still the same
// JSON: indented, with white space around it, or a member per line.
func layout(t *rapid.T, b *body, compact []byte) []byte {
	var out bytes.Buffer
	switch pick(t, "layout", 80, 4) {
	case 1:
		if json.Indent(&out, compact, "", "  ") == nil {
			b.note("the body indented", valid, "")
			return out.Bytes()
		}
	case 2:
		b.note("the body with white space around it", valid, "")
		return append(append([]byte("\r\n\t "), compact...), " \n"...)
	case 3:
		if json.Indent(&out, compact, "", "") == nil {
			b.note("the body with a line per member", valid, "")
			return out.Bytes()
		}
	}
	return compact
}

// E-mail addresses no reading takes for one, and addresses as real mail
// systems write them, which are (SIG-SIGNER-FORMS).
var (
	badEmails  = []string{"firmante1.example.com", "firmante1@", "@example.com", "firmante 1@example.com"}
	goodEmails = []string{"ana+contratos@example.com", "ana.perez-soto@correo.example.cl", "o'higgins@example.com", "ANA.PEREZ@EXAMPLE.COM"}
	goodNames  = []string{"María José de los Ángeles Pérez-Cotapos O'Ryan y Fernández de Castro Ñuñez", "Nguyễn Thị Minh Khai 阮氏明開"}
	badRouting = []any{"Parallel", "SEQUENTIAL", "paralelo", 1, true}
)

// drawCreateBody draws the create-signature body of defaults.md C for the
// target's template, and the changes on it.
func (s *space) drawCreateBody(t *rapid.T) body {
	var b body
	tm := s.t.Template
	// "Contrato " first: no title drawn starts with a demo prefix, whose
	// notification the run's ledger would count as a stray.
	suffix := text.Draw(t, "title")
	title := "Contrato " + suffix
	if suffix != "" {
		b.note(fmt.Sprintf("the title %q", title), valid, "")
	}
	var titleValue any = title
	rest := strings.TrimPrefix(string(marshal(title)), `"Contrato`)
	switch pick(t, "title escaped", 85, 3) {
	case 1:
		// The first letter as a JSON escape: the same title to a reader.
		titleValue = json.RawMessage(`"\u0043ontrato` + rest)
		b.note(`the title's first letter written \u0043`, valid, "")
	case 2:
		// A reserved word inside, its first letter escaped: still not a
		// demo title, which starts with the prefix (defaults.md D).
		titleValue = json.RawMessage(`"Contrato \u0044EMO_SIGNED` + rest)
		b.note(`"\u0044EMO_SIGNED" after the title's first word`, valid, "")
	}
	switch pick(t, "title kind", 88, 5) {
	case 1:
		titleValue = nil
		b.note("no title", checkBody, refRefusals)
	case 2:
		titleValue = ""
		b.note(`the title ""`, open, refRefusals)
	case 3:
		titleValue = "   "
		b.note(`the title "   "`, open, refRefusals)
	case 4:
		titleValue = 42
		b.note("the title 42, a number", checkBody, refRefusals)
	}

	var documents any = []string{tm.Name}
	switch pick(t, "documents", 92, 5) {
	case 1:
		documents = []string{tm.Name + "_x"}
		b.note(fmt.Sprintf("the document %q, of no template of the merchant", tm.Name+"_x"), checkBody, refDocuments)
	case 2:
		documents = []string{}
		b.note("documents empty", open, refRefusals)
	case 3:
		documents = nil
		b.note("no documents", checkBody, refRefusals)
	case 4:
		documents = tm.Name
		b.note("documents a string, not a list", checkBody, refRefusals)
	}

	req := firmakit.NewCreateRequest(tm, s.t.Data, title)
	signers := make([]map[string]any, len(req.Signers))
	for i, sg := range req.Signers {
		signers[i] = map[string]any{"key": sg.Key, "name": sg.Name, "email": sg.Email}
	}
	signersGiven := true
	switch pick(t, "signers", 70, 7) {
	case 1:
		if len(signers) > 1 {
			slices.Reverse(signers)
			b.note("the signers in reverse order", valid, "")
		}
	case 2:
		if len(signers) > 0 {
			gone := signers[len(signers)-1]["key"]
			signers = signers[:len(signers)-1]
			b.note(fmt.Sprintf("the signer %s left out", gone), checkBody, refSigners)
		}
	case 3:
		key := "signer_" + strconv.Itoa(len(signers)+1)
		signers = append(signers, map[string]any{"key": key, "name": "Pedro Núñez", "email": "pedro@example.com"})
		b.note(fmt.Sprintf("%s added (%d signers), which the template does not have", key, len(signers)), checkBody, refSigners)
	case 4:
		if len(signers) > 0 {
			b.note(fmt.Sprintf("the signer %s without its key", signers[0]["key"]), checkBody, refSigners)
			delete(signers[0], "key")
		}
	case 5:
		if len(signers) > 0 {
			twin := map[string]any{"key": signers[0]["key"], "name": "Otra Persona", "email": "otra@example.com"}
			signers = append(signers, twin)
			b.note(fmt.Sprintf("the signer %s twice", twin["key"]), checkBody, refSigners)
		}
	case 6:
		signersGiven = false
		b.note("no signers", checkBody, refRefusals)
	}
	email := pick(t, "email", 88, 3)
	bad, good := rapid.SampledFrom(badEmails).Draw(t, "bad email"), rapid.SampledFrom(goodEmails).Draw(t, "good email")
	name := pick(t, "name", 92, 3)
	goodName := rapid.SampledFrom(goodNames).Draw(t, "good name")
	if len(signers) > 0 {
		switch email {
		case 1:
			signers[0]["email"] = bad
			b.note(fmt.Sprintf("the e-mail %q", bad), checkBody, refRefusals)
		case 2:
			signers[0]["email"] = good
			b.note(fmt.Sprintf("the e-mail %q", good), valid, "")
		}
		switch name {
		case 1:
			signers[0]["name"] = ""
			b.note("a signer's name empty", open, refRefusals)
		case 2:
			signers[0]["name"] = goodName
			b.note(fmt.Sprintf("a signer named %q", goodName), valid, "")
		}
	}

	data := map[string]any{}
	for k, v := range s.t.Data {
		data[k] = v
	}
	dataGiven := true
	switch pick(t, "data", 85, 5) {
	case 1:
		if len(s.dataKeys) > 0 {
			delete(data, s.dataKeys[0])
			b.note(fmt.Sprintf("the data key %s left out", s.dataKeys[0]), checkBody, refRefusals)
		}
	case 2:
		data["clave_desconocida"] = "x"
		b.note("the unknown data key clave_desconocida", checkBody, refDataKey)
	case 3:
		if len(s.dataKeys) > 0 {
			data[s.dataKeys[0]] = 450000
			b.note(fmt.Sprintf("the data key %s a number", s.dataKeys[0]), open, refRefusals)
		}
	case 4:
		if len(s.dataKeys) > 0 {
			dataGiven = false
			b.note("no data", checkBody, refRefusals)
		}
	}

	var routing any
	choice := pick(t, "routing", 50, 5)
	badR := rapid.SampledFrom(badRouting).Draw(t, "bad routing")
	switch choice {
	case 1:
		routing = "parallel"
		b.note(`routing "parallel"`, valid, "")
	case 2:
		routing = "sequential"
		b.note(`routing "sequential"`, valid, "")
	case 3:
		routing = badR
		b.note(fmt.Sprintf("routing %s", marshal(badR)), checkBody, refRouting)
	case 4:
		routing = json.RawMessage("null")
		b.note("routing null", open, refRouting)
	}

	var ms []member
	if titleValue != nil {
		ms = append(ms, member{"title", titleValue})
	}
	if documents != nil {
		ms = append(ms, member{"documents", documents})
	}
	if signersGiven {
		ms = append(ms, member{"signers", signers})
	}
	if dataGiven {
		ms = append(ms, member{"data", data})
	}
	if routing != nil {
		ms = append(ms, member{"routing", routing})
	}
	if pick(t, "extra member", 95, 2) == 1 {
		ms = append(ms, member{"comentario", "firmakit"})
		b.note(`a member "comentario" the body does not have`, open, refRefusals)
	}
	obj := writeObject(ms, "")
	choice = pick(t, "create body", 88, 4)
	laid := layout(t, &b, obj)
	switch choice {
	case 1:
		b.body = obj[:len(obj)-1]
		b.note("the body cut short, not JSON", checkBody, refCheck5)
		return b
	case 2:
		b.body = append(append([]byte("["), obj...), ']')
		b.note("the body inside an array, not an object", checkBody, refCheck5)
		return b
	case 3:
		if i := bytes.Index(obj, []byte(`"title":"`)); i >= 0 {
			i += len(`"title":"`)
			b.body = append(append(append([]byte{}, obj[:i]...), 0xff), obj[i:]...)
			b.note("the title with a byte that is not UTF-8", open, refCheck5)
			return b
		}
	}
	b.body = laid
	return b
}

// drawSize pads the body with spaces to just over 1 MiB (defaults.md A:
// "refused with 413 … before any JSON is parsed"), or to exactly 1 MiB,
// which is not over.
func drawSize(t *rapid.T, r *Request) {
	choice := pick(t, "size", 95, 3)
	over := rapid.IntRange(1, 65536).Draw(t, "bytes over 1 MiB")
	switch choice {
	case 1:
		r.PadTo = maxBody + over
		r.note(fmt.Sprintf("the body padded with spaces to %d bytes, over 1 MiB", r.PadTo), overLimit, refSize)
	case 2:
		r.PadTo = maxBody
		r.note(fmt.Sprintf("the body padded with spaces to %d bytes, 1 MiB exactly", r.PadTo), valid, "")
	}
}
