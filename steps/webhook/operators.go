package webhook

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/firmakit/firmakit"
)

// The webhook set's generated rows: instead of a list of header forms,
// body sizes and characters someone thought of, operators derive the
// neighbours of every valid delivery (defaults §B), and each neighbour
// knows from the sentence it falls under whether the endpoint must accept
// it or refuse it. A neighbour no sentence decides (a valid signature
// behind spaces the grammar has none of, a key in another case) is not
// sent: its answer would be no verdict.

// neighbour is one generated delivery and what the documents want of it.
type neighbour struct {
	// name says which operators made it, for messages: "t last; signed
	// over a stale t".
	name string
	// expect is "accept" or "refuse"; why and ref say why a refusal is
	// required and which item of the documents requires it.
	expect, why, ref string
	d                *delivery
	// failed is the breach it was judged, "" when none.
	failed string
}

// entry is one entry of a signature header: a key ("v1", under the
// fields format) or a prefix ("v1,", under the entries format), and its
// value.
type entry struct{ key, value string }

// headerForm is a signature header taken apart: its timestamps (t
// entries, or the timestamp header's lines), its signature entries and
// any other entries, and where the grammar's layout is changed.
type headerForm struct {
	ts    []string
	sigs  []entry
	extra []entry
	// tPos is where the t entries stand among the fields: "" first (as
	// the service writes them), "last", or "middle" (after the first
	// signature entry).
	tPos string
	// spaced puts spaces where the grammar has none: "after-comma" or
	// "around-equals".
	spaced string
}

// render writes the headers of a delivery under the profile's scheme: the
// signature header, the timestamp header's lines where the scheme has
// one, and the id header. It returns false when the scheme cannot write
// the form (several entries in a scheme that has room for one).
func render(p *firmakit.Profile, f headerForm, id string) ([]sentHeader, bool) {
	wp := p.Webhook
	form := firmakit.WebhookHeaderForm{Timestamps: f.ts, TPos: f.tPos, Spaced: f.spaced}
	for _, e := range append(slices.Clone(f.sigs), f.extra...) {
		form.Entries = append(form.Entries, firmakit.WebhookEntry{Key: e.key, Value: e.value})
	}
	v, ok := p.WebhookHeaderValue(form)
	if !ok {
		return nil, false
	}
	hs := []sentHeader{{wp.SignatureHeader, v}}
	if wp.TimestampFrom == "header" {
		for _, t := range f.ts {
			hs = append(hs, sentHeader{wp.TimestampHeader, t})
		}
	}
	if wp.HasID() {
		hs = append(hs, sentHeader{wp.IDHeader, id})
	}
	return hs, true
}

// signer makes the signatures of one delivery: its event id and body,
// the valid timestamp and the ones outside the tolerance.
type signer struct {
	p                  *firmakit.Profile
	secret, id         string
	body               []byte
	fresh, stale, away string
	// label is the signature entries' key or prefix.
	label string
	// u and msg are what an RFC 9421 signature covers besides its
	// parameters: the endpoint's URL, the content type and digest.
	u   *url.URL
	msg http.Header
}

func newSigner(e *Endpoint, id string, body []byte, now time.Time) *signer {
	p := e.profile()
	tol := int64(p.Webhook.Tolerance / time.Second)
	s := &signer{p: p, secret: e.Secret, id: id, body: body, label: p.Webhook.SignatureKey,
		fresh: strconv.FormatInt(now.Unix(), 10),
		// A minute past the tolerance: outside it whatever the endpoint's
		// clock or the time the delivery took (refusals.feature).
		stale: strconv.FormatInt(now.Unix()-tol-60, 10),
		away:  strconv.FormatInt(now.Unix()+tol+60, 10)}
	if p.Webhook.SignatureFormat == "entries" {
		s.label = p.Webhook.SignaturePrefix
	}
	if p.Webhook.IsRFC9421() {
		s.u, s.msg = rfcMessage(e, "application/json", body)
	}
	if !p.Webhook.HasTimestamp() {
		s.fresh, s.stale, s.away = "", "", ""
	}
	return s
}

// mac is the signature of the delivery's body under secret, at ts.
// Under RFC 9421 it is the pair of parameters (created=ts) and signature.
func (s *signer) mac(secret, ts string) string {
	if s.p.Webhook.IsRFC9421() {
		return rfcPair(s.p, s.u, s.msg, secret, ts, s.p.Webhook.Components)
	}
	return s.p.WebhookMACText(secret, s.id, ts, s.body)
}

