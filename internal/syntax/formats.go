package syntax

import (
	"strings"
	"sync"
)

// Lexers for data and markup formats, which the generic lexer does not fit: mostly line oriented.

// lexAt runs lx on code[from:to] and adds its tokens to t at their place in code.
func lexAt(lx lexer, code string, from, to int, t *tokens) {
	if from >= to {
		return
	}
	var sub tokens
	lx(code[from:to], &sub)
	sub.add(ClassPlain, to-from)
	for _, sp := range sub.spans {
		t.add(sp.class, from+sp.end)
	}
}

// forLines calls f with the start and end (without the newline) of every line of code, adding the
// newlines to t as plain text.
func forLines(code string, t *tokens, f func(start, end int)) {
	for start := 0; start <= len(code); {
		end := lineEnd(code, start)
		f(start, end)
		if end < len(code) {
			t.add(ClassPlain, end+1)
		}
		start = end + 1
	}
}

func indentEnd(code string, p, end int) int {
	for p < end && (code[p] == ' ' || code[p] == '\t') {
		p++
	}
	return p
}

// yamlValues reads flow values (after "key:", in "[...]" and "{...}").
var yamlValues = sync.OnceValue(func() lexer {
	return compile(langDef{
		hashComments: true, strings: []strDef{dquote, {open: "'", close: "'"}},
		literals:   "true false null yes no on off True False Null Yes No On Off TRUE FALSE NULL ~",
		identExtra: "-./:", keyStrings: true,
	}).lex
})

// lexYAML colours keys, comments, document markers, anchors and tags, and values by kind; the
// lines of a block scalar ("key: |") are strings.
func lexYAML(code string, t *tokens) {
	block := -1 // indent of the key that opened a block scalar
	forLines(code, t, func(start, end int) {
		p := indentEnd(code, start, end)
		indent := p - start
		if block >= 0 {
			if p == end || indent > block {
				t.add(ClassString, end)
				return
			}
			block = -1
		}
		rest := code[p:end]
		switch {
		case strings.HasPrefix(rest, "#"):
			t.add(ClassPlain, p)
			t.add(ClassComment, end)
			return
		case p == start && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...")):
			t.add(ClassMeta, end)
			return
		}
		t.add(ClassPlain, p)
		for p < end && code[p] == '-' && (p+1 == end || code[p+1] == ' ') {
			t.add(ClassPunct, p+1)
			p = indentEnd(code, p+1, end)
			t.add(ClassPlain, p)
			indent = p - start
		}
		if k := yamlKeyEnd(code, p, end); k > p {
			t.add(ClassVariable, k)
			t.add(ClassPunct, k+1)
			p = k + 1
			v := indentEnd(code, p, end)
			if v < end && (code[v] == '|' || code[v] == '>') {
				t.add(ClassPlain, v)
				t.add(ClassOperator, end)
				block = indent
				return
			}
		}
		for p < end && (code[p] == '&' || code[p] == '*' || code[p] == '!') {
			e := p + 1
			for e < end && code[e] != ' ' {
				e++
			}
			t.add(ClassType, e)
			p = indentEnd(code, e, end)
			t.add(ClassPlain, p)
		}
		lexAt(yamlValues(), code, p, end, t)
	})
}

// yamlKeyEnd is the end of a mapping key starting at p (before its ":"), or p when there is none.
func yamlKeyEnd(code string, p, end int) int {
	if p < end && (code[p] == '"' || code[p] == '\'') {
		q := strings.IndexByte(code[p+1:end], code[p])
		if q >= 0 && p+1+q+1 < end && code[p+1+q+1] == ':' {
			return p + 1 + q + 1
		}
		return p
	}
	for i := p; i < end; i++ {
		switch code[i] {
		case ':':
			if i > p && (i+1 == end || code[i+1] == ' ' || code[i+1] == '\t') {
				return i
			}
		case '#':
			if i > p && code[i-1] == ' ' {
				return p
			}
		case '{', '[', '"', '\'', ',':
			return p
		}
	}
	return p
}

// iniValues reads TOML and INI values.
var iniValues = sync.OnceValue(func() lexer {
	return compile(langDef{
		lineComments: []string{"#", ";"},
		strings:      []strDef{tripleDouble, {open: "'''", close: "'''", multiline: true}, dquote, {open: "'", close: "'"}},
		literals:     "true false", identExtra: "-:", keyStrings: false,
	}).lex
})

// lexINI colours TOML and INI files: sections, keys, values, comments.
func lexINI(code string, t *tokens) {
	forLines(code, t, func(start, end int) {
		p := indentEnd(code, start, end)
		t.add(ClassPlain, p)
		switch {
		case p == end:
			return
		case code[p] == '#' || code[p] == ';':
			t.add(ClassComment, end)
			return
		case code[p] == '[':
			e := strings.LastIndexByte(code[p:end], ']')
			if e < 0 {
				e = end - p - 1
			}
			t.add(ClassType, p+e+1)
			lexAt(iniValues(), code, p+e+1, end, t)
			return
		}
		if eq := strings.IndexByte(code[p:end], '='); eq > 0 {
			k := p + eq
			for k > p && (code[k-1] == ' ' || code[k-1] == '\t') {
				k--
			}
			t.add(ClassVariable, k)
			t.add(ClassPlain, p+eq)
			t.add(ClassOperator, p+eq+1)
			p += eq + 1
		}
		lexAt(iniValues(), code, p, end, t)
	})
}

