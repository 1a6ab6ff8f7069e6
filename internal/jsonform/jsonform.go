// Package jsonform writes a JSON text in forms a correct encoder does not
// choose but every JSON parser must read alike: the suites send them to
// show that a body is read as JSON, not as the bytes one encoder writes.
package jsonform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// EscapeNonASCII writes every non-ASCII character of a JSON text as \uXXXX.
func EscapeNonASCII(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.Bytes()
}

// ReversedKeys writes a decoded JSON value (what encoding/json decodes
// into any) with its objects with their keys in reverse order and a
// space after each colon and comma: valid JSON no encoder writes.
func ReversedKeys(v any) ([]byte, error) {
	var b bytes.Buffer
	var write func(v any) error
	write = func(v any) error {
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Sort(sort.Reverse(sort.StringSlice(keys)))
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				kb, _ := json.Marshal(k)
				b.Write(kb)
				b.WriteString(": ")
				if err := write(t[k]); err != nil {
					return err
				}
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range t {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := write(e); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		default:
			eb, err := json.Marshal(t)
			if err != nil {
				return err
			}
			b.Write(eb)
		}
		return nil
	}
	err := write(v)
	return b.Bytes(), err
}
