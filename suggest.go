package firmakit

import (
	"sort"
	"strings"
)

// Closest is the "did you mean" of a name that is not known: the
// candidate nearest to word by EditDistance, when one is near enough to be
// what was meant (a few letters off, or word is the start of it), else "".
// word is compared in lower case, the candidates as written: callers that
// ignore case pass them in lower case.
func Closest(word string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := EditDistance(strings.ToLower(word), c)
		if len(word) >= 3 && strings.HasPrefix(c, strings.ToLower(word)) {
			d = min(d, 1)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist >= 0 && bestDist <= max(2, len(word)/3) && bestDist < len(word) {
		return best
	}
	return ""
}

// NearestOptions say how Nearest measures a name against a word.
type NearestOptions struct {
	// Fold, when not nil, is applied to both sides before measuring: a
	// tag read without its "@" and its case, say.
	Fold func(string) string
	// Contains puts a name that contains a word, or that a word
	// contains, at distance 0.
	Contains bool
	// Within, when not nil, is the farthest distance a name is listed at.
	Within func(name string) int
}

// Nearest returns up to n of known, the nearest to any of words first
// (ties in the order of their names, each name once): the ranked "did you
// mean" of a list of fault names, tags or flags.
func Nearest(known []string, n int, o NearestOptions, words ...string) []string {
	fold := o.Fold
	if fold == nil {
		fold = func(s string) string { return s }
	}
	best := map[string]int{}
	for _, w := range words {
		fw := fold(w)
		for _, k := range known {
			fk := fold(k)
			d := EditDistance(fw, fk)
			if o.Contains && (strings.Contains(fk, fw) || strings.Contains(fw, fk)) {
				d = 0
			}
			if o.Within != nil && d > o.Within(k) {
				continue
			}
			if old, ok := best[k]; !ok || d < old {
				best[k] = d
			}
		}
	}
	names := make([]string, 0, len(best))
	for k := range best {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if best[names[i]] != best[names[j]] {
			return best[names[i]] < best[names[j]]
		}
		return names[i] < names[j]
	})
	return names[:min(n, len(names))]
}
