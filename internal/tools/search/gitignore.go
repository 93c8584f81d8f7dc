package search

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file is the .gitignore matcher shared by the pure-Go grep and find: pattern syntax as git and
// ripgrep's ignore crate read it (comments, escapes, trailing spaces, "!" negation, "/" anchoring, a
// trailing "/" for directories only, "*", "?", "[...]", "**" in whole path components, and, like
// ripgrep, "{a,b}" alternatives). The same rules serve rg's --glob overrides, with the sense of "!"
// reversed.

// giVerdict is what a set of rules says about one path.
type giVerdict uint8

const (
	giNone giVerdict = iota
	giIgnore
	giWhitelist
)

// giMatcher is the rules of one ignore file (or one set of globs), relative to dir.
type giMatcher struct {
	// dir is the absolute directory the patterns are relative to, without a trailing slash ("" is "/").
	dir          string
	rules        []giRule
	hasWhitelist bool
}

// giRule is one pattern.
type giRule struct {
	whitelist bool
	dirOnly   bool
	// basename rules (no slash in the pattern) match the last path component at any depth.
	basename bool
	alts     []giGlob
}

// giGlob is one alternative of a pattern, as path components.
type giGlob struct {
	segs []giSeg
}

// giSeg is one path component of a pattern.
type giSeg struct {
	kind giSegKind
	// lit is the literal for giSegLiteral, the suffix for giSegSuffix, the prefix for giSegPrefix.
	lit  string
	toks []giTok
}

type giSegKind uint8

const (
	giSegLiteral   giSegKind = iota
	giSegAny                 // "*": any component
	giSegSuffix              // "*lit"
	giSegPrefix              // "lit*"
	giSegWild                // anything else
	giSegRecursive           // "**": zero or more components
)

// giTok is one element of a wildcard component.
type giTok struct {
	kind   giTokKind
	lit    string
	negate bool
	// ranges holds lo, hi pairs.
	ranges []rune
}

type giTokKind uint8

const (
	giTokLit   giTokKind = iota
	giTokAny             // ?
	giTokStar            // *
	giTokClass           // [...]
)

// giParseFile reads an ignore file's content. Lines that do not parse are skipped (ripgrep warns and
// goes on).
func giParseFile(dir string, data []byte) *giMatcher {
	m := &giMatcher{dir: strings.TrimSuffix(dir, "/")}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		rule, ok, err := giParseLine(string(line), false)
		if err != nil || !ok {
			continue
		}
		m.add(rule)
	}
	return m
}

// giParseGlobs builds rg's --glob overrides: a glob selects files, "!glob" excludes paths. Errors use
// ripgrep's wording.
func giParseGlobs(dir string, globs []string) (*giMatcher, error) {
	m := &giMatcher{dir: strings.TrimSuffix(dir, "/")}
	for _, g := range globs {
		rule, ok, err := giParseLine(g, true)
		if err != nil {
			return nil, fmt.Errorf("error parsing glob '%s': %s", g, err.Error())
		}
		if ok {
			m.add(rule)
		}
	}
	return m, nil
}

func (m *giMatcher) add(r giRule) {
	m.rules = append(m.rules, r)
	if r.whitelist {
		m.hasWhitelist = true
	}
}

// giParseLine parses one pattern. In an ignore file "!" re-includes; as an override (glob) a plain
// pattern is the whitelist and "!" excludes. ok is false for blank lines and comments (a "#" glob
// is a comment for ripgrep too).
func giParseLine(line string, override bool) (rule giRule, ok bool, err error) {
	if strings.HasPrefix(line, "#") {
		return rule, false, nil
	}
	if !strings.HasSuffix(line, "\\ ") {
		line = strings.TrimRight(line, " \t\r\n\v\f")
	}
	if line == "" {
		return rule, false, nil
	}
	negated := false
	switch {
	case strings.HasPrefix(line, "\\!") || strings.HasPrefix(line, "\\#"):
		line = line[1:]
	case strings.HasPrefix(line, "!"):
		negated = true
		line = line[1:]
	}
	rule.whitelist = negated != override
	anchored := false
	if strings.HasPrefix(line, "/") {
		anchored = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, "\\/") {
		rule.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return rule, false, nil
	}
	rule.basename = !anchored && !strings.Contains(line, "/")
	alts, err := giExpandBraces(line)
	if err != nil {
		return rule, false, err
	}
	for _, alt := range alts {
		g, err := giCompile(alt, rule.basename)
		if err != nil {
			return rule, false, err
		}
		rule.alts = append(rule.alts, g)
	}
	return rule, true, nil
}

