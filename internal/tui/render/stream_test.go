package render

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// longAnswer builds a markdown answer of about n lines mixing what models write.
func longAnswer(n int) string {
	var b strings.Builder
	lines := 0
	for i := 0; lines < n; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "## Step %d\n\n", i)
			lines += 2
		case 1:
			fmt.Fprintf(&b, "This paragraph explains step %d in some detail, with `code`, **bold** words and a\nsecond source line so that wrapping has something to do at eighty columns.\n\n", i)
			lines += 3
		case 2:
			fmt.Fprintf(&b, "- item one of %d\n- item two, a little longer than the first\n- item three\n\n", i)
			lines += 4
		case 3:
			fmt.Fprintf(&b, "```go\nfunc step%d(x int) int {\n\tif x > 0 {\n\t\treturn x * %d\n\t}\n\n\treturn 0\n}\n```\n\n", i, i)
			lines += 10
		case 4:
			fmt.Fprintf(&b, "1. first\n2. second\n\n3. third after a blank line\n\n> a note for step %d\n\n", i)
			lines += 7
		}
	}
	return b.String()
}

func TestStreamIncrementalEqualsWhole(t *testing.T) {
	md := newTestMarkdown()
	docs := append(append([]string(nil), markdownCorpus...), longAnswer(200), longAnswer(50)+longCode(150, true)+"\n\nEnd.")
	rng := rand.New(rand.NewSource(1))
	for di, doc := range docs {
		for _, w := range []int{40, 100} {
			want := md.Render(doc, w)
			s := md.NewStream()
			var printed []string
			for i := 0; i < len(doc); {
				step := 1 + rng.Intn(7)
				i = min(i+step, len(doc))
				s.Set(doc[:i])
				// What is on screen is always the flushed part followed by the live part.
				live := s.Live(w)
				assertFits(t, live, w)
				if rng.Intn(3) == 0 {
					printed = append(printed, s.Flush(w)...)
				}
			}
			s.Finish()
			printed = append(printed, s.Flush(w)...)
			if live := s.Live(w); len(live) != 0 {
				t.Fatalf("doc %d: live lines left after the final flush: %q", di, live)
			}
			if got := strings.Join(printed, "\n"); got != strings.Join(want, "\n") {
				t.Errorf("doc %d width %d: incremental output differs\n--- incremental\n%s\n--- whole\n%s", di, w, got, strings.Join(want, "\n"))
			}
			if got := strings.Join(s.Lines(w), "\n"); got != strings.Join(want, "\n") {
				t.Errorf("doc %d width %d: Lines after Finish differ from Render", di, w)
			}
		}
	}
}

// Flushed lines followed by the live lines are always what a full render of the text so far shows.
func TestStreamFlushedPlusLiveIsEverything(t *testing.T) {
	md := newTestMarkdown()
	doc := longAnswer(120)
	s := md.NewStream()
	var printed []string
	for i := 1; i <= len(doc); i += 13 {
		s.Set(doc[:i])
		printed = append(printed, s.Flush(80)...)
		all := append(append([]string(nil), printed...), s.Live(80)...)
		if got, want := strings.Join(all, "\n"), strings.Join(s.Lines(80), "\n"); got != want {
			t.Fatalf("at %d bytes: flushed+live != lines\n%s\n---\n%s", i, got, want)
		}
	}
}

func TestStreamFinalTextIsStable(t *testing.T) {
	md := newTestMarkdown()
	doc := longAnswer(100)
	s := md.NewStream()
	prev := ""
	for i := 1; i <= len(doc); i++ {
		s.Set(doc[:i])
		final := s.FinalText()
		if !strings.HasPrefix(final, prev) {
			t.Fatalf("at %d: final prefix shrank or changed: %q then %q", i, prev, final)
		}
		if !strings.HasPrefix(doc, final) {
			t.Fatalf("final text is not a prefix of the document")
		}
		prev = final
	}
	if s.FinishedBlocks() == 0 {
		t.Fatal("no block finished while streaming a long answer")
	}
}

func TestStreamReplacedTextStartsOver(t *testing.T) {
	md := newTestMarkdown()
	s := md.NewStream()
	s.Set("first paragraph\n\nsecond paragraph\n\nthird")
	if n := len(s.Flush(80)); n == 0 {
		t.Fatal("nothing flushed")
	}
	s.Set("something else entirely\n\nnew")
	if s.FlushedBlocks() != 0 {
		t.Fatalf("flushed blocks after replacement = %d", s.FlushedBlocks())
	}
	got := strings.Join(stripAll(s.Lines(80)), "\n")
	if !strings.Contains(got, "something else entirely") || strings.Contains(got, "first paragraph") {
		t.Fatalf("lines after replacement: %q", got)
	}
}