// render writes a header form of this delivery under the scheme.
func (s *signer) render(f headerForm) ([]sentHeader, bool) {
	if s.p.Webhook.IsRFC9421() {
		return renderRFC9421(s.p, f, s.msg.Get("Content-Digest"))
	}
	return render(s.p, f, s.id)
}

func (s *signer) valid() string { return s.mac(s.secret, s.fresh) }

// shiftedValid is the valid signature with its t written as shifted
// after signing: under RFC 9421 the created parameter changed, the
// signature kept; else the valid signature, which render puts beside the
// shifted t.
func (s *signer) shiftedValid(shifted string) string {
	if !s.p.Webhook.IsRFC9421() {
		return s.valid()
	}
	_, sig := rfcSplit(s.valid())
	return s.p.RFC9421Params(s.p.Webhook.Components, shifted, s.p.RFC9421KeyID(s.secret)) + rfcSep + sig
}
func (s *signer) retired() string { return s.mac(randomSecret("whsec_retired_"), s.fresh) }

// timestamps is ts as a header form's list: none under a scheme that
// signs no timestamp.
func (s *signer) timestamps(ts ...string) []string {
	if !s.p.Webhook.HasTimestamp() {
		return nil
	}
	return ts
}

// keyNeighbours are keys one step from the signature entries' key: the
// same key under another version digit, one character more at either
// end, one less. Only the scheme's own key holds a signature (defaults
// §B: "v1=" entries), so a valid signature under any of them is no
// signature. A key in another case is not among them: no sentence says
// whether a key is read in one case only.
func keyNeighbours(label string) []string {
	core, tail := label, ""
	if i := strings.LastIndexAny(label, ",=:"); i > 0 && i == len(label)-1 {
		core, tail = label[:i], label[i:]
	}
	cands := []string{otherVersion(core, "0") + tail, otherVersion(core, "2") + tail, core + "0" + tail, "x" + core + tail}
	if len(core) > 1 {
		cands = append(cands, core[:len(core)-1]+tail)
	}
	var out []string
	for _, c := range cands {
		if !strings.EqualFold(c, label) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// material is a header's content before its layout: timestamps and
// signature entries, and why no entry of it is a valid signature.
type material struct {
	name, why, ref string
	ts             []string
	sigs           []entry
}

// forgedMaterial is every way to write a header whose entries hold no
// valid signature over a fresh t: another secret, a t outside the
// tolerance signed as it is, a t changed after signing, two t entries
// whose signed one lies outside the tolerance (an ambiguous t), and the
// valid signature under a key that is not the scheme's.
func (s *signer) forgedMaterial() []material {
	tol := int64(s.p.Webhook.Tolerance / time.Second)
	ms := []material{{"signed with another secret", "its only signature was made with a secret the endpoint does not hold", refWebhookSig,
		s.timestamps(s.fresh), []entry{{s.label, s.mac(randomSecret("whsec_other_"), s.fresh)}}}}
	if s.p.Webhook.HasTimestamp() {
		f, _ := strconv.ParseInt(s.fresh, 10, 64)
		shifted := strconv.FormatInt(f+1, 10)
		stale := fmt.Sprintf("its only signature covers a t %d s old, past the %d s tolerance", tol+60, tol)
		ahead := fmt.Sprintf("its only signature covers a t %d s ahead, past the %d s tolerance", tol+60, tol)
		ms = append(ms,
			material{"signed over a stale t", stale, refReplay, []string{s.stale}, []entry{{s.label, s.mac(s.secret, s.stale)}}},
			material{"signed over a t ahead", ahead, refReplay, []string{s.away}, []entry{{s.label, s.mac(s.secret, s.away)}}},
			material{"t changed by 1 s after signing", "its t was changed after signing, the signature kept", refWebhookSig,
				[]string{shifted}, []entry{{s.label, s.shiftedValid(shifted)}}},
			material{"t twice, a fresh one first, the signature over the stale second", stale + ", behind a fresh t that nothing signs", refReplay,
				[]string{s.fresh, s.stale}, []entry{{s.label, s.mac(s.secret, s.stale)}}},
			material{"t twice, the stale one first, the signature over it", stale + ", beside a fresh t that nothing signs", refReplay,
				[]string{s.stale, s.fresh}, []entry{{s.label, s.mac(s.secret, s.stale)}}},
			material{"t twice, a fresh one first, the signature over the second, ahead", ahead + ", behind a fresh t that nothing signs", refReplay,
				[]string{s.fresh, s.away}, []entry{{s.label, s.mac(s.secret, s.away)}}})
	}
	if s.p.Webhook.IsRFC9421() {
		// A label is the sender's to choose: the valid signature under
		// another one is valid.
		return ms
	}
	for _, k := range keyNeighbours(s.label) {
		ms = append(ms, material{"the valid signature under " + strconv.Quote(k), "only " + strconv.Quote(s.label) + " entries are signatures, and it had none", refWebhookSig,
			s.timestamps(s.fresh), []entry{{k, s.valid()}}})
	}
	return ms
}

// layouts are the header's layout operators: as the service writes it,
// t last, t between two signature entries, spaces after the commas or
// around "=", an unknown entry beside, another signature entry beside
// that matches nothing.
func (s *signer) layouts() []struct {
	name string
	of   func(f headerForm) headerForm
} {
	return []struct {
		name string
		of   func(f headerForm) headerForm
	}{
		{"laid out as the service writes it", func(f headerForm) headerForm { return f }},
		{"t last", func(f headerForm) headerForm { f.tPos = "last"; return f }},
		{"t between two signature entries", func(f headerForm) headerForm {
			f.tPos, f.sigs = "middle", append(slices.Clone(f.sigs), entry{s.label, s.retired()})
			return f
		}},
		{"spaces after the commas", func(f headerForm) headerForm { f.spaced = "after-comma"; return f }},
		{"spaces around =", func(f headerForm) headerForm { f.spaced = "around-equals"; return f }},
		{"beside an unknown entry", func(f headerForm) headerForm {
			f.extra = []entry{{"x", "1"}}
			if s.p.Webhook.SignatureFormat == "entries" {
				f.extra = []entry{{"x,", "1"}}
			}
			return f
		}},
		{"beside a second signature entry that matches nothing", func(f headerForm) headerForm {
			f.sigs = append(slices.Clone(f.sigs), entry{s.label, s.retired()})
			return f
		}},
	}
}

// forgedNeighbours are every forged material in every layout the scheme
// can write, each once: all must be refused.
func (s *signer) forgedNeighbours() []*neighbour {
	var out []*neighbour
	seen := map[string]bool{}
	for _, m := range s.forgedMaterial() {
		for _, l := range s.layouts() {
			f := l.of(headerForm{ts: m.ts, sigs: m.sigs})
			if l.name == "t last" && (len(f.ts) == 0 || s.p.Webhook.TimestampFrom != "field") {
				continue
			}
			hs, ok := s.render(f)
			if !ok {
				continue
			}
			key := fmt.Sprint(hs)
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, &neighbour{name: m.name + "; " + l.name, expect: "refuse", why: m.why, ref: m.ref,
				d: &delivery{headers: hs}})
		}
	}
	return out
}

// validNeighbours are headers of two, three and four signature entries
// with the valid one at every position, the others made with retired
// secrets: a receiver accepts the notification when any of them matches
// (defaults §B bullet 1). None under a scheme with room for one entry.
func (s *signer) validNeighbours() []*neighbour {
	var out []*neighbour
	for n := 2; n <= 4; n++ {
		for k := range n {
			sigs := make([]entry, n)
			for i := range sigs {
				sigs[i] = entry{s.label, s.retired()}
			}
			sigs[k].value = s.valid()
			hs, ok := s.render(headerForm{ts: s.timestamps(s.fresh), sigs: sigs})
			if !ok {
				continue
			}
			out = append(out, &neighbour{name: fmt.Sprintf("%d signature entries, the valid one number %d", n, k+1), expect: "accept",
				ref: refRotation, d: &delivery{headers: hs}})
		}
	}
	return out
}

// bodySizes are the sizes of the bodies every forgery is sent at: as
// the service writes it (0), and one byte past the buffer sizes that
// readers and frameworks commonly use, so that a path an endpoint takes
// only for a large body is walked too.
var bodySizes = []int{0, 4<<10 + 1, 8<<10 + 1, 16<<10 + 1, 64<<10 + 1}

// filler is free text that JSON encodes byte for byte (no quote,
// backslash, control, <, > or &), in several scripts, repeated past the
// largest body a row sends.
var filler = strings.Repeat(strings.ReplaceAll(scripts, " ", "")+"cláusula7.3Ñuñoa", (boundaryLimit+4<<10)/200)

// fill is exactly n bytes of free text, ending in ASCII: the filler cut
// at a character's start at least a byte before n, then "x"s.
func fill(n int) string {
	if n <= 0 {
		return ""
	}
	cut := min(n-1, len(filler))
	for cut > 0 && !utf8.RuneStart(filler[cut]) {
		cut--
	}
	return filler[:cut] + strings.Repeat("x", n-cut)
}

// sized encodes n with its title grown so that the body is exactly size
// bytes (0: as it is).
func sized(p *firmakit.Profile, n firmakit.Notification, size int) ([]byte, firmakit.Notification, error) {
	b, err := p.EncodeNotification(n)
	if err != nil || size == 0 {
		return b, n, err
	}
	if len(b) >= size {
		return nil, n, fmt.Errorf("a body of %d bytes cannot be grown to %d", len(b), size)
	}
	n.Title += fill(size - len(b))
	if b, err = p.EncodeNotification(n); err == nil && len(b) != size {
		err = fmt.Errorf("the title did not encode byte for byte: %d bytes, not %d", len(b), size)
	}
	return b, n, err
}

// lastChanged is n with the last character of its title changed: a body
// changed at its end, past any prefix an endpoint may verify alone.
func lastChanged(n firmakit.Notification) firmakit.Notification {
	t := []byte(n.Title)
	switch c := &t[len(t)-1]; {
	case *c == 'x':
		*c = 'y'
	case *c < 0x80:
		*c = 'x'
	default:
		t = append(t[:len(t)-1:len(t)-1], 'x')
	}
	n.Title = string(t)
	return n
}

// boundaryClasses are the characters a body is split across buffer
// boundaries in, with the offsets inside each where a boundary falls:
// 2-, 3- and 4-byte UTF-8 characters cut inside, and decomposed forms (a
// letter and its combining accent, Hangul jamo) cut between their
// parts and inside them.
var boundaryClasses = map[string][]string{
	"2-byte":    {"ñ"},
	"3-byte":    {"租"},
	"4-byte":    {"🖋"},
	"combining": {"e\u0301", "\u1112\u1161"},
}

// boundaryLimit is the size of a boundary body: 64 KiB, the largest
// buffer size of bodySizes; a valid body stays within it (see the
// caps-body-at-64KiB liberty).
const boundaryLimit = 64 << 10

// boundaryBodies are the notifications of n whose title puts a character
// of class across every power-of-two offset of the body that the title
// reaches, one body per cut inside the character, each exactly 64 KiB,
// with free text in several scripts between them; each body is a new
// event (newID).
func boundaryBodies(p *firmakit.Profile, n firmakit.Notification, class string, newID func() string) ([][]byte, []string, error) {
	seqs, ok := boundaryClasses[class]
	if !ok {
		return nil, nil, fmt.Errorf("unknown character class %q", class)
	}
	const marker = "QQBOUNDARYQQ"
	probe := n
	probe.Title += marker
	enc, err := p.EncodeNotification(probe)
	if err != nil {
		return nil, nil, err
	}
	start := bytes.Index(enc, []byte(marker))
	if start < 0 {
		return nil, nil, fmt.Errorf("the title is not in the body")
	}
	tail := len(enc) - start - len(marker)
	var bodies [][]byte
	var names []string
	for _, seq := range seqs {
		for cut := 1; cut < len(seq); cut++ {
			var text strings.Builder
			at := start
			var offsets []int
			for pow := 16; pow < boundaryLimit; pow *= 2 {
				pos := pow - cut
				if pos < at {
					continue
				}
				text.WriteString(fill(pos - at))
				text.WriteString(seq)
				offsets = append(offsets, pos)
				at = pos + len(seq)
			}
			if rest := boundaryLimit - tail - at; rest > 0 {
				text.WriteString(fill(rest))
			}
			m := n
			m.EventID = newID()
			m.Title += text.String()
			b, err := p.EncodeNotification(m)
			if err != nil {
				return nil, nil, err
			}
			for _, o := range offsets {
				if o+len(seq) > len(b) || string(b[o:o+len(seq)]) != seq {
					return nil, nil, fmt.Errorf("%q did not land at byte %d of the body", seq, o)
				}
			}
			bodies = append(bodies, b)
			names = append(names, fmt.Sprintf("%+q cut after its byte %d across every power-of-two offset from %d to %d, %d bytes in all",
				seq, cut, offsets[0]+cut, offsets[len(offsets)-1]+cut, len(b)))
		}
	}
	return bodies, names, nil
}