// giExpandBraces turns "a{b,c}d" into "abd", "acd". Nested groups are an error, as in ripgrep.
func giExpandBraces(p string) ([]string, error) {
	open := -1
	var parts []string
	last := 0
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			// A ']' right after '[' (or '[!') belongs to the class.
			if i+1 < len(p) && (p[i+1] == '!' || p[i+1] == '^') {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '{':
			if open >= 0 {
				return nil, fmt.Errorf("nested alternate groups are not allowed")
			}
			open, last = i, i+1
			parts = parts[:0]
		case c == ',' && open >= 0:
			parts = append(parts, p[last:i])
			last = i + 1
		case c == '}' && open >= 0:
			parts = append(parts, p[last:i])
			rest, err := giExpandBraces(p[i+1:])
			if err != nil {
				return nil, err
			}
			var out []string
			for _, part := range parts {
				for _, r := range rest {
					out = append(out, p[:open]+part+r)
					if len(out) > 1024 {
						return nil, fmt.Errorf("too many alternatives")
					}
				}
			}
			return out, nil
		}
	}
	if open >= 0 {
		return nil, fmt.Errorf("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
	}
	return []string{p}, nil
}

// giCompile compiles one alternative (no braces left) into components.
func giCompile(p string, basename bool) (giGlob, error) {
	var comps []string
	if basename {
		comps = []string{p}
	} else {
		comps = giSplitComponents(p)
	}
	g := giGlob{segs: make([]giSeg, 0, len(comps))}
	for _, c := range comps {
		if c == "**" {
			// Collapse runs of "**" and keep at most one.
			if n := len(g.segs); n > 0 && g.segs[n-1].kind == giSegRecursive {
				continue
			}
			g.segs = append(g.segs, giSeg{kind: giSegRecursive})
			continue
		}
		seg, err := giCompileSeg(c)
		if err != nil {
			return g, err
		}
		g.segs = append(g.segs, seg)
	}
	// "dir/**" matches everything inside dir but not dir itself: ripgrep turns it into "dir/**/*".
	if n := len(g.segs); n > 1 && g.segs[n-1].kind == giSegRecursive {
		g.segs = append(g.segs, giSeg{kind: giSegAny})
	}
	return g, nil
}

// giSplitComponents splits a pattern on unescaped slashes.
func giSplitComponents(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '/':
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// giCompileSeg compiles one component into tokens and picks a fast form when there is one.
func giCompileSeg(c string) (giSeg, error) {
	var toks []giTok
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, giTok{kind: giTokLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(c); {
		ch := c[i]
		switch ch {
		case '\\':
			if i+1 >= len(c) {
				return giSeg{}, fmt.Errorf("dangling '\\'")
			}
			_, w := utf8.DecodeRuneInString(c[i+1:])
			lit.WriteString(c[i+1 : i+1+w])
			i += 1 + w
		case '*':
			flush()
			if n := len(toks); n == 0 || toks[n-1].kind != giTokStar {
				toks = append(toks, giTok{kind: giTokStar})
			}
			i++
		case '?':
			flush()
			toks = append(toks, giTok{kind: giTokAny})
			i++
		case '[':
			flush()
			tok, n, err := giParseClass(c[i:])
			if err != nil {
				return giSeg{}, err
			}
			toks = append(toks, tok)
			i += n
		default:
			lit.WriteByte(ch)
			i++
		}
	}
	flush()
	seg := giSeg{kind: giSegWild, toks: toks}
	switch {
	case len(toks) == 0:
		seg.kind = giSegLiteral
	case len(toks) == 1 && toks[0].kind == giTokLit:
		seg.kind, seg.lit = giSegLiteral, toks[0].lit
	case len(toks) == 1 && toks[0].kind == giTokStar:
		seg.kind = giSegAny
	case len(toks) == 2 && toks[0].kind == giTokStar && toks[1].kind == giTokLit:
		seg.kind, seg.lit = giSegSuffix, toks[1].lit
	case len(toks) == 2 && toks[0].kind == giTokLit && toks[1].kind == giTokStar:
		seg.kind, seg.lit = giSegPrefix, toks[0].lit
	}
	return seg, nil
}

// giParseClass parses "[...]" at the start of s and returns the token and its length.
func giParseClass(s string) (giTok, int, error) {
	tok := giTok{kind: giTokClass}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		tok.negate = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return tok, 0, fmt.Errorf("unclosed character class; missing ']'")
		}
		if s[i] == ']' && !first {
			return tok, i + 1, nil
		}
		first = false
		lo, w := giClassRune(s[i:])
		i += w
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, w = giClassRune(s[i+1:])
			i += 1 + w
			if hi < lo {
				return tok, 0, fmt.Errorf("invalid range; '%c' > '%c'", lo, hi)
			}
		}
		tok.ranges = append(tok.ranges, lo, hi)
	}
}

