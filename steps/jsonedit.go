package steps

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pathStep is one step of a body path such as signers[1].email; [+] as
// the last step appends to the array.
var pathStep = regexp.MustCompile(`^([A-Za-z0-9_]+)(?:\[(\d+|\+)\])?$`)

// edit removes (remove true) or sets the value at path in a decoded JSON
// value.
func edit(root any, path string, value any, remove bool) error {
	parts := strings.Split(path, ".")
	cur := root
	for i, part := range parts {
		m := pathStep.FindStringSubmatch(part)
		if m == nil {
			return fmt.Errorf("bad body path %q", path)
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("body path %q: %s is not an object", path, part)
		}
		last := i == len(parts)-1
		if m[2] == "" {
			if last {
				if remove {
					delete(obj, m[1])
				} else {
					obj[m[1]] = value
				}
				return nil
			}
			cur = obj[m[1]]
			continue
		}
		if m[2] == "+" {
			arr, ok := obj[m[1]].([]any)
			if !ok || !last || remove {
				return fmt.Errorf("body path %q: [+] appends a value to an array", path)
			}
			obj[m[1]] = append(arr, value)
			return nil
		}
		idx, _ := strconv.Atoi(m[2])
		arr, ok := obj[m[1]].([]any)
		if !ok || idx >= len(arr) {
			return fmt.Errorf("body path %q: no element %d", path, idx)
		}
		if last {
			if remove {
				obj[m[1]] = append(arr[:idx:idx], arr[idx+1:]...)
			} else {
				arr[idx] = value
			}
			return nil
		}
		cur = arr[idx]
	}
	return nil
}

// placeholders fills the names a feature cannot know in advance, since
// they come from the target's template: {template}, {data-key} (its
// first data key) and {signer-N} (its signer keys). It returns why the
// template cannot fill one, if so.
func (s *Steps) placeholders(text string) (string, string) {
	tm := s.T.Template
	if strings.Contains(text, "{data-key}") {
		if len(tm.Data) == 0 {
			return "", "the template has no data keys"
		}
		text = strings.ReplaceAll(text, "{data-key}", tm.Data[0])
	}
	text = strings.ReplaceAll(text, "{template}", tm.Name)
	for i, k := range tm.Signers {
		text = strings.ReplaceAll(text, "{signer-"+strconv.Itoa(i)+"}", k)
	}
	if strings.Contains(text, "{signer-") {
		return "", "the template has too few signers"
	}
	return text, ""
}

// needs tells why a body path cannot apply to the target's template.
func (s *Steps) needs(path string) string {
	switch {
	case strings.HasPrefix(path, "signers[1]") && len(s.T.Template.Signers) < 2:
		return "the template has a single signer"
	case (path == "data" || strings.HasPrefix(path, "data.")) && len(s.T.Template.Data) == 0:
		return "the template has no data keys"
	}
	return ""
}
