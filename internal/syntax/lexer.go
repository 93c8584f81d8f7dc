package syntax

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The generic lexer: one language is a langDef.

// langDef describes a language for the generic lexer.
type langDef struct {
	lineComments  []string
	blockComments [][2]string
	strings       []strDef
	// metaSpans are delimited annotations shown as meta (Rust's "#[...]").
	metaSpans [][2]string
	// Space-separated word lists.
	keywords, types, literals, builtins string
	caseFold                            bool // keywords match in any case (SQL)
	identExtra                          string
	varSigils                           string // "$": "$name" and "${name}" are variables
	capsTypes                           bool   // a capitalised name is a type
	macroBang                           bool   // "name!" is a macro call (Rust)
	hashMeta                            bool   // "#" at the start of a line starts a preprocessor line
	hashComments                        bool   // "#" at the start of a word starts a comment (shells)
	atMeta                              bool   // "@name" is an annotation or decorator
	keyStrings                          bool   // a string followed by ":" is a key (JSON)
	// funcDecl and typeDecl are keywords whose next name is a function or a type being declared.
	funcDecl, typeDecl string
	// strPrefixes are names that may precede a string's quote and belong to it (Python's r, b, f).
	strPrefixes string
}

// strDef is a kind of string: its delimiters, whether a backslash escapes, whether it may span
// lines, and whether it is a character literal (one character or escape sequence: not Rust's 'a).
type strDef struct {
	open, close              string
	escape, multiline, short bool
}

// langLexer is a compiled langDef.
type langLexer struct {
	def      langDef
	words    map[string]Class
	funcDecl map[string]bool
	typeDecl map[string]bool
	prefixes map[string]bool
}

func compile(d langDef) *langLexer {
	l := &langLexer{def: d, words: map[string]Class{}, funcDecl: wordSet(d.funcDecl), typeDecl: wordSet(d.typeDecl),
		prefixes: wordSet(d.strPrefixes)}
	for _, p := range []struct {
		list  string
		class Class
	}{{d.builtins, ClassType}, {d.types, ClassType}, {d.literals, ClassNumber}, {d.keywords, ClassKeyword}} {
		for _, w := range strings.Fields(p.list) {
			if d.caseFold {
				w = strings.ToLower(w)
			}
			l.words[w] = p.class
		}
	}
	return l
}

func wordSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

func isIdentStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || isDigit(c) }

const (
	operatorBytes    = "+-*/%=<>!&|^~?:"
	punctuationBytes = "()[]{},;."
)

