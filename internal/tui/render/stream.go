package render

import (
	"math"
	"sort"
	"strings"
)

// MarkdownStream renders a markdown text that is still growing (an assistant answer being streamed).
// Finished blocks are rendered once (through the Markdown cache); only the unfinished tail is
// rendered again when the text grows, so the cost of a delta does not depend on how long the answer
// already is. It also tracks which finished blocks were handed out by Flush (printed into the
// scrollback), so the live region only holds what is not final yet.
//
// Rendering it completely (Lines after Finish) gives exactly Markdown.Render of the final text.
// A MarkdownStream belongs to one goroutine (the UI's).
type MarkdownStream struct {
	md    *Markdown
	text  string
	split blockSplitter
	done  bool
	// blocks is split.blocks, plus the tail as a last block once done.
	blocks     []mdBlock
	flushed    int  // blocks already returned by Flush
	flushedAny bool // Flush returned at least one line
	kept       int  // finished blocks unchanged since TakeKept (see there)
}

// NewStream starts a stream for a new message.
func (m *Markdown) NewStream() *MarkdownStream {
	return &MarkdownStream{md: m, split: newBlockSplitter(), kept: math.MaxInt}
}

// Set gives the whole text so far. Text that extends the previous text costs only the new part
// (the finished blocks are compared as strings, which costs nothing when the text grew in place).
// Any other change (a markdown transformer's new answer) keeps the finished blocks it leaves as
// they are and splits the text again from there; a block handed out by Flush that changed makes
// nothing count as flushed any more.
//
// Text that grows after Finish reopens the stream when its last block was not flushed yet; when it
// was, the growth is ignored (it cannot be taken back from the scrollback): a full render shows it.
func (s *MarkdownStream) Set(text string) {
	if text == s.text {
		return
	}
	if len(text) >= len(s.text) && text[:len(s.text)] == s.text {
		if s.done {
			if s.flushed > len(s.split.blocks) {
				return
			}
			s.done, s.blocks = false, s.split.blocks
			s.keep(len(s.blocks)) // the last block is open again
		}
	} else {
		s.rewind(text)
	}
	s.text = text
	s.split.scan(text)
	s.blocks = s.split.blocks
}

// rewind takes the splitter back to the last finished block that text leaves as it is and that the
// splitter can start at afresh: a block that is not a chunk of a code block, whose first line (which
// decided where the block before it ends) is unchanged.
func (s *MarkdownStream) rewind(text string) {
	p := commonPrefix(text, s.text)
	blocks := s.split.blocks
	k := sort.Search(len(blocks), func(i int) bool { return blocks[i].start >= p })
	for k--; k > 0; k-- {
		b := blocks[k]
		if nl := strings.IndexByte(text[b.start:p], '\n'); nl >= 0 && !b.glue {
			break
		}
	}
	k = max(k, 0)
	split := newBlockSplitter()
	if k > 0 {
		split.blocks = blocks[:k]
		split.pos, split.blockStart = blocks[k].start, blocks[k].start
	}
	s.split, s.done, s.blocks = split, false, split.blocks
	if s.flushed > k {
		s.flushed, s.flushedAny = 0, false
	}
	s.keep(k)
}

// keep notes that only the first n finished blocks stayed as they were (see TakeKept).
func (s *MarkdownStream) keep(n int) { s.kept = min(s.kept, n) }

// TakeKept returns how many of the finished blocks stayed as they were since the last call (blocks
// added since count as kept: only a change or removal lowers it), for a caller that caches their
// lines.
func (s *MarkdownStream) TakeKept() int {
	k := min(s.kept, len(s.blocks))
	s.kept = math.MaxInt
	return k
}

