package mcp

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Tool search ranks tools with Okapi BM25 over their descriptions and schema texts, with the tool
// name and the server (namespace) as separate, weighted fields, as pi 1.6's tool_search does:
// coverage of the query's terms first, then score; an exact name query wins outright.

const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// nameWeight: a query term in the name counts this many times its IDF, more than any number of
	// mentions in the description.
	nameWeight = 3.0
	// namespaceWeight: a term in the server's name, description or instructions helps find the
	// server, not the tool in it.
	namespaceWeight = 0.5
)

var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"for": true, "from": true, "in": true, "is": true, "it": true, "of": true, "on": true, "or": true,
	"that": true, "the": true, "this": true, "to": true, "with": true,
}

var (
	camelLower = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	camelUpper = regexp.MustCompile(`([A-Z]+)([A-Z][a-z])`)
	asciiWord  = regexp.MustCompile(`^[a-z0-9]+$`)
)

// stem is a naive singular: issues → issue, searches → search, tools → tool.
func stem(t string) string {
	switch {
	case len(t) > 4 && strings.HasSuffix(t, "ies"):
		return t[:len(t)-3] + "y"
	case len(t) > 4 && (strings.HasSuffix(t, "ches") || strings.HasSuffix(t, "shes") || strings.HasSuffix(t, "sses") || strings.HasSuffix(t, "xes") || strings.HasSuffix(t, "zes")):
		return t[:len(t)-2]
	case len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss"):
		return t[:len(t)-1]
	}
	return t
}

// tokenize splits identifiers (camelCase, snake_case) and text into lower-case words without stop
// words, singular where English makes that easy.
func tokenize(text string) []string {
	text = camelLower.ReplaceAllString(text, "$1 $2")
	text = camelUpper.ReplaceAllString(text, "$1 $2")
	text = strings.ToLower(text)
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.M, r)
	})
	out := words[:0]
	for _, w := range words {
		if stopWords[w] {
			continue
		}
		if asciiWord.MatchString(w) {
			w = stem(w)
		}
		out = append(out, w)
	}
	return out
}

// searchDoc is one tool as the ranker sees it.
type searchDoc struct {
	name           string
	nameTerms      map[string]bool
	localNameTerms []string
	textCounts     map[string]int
	textLength     int
	namespaceTerms map[string]bool
}

func newSearchDoc(name, text, namespaceText string) searchDoc {
	d := searchDoc{name: name, nameTerms: set(tokenize(name)), textCounts: map[string]int{}, namespaceTerms: set(tokenize(namespaceText))}
	for _, t := range tokenize(text) {
		d.textCounts[t]++
		d.textLength++
	}
	segments := strings.Split(name, "__")
	for t := range set(tokenize(segments[len(segments)-1])) {
		d.localNameTerms = append(d.localNameTerms, t)
	}
	return d
}

func set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var nameNormalizer = regexp.MustCompile(`[^a-z0-9_$]`)

func normalizeName(s string) string {
	return nameNormalizer.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "_")
}

type searchMatch struct {
	index   int
	score   float64
	covered int
	exact   bool
}

// rank returns the indexes of docs that match query, best first, at most limit.
func rank(query string, docs []searchDoc, limit int) []int {
	terms := slices.Compact(slices.Sorted(func(yield func(string) bool) {
		for t := range set(tokenize(query)) {
			if !yield(t) {
				return
			}
		}
	}))
	if len(terms) == 0 || len(docs) == 0 || limit <= 0 {
		return nil
	}
	total := 0
	for _, d := range docs {
		total += d.textLength
	}
	avg := float64(total) / float64(len(docs))
	if avg == 0 {
		avg = 1
	}
	idf := make(map[string]float64, len(terms))
	fullNameBonus := 0.0
	for _, t := range terms {
		n := 0
		for _, d := range docs {
			if d.nameTerms[t] || d.textCounts[t] > 0 || d.namespaceTerms[t] {
				n++
			}
		}
		idf[t] = math.Log(1 + (float64(len(docs)-n)+0.5)/(float64(n)+0.5))
		fullNameBonus += idf[t]
	}
	queryTerms := set(terms)
	exactQuery := normalizeName(query)
	var matches []searchMatch
	for i, d := range docs {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(d.textLength)/avg)
		score, covered := 0.0, 0
		for _, t := range terms {
			count := float64(d.textCounts[t])
			w := count * (bm25K1 + 1) / (count + norm)
			if d.nameTerms[t] {
				w += nameWeight
			}
			if d.namespaceTerms[t] {
				w += namespaceWeight
			}
			if w > 0 {
				covered++
			}
			score += idf[t] * w
		}
		if score == 0 {
			continue
		}
		if len(d.localNameTerms) > 0 && !slices.ContainsFunc(d.localNameTerms, func(t string) bool { return !queryTerms[t] }) {
			score += fullNameBonus
		}
		n := normalizeName(d.name)
		matches = append(matches, searchMatch{index: i, score: score, covered: covered, exact: n == exactQuery || strings.HasSuffix(n, "__"+exactQuery)})
	}
	sort.SliceStable(matches, func(a, b int) bool {
		x, y := matches[a], matches[b]
		if x.exact != y.exact {
			return x.exact
		}
		if x.covered != y.covered {
			return x.covered > y.covered
		}
		return x.score > y.score
	})
	if len(matches) > limit {
		matches = matches[:limit]
	}
	out := make([]int, len(matches))
	for i, m := range matches {
		out[i] = m.index
	}
	return out
}

// schemaText collects a schema's descriptions and property names, following local $refs once.
func schemaText(schema any, root map[string]any, parts *[]string, seen map[string]bool) {
	obj, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := obj["$ref"].(string); ok {
		if target := resolveRef(ref, root); target != nil && !seen[ref] {
			seen[ref] = true
			schemaText(target, root, parts, seen)
		}
	}
	if d, ok := obj["description"].(string); ok {
		*parts = append(*parts, d)
	}
	if props, ok := obj["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range props {
				if !yield(k) {
					return
				}
			}
		}) {
			*parts = append(*parts, name)
			schemaText(props[name], root, parts, seen)
		}
	}
	schemaText(obj["items"], root, parts, seen)
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := obj[key].([]any); ok {
			for _, v := range list {
				schemaText(v, root, parts, seen)
			}
		}
	}
}

// resolveRef resolves a local JSON pointer ("#/$defs/Item") in root.
func resolveRef(ref string, root map[string]any) map[string]any {
	if ref == "#" {
		return root
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = root
	for _, seg := range strings.Split(ref[2:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	m, _ := cur.(map[string]any)
	return m
}
