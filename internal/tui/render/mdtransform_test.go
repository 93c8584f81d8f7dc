package render

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/provider"
)

// fakeTransformer replaces "-->" with "→" on its surfaces. With async set, an answer is there only
// after release: until then Transform hands out the stand-in.
type fakeTransformer struct {
	types []string
	async bool

	mu       sync.Mutex
	released bool
	seen     []MarkdownContext
	texts    []string
}

func (f *fakeTransformer) Applies(t string) bool { return slices.Contains(f.types, t) }

func (f *fakeTransformer) Transform(md string, c MarkdownContext) (string, int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c.Slot = nil
	f.seen = append(f.seen, c)
	f.texts = append(f.texts, md)
	if f.async && !f.released {
		return "", 0, false
	}
	return strings.ReplaceAll(md, "-->", "→"), len(md), true
}

func (f *fakeTransformer) release() { f.mu.Lock(); f.released = true; f.mu.Unlock() }

func joined(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

func TestMarkdownTransformerSurfaces(t *testing.T) {
	f := &fakeTransformer{types: []string{MDAssistant, MDSummary}}
	r := New(Options{Transformer: f})
	asst := &provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentText, Text: "  a --> b\n\n"}}}
	if got := joined(r.AssistantMessage(asst, AssistantOptions{MessageID: "e1", Timestamp: "T"}, 40)); !strings.Contains(got, "a → b") {
		t.Fatalf("assistant not transformed:\n%s", got)
	}
	// As pi: the text without its surrounding white space, the content width, the entry.
	want := MarkdownContext{MessageType: MDAssistant, Width: 38, MessageID: "e1", Timestamp: "T"}
	if len(f.seen) != 1 || f.seen[0] != want || f.texts[0] != "a --> b" {
		t.Fatalf("asked %+v %q", f.seen, f.texts)
	}
	user := &provider.UserMessage{Content: []provider.Content{{Type: provider.ContentText, Text: "u --> v"}}}
	if got := joined(r.UserMessage(user, 40)); !strings.Contains(got, "u --> v") {
		t.Fatalf("user text transformed without registering for it:\n%s", got)
	}
	f.texts = nil
	sum := &provider.CompactionSummaryMessage{Summary: "s --> t", TokensBefore: 1200}
	got := joined(r.CompactionSummary(sum, true, 40))
	if !strings.Contains(got, "s → t") || !strings.Contains(got, "Compacted from 1,200 tokens") {
		t.Fatalf("summary:\n%s", got)
	}
	if !slices.Equal(f.texts, []string{"s --> t"}) {
		t.Fatalf("the transformer saw %q, not the summary alone", f.texts)
	}
	// Without a transformer the renderer draws as before.
	r.SetMarkdownTransformer(nil)
	if got := joined(r.AssistantMessage(asst, AssistantOptions{}, 40)); !strings.Contains(got, "a --> b") {
		t.Fatalf("after removing the transformer:\n%s", got)
	}
}

// A streaming message whose text a transformer rewrites is not flushed into the scrollback before
// the final message's answer is in: the streaming answers may differ from it anywhere.
func TestMarkdownTransformerHoldsTheStream(t *testing.T) {
	f := &fakeTransformer{types: []string{MDAssistant}, async: true}
	r := New(Options{Transformer: f})
	s := r.NewAssistantStream(AssistantOptions{})
	msg := func(text string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{
			{Type: provider.ContentThinking, Thinking: "hmm -->"},
			{Type: provider.ContentText, Text: text}}}
	}
	s.Update(msg("first --> para\n\nsecond"))
	flushed := joined(s.Flush(40))
	if !strings.Contains(flushed, "hmm -->") || strings.Contains(flushed, "first") {
		t.Fatalf("flushed while streaming (thinking is not transformed, text is):\n%s", flushed)
	}
	if !f.seen[len(f.seen)-1].Streaming {
		t.Fatal("a streaming text was not asked as streaming")
	}
	s.Finish(msg("first --> para\n\nsecond --> end"))
	if got := s.Flush(40); len(got) != 0 || !s.Transforming() {
		t.Fatalf("flushed before the answer: %q", got)
	}
	if live := joined(s.Live(40)); !strings.Contains(live, "first --> para") {
		t.Fatalf("the stand-in is the text itself:\n%s", live)
	}
	f.release()
	got := joined(s.Flush(40))
	if s.Transforming() || !strings.Contains(got, "first → para") || !strings.Contains(got, "second → end") {
		t.Fatalf("after the answer:\n%s", got)
	}
	if c := f.seen[len(f.seen)-1]; c.Streaming || c.Width != 38 {
		t.Fatalf("final context %+v", c)
	}
	// A new width asks again for that width.
	n := len(f.seen)
	s.Lines(30)
	if len(f.seen) == n || f.seen[len(f.seen)-1].Width != 28 {
		t.Fatalf("not asked again at another width: %+v", f.seen[n:])
	}
}

