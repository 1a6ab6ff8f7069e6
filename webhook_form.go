package firmakit

import "strings"

// WebhookEntry is one entry of a signature header: its key (v1, under
// the fields format) or prefix (v1, under the entries format), and its
// value.
type WebhookEntry struct{ Key, Value string }

// WebhookHeaderForm is a signature header taken apart: its timestamps
// (the t fields; none under a scheme that takes t from a header of its
// own), its entries in order, and where its layout departs from the one
// the service writes. The service's own header is the form with one
// timestamp first and its signatures; a receiver's forgeries are others.
type WebhookHeaderForm struct {
	Timestamps []string
	Entries    []WebhookEntry
	// TPos is where the t fields stand among the entries: "" first,
	// "last", or "middle" (after the first entry).
	TPos string
	// Spaced puts spaces where the grammar has none: "after-comma" or
	// "around-equals".
	Spaced string
}

// WebhookHeaderValue writes a signature header's value from its form:
// the one composer of the fields and entries formats, for the service's
// header and for every variant of it a suite sends. It returns false
// when the scheme has no way to write the form (several entries where
// it has room for one, a t field where t is a header of its own, "="
// where entries have none).
func (p *Profile) WebhookHeaderValue(f WebhookHeaderForm) (string, bool) {
	w := p.Webhook
	if w.SignatureFormat == "entries" {
		if w.SignatureSeparator == "" && len(f.Entries) > 1 {
			return "", false
		}
		if f.Spaced == "around-equals" || f.TPos != "" {
			return "", false
		}
		sep := w.SignatureSeparator
		if f.Spaced == "after-comma" {
			if sep == "" {
				return "", false
			}
			sep += " "
		}
		items := make([]string, len(f.Entries))
		for i, e := range f.Entries {
			items[i] = e.Key + e.Value
		}
		return strings.Join(items, sep), true
	}
	kv := func(k, v string) string {
		if f.Spaced == "around-equals" {
			return k + " = " + v
		}
		return k + "=" + v
	}
	var ts, sigs []string
	if w.TimestampFrom == "field" {
		for _, t := range f.Timestamps {
			ts = append(ts, kv(w.TimestampKey, t))
		}
	}
	for _, e := range f.Entries {
		sigs = append(sigs, kv(e.Key, e.Value))
	}
	var items []string
	switch f.TPos {
	case "last":
		items = append(sigs, ts...)
	case "middle":
		if len(sigs) < 2 || len(ts) == 0 {
			return "", false
		}
		items = append(append(append(items, sigs[0]), ts...), sigs[1:]...)
	default:
		items = append(ts, sigs...)
	}
	sep := ","
	if f.Spaced == "after-comma" {
		sep = ", "
	}
	return strings.Join(items, sep), true
}
