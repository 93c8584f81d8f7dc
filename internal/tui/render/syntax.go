package render

import (
	"strings"
	"sync"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// The syntax highlighter is table driven: a language is a few word lists and rules (comments,
// strings, what names a function), read by one lexer, plus small line-oriented lexers for data and
// markup formats (JSON, YAML, TOML, HTML, CSS, diff, markdown, makefiles). It classifies tokens into
// pi's syntax colours the way pi's highlighter (highlight.js) does for the common cases: keywords,
// types and built-ins, literals, strings, numbers, comments, names of functions being declared or
// called. A language's word sets are built on its first use; nothing is built at startup.

// tokClass is what a token is, and so its colour.
type tokClass uint8

const (
	tcPlain tokClass = iota
	tcComment
	tcKeyword
	tcType // types, classes and built-ins
	tcFunction
	tcVariable // variables, parameters, attributes and keys
	tcString
	tcNumber // numbers and literals (true, nil)
	tcOperator
	tcPunct
	tcMeta // preprocessor lines, annotations, diff hunk headers
	tcAdded
	tcRemoved
	numTokClasses
)

// classKeys are the theme colours of the classes (pi's mapping of highlight.js classes).
var classKeys = [numTokClasses]theme.Key{
	tcPlain: theme.Text, tcComment: theme.SyntaxComment, tcKeyword: theme.SyntaxKeyword,
	tcType: theme.SyntaxType, tcFunction: theme.SyntaxFunction, tcVariable: theme.SyntaxVariable,
	tcString: theme.SyntaxString, tcNumber: theme.SyntaxNumber, tcOperator: theme.SyntaxOperator,
	tcPunct: theme.SyntaxPunctuation, tcMeta: theme.Muted, tcAdded: theme.ToolDiffAdded,
	tcRemoved: theme.ToolDiffRemoved,
}

// tokens collects the classified spans of a text, each up to an end offset; adjacent spans of one
// class merge.
type tokens struct {
	spans []tokSpan
}

type tokSpan struct {
	end   int
	class tokClass
}

func (t *tokens) add(c tokClass, end int) {
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

// highlightCode colours code in language lang (a fence's info word or a language name) and returns
// its lines, each closing the styles it opens. Code in a language it does not know is shown in the
// plain code-block colour, as pi shows it.
func highlightCode(th *theme.Theme, code, lang string) []string {
	lx := lexerFor(lang)
	if lx == nil {
		lines := strings.Split(code, "\n")
		for i, l := range lines {
			lines[i] = th.Fg(theme.MdCodeBlock, l)
		}
		return lines
	}
	return colourLines(th, code, lx)
}

// colourLines runs a lexer on code and styles the tokens, line by line.
func colourLines(th *theme.Theme, code string, lx lexer) []string {
	var t tokens
	lx(code, &t)
	t.add(tcPlain, len(code))
	lines := make([]string, 0, strings.Count(code, "\n")+1)
	var b strings.Builder
	start := 0
	for _, sp := range t.spans {
		seq := th.FgSeq(classKeys[sp.class])
		for start < sp.end {
			end := sp.end
			nl := strings.IndexByte(code[start:end], '\n')
			if nl >= 0 {
				end = start + nl
			}
			if end > start {
				if seq != "" && strings.TrimSpace(code[start:end]) != "" {
					b.WriteString(seq)
					b.WriteString(code[start:end])
					b.WriteString(theme.Reset)
				} else {
					b.WriteString(code[start:end])
				}
			}
			start = end
			if nl >= 0 {
				lines = append(lines, b.String())
				b.Reset()
				start++
			}
		}
	}
	return append(lines, b.String())
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

// languageForPath is the language of a file by its extension (or its name, for Makefile and
// Dockerfile), as pi picks it; "" when unknown.
func languageForPath(file string) string {
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
