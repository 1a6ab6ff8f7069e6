package firmakit

import "strings"

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
