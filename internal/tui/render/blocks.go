package render

import "strings"

// codeChunkLines is how many lines of a long fenced code block make one block: a long code block is
// cut into chunks so it too can be rendered (highlighted) once and flushed piece by piece while it
// streams. Chunks join without a gap and without the rules between them, so they read as one block;
// only a multi-line comment or string crossing a cut may be coloured differently.
const codeChunkLines = 40

// mdBlock is one block of a markdown text: text[start:end], rendered with open prepended and close
// appended (a chunk of a long code block carries the fences it lacks), and glued to the block before
// it without the usual empty line.
type mdBlock struct {
	start, end  int
	open, close string
	glue        bool
}

// source is the markdown of the block to render.
func (b mdBlock) source(text string) string {
	s := text[b.start:b.end]
	if b.open != "" {
		s = b.open + "\n" + s
	}
	if b.close != "" {
		s += "\n" + b.close
	}
	return s
}

// rules says which code block rules the block lacks: a chunk after the first has none above, a
// chunk cut before the block's end none below.
func (b mdBlock) rules() blockRules {
	var r blockRules
	if b.open != "" {
		r |= noTopRule
	}
	if b.close != "" {
		r |= noBottomRule
	}
	return r
}

// blockSplitter cuts markdown into top-level blocks that render the same alone as inside the whole
// document, so each can be rendered once and cached. It is incremental: feed it a growing text and it
// only looks at what is new. A block ends at a blank line followed by a line that cannot continue it
// (so a list with blank lines between items, an indented continuation, an open code fence or HTML
// block stay one block), before a code fence that starts at the left margin, and right after the
// closing fence of a fenced code block; a long fenced code block is cut into chunks. Only complete
// lines (ending in "\n") decide a boundary, so a boundary once found stays a boundary however the
// text grows.
//
// Known approximation: a link reference definition ("[x]: url") applies to the whole document in
// CommonMark but only to its own block here.
type blockSplitter struct {
	blocks []mdBlock // finished blocks, trailing blank lines excluded

	pos        int // start of the first line not yet scanned (always a line start)
	blockStart int // start of the open block (after any blank lines)
	hasContent bool
	blankAt    int // offset of the first blank line after content, -1 when none pending

	isList  bool // the open block contains a top-level list item
	isFence bool // the open block began with a code fence

	fenceChar  byte // open fence: '`' or '~'; 0 when no fence is open
	fenceLen   int
	htmlCloser string // open raw HTML block: the text that ends it

	// Chunking of the open fenced code block (isFence).
	fenceLine string // its opening line
	chunk     int    // chunks already cut from it
	codeLines int    // code lines in the current chunk
	lastBlank bool   // the previous code line was blank
}

func newBlockSplitter() blockSplitter { return blockSplitter{blankAt: -1} }

// scan processes the complete lines of text (which must extend the text seen before) and returns the
// number of finished blocks.
func (b *blockSplitter) scan(text string) int {
	for {
		nl := strings.IndexByte(text[b.pos:], '\n')
		if nl < 0 {
			return len(b.blocks)
		}
		start := b.pos
		b.pos = start + nl + 1
		b.line(start, text[start:start+nl])
	}
}

// tail is the offset where the unfinished part of the text starts.
func (b *blockSplitter) tail() int { return b.blockStart }

// openCode reports whether the unfinished part is inside a fenced code block that is a block of its
// own, and whether its text still starts with the opening fence line (first chunk).
func (b *blockSplitter) openCode() (open, firstChunk bool) {
	return b.fenceChar != 0 && b.isFence, b.chunk == 0
}

// openFence is the fence character of the open code block (0 when none is open).
func (b *blockSplitter) openFence() byte { return b.fenceChar }

