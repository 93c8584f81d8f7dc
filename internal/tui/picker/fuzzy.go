package picker

import (
	"sort"
	"strings"
	"unicode"
)

// FuzzyScore matches query against text as pi's fuzzy filter does: every query character must appear
// in order; consecutive matches, matches at word starts and early matches score better (lower is
// better). ok is false when it does not match. A query of letters then digits (or digits then
// letters) also matches with the two parts swapped, slightly worse.
func FuzzyScore(query, text string) (score float64, ok bool) {
	q := []rune(strings.ToLower(query))
	t := []rune(strings.ToLower(text))
	if s, ok := fuzzyRunes(q, t); ok {
		return s, true
	}
	if swapped := swapAlphaNum(q); swapped != nil {
		if s, ok := fuzzyRunes(swapped, t); ok {
			return s + 5, true
		}
	}
	return 0, false
}

func fuzzyRunes(q, t []rune) (float64, bool) {
	if len(q) == 0 {
		return 0, true
	}
	if len(q) > len(t) {
		return 0, false
	}
	qi, last, consecutive := 0, -1, 0
	score := 0.0
	for i := 0; i < len(t) && qi < len(q); i++ {
		if t[i] != q[qi] {
			continue
		}
		boundary := i == 0 || strings.ContainsRune(" \t-_./:", t[i-1])
		if last == i-1 {
			consecutive++
			score -= float64(consecutive * 5)
		} else {
			consecutive = 0
			if last >= 0 {
				score += float64((i - last - 1) * 2)
			}
		}
		if boundary {
			score -= 10
		}
		score += float64(i) * 0.1
		last = i
		qi++
	}
	if qi < len(q) {
		return 0, false
	}
	if string(q) == string(t) {
		score -= 100
	}
	return score, true
}

// swapAlphaNum turns "abc12" into "12abc" and "12abc" into "abc12"; nil for other queries.
func swapAlphaNum(q []rune) []rune {
	split := -1
	for i := 1; i < len(q); i++ {
		if unicode.IsDigit(q[i]) != unicode.IsDigit(q[i-1]) {
			if split >= 0 {
				return nil
			}
			split = i
		}
	}
	if split < 0 {
		return nil
	}
	for _, r := range q {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return nil
		}
	}
	return append(append([]rune(nil), q[split:]...), q[:split]...)
}

// FuzzyFilter keeps the items whose text matches every space-separated token of query, best first
// (stable for equal scores). An empty query keeps everything in order.
func FuzzyFilter[T any](items []T, query string, text func(T) string) []T {
	tokens := strings.Fields(query)
	if len(tokens) == 0 {
		return items
	}
	type scored struct {
		item  T
		score float64
	}
	var out []scored
	for _, it := range items {
		total, all := 0.0, true
		for _, tok := range tokens {
			s, ok := FuzzyScore(tok, text(it))
			if !ok {
				all = false
				break
			}
			total += s
		}
		if all {
			out = append(out, scored{it, total})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score < out[j].score })
	res := make([]T, len(out))
	for i, s := range out {
		res[i] = s.item
	}
	return res
}