// commonPrefix is the length of the longest common prefix of a and b, compared a chunk at a time.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	const chunk = 256
	for i+chunk <= n && a[i:i+chunk] == b[i:i+chunk] {
		i += chunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Finish marks the text complete: the tail becomes the last finished block.
func (s *MarkdownStream) Finish() {
	if s.done {
		return
	}
	s.done = true
	s.blocks = s.split.finishAll(s.text)
}

// Text is the text so far.
func (s *MarkdownStream) Text() string { return s.text }

// Done reports whether Finish was called.
func (s *MarkdownStream) Done() bool { return s.done }

// FinishedBlocks is the number of blocks that will not change any more.
func (s *MarkdownStream) FinishedBlocks() int { return len(s.blocks) }

// FlushedBlocks is the number of blocks Flush has handed out.
func (s *MarkdownStream) FlushedBlocks() int { return s.flushed }

// FinalText is the prefix of the text that is final: the finished blocks. The rest may still change.
func (s *MarkdownStream) FinalText() string {
	if len(s.blocks) == 0 {
		return ""
	}
	return s.text[:s.blocks[len(s.blocks)-1].end]
}

// TailText is the unfinished part of the text ("" once done).
func (s *MarkdownStream) TailText() string {
	if s.done {
		return ""
	}
	return strings.TrimLeft(s.text[s.split.tail():], "\n")
}

// BlockLines returns the lines of finished block i at width (shared with the cache: do not modify).
func (s *MarkdownStream) BlockLines(i, width int) []string {
	b := s.blocks[i]
	return s.md.block(b.source(s.text), b.rules(), width)
}

// BlockGlued reports whether finished block i continues the one before it (a chunk of a long code
// block): it follows it directly, without the empty line between blocks.
func (s *MarkdownStream) BlockGlued(i int) bool { return s.blocks[i].glue }

// TailGlued reports whether the tail continues the last finished block (the rest of a long code
// block being streamed).
func (s *MarkdownStream) TailGlued() bool {
	open, first := s.split.openCode()
	return !s.done && open && !first
}

// TailLines renders the unfinished tail at width (nil when there is none). An open code block is
// shown uncoloured until it is finished: highlighting is too slow to redo on every delta.
func (s *MarkdownStream) TailLines(width int) []string {
	tail := s.TailText()
	if strings.TrimSpace(tail) == "" {
		return nil
	}
	if open, first := s.split.openCode(); open {
		lang := ""
		if first {
			// The opening fence line becomes the rule above.
			fence := tail
			if i := strings.IndexByte(tail, '\n'); i >= 0 {
				fence, tail = tail[:i], tail[i+1:]
			} else {
				tail = ""
			}
			lang = fenceLanguage(fence)
		}
		// A closing fence still arriving would show as code for a moment.
		if i := strings.LastIndexByte(tail, '\n') + 1; isPartialFence(tail[i:], s.split.openFence()) {
			tail = tail[:i]
		}
		return s.md.plainCode(tail, lang, first, width)
	}
	return s.md.Block(strings.TrimRight(tail, " \t\r\n"), width)
}

// Lines renders everything, flushed or not: the finished blocks and the tail, separated by one empty
// line.
func (s *MarkdownStream) Lines(width int) []string { return s.lines(0, width) }

// Live renders what Flush has not handed out yet: the finished blocks not flushed and the tail. When
// something was flushed before, it starts with the empty line that separates it from the flushed part.
func (s *MarkdownStream) Live(width int) []string { return s.lines(s.flushed, width) }

// Flush returns the lines of the finished blocks not flushed yet and marks them flushed: they are
// final and belong in the scrollback. Blocks are joined (and, after an earlier flush, preceded) by one
// empty line, chunks of a code block by none. Each call may use a different width: a resize only
// affects blocks not flushed yet.
func (s *MarkdownStream) Flush(width int) []string {
	var out []string
	for ; s.flushed < len(s.blocks); s.flushed++ {
		lines := s.BlockLines(s.flushed, width)
		if len(lines) == 0 {
			continue // a block that shows nothing (an HTML comment)
		}
		if s.flushedAny && !s.blocks[s.flushed].glue {
			out = append(out, "")
		}
		out = append(out, lines...)
		s.flushedAny = true
	}
	return out
}

func (s *MarkdownStream) lines(from, width int) []string {
	var out []string
	gap := from > 0 && s.flushedAny
	add := func(lines []string, glue bool) {
		if len(lines) == 0 {
			return
		}
		if gap && !glue {
			out = append(out, "")
		}
		out = append(out, lines...)
		gap = true
	}
	for i := from; i < len(s.blocks); i++ {
		add(s.BlockLines(i, width), s.blocks[i].glue)
	}
	add(s.TailLines(width), s.TailGlued())
	return out
}

// fenceLanguage is the language named on a code fence line ("```go title" gives "go").
func fenceLanguage(line string) string {
	info := strings.TrimLeft(strings.TrimLeft(line, " "), "`~")
	if f := strings.Fields(info); len(f) > 0 {
		return f[0]
	}
	return ""
}

// isPartialFence reports whether an unfinished last line may be the start of the closing fence.
func isPartialFence(l string, fence byte) bool {
	l = strings.TrimLeft(l, " ")
	return l != "" && fence != 0 && strings.Trim(l, string(fence)) == ""
}
