package receiver

import (
	"fmt"
	"strings"

	"github.com/firmakit/firmakit"
)

// ParseSecrets reads the values of 'firmakit receive --secret',
// channel=secret pairs ("*" for every channel), as Receiver.Secrets; nil
// when none are given, so that the receiver's default applies. Its errors
// name the flag, and show no secret.
func ParseSecrets(pairs []string) (map[string][]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := map[string][]string{}
	for _, p := range pairs {
		ch, sec, ok := strings.Cut(p, "=")
		if !ok || ch == "" || sec == "" {
			return nil, fmt.Errorf("--secret %q: want channel=secret", redact(p))
		}
		out[ch] = append(out[ch], sec)
	}
	return out, nil
}

// redact keeps what an error may show of a value that may hold a secret.
func redact(s string) string {
	if ch, _, ok := strings.Cut(s, "="); ok {
		return ch + "=…"
	}
	if len(s) > 4 {
		return s[:2] + "…"
	}
	return "…"
}

// ParseChannelProfiles reads the values of 'firmakit receive
// --channel-profile', channel=PRESET or channel=FILE, as
// Receiver.ChannelProfiles. Its errors name the flag.
func ParseChannelProfiles(values []string) (map[string]*firmakit.Profile, error) {
	if len(values) == 0 {
		return nil, nil
	}
	out := map[string]*firmakit.Profile{}
	for _, v := range values {
		ch, name, ok := strings.Cut(v, "=")
		if !ok || ch == "" || name == "" {
			return nil, fmt.Errorf("--channel-profile %q is not channel=PRESET or channel=FILE (e.g. gh=github)", v)
		}
		if _, dup := out[ch]; dup {
			return nil, fmt.Errorf("--channel-profile gives channel %q twice", ch)
		}
		p, err := firmakit.ResolveProfile(name)
		if err != nil {
			return nil, fmt.Errorf("--channel-profile %s: %v", ch, err)
		}
		out[ch] = p
	}
	return out, nil
}
