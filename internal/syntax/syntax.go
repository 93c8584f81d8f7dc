// Package syntax classifies source code into pi's highlight classes (keywords, strings, comments,
// ...), for the terminal renderer and the HTML export alike. It is table driven: a language is a few
// word lists and rules (comments, strings, what names a function), read by one lexer, plus small
// line-oriented lexers for data and markup formats (JSON, YAML, TOML, HTML, CSS, diff, markdown,
// makefiles). It classifies tokens the way pi's highlighter (highlight.js) does for the common
// cases. A language's word sets are built on its first use; nothing is built at startup. It knows
// nothing of colours or terminals: callers map a Class to whatever they draw with.
package syntax

import (
	"strings"
	"sync"
)

// Class is what a token is, and so its colour.
type Class uint8

const (
	ClassPlain Class = iota
	ClassComment
	ClassKeyword
	ClassType // types, classes and built-ins
	ClassFunction
	ClassVariable // variables, parameters, attributes and keys
	ClassString
	ClassNumber // numbers and literals (true, nil)
	ClassOperator
	ClassPunct
	ClassMeta // preprocessor lines, annotations, diff hunk headers
	ClassAdded
	ClassRemoved
	NumClasses
)

// Span is a classified run of code, from the previous span's End (0 for the first) to End.
type Span struct {
	End   int
	Class Class
}

// tokens collects the classified spans of a text; adjacent spans of one class merge.
type tokens struct {
	spans []tokSpan
}

type tokSpan struct {
	end   int
	class Class
}

func (t *tokens) add(c Class, end int) {
	if n := len(t.spans); n > 0 {
		if t.spans[n-1].end >= end {
			return
		}
		if t.spans[n-1].class == c {
			t.spans[n-1].end = end
			return
		}
	}
	t.spans = append(t.spans, tokSpan{end, c})
}

// Tokenize classifies code in language lang (a fence's info word, a language name or alias). The
// spans cover all of code; ok is false (and spans nil) when the language is unknown.
func Tokenize(code, lang string) (spans []Span, ok bool) {
	lx := lexerFor(lang)
	if lx == nil {
		return nil, false
	}
	return run(lx, code), true
}

// run lexes code with lx into spans covering all of it.
func run(lx lexer, code string) []Span {
	var t tokens
	lx(code, &t)
	t.add(ClassPlain, len(code))
	out := make([]Span, 0, len(t.spans))
	at := 0
	for _, s := range t.spans {
		if s.end > at { // a lexer may open with an empty span
			out = append(out, Span{End: s.end, Class: s.class})
			at = s.end
		}
	}
	return out
}

// Known reports whether lang names a language Tokenize highlights.
func Known(lang string) bool { return lexerFor(lang) != nil }

// Languages lists the language names (not aliases) there are lexers for.
func Languages() []string {
	names := make([]string, 0, len(languages()))
	for name := range languages() {
		names = append(names, name)
	}
	return names
}

// lexer classifies the whole of code into t.
type lexer func(code string, t *tokens)

// lexerFor is the lexer of a language name or alias ("go", "golang", "ts", "c++"); nil when unknown.
func lexerFor(lang string) lexer {
	if lang == "" {
		return nil
	}
	name, ok := langAliases()[strings.ToLower(lang)]
	if !ok {
		return nil
	}
	return languages()[name]
}

// LanguageForPath is the language of a file by its extension (or its name, for Makefile and
// Dockerfile), as pi picks it; "" when unknown.
func LanguageForPath(file string) string {
	base := file[strings.LastIndexByte(file, '/')+1:]
	ext := base
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		ext = base[i+1:]
	}
	name, ok := pathLanguages()[strings.ToLower(ext)]
	if !ok {
		return ""
	}
	if _, known := languages()[name]; !known {
		return ""
	}
	return name
}

var (
	languagesOnce sync.Once
	languageTable map[string]lexer
)

// languages are the lexers by language name, built on first use.
func languages() map[string]lexer {
	languagesOnce.Do(func() { languageTable = buildLanguages() })
	return languageTable
}

func buildLanguages() map[string]lexer {
	m := map[string]lexer{}
	for name, d := range langDefs() {
		m[name] = compile(d).lex
	}
	m["json"] = compile(jsonDef).lex
	m["yaml"] = lexYAML
	m["toml"] = lexINI
	m["ini"] = lexINI
	m["html"] = lexMarkup
	m["xml"] = lexMarkup
	m["css"] = lexCSS
	m["diff"] = lexDiff
	m["markdown"] = lexMarkdown
	m["makefile"] = lexMakefile
	return m
}
