package render

import (
	"strings"
	"sync"

	"github.com/pi-go/pi-go/internal/syntax"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// highlighter colours source code for file previews (read, write) in pi's syntax colours (see
// syntax.go). Results are cached by language and text: a preview in the live region is shown on
// every frame.
type highlighter struct {
	th *theme.Theme

	mu    sync.Mutex
	cache *lru[hlKey, []string]
}

type hlKey struct {
	lang string
	code string
}

func newHighlighter(th *theme.Theme) *highlighter {
	// A few previews are live at a time; an expanded file can be large, so keep few.
	return &highlighter{th: th, cache: newLRU[hlKey, []string](16)}
}

// language is the language of a file path ("" when unknown).
func (h *highlighter) language(file string) string {
	if file == "" {
		return ""
	}
	return syntax.LanguageForPath(file)
}

// lines returns code split into lines, coloured when the language is known. Tabs must already be
// expanded. Each line closes the styles it opens.
func (h *highlighter) lines(code, lang string) []string {
	if !syntax.Known(lang) {
		return strings.Split(code, "\n")
	}
	key := hlKey{lang, code}
	h.mu.Lock()
	defer h.mu.Unlock()
	if out, ok := h.cache.get(key); ok {
		return out
	}
	spans, _ := syntax.Tokenize(code, lang)
	out := colourLines(h.th, code, spans)
	h.cache.put(key, out)
	return out
}