func giClassRune(s string) (rune, int) {
	if s[0] == '\\' && len(s) > 1 {
		r, w := utf8.DecodeRuneInString(s[1:])
		return r, w + 1
	}
	return utf8.DecodeRuneInString(s)
}

// match tests an absolute path against the rules; the last matching rule decides.
func (m *giMatcher) match(abs string, isDir bool) giVerdict {
	rel, ok := giRel(m.dir, abs)
	if !ok {
		return giNone
	}
	return m.matchRel(rel, isDir)
}

// matchRel tests a path relative to the matcher's directory (slash-separated).
func (m *giMatcher) matchRel(rel string, isDir bool) giVerdict {
	name := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		name = rel[i+1:]
	}
	for i := len(m.rules) - 1; i >= 0; i-- {
		r := &m.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.matches(rel, name) {
			if r.whitelist {
				return giWhitelist
			}
			return giIgnore
		}
	}
	return giNone
}

// giRel is abs relative to dir, if abs is inside dir.
func giRel(dir, abs string) (string, bool) {
	if dir == "" {
		return strings.TrimPrefix(abs, "/"), true
	}
	if len(abs) <= len(dir) || abs[len(dir)] != '/' || abs[:len(dir)] != dir {
		return "", false
	}
	return abs[len(dir)+1:], true
}

func (r *giRule) matches(rel, name string) bool {
	for i := range r.alts {
		if r.basename {
			if r.alts[i].segs[0].match(name) {
				return true
			}
		} else if giMatchSegs(r.alts[i].segs, rel) {
			return true
		}
	}
	return false
}

// giMatchSegs matches pattern components against a slash-separated path.
func giMatchSegs(segs []giSeg, path string) bool {
	for len(segs) > 0 {
		if segs[0].kind == giSegRecursive {
			rest := segs[1:]
			if len(rest) == 0 {
				return true
			}
			for {
				if giMatchSegs(rest, path) {
					return true
				}
				i := strings.IndexByte(path, '/')
				if i < 0 {
					return false
				}
				path = path[i+1:]
			}
		}
		comp, next, more := path, "", false
		if i := strings.IndexByte(path, '/'); i >= 0 {
			comp, next, more = path[:i], path[i+1:], true
		}
		if !segs[0].match(comp) {
			return false
		}
		segs = segs[1:]
		if len(segs) == 0 {
			return !more
		}
		if !more {
			// Only a trailing "**" could match nothing more, and "x/**" was made "x/**/*".
			return false
		}
		path = next
	}
	return path == ""
}

// match tests one path component.
func (s *giSeg) match(c string) bool {
	switch s.kind {
	case giSegLiteral:
		return c == s.lit
	case giSegAny:
		return true
	case giSegSuffix:
		return strings.HasSuffix(c, s.lit)
	case giSegPrefix:
		return strings.HasPrefix(c, s.lit)
	case giSegRecursive:
		return true
	}
	return giWild(s.toks, c)
}

// giWild matches wildcard tokens against one component (no '/' inside), backtracking on the last star.
func giWild(toks []giTok, s string) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for si < len(s) || ti < len(toks) {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case giTokStar:
				starTi, starSi = ti, si
				ti++
				continue
			case giTokLit:
				if strings.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			case giTokAny:
				if si < len(s) {
					_, w := utf8.DecodeRuneInString(s[si:])
					si += w
					ti++
					continue
				}
			case giTokClass:
				if si < len(s) {
					r, w := utf8.DecodeRuneInString(s[si:])
					if t.classMatch(r) {
						si += w
						ti++
						continue
					}
				}
			}
		}
		if starTi >= 0 && starSi < len(s) {
			_, w := utf8.DecodeRuneInString(s[starSi:])
			starSi += w
			si, ti = starSi, starTi+1
			continue
		}
		return false
	}
	return true
}

func (t *giTok) classMatch(r rune) bool {
	in := false
	for i := 0; i+1 < len(t.ranges); i += 2 {
		if r >= t.ranges[i] && r <= t.ranges[i+1] {
			in = true
			break
		}
	}
	return in != t.negate
}
