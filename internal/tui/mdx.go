package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// Extensions' markdown transformers (pi's registerMarkdownTransformer). pi calls them in-process
// while it renders; here each call is a round trip to the extension host, so rendering never waits
// for one: a text whose answer is not cached is drawn untransformed (a streaming text: with the
// previous answer for its prefix), the request goes out, and the answer, cached by text, surface,
// width, streaming and session entry, brings a redraw. A block waiting for an answer is not printed
// into the scrollback yet; one that was printed with a stand-in (a relayout) is printed again once
// the answers changed something. While a text streams, at most one request per text is in flight
// and only its newest state waits behind it. Without a transformer none of this runs.

// mdxMaxBytes bounds the cache of answers (texts and results, per generation of two).
const mdxMaxBytes = 8 << 20

// mdxKey is one transform: the text and pi's context.
type mdxKey struct {
	text, typ, id, ts string
	width             int
	streaming         bool
}

// mdxSlot is a streaming text's requests: one in flight, the newest wanted one behind it, and the
// latest answer (the stand-in for the text's next states).
type mdxSlot struct {
	asked   bool
	cur     mdxKey // the one in flight, when asked
	next    mdxKey
	hasNext bool
	have    bool
	last    mdxKey
	out     string
}

// mdxCache implements render.MarkdownTransformer over the host. It is safe for concurrent use
// (rendering also runs off the UI goroutine, for a long resumed session).
type mdxCache struct {
	types []string // the surfaces transformed; fixed for the cache's life
	ask   func(ctx context.Context, markdown string, c extensions.MarkdownContext) (string, error)
	ctx   context.Context
	done  func(mdxAnsweredMsg) // hands an answer's news to the UI goroutine

	misses atomic.Int64 // transforms answered with a stand-in

	mu       sync.Mutex
	cur, old map[mdxKey]string // answers, two generations: a lookup in old moves the entry to cur
	curBytes int
	asked    map[mdxKey]bool // requests of finished texts in flight
	slots    map[any]*mdxSlot
}

// mdxAnsweredMsg is an answer arriving: changed when the transformer changed the text (a drawing
// with the stand-in was wrong), streaming for a streaming text's answer.
type mdxAnsweredMsg struct {
	changed, streaming bool
	err                error
}

// extMarkdownTypesMsg names the surfaces extensions transform (none: no transformer).
type extMarkdownTypesMsg struct{ types []string }

// SetMarkdownTransformers names the surfaces (pi's messageTypes) extensions' markdown transformers
// run on; nil or empty: none.
func (u *ExtensionUI) SetMarkdownTransformers(types []string) {
	u.relay.send(extMarkdownTypesMsg{types: slices.Clone(types)})
}

func newMdxCache(ctx context.Context, types []string, ask func(context.Context, string, extensions.MarkdownContext) (string, error), done func(mdxAnsweredMsg)) *mdxCache {
	return &mdxCache{types: types, ask: ask, ctx: ctx, done: done,
		cur: map[mdxKey]string{}, asked: map[mdxKey]bool{}, slots: map[any]*mdxSlot{}}
}

// Applies implements render.MarkdownTransformer.
func (c *mdxCache) Applies(messageType string) bool { return slices.Contains(c.types, messageType) }

