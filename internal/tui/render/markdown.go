package render

import (
	"strings"
	"sync"

	"github.com/charmbracelet/glamour"
	glamouransi "github.com/charmbracelet/glamour/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

const (
	// markdownCacheSize bounds the rendered blocks kept per Markdown (a block is a paragraph, a list,
	// a code block: a few hundred bytes of source each).
	markdownCacheSize = 2048
	// markdownRenderers bounds the glamour renderers kept per Markdown, one per wrap width (for
	// tables wider than the screen); dragging a window edge visits many widths, only the last few
	// matter.
	markdownRenderers = 4
	// markdownTab replaces a tab in markdown source: four spaces keep an indented code block one.
	markdownTab = "    "
)

// Markdown renders markdown text to terminal lines with glamour, unwrapped, and lays the prose out
// itself (see mdlayout.go); only a table too wide for its natural width goes through a glamour
// renderer for that width (one kept per width: building one costs a style sheet and a goldmark
// pipeline). It caches the lines of every block it rendered, keyed by the block's text and the
// width, so a block is rendered once however often a frame shows it. It is safe for concurrent use.
type Markdown struct {
	style   glamouransi.StyleConfig
	profile termenv.Profile
	codeFg  string // SGR of uncoloured code (a code block still streaming)
	margin  int    // glamour's code block margin

	mu        sync.Mutex
	pipeline  *mdPipeline                      // unwrapped rendering, laid out by layoutMarked
	renderers *lru[int, *glamour.TermRenderer] // glamour's own layout at a width: tables too wide
	cache     *lru[blockKey, []string]
}

type blockKey struct {
	width int
	text  string
}

// NewMarkdown returns a renderer for the theme's markdown style variant.
func NewMarkdown(th *theme.Theme, v theme.MarkdownVariant) *Markdown {
	style := th.MarkdownStyle(v)
	margin := 0
	if style.CodeBlock.Margin != nil {
		margin = int(*style.CodeBlock.Margin)
	}
	return &Markdown{
		style:     style,
		codeFg:    th.FgSeq(theme.MdCodeBlock),
		margin:    margin,
		profile:   th.Profile(),
		pipeline:  newMDPipeline(style, th.Profile()),
		renderers: newLRU[int, *glamour.TermRenderer](markdownRenderers),
		cache:     newLRU[blockKey, []string](markdownCacheSize),
	}
}

// Render returns the lines of the whole text at width: its blocks rendered (or taken from the
// cache) and joined by one empty line. Lines carry no trailing spaces and never exceed width.
func (m *Markdown) Render(text string, width int) []string {
	sp := newBlockSplitter()
	sp.scan(text)
	var out []string
	for _, b := range sp.finishAll(text) {
		lines := m.Block(b.source(text), width)
		if len(lines) == 0 {
			continue // a block that shows nothing (an HTML comment)
		}
		if len(out) > 0 && !b.glue {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// Block returns the lines of one block of markdown at width. The returned slice is shared with the
// cache: callers must not modify it.
func (m *Markdown) Block(block string, width int) []string {
	if width < 1 {
		width = 1
	}
	key := blockKey{width: width, text: block}
	m.mu.Lock()
	defer m.mu.Unlock()
	if lines, ok := m.cache.get(key); ok {
		return lines
	}
	lines := m.render(block, width)
	m.cache.put(key, lines)
	return lines
}

// render runs glamour on one block; m.mu is held.
func (m *Markdown) render(block string, width int) []string {
	src := block
	if strings.IndexByte(src, '\t') >= 0 {
		src = strings.ReplaceAll(src, "\t", markdownTab)
	}
	// Escape sequences and control characters in the text would reach the terminal (glamour
	// passes them through) and break the layout.
	src = cleanOutput(src)
	out, hasTable, err := m.pipeline.render(src)
	if err != nil {
		// glamour only fails on a broken style sheet; the text is still shown, unformatted.
		return wrap(cleanOutput(block), width)
	}
	lines := layoutMarked(strings.Split(out, "\n"), width)
	if hasTable && anyWider(lines, width) {
		// A table at its natural width does not fit: let glamour fit it (it shrinks the columns
		// and wraps the cells), and the rest of the block with it.
		tr, err := m.renderer(width)
		if err == nil {
			out, err = tr.Render(src)
		}
		if err == nil {
			lines = strings.Split(out, "\n")
		}
	}
	for i, l := range lines {
		lines[i] = trimRight(l)
	}
	first, last := 0, len(lines)
	for first < last && isBlank(lines[first]) {
		first++
	}
	for last > first && isBlank(lines[last-1]) {
		last--
	}
	lines = lines[first:last]
	for i, l := range lines {
		if isBlank(l) {
			lines[i] = ""
		}
	}
	return fit(lines, width)
}

func anyWider(lines []string, width int) bool {
	for _, l := range lines {
		if Width(l) > width {
			return true
		}
	}
	return false
}

func (m *Markdown) renderer(width int) (*glamour.TermRenderer, error) {
	if tr, ok := m.renderers.get(width); ok {
		return tr, nil
	}
	tr, err := glamour.NewTermRenderer(
		glamour.WithStyles(m.style),
		glamour.WithWordWrap(width),
		glamour.WithColorProfile(m.profile),
	)
	if err != nil {
		return nil, err
	}
	m.renderers.put(width, tr)
	return tr, nil
}

// plainCode lays out code like a glamour code block (same margin, tabs, wrapping) without
// highlighting: the cheap rendering of a code block that is still streaming.
func (m *Markdown) plainCode(code string, width int) []string {
	pad := strings.Repeat(" ", m.margin)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		l = strings.TrimRight(pad+cleanOutput(strings.ReplaceAll(l, "\t", markdownTab)), " ")
		parts := []string{l}
		if len(l) > width && Width(l) > width { // a line of n bytes is at most n cells wide
			parts = hardwrap(l, width)
		}
		for _, p := range parts {
			if m.codeFg != "" && strings.TrimSpace(p) != "" {
				p = m.codeFg + p + theme.Reset
			}
			out = append(out, p)
		}
	}
	return trimTrailingEmpty(out)
}