// identEnd is the end of the name starting at p.
func (l *langLexer) identEnd(code string, p int) int {
	for p < len(code) {
		c := code[p]
		if isIdentByte(c) || c != 0 && strings.IndexByte(l.def.identExtra, c) >= 0 {
			p++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(code[p:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				p += size
				continue
			}
		}
		break
	}
	return p
}

// nextNonSpace is the first byte at or after p that is not a space or tab (0 at the end).
func nextNonSpace(code string, p int) byte {
	for p < len(code) && (code[p] == ' ' || code[p] == '\t') {
		p++
	}
	if p < len(code) {
		return code[p]
	}
	return 0
}

// stringAt returns the end of a string starting at p, or -1.
func (l *langLexer) stringAt(code string, p int) int {
	for _, s := range l.def.strings {
		if !strings.HasPrefix(code[p:], s.open) {
			continue
		}
		if isIdentStart(s.open[0]) && p > 0 && isIdentByte(code[p-1]) {
			continue // "r#" inside a name
		}
		if end := scanString(code, p+len(s.open), s); end >= 0 {
			return end
		}
	}
	return -1
}

// scanString returns the end of a string whose body starts at i, or -1 for a short string that does
// not close.
func scanString(code string, i int, s strDef) int {
	if s.short {
		return charLiteralEnd(code, i, s.close)
	}
	for i < len(code) {
		switch {
		case s.escape && code[i] == '\\':
			i += 2
			continue
		case strings.HasPrefix(code[i:], s.close):
			return i + len(s.close)
		case code[i] == '\n' && !s.multiline:
			return i
		}
		i++
	}
	return len(code)
}

// charLiteralEnd returns the end of a character literal whose body starts at i: one character or
// one escape sequence ('\n', '\u{1F600}'), then the closing quote; -1 when there is none (Rust's
// lifetime 'a).
func charLiteralEnd(code string, i int, close string) int {
	if i >= len(code) || code[i] == '\n' {
		return -1
	}
	if code[i] == '\\' {
		for j := i + 2; j < min(len(code), i+12); j++ {
			if strings.HasPrefix(code[j:], close) {
				return j + len(close)
			}
			if code[j] == '\n' {
				break
			}
		}
		return -1
	}
	_, size := utf8.DecodeRuneInString(code[i:])
	if strings.HasPrefix(code[i+size:], close) {
		return i + size + len(close)
	}
	return -1
}

// commentAt returns the end of a comment starting at p, or -1.
func (l *langLexer) commentAt(code string, p int) int {
	for _, bc := range l.def.blockComments {
		if strings.HasPrefix(code[p:], bc[0]) {
			if e := strings.Index(code[p+len(bc[0]):], bc[1]); e >= 0 {
				return p + len(bc[0]) + e + len(bc[1])
			}
			return len(code)
		}
	}
	for _, lc := range l.def.lineComments {
		if strings.HasPrefix(code[p:], lc) {
			return lineEnd(code, p)
		}
	}
	if l.def.hashComments && code[p] == '#' && (p == 0 || code[p-1] == ' ' || code[p-1] == '\t' || code[p-1] == '\n' || code[p-1] == ';') {
		return lineEnd(code, p)
	}
	return -1
}

func lineEnd(code string, p int) int {
	if e := strings.IndexByte(code[p:], '\n'); e >= 0 {
		return p + e
	}
	return len(code)
}

// numberEnd is the end of the number starting at p: digits, a fraction, an exponent, a base prefix
// and a type suffix ("0x1F", "1_000", "2.5e-3f", "10u32").
func numberEnd(code string, p int) int {
	for p < len(code) {
		c := code[p]
		switch {
		case isIdentByte(c):
			if (c == 'e' || c == 'E') && p+1 < len(code) && (code[p+1] == '+' || code[p+1] == '-') {
				p++
			}
		case c == '.' && p+1 < len(code) && isDigit(code[p+1]):
		default:
			return p
		}
		p++
	}
	return p
}

// lex is the generic lexer.
func (l *langLexer) lex(code string, t *tokens) {
	lineStart := true
	next := ClassPlain // class of the next name (after "func", "class")
	for p := 0; p < len(code); {
		c := code[p]
		if c == '\n' {
			lineStart = true
			t.add(ClassPlain, p+1)
			p++
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' {
			t.add(ClassPlain, p+1)
			p++
			continue
		}
		atLineStart := lineStart
		lineStart = false
		if l.def.hashMeta && c == '#' && atLineStart {
			e := lineEnd(code, p)
			t.add(ClassMeta, e)
			p = e
			continue
		}
		if e := l.commentAt(code, p); e >= 0 {
			t.add(ClassComment, e)
			p = e
			continue
		}
		if e := l.metaAt(code, p); e >= 0 {
			t.add(ClassMeta, e)
			p = e
			continue
		}
		if e := l.stringAt(code, p); e >= 0 {
			class := ClassString
			if l.def.keyStrings && nextNonSpace(code, e) == ':' {
				class = ClassVariable
			}
			t.add(class, e)
			p = e
			continue
		}
		if e := l.variableAt(code, p); e >= 0 {
			t.add(ClassVariable, e)
			p = e
			continue
		}
		if l.def.atMeta && c == '@' && p+1 < len(code) && isIdentStart(code[p+1]) {
			e := p + 1
			for e < len(code) && (isIdentByte(code[e]) || code[e] == '.') {
				e++
			}
			t.add(ClassMeta, e)
			p = e
			continue
		}
		if isDigit(c) || c == '.' && p+1 < len(code) && isDigit(code[p+1]) && (p == 0 || !isIdentByte(code[p-1])) {
			e := numberEnd(code, p+1)
			t.add(ClassNumber, e)
			p = e
			continue
		}
		if isIdentStart(c) || c >= utf8.RuneSelf && l.letterAt(code, p) || c != 0 && strings.IndexByte(l.def.identExtra, c) >= 0 {
			e := l.identEnd(code, p+1)
			word := code[p:e]
			if l.prefixes[word] && e < len(code) {
				if se := l.stringAt(code, e); se >= 0 {
					t.add(ClassString, se)
					p = se
					continue
				}
			}
			class, n := l.classify(code, word, e, next)
			next = n
			t.add(class, e)
			p = e
			continue
		}
		if strings.IndexByte(operatorBytes, c) >= 0 {
			e := p + 1
			for e < len(code) && strings.IndexByte(operatorBytes, code[e]) >= 0 && !l.startsComment(code, e) {
				e++
			}
			t.add(ClassOperator, e)
			p = e
			continue
		}
		if strings.IndexByte(punctuationBytes, c) >= 0 {
			t.add(ClassPunct, p+1)
			p++
			continue
		}
		_, size := utf8.DecodeRuneInString(code[p:])
		t.add(ClassPlain, p+size)
		p += size
	}
}

func (l *langLexer) letterAt(code string, p int) bool {
	r, _ := utf8.DecodeRuneInString(code[p:])
	return unicode.IsLetter(r)
}

func (l *langLexer) startsComment(code string, p int) bool {
	for _, lc := range l.def.lineComments {
		if strings.HasPrefix(code[p:], lc) {
			return true
		}
	}
	for _, bc := range l.def.blockComments {
		if strings.HasPrefix(code[p:], bc[0]) {
			return true
		}
	}
	return false
}

func (l *langLexer) metaAt(code string, p int) int {
	for _, m := range l.def.metaSpans {
		if strings.HasPrefix(code[p:], m[0]) {
			if e := strings.Index(code[p:], m[1]); e >= 0 && !strings.Contains(code[p:p+e], "\n") {
				return p + e + len(m[1])
			}
		}
	}
	return -1
}

// variableAt returns the end of a sigil variable ("$name", "${name}", "$1", "$?") at p, or -1.
func (l *langLexer) variableAt(code string, p int) int {
	if l.def.varSigils == "" || strings.IndexByte(l.def.varSigils, code[p]) < 0 || p+1 >= len(code) {
		return -1
	}
	c := code[p+1]
	switch {
	case c == '{':
		if e := strings.IndexByte(code[p:], '}'); e >= 0 && !strings.Contains(code[p:p+e], "\n") {
			return p + e + 1
		}
	case isIdentStart(c):
		return l.identEnd(code, p+2)
	case isDigit(c) || strings.IndexByte("@?#$!*-", c) >= 0:
		if code[p] == '$' {
			return p + 2
		}
	}
	return -1
}

// classify returns the class of a name ending at e, and the class the next name will get.
func (l *langLexer) classify(code, word string, e int, forced Class) (Class, Class) {
	key := word
	if l.def.caseFold {
		key = strings.ToLower(word)
	}
	class, known := l.words[key]
	switch {
	case known && class == ClassKeyword:
		if isIdentStart(nextNonSpace(code, e)) {
			if l.funcDecl[key] {
				return ClassKeyword, ClassFunction
			}
			if l.typeDecl[key] {
				return ClassKeyword, ClassType
			}
		}
		return ClassKeyword, ClassPlain
	case known:
		return class, ClassPlain
	case forced != ClassPlain:
		return forced, ClassPlain
	}
	switch next := nextNonSpace(code, e); {
	case next == '(':
		return ClassFunction, ClassPlain
	case l.def.macroBang && next == '!' && (e+1 >= len(code) || code[e+1] != '='):
		return ClassFunction, ClassPlain
	case l.def.capsTypes && word[0] >= 'A' && word[0] <= 'Z':
		return ClassType, ClassPlain
	}
	return ClassPlain, ClassPlain
}
