package picker

import (
	"errors"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pi-go/pi-go/internal/session"
)

// threadSessions nests every session under the one it was forked from (its header's parentSession),
// newest first at each level.
func threadSessions(infos []session.Info) []sessionRow {
	type node struct {
		info     session.Info
		children []*node
	}
	byPath := make(map[string]*node, len(infos))
	for _, in := range infos {
		byPath[filepath.Clean(in.Path)] = &node{info: in}
	}
	var roots []*node
	for _, in := range infos {
		n := byPath[filepath.Clean(in.Path)]
		if p := in.ParentSessionPath; p != "" {
			if parent, ok := byPath[filepath.Clean(p)]; ok && parent != n {
				parent.children = append(parent.children, n)
				continue
			}
		}
		roots = append(roots, n)
	}
	var sortNodes func(ns []*node)
	sortNodes = func(ns []*node) {
		sort.SliceStable(ns, func(i, j int) bool { return ns[i].info.Modified.After(ns[j].info.Modified) })
		for _, n := range ns {
			sortNodes(n.children)
		}
	}
	sortNodes(roots)
	var out []sessionRow
	seen := map[*node]bool{}
	var walk func(n *node, depth int, continues []bool, last bool)
	walk = func(n *node, depth int, continues []bool, last bool) {
		if seen[n] {
			return // a cycle of parent paths
		}
		seen[n] = true
		out = append(out, sessionRow{info: n.info, depth: depth, last: last, continues: continues})
		for i, c := range n.children {
			next := continues
			if depth > 0 {
				next = append(append([]bool(nil), continues...), !last)
			}
			walk(c, depth+1, next, i == len(n.children)-1)
		}
	}
	for i, r := range roots {
		walk(r, 0, nil, i == len(roots)-1)
	}
	return out
}

// searchToken is one part of a session search: fuzzy, or an exact phrase (in double quotes).
type searchToken struct {
	phrase bool
	value  string
}

// parseSessionQuery reads pi's session search syntax: "re:<regex>", or tokens where "a phrase" in
// double quotes must appear as written (unbalanced quotes: plain tokens).
func parseSessionQuery(q string) (re *regexp.Regexp, tokens []searchToken, err error) {
	q = strings.TrimSpace(q)
	if rest, ok := strings.CutPrefix(q, "re:"); ok {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			return nil, nil, errors.New("empty regex")
		}
		re, err = regexp.Compile("(?i)" + rest)
		return re, nil, err
	}
	if strings.Count(q, `"`)%2 == 1 {
		// An unbalanced quote is not a phrase: plain tokens, the quote dropped.
		for _, f := range strings.Fields(strings.ReplaceAll(q, `"`, " ")) {
			tokens = append(tokens, searchToken{value: f})
		}
		return nil, tokens, nil
	}
	inQuote := false
	var buf strings.Builder
	flush := func(phrase bool) {
		if v := strings.TrimSpace(buf.String()); v != "" {
			tokens = append(tokens, searchToken{phrase: phrase, value: v})
		}
		buf.Reset()
	}
	for _, r := range q {
		switch {
		case r == '"':
			flush(inQuote)
			inQuote = !inQuote
		case !inQuote && (r == ' ' || r == '\t'):
			flush(false)
		default:
			buf.WriteRune(r)
		}
	}
	flush(false)
	return nil, tokens, nil
}

// sessionSearchText is what a search looks at: the id, the name, the first message and the folder.
func sessionSearchText(in session.Info) string {
	return in.ID + " " + in.Name + " " + in.FirstMessage + " " + in.Cwd
}

// matchSession scores a session against a parsed query (lower is better).
func matchSession(in session.Info, re *regexp.Regexp, tokens []searchToken) (float64, bool) {
	text := sessionSearchText(in)
	if re != nil {
		loc := re.FindStringIndex(text)
		if loc == nil {
			return 0, false
		}
		return float64(loc[0]) * 0.1, true
	}
	total := 0.0
	norm := ""
	for _, t := range tokens {
		if t.phrase {
			if norm == "" {
				norm = strings.ToLower(strings.Join(strings.Fields(text), " "))
			}
			i := strings.Index(norm, strings.ToLower(strings.Join(strings.Fields(t.value), " ")))
			if i < 0 {
				return 0, false
			}
			total += float64(i) * 0.1
			continue
		}
		s, ok := FuzzyScore(t.value, text)
		if !ok {
			return 0, false
		}
		total += s
	}
	return total, true
}

// filterSessions keeps the sessions matching query, in the picker's order: as listed (newest first)
// for threaded and recent, best match first (then newest) for relevance.
func filterSessions(infos []session.Info, query string, order sessionSort) []session.Info {
	if query == "" {
		return infos
	}
	re, tokens, err := parseSessionQuery(query)
	if err != nil {
		return nil
	}
	type scored struct {
		in    session.Info
		score float64
	}
	var out []scored
	for _, in := range infos {
		if s, ok := matchSession(in, re, tokens); ok {
			out = append(out, scored{in, s})
		}
	}
	if order == sortRelevance {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].score != out[j].score {
				return out[i].score < out[j].score
			}
			return out[i].in.Modified.After(out[j].in.Modified)
		})
	}
	res := make([]session.Info, len(out))
	for i, s := range out {
		res[i] = s.in
	}
	return res
}
