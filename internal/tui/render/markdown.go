package render

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

const (
	// markdownCacheSize bounds the rendered blocks kept per Markdown (a block is a paragraph, a list,
	// a code block: a few hundred bytes of source each).
	markdownCacheSize = 2048
	// markdownTab replaces a tab in markdown source: four spaces keep an indented code block one.
	markdownTab = "    "
)

// blockRules says which rules of a code block a block shows: a chunk of a long code block (see
// blockSplitter) misses the one above or below it.
type blockRules uint8

const (
	noTopRule blockRules = 1 << iota
	noBottomRule
)

// Markdown renders markdown text to terminal lines in pi's look (see mdRenderer). It caches the
// lines of every block it rendered, keyed by the block's text and the width, so a block is rendered
// once however often a frame shows it. It is safe for concurrent use.
type Markdown struct {
	th   *theme.Theme
	base mdStyle

	mu     sync.Mutex
	parser parser.Parser
	cache  *lru[blockKey, []string]
}

type blockKey struct {
	width int
	rules blockRules
	text  string
}

// NewMarkdown returns a renderer for the theme's markdown style variant.
func NewMarkdown(th *theme.Theme, v theme.MarkdownVariant) *Markdown {
	base := fgStyle(theme.Text, 0)
	if v == theme.MarkdownThinking {
		base = fgStyle(theme.ThinkingText, theme.AttrItalic)
	}
	return &Markdown{
		th:     th,
		base:   base,
		parser: newMDParser(),
		cache:  newLRU[blockKey, []string](markdownCacheSize),
	}
}

// Render returns the lines of the whole text at width: its blocks rendered (or taken from the
// cache) and joined by one empty line. Lines carry no trailing spaces and never exceed width.
func (m *Markdown) Render(text string, width int) []string {
	sp := newBlockSplitter()
	sp.scan(text)
	var out []string
	for _, b := range sp.finishAll(text) {
		lines := m.block(b.source(text), b.rules(), width)
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
func (m *Markdown) Block(block string, width int) []string { return m.block(block, 0, width) }

func (m *Markdown) block(block string, rules blockRules, width int) []string {
	if width < 1 {
		width = 1
	}
	key := blockKey{width: width, rules: rules, text: block}
	m.mu.Lock()
	defer m.mu.Unlock()
	if lines, ok := m.cache.get(key); ok {
		return lines
	}
	lines := m.render(block, rules, width)
	m.cache.put(key, lines)
	return lines
}

// render parses and lays out one block; m.mu is held (the parser is not safe for concurrent use).
func (m *Markdown) render(block string, rules blockRules, width int) []string {
	src := block
	if strings.IndexByte(src, '\t') >= 0 {
		src = strings.ReplaceAll(src, "\t", markdownTab)
	}
	// Escape sequences and control characters in the text would reach the terminal and break the
	// layout.
	source := []byte(cleanOutput(src))
	doc := m.parser.Parse(text.NewReader(source))
	r := mdRenderer{th: m.th, src: source, base: m.base,
		noTopRule: rules&noTopRule != 0, noBottomRule: rules&noBottomRule != 0}
	lines := r.blocks(doc, width, m.base)
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

// plainCode lays out code like a code block (the same indent, tabs and cutting) in the plain code
// colour, without highlighting: the cheap rendering of a code block that is still streaming. top
// adds the rule above with the language; the rule below is always drawn, as pi draws it while the
// block streams.
func (m *Markdown) plainCode(code, lang string, top bool, width int) []string {
	var out []string
	if top {
		out = append(out, m.th.Fg(theme.MdCodeBlockBorder, "```"+lang))
	}
	codeFg := m.th.FgSeq(theme.MdCodeBlock)
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		l = strings.TrimRight(cleanOutput(strings.ReplaceAll(l, "\t", markdownTab)), " ")
		if l == "" {
			out = append(out, "")
			continue
		}
		l = codeIndent + l
		parts := []string{l}
		if len(l) > width && Width(l) > width { // a line of n bytes is at most n cells wide
			parts = hardwrap(l, width)
		}
		for _, p := range parts {
			if codeFg != "" && strings.TrimSpace(p) != "" {
				p = codeFg + p + theme.Reset
			}
			out = append(out, p)
		}
	}
	out = append(out, m.th.Fg(theme.MdCodeBlockBorder, "```"))
	return fit(out, width)
}