// Transform implements render.MarkdownTransformer: the cached answer, or a stand-in while the
// answer is asked for.
func (c *mdxCache) Transform(markdown string, mc render.MarkdownContext) (string, int, bool) {
	k := mdxKey{text: markdown, typ: mc.MessageType, id: mc.MessageID, ts: mc.Timestamp, width: mc.Width, streaming: mc.Streaming}
	c.mu.Lock()
	defer c.mu.Unlock()
	if mc.Streaming && mc.Slot != nil {
		s := c.slots[mc.Slot]
		if s == nil {
			if len(c.slots) >= 64 {
				c.dropIdleSlots()
			}
			s = &mdxSlot{}
			c.slots[mc.Slot] = s
		}
		if s.have && s.last == k {
			return s.out, len(markdown), true
		}
		c.misses.Add(1)
		switch {
		case s.asked && s.cur == k:
			s.hasNext = false // the newest state is the one in flight
		case s.asked:
			s.next, s.hasNext = k, true // coalesced: only the newest state waits
		default:
			s.asked, s.cur = true, k
			go c.request(k, s)
		}
		if s.have && strings.HasPrefix(markdown, s.last.text) {
			// The text grew since the last answer: that answer, then the new part as it is.
			return s.out, len(s.last.text), false
		}
		return "", 0, false
	}
	if out, ok := c.cur[k]; ok {
		return out, len(markdown), true
	}
	if out, ok := c.old[k]; ok {
		c.store(k, out)
		return out, len(markdown), true
	}
	c.misses.Add(1)
	if !c.asked[k] {
		c.asked[k] = true
		go c.request(k, nil)
	}
	return "", 0, false
}

// request asks the host for one transform (s: the streaming text's slot) and, when a newer state
// of the streaming text waits, asks for that one next.
func (c *mdxCache) request(k mdxKey, s *mdxSlot) {
	for {
		out, err := c.ask(c.ctx, k.text, extensions.MarkdownContext{MessageType: k.typ, IsStreaming: k.streaming,
			AvailableWidth: k.width, MessageID: k.id, Timestamp: k.ts})
		c.mu.Lock()
		if s == nil {
			delete(c.asked, k)
			c.store(k, out)
			c.mu.Unlock()
			c.done(mdxAnsweredMsg{changed: out != k.text, err: err})
			return
		}
		s.have, s.last, s.out = true, k, out
		next, more := s.next, s.hasNext
		s.next, s.hasNext = mdxKey{}, false
		s.asked = more
		if more {
			s.cur = next
		}
		c.mu.Unlock()
		c.done(mdxAnsweredMsg{changed: out != k.text, streaming: true, err: err})
		if !more {
			return
		}
		k = next
	}
}

// store keeps an answer; c.mu is held. When the newer generation is full it becomes the older one.
func (c *mdxCache) store(k mdxKey, out string) {
	if _, ok := c.cur[k]; ok {
		return
	}
	c.cur[k] = out
	c.curBytes += len(k.text) + len(out) + 64
	if c.curBytes > mdxMaxBytes {
		c.old, c.cur, c.curBytes = c.cur, map[mdxKey]string{}, 0
	}
}

// dropIdleSlots forgets the streaming texts with nothing in flight (finished messages); c.mu is held.
func (c *mdxCache) dropIdleSlots() {
	for k, s := range c.slots {
		if !s.asked {
			delete(c.slots, k)
		}
	}
}

// busy reports whether answers for finished texts are outstanding.
func (c *mdxCache) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked) > 0
}

// mdxMisses counts the stand-ins drawn so far (0 without a transformer): a rendering that changed
// it drew something that is not final.
func (m *model) mdxMisses() int64 {
	if m.mdx == nil {
		return 0
	}
	return m.mdx.misses.Load()
}

func (msg extMarkdownTypesMsg) apply(m *model) tea.Cmd {
	u := m.opts.ExtensionUI
	if u == nil || u.hooks.TransformMarkdown == nil {
		return nil
	}
	if m.mdx != nil && slices.Equal(m.mdx.types, msg.types) {
		return nil
	}
	m.mdx = nil
	if len(msg.types) > 0 {
		m.mdx = newMdxCache(m.ctx, msg.types, u.hooks.TransformMarkdown, func(a mdxAnsweredMsg) { u.relay.send(a) })
	}
	m.r.SetMarkdownTransformer(m.mdxTransformer())
	// What is on the screen was drawn without (or with other) transformers: draw it again, asking
	// for the answers now; what was printed is printed again once they changed something.
	if m.mdx != nil {
		m.mdxEntryRefs(m.done, m.chat)
	}
	before := m.mdxMisses()
	m.mdxInvalidate()
	if !m.fullscreen {
		for _, it := range m.done {
			m.blockLines(it, m.width)
		}
	}
	m.mdxStale = m.mdxStale || m.mdxMisses() != before
	if m.mdx == nil && len(m.done) > 0 && !m.fullscreen {
		m.relayout() // the transformer is gone: the scrollback shows its work no more
	}
	return nil
}