// lexDiff colours a unified diff by line: added, removed, hunk headers, file headers.
func lexDiff(code string, t *tokens) {
	forLines(code, t, func(start, end int) {
		l := code[start:end]
		class := ClassPlain
		switch {
		case strings.HasPrefix(l, "@@"):
			class = ClassMeta
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ") && strings.HasPrefix(code[min(end+1, len(code)):], "+++ "):
			class = ClassKeyword
		case strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index "):
			class = ClassComment
		case strings.HasPrefix(l, "+"):
			class = ClassAdded
		case strings.HasPrefix(l, "-"):
			class = ClassRemoved
		}
		t.add(class, end)
	})
}

// lexMarkdown colours markdown source: headings, quotes, list markers, code, link targets.
func lexMarkdown(code string, t *tokens) {
	var fence string // the open code fence
	forLines(code, t, func(start, end int) {
		p := indentEnd(code, start, end)
		rest := code[p:end]
		if fence != "" {
			if strings.HasPrefix(rest, fence) && strings.TrimLeft(rest, fence[:1]) == "" {
				fence = ""
				t.add(ClassPunct, end)
				return
			}
			t.add(ClassString, end)
			return
		}
		switch {
		case strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~"):
			n := len(rest) - len(strings.TrimLeft(rest, rest[:1]))
			fence = rest[:n]
			t.add(ClassPlain, p)
			t.add(ClassPunct, p+n)
			t.add(ClassString, end)
			return
		case strings.HasPrefix(rest, "#"):
			t.add(ClassPlain, p)
			t.add(ClassKeyword, end)
			return
		case strings.HasPrefix(rest, ">"):
			t.add(ClassPlain, p)
			t.add(ClassComment, end)
			return
		}
		t.add(ClassPlain, p)
		if n := listMarkerLen(rest); n > 0 {
			t.add(ClassPunct, p+n)
			p += n
		}
		markdownInline(code, p, end, t)
	})
}

// listMarkerLen is the length of a list marker ("- ", "12. ") at the start of l, or 0.
func listMarkerLen(l string) int {
	if len(l) >= 2 && strings.IndexByte("-*+", l[0]) >= 0 && l[1] == ' ' {
		return 1
	}
	i := 0
	for i < len(l) && isDigit(l[i]) {
		i++
	}
	if i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' ' {
		return i + 1
	}
	return 0
}

// markdownInline colours code spans and link targets in code[p:end].
func markdownInline(code string, p, end int, t *tokens) {
	for p < end {
		switch c := code[p]; {
		case c == '`':
			e := strings.IndexByte(code[p+1:end], '`')
			if e < 0 {
				p = end
				break
			}
			t.add(ClassPlain, p)
			p += e + 2
			t.add(ClassString, p)
		case c == ']' && p+1 < end && code[p+1] == '(':
			e := strings.IndexByte(code[p+2:end], ')')
			if e < 0 {
				p = end
				break
			}
			t.add(ClassPlain, p+2)
			p += e + 2
			t.add(ClassString, p)
		default:
			p++
		}
	}
	t.add(ClassPlain, end)
}

var makeDirectives = wordSet("include -include sinclude ifeq ifneq ifdef ifndef else endif define endef " +
	"export unexport override vpath")

// lexMakefile colours makefiles: targets as functions, variable names and references, directives,
// comments; recipe lines are shell.
func lexMakefile(code string, t *tokens) {
	forLines(code, t, func(start, end int) {
		if start < end && code[start] == '\t' {
			lexAt(lexerFor("bash"), code, start, end, t)
			return
		}
		p := indentEnd(code, start, end)
		t.add(ClassPlain, p)
		word := p
		for word < end && (isIdentByte(code[word]) || strings.IndexByte("-./%$()", code[word]) >= 0) {
			word++
		}
		if makeDirectives[code[p:word]] {
			t.add(ClassKeyword, word)
			p = word
		} else if rest := strings.TrimLeft(code[word:end], " \t"); word > p && len(rest) > 0 {
			switch {
			case strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":=") || strings.HasPrefix(rest, "?=") ||
				strings.HasPrefix(rest, "+=") || strings.HasPrefix(rest, "::="):
				t.add(ClassVariable, word)
				p = word
			case rest[0] == ':':
				t.add(ClassFunction, word)
				p = word
			}
		}
		for p < end {
			switch c := code[p]; {
			case c == '#':
				t.add(ClassPlain, p)
				t.add(ClassComment, end)
				p = end
			case c == '$' && p+1 < end:
				e := p + 2
				if code[p+1] == '(' || code[p+1] == '{' {
					if q := strings.IndexByte(code[p:end], map[byte]byte{'(': ')', '{': '}'}[code[p+1]]); q >= 0 {
						e = p + q + 1
					} else {
						e = end
					}
				}
				t.add(ClassPlain, p)
				t.add(ClassVariable, e)
				p = e
			default:
				p++
			}
		}
		t.add(ClassPlain, end)
	})
}
