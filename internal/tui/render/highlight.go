package render

import (
	"path"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// highlighter colours source code for file previews (read, write) with chroma, in pi's syntax
// colours. Results are cached by language and text: a preview in the live region is shown on every
// frame.
type highlighter struct {
	style     *chroma.Style
	formatter chroma.Formatter // nil: no colours (Ascii profile)

	mu    sync.Mutex
	cache *lru[hlKey, []string]
	langs *lru[string, string] // file base name -> lexer name
}

type hlKey struct {
	lang string
	code string
}

func newHighlighter(th *theme.Theme) *highlighter {
	// A few previews are live at a time; an expanded file can be large, so keep few.
	h := &highlighter{cache: newLRU[hlKey, []string](16), langs: newLRU[string, string](256)}
	switch th.Profile() {
	case termenv.TrueColor:
		h.formatter = formatters.TTY16m
	case termenv.ANSI256:
		h.formatter = formatters.TTY256
	case termenv.ANSI:
		h.formatter = formatters.TTY16
	}
	entries := chroma.StyleEntries{
		chroma.Comment:       th.Color(theme.SyntaxComment),
		chroma.Keyword:       th.Color(theme.SyntaxKeyword),
		chroma.KeywordType:   th.Color(theme.SyntaxType),
		chroma.NameFunction:  th.Color(theme.SyntaxFunction),
		chroma.NameClass:     th.Color(theme.SyntaxType),
		chroma.NameBuiltin:   th.Color(theme.SyntaxType),
		chroma.Name:          th.Color(theme.SyntaxVariable),
		chroma.LiteralString: th.Color(theme.SyntaxString),
		chroma.LiteralNumber: th.Color(theme.SyntaxNumber),
		chroma.Operator:      th.Color(theme.SyntaxOperator),
		chroma.Punctuation:   th.Color(theme.SyntaxPunctuation),
	}
	for k, v := range entries {
		if v == "" {
			delete(entries, k)
		}
	}
	style, err := chroma.NewStyle("pi-"+th.Name(), entries)
	if err != nil {
		h.formatter = nil // a palette chroma cannot read: show the code uncoloured
	}
	h.style = style
	return h
}

// language is the chroma lexer name for a file path ("" when unknown). chroma matches a name against
// every lexer's patterns (milliseconds), so answers are cached by base name.
func (h *highlighter) language(file string) string {
	if file == "" {
		return ""
	}
	base := path.Base(file)
	h.mu.Lock()
	defer h.mu.Unlock()
	if lang, ok := h.langs.get(base); ok {
		return lang
	}
	lang := ""
	if l := lexers.Match(base); l != nil {
		lang = l.Config().Name
	}
	h.langs.put(base, lang)
	return lang
}

// lines returns code split into lines, coloured when the language is known. Tabs must already be
// expanded. Each line closes the styles it opens.
func (h *highlighter) lines(code, lang string) []string {
	plain := strings.Split(code, "\n")
	if h.formatter == nil || lang == "" {
		return plain
	}
	key := hlKey{lang, code}
	h.mu.Lock()
	defer h.mu.Unlock()
	if out, ok := h.cache.get(key); ok {
		return out
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		return plain
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return plain
	}
	var b strings.Builder
	if err := h.formatter.Format(&b, h.style, it); err != nil {
		return plain
	}
	out := carrySGR(strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"))
	if len(out) != len(plain) {
		return plain // the lexer changed the line structure: do not risk misaligned output
	}
	h.cache.put(key, out)
	return out
}