// mdxTransformer is the transformer to render with (a nil interface without one).
func (m *model) mdxTransformer() render.MarkdownTransformer {
	if m.mdx == nil {
		return nil
	}
	return m.mdx
}

// mdxInvalidate drops the cached lines of every block: they were drawn with other transformers.
func (m *model) mdxInvalidate() {
	for _, it := range m.chat {
		it.cache = nil
	}
	for _, it := range m.done {
		it.cache = nil
	}
}

func (msg mdxAnsweredMsg) apply(m *model) tea.Cmd {
	if m.mdx == nil || msg.streaming {
		return nil // a streaming message transforms again at the next frame (it waits for this)
	}
	m.mdxChanged = m.mdxChanged || msg.changed
	for _, it := range m.chat {
		it.cache = nil // the live blocks are drawn again with what is in now
	}
	if m.mdx.busy() {
		return nil // the rest of a batch (a relayout asks for every message) is on its way
	}
	// The transcript's blocks drawn with stand-ins were right unless an answer changed a text.
	for _, it := range m.done {
		if it.mdxWait {
			it.mdxWait = false
			if m.mdxChanged {
				it.cache = nil
			}
		}
	}
	reprint := m.mdxChanged && m.mdxStale && !m.fullscreen
	m.mdxChanged, m.mdxStale = false, false
	if reprint {
		m.relayout() // the scrollback was printed with stand-ins that were wrong
	}
	return nil
}

// mdxEntryRefs finds the session entries of resumed messages, for the transformers' messageId and
// timestamp: a message entry by the decoded message it holds, a custom message or summary (built
// afresh from its entry) by its type and time. The session is read once for all the lists.
func (m *model) mdxEntryRefs(lists ...[]*chatItem) {
	store := m.sess.Store()
	if store == nil {
		return
	}
	var byMsg map[provider.Message]*session.Entry
	var byTime map[string]*session.Entry
	for _, items := range lists {
		for _, it := range items {
			if !it.restored || it.msg == nil || it.entryID != "" {
				continue
			}
			if byMsg == nil {
				byMsg, byTime = mdxEntries(store.Path(""))
			}
			e := byMsg[it.msg]
			switch msg := it.msg.(type) {
			case *provider.CustomMessage:
				e = byTime[session.TypeCustomMessage+" "+strconv.FormatInt(msg.Timestamp, 10)]
			case *provider.BranchSummaryMessage:
				e = byTime[session.TypeBranchSummary+" "+strconv.FormatInt(msg.Timestamp, 10)]
			case *provider.CompactionSummaryMessage:
				e = byTime[session.TypeCompaction+" "+strconv.FormatInt(msg.Timestamp, 10)]
			}
			if e != nil {
				it.entryID, it.entryTime = e.ID, e.Timestamp
			}
		}
	}
}

// mdxEntries indexes a session path's entries for mdxEntryRefs.
func mdxEntries(path []*session.Entry) (byMsg map[provider.Message]*session.Entry, byTime map[string]*session.Entry) {
	byMsg, byTime = map[provider.Message]*session.Entry{}, map[string]*session.Entry{}
	for _, e := range path {
		switch e.Type {
		case session.TypeMessage:
			if msg, err := e.Message(); err == nil {
				byMsg[msg] = e
			}
		case session.TypeCustomMessage, session.TypeBranchSummary, session.TypeCompaction:
			byTime[e.Type+" "+strconv.FormatInt(e.Time(), 10)] = e
		}
	}
	return byMsg, byTime
}