// A stand-in grows in place while its answer stays: a frame copies the delta, not the whole text.
func TestJoinerGrowsInPlace(t *testing.T) {
	var j joiner
	head := "a → b"
	first := j.join(head, " c")
	second := j.join(head, " c -")
	if first != "a → b c" || second != "a → b c -" || unsafe.StringData(first) != unsafe.StringData(second) {
		t.Fatalf("%q %q: not grown in place", first, second)
	}
	if got := j.join("a → b →", " d"); got != "a → b → d" || unsafe.StringData(got) == unsafe.StringData(second) {
		t.Fatalf("a new answer: %q", got)
	}
	if got := j.join("a → b →", " x"); got != "a → b → x" {
		t.Fatalf("a rest that does not extend the last one: %q", got)
	}
	if j.join("only", "") != "only" || j.join("", "raw") != "raw" {
		t.Fatal("one part alone")
	}
	if second != "a → b c -" {
		t.Fatalf("a string handed out changed: %q", second)
	}
}

// A message held back for its transformer is drawn from cached rows: LiveTail is Live's bottom and
// its length, and what Flush hands out at the end followed by nothing live is Lines, whatever the
// answers did to finished blocks meanwhile.
func TestLiveTailOfAHeldMessage(t *testing.T) {
	f := &fakeTransformer{types: []string{MDAssistant}, async: true}
	r := New(Options{Transformer: f})
	s := r.NewAssistantStream(AssistantOptions{})
	text := strings.ReplaceAll(longAnswer(120), "detail", "detail -->") + "last --> words"
	var printed []string
	msg := func(n int) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{
			{Type: provider.ContentThinking, Thinking: "hmm"}, {Type: provider.ContentText, Text: text[:n]}}}
	}
	for n, step := 1, 1; n <= len(text); n, step = n+step, step%97+13 {
		if n%5 == 0 {
			f.release() // answers in: the finished blocks change under the cached rows
		}
		s.Update(msg(n))
		printed = append(printed, s.Flush(60)...)
		live := s.Live(60)
		for _, rows := range []int{0, 1, 7, 40, len(live) + 3} {
			tail, total := s.LiveTail(60, rows)
			if total != len(live) || !slices.Equal(tail, live[len(live)-min(rows, len(live)):]) {
				t.Fatalf("at %d bytes, %d rows: %d lines of %d, want the bottom of Live's %d", n, rows, len(tail), total, len(live))
			}
		}
		f.mu.Lock()
		f.released = n%3 == 0
		f.mu.Unlock()
	}
	f.release()
	s.Finish(msg(len(text)))
	printed = append(printed, s.Flush(60)...)
	if len(s.Live(60)) != 0 || !slices.Equal(printed, s.Lines(60)) {
		t.Fatalf("what was flushed is not the whole message")
	}
	if got := joined(printed); !strings.Contains(got, "last → words") || strings.Contains(got, "-->") {
		t.Fatalf("not the final transform:\n%s", got)
	}
}