func TestLongCodeBlockIsChunked(t *testing.T) {
	md := newTestMarkdown()
	doc := longCode(130, true)
	sp := newBlockSplitter()
	sp.scan(doc)
	blocks := sp.finishAll(doc)
	chunks := 0
	for _, b := range blocks {
		if b.glue {
			chunks++
			if !strings.HasPrefix(b.open, "```go") {
				t.Fatalf("chunk without the opening fence: %+v", b)
			}
		}
	}
	if chunks < 2 {
		t.Fatalf("a 130-line code block gave %d glued chunks: %+v", chunks, blocks)
	}
	// While it streams, the open code block is the tail and is glued to the chunk before it.
	s := md.NewStream()
	cut := strings.Index(doc, "compute(100)")
	s.Set(doc[:cut])
	if !s.TailGlued() || s.FinishedBlocks() < 2 {
		t.Fatalf("tail glued %v, finished %d", s.TailGlued(), s.FinishedBlocks())
	}
	// It has no rule above (the first chunk has it) and the rule below, as pi draws an open block.
	tail := stripAll(s.TailLines(80))
	for i, l := range tail {
		if strings.Contains(l, "```") != (i == len(tail)-1) || !strings.HasPrefix(tail[0], "  \tx := compute(") && !strings.HasPrefix(tail[0], "      x := compute(") {
			t.Fatalf("open code tail:\n%s", strings.Join(tail, "\n"))
		}
	}
}

// A text that changes in a finished block (a markdown transformer's answer replacing its stand-in,
// at the same length) is split and drawn again from that block: the old block does not stay.
func TestStreamChangedFinishedBlock(t *testing.T) {
	md := newTestMarkdown()
	s := md.NewStream()
	s.Set("a -->\n\nb\n\nc")
	s.Set("a →\n\nb\n\nc")
	if got := strings.Join(stripAll(s.Lines(80)), "\n"); !strings.Contains(got, "a →") || strings.Contains(got, "-->") {
		t.Fatalf("the changed block stayed: %q", got)
	}
}

// A changed text keeps the finished blocks before the change, and gives what a stream given the new
// text from the start gives: the same blocks, lines and flush state.
func TestStreamRewindEqualsFresh(t *testing.T) {
	md := newTestMarkdown()
	docs := append(append([]string(nil), markdownCorpus...), longAnswer(120), longAnswer(30)+longCode(100, true)+"\n\nEnd.")
	rng := rand.New(rand.NewSource(2))
	edits := []string{"→", "x", "", "\n\n", "- ", "```\n", "\n", "  "}
	for di, doc := range docs {
		for round := 0; round < 40; round++ {
			a := doc[:rng.Intn(len(doc)+1)]
			// b: a with an edit somewhere, grown or cut.
			at := rng.Intn(len(a) + 1)
			cut := min(at+rng.Intn(4), len(a))
			b := a[:at] + edits[rng.Intn(len(edits))] + a[cut:]
			if rng.Intn(2) == 0 {
				b += doc[len(a):min(len(doc), len(a)+rng.Intn(200))]
			}
			s := md.NewStream()
			s.Set(a)
			if rng.Intn(3) == 0 {
				s.Flush(60)
			}
			if rng.Intn(4) == 0 {
				s.Finish()
			}
			flushed := s.FlushedBlocks()
			s.TakeKept()
			s.Set(b)
			fresh := md.NewStream()
			fresh.Set(b)
			if s.Done() {
				fresh.Finish()
			}
			if s.FinishedBlocks() != fresh.FinishedBlocks() || s.TailText() != fresh.TailText() {
				t.Fatalf("doc %d round %d: %d blocks, tail %q; fresh: %d, %q\na=%q\nb=%q", di, round,
					s.FinishedBlocks(), s.TailText(), fresh.FinishedBlocks(), fresh.TailText(), a, b)
			}
			kept := s.TakeKept()
			for i := 0; i < s.FinishedBlocks(); i++ {
				got, want := strings.Join(s.BlockLines(i, 60), "\n"), strings.Join(fresh.BlockLines(i, 60), "\n")
				if got != want || s.BlockGlued(i) != fresh.BlockGlued(i) {
					t.Fatalf("doc %d round %d block %d (kept %d):\n%s\nfresh:\n%s", di, round, i, kept, got, want)
				}
			}
			// Blocks handed out stay flushed only when they did not change.
			if s.FlushedBlocks() != 0 && (s.FlushedBlocks() != flushed || flushed > kept) {
				t.Fatalf("doc %d round %d: %d flushed (%d before), %d kept", di, round, s.FlushedBlocks(), flushed, kept)
			}
			if strings.Join(s.Lines(60), "\n") != strings.Join(fresh.Lines(60), "\n") {
				t.Fatalf("doc %d round %d: lines differ", di, round)
			}
		}
	}
}