// line processes one complete line (without its newline) that starts at offset start.
func (b *blockSplitter) line(start int, l string) {
	end := start + len(l) + 1
	if b.fenceChar != 0 {
		if closesFence(l, b.fenceChar, b.fenceLen) {
			b.fenceChar = 0
			if b.isFence {
				b.finish(end-1, "")
				b.blockStart = end
			}
			return
		}
		if b.isFence {
			blank := strings.TrimSpace(l) == ""
			if b.codeLines >= codeChunkLines && !blank && !b.lastBlank {
				// Cut between two non-blank lines: a chunk never begins or ends with a blank line,
				// which rendering would trim.
				fenceLine, chunk := b.fenceLine, b.chunk
				b.finish(start-1, strings.Repeat(string(b.fenceChar), b.fenceLen))
				b.blockStart = start
				b.hasContent, b.isFence, b.fenceLine, b.chunk = true, true, fenceLine, chunk+1
			}
			b.codeLines++
			b.lastBlank = blank
		}
		return
	}
	if b.htmlCloser != "" {
		if strings.Contains(strings.ToLower(l), b.htmlCloser) {
			b.htmlCloser = ""
		}
		return
	}
	if strings.TrimLeft(l, " \t\r") == "" {
		if !b.hasContent {
			b.blockStart = end
		} else if b.blankAt < 0 {
			b.blankAt = start
		}
		return
	}
	c, n := opensFence(l)
	switch {
	case b.blankAt >= 0 && b.endsBlock(l):
		b.finish(b.blankAt, "")
		b.blockStart = start
	case b.hasContent && c != 0 && l[0] == c:
		// A fence at the left margin ends whatever came before it (it cannot continue a
		// paragraph, a quote or a list item), with or without a blank line.
		end := start - 1
		if b.blankAt >= 0 {
			end = b.blankAt
		}
		b.finish(end, "")
		b.blockStart = start
	}
	b.blankAt = -1
	first := !b.hasContent
	b.hasContent = true
	if n := leadingSpaces(l); n <= 3 && isListItem(l[n:]) {
		b.isList = true
	}
	if c != 0 {
		b.fenceChar, b.fenceLen = c, n
		if first {
			b.isFence, b.fenceLine, b.chunk, b.codeLines, b.lastBlank = true, l, 0, 0, false
		}
		return
	}
	if closer := opensHTML(l); closer != "" && !strings.Contains(strings.ToLower(l), closer) {
		b.htmlCloser = closer
	}
}

// endsBlock reports whether l, the first non-blank line after a blank line, starts a new block.
func (b *blockSplitter) endsBlock(l string) bool {
	if l[0] == ' ' || l[0] == '\t' {
		return false // list continuation or indented code: stays with the block
	}
	if b.isList && isListItem(l) {
		return false // the next item of the same list
	}
	if strings.HasPrefix(l, ":") {
		return false // a definition-list description
	}
	return true
}

// finish closes the open block at end; close is the fence to append (a cut chunk).
func (b *blockSplitter) finish(end int, close string) {
	blk := mdBlock{start: b.blockStart, end: end, close: close}
	if b.isFence && b.chunk > 0 {
		blk.open, blk.glue = b.fenceLine, true
	}
	b.blocks = append(b.blocks, blk)
	b.hasContent, b.isList, b.isFence, b.blankAt = false, false, false, -1
	b.fenceLine, b.chunk, b.codeLines, b.lastBlank = "", 0, 0, false
}

// finishAll treats text as complete: its last line, even without a newline, is scanned, and the open
// block becomes the last one (an unclosed code fence runs to the end, as in CommonMark). It returns
// every block and leaves b unchanged.
func (b *blockSplitter) finishAll(text string) []mdBlock {
	c := *b
	c.blocks = append([]mdBlock(nil), b.blocks...)
	if c.pos < len(text) {
		c.line(c.pos, text[c.pos:])
		c.blockStart = min(c.blockStart, len(text)) // the line had no newline to step over
	}
	tail := strings.TrimRight(text[c.blockStart:], " \t\r\n")
	if strings.TrimSpace(tail) != "" {
		c.finish(c.blockStart+len(tail), "")
	}
	return c.blocks
}

func leadingSpaces(l string) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// isListItem reports whether l (not indented) starts a bullet or ordered list item.
func isListItem(l string) bool {
	if len(l) >= 2 && (l[0] == '-' || l[0] == '*' || l[0] == '+') && (l[1] == ' ' || l[1] == '\t') {
		return true
	}
	if len(l) == 1 && (l[0] == '-' || l[0] == '*' || l[0] == '+') {
		return true
	}
	i := 0
	for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(l) || (l[i] != '.' && l[i] != ')') {
		return false
	}
	return i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t'
}

// opensFence returns the fence character and length when l opens a fenced code block.
func opensFence(l string) (byte, int) {
	t := strings.TrimLeft(l, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	if c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return 0, 0 // an info string with a backtick: inline code, not a fence
	}
	return c, n
}

func closesFence(l string, c byte, n int) bool {
	t := strings.TrimLeft(l, " \t")
	k := 0
	for k < len(t) && t[k] == c {
		k++
	}
	return k >= n && strings.TrimSpace(t[k:]) == ""
}

// opensHTML returns the closing marker of a raw HTML block that may contain blank lines (CommonMark
// HTML block kinds 1 and 2), or "".
func opensHTML(l string) string {
	t := strings.ToLower(strings.TrimLeft(l, " "))
	if strings.HasPrefix(t, "<!--") {
		return "-->"
	}
	for _, tag := range []string{"pre", "script", "style", "textarea"} {
		if strings.HasPrefix(t, "<"+tag) && (len(t) == len(tag)+1 || strings.ContainsRune(" >\t", rune(t[len(tag)+1]))) {
			return "</" + tag + ">"
		}
	}
	return ""
}
