package render

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Keys are the key names shown in hints ("ctrl+o to expand"). The TUI passes the keys it actually
// binds; DefaultKeys are pi's defaults.
type Keys struct {
	Expand         string // expand/collapse tool output and summaries
	ToggleThinking string // show/hide thinking blocks
	Interrupt      string // abort a run, cancel retry/compaction
	Dequeue        string // pull queued messages back into the editor
	Clear          string // clear the editor (twice: quit)
	Exit           string // quit on an empty editor
	FollowUp       string // queue a follow-up
	CycleThinking  string // cycle the thinking level
	SelectModel    string // open the model selector
	ExternalEditor string // edit the prompt in $EDITOR
}

// DefaultKeys are pi's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Expand:         "ctrl+o",
		ToggleThinking: "ctrl+t",
		Interrupt:      "esc",
		Dequeue:        "alt+up",
		Clear:          "ctrl+c",
		Exit:           "ctrl+d",
		FollowUp:       "alt+enter",
		CycleThinking:  "shift+tab",
		SelectModel:    "ctrl+l",
		ExternalEditor: "ctrl+g",
	}
}

// Options configure a Renderer.
type Options struct {
	// Theme: theme.Dark(profile) or theme.Light(profile); nil means the dark theme without colours.
	Theme *theme.Theme
	// Keys shown in hints; empty fields take pi's defaults.
	Keys Keys
	// Home is the user's home directory; paths under it are shown with "~".
	Home string
	// Transformer rewrites markdown before it is rendered (nil: none); see SetMarkdownTransformer.
	Transformer MarkdownTransformer
}

// Renderer turns TUI state into lines. It holds the theme, the key names and the caches (markdown
// blocks, highlighted code); its methods are otherwise pure functions of their arguments. It is safe
// for concurrent use.
type Renderer struct {
	mu           sync.Mutex
	detailsCache *lru[*loop.ToolResult, toolDetails]

	th   *theme.Theme
	keys Keys
	home string
	// The markdown renderers and the highlighter are built on first use: a frame without markdown
	// or code (the first one, a transcript of tool calls) never needs their parser and caches.
	text     func() *Markdown
	thinking func() *Markdown
	code     func() *highlighter
	// mdx is the markdown transformer (mdtransform.go); nil costs nothing.
	mdx atomic.Pointer[transformerBox]
}

// New builds a Renderer. It is cheap: the markdown renderers and the highlighter are built on first
// use.
func New(o Options) *Renderer {
	if o.Theme == nil {
		o.Theme = theme.Dark(termenv.Ascii)
	}
	th := o.Theme
	r := &Renderer{
		detailsCache: newLRU[*loop.ToolResult, toolDetails](16), // the running tools' latest results
		th:           th,
		keys:         withDefaultKeys(o.Keys),
		home:         strings.TrimRight(o.Home, "/"),
		text:         sync.OnceValue(func() *Markdown { return NewMarkdown(th, theme.MarkdownText) }),
		thinking:     sync.OnceValue(func() *Markdown { return NewMarkdown(th, theme.MarkdownThinking) }),
		code:         sync.OnceValue(func() *highlighter { return newHighlighter(th) }),
	}
	r.SetMarkdownTransformer(o.Transformer)
	return r
}

func withDefaultKeys(k Keys) Keys {
	d := DefaultKeys()
	set := func(dst *string, def string) {
		if *dst == "" {
			*dst = def
		}
	}
	set(&k.Expand, d.Expand)
	set(&k.ToggleThinking, d.ToggleThinking)
	set(&k.Interrupt, d.Interrupt)
	set(&k.Dequeue, d.Dequeue)
	set(&k.Clear, d.Clear)
	set(&k.Exit, d.Exit)
	set(&k.FollowUp, d.FollowUp)
	set(&k.CycleThinking, d.CycleThinking)
	set(&k.SelectModel, d.SelectModel)
	set(&k.ExternalEditor, d.ExternalEditor)
	return k
}

// Theme is the renderer's theme.
func (r *Renderer) Theme() *theme.Theme { return r.th }

// Keys are the key names the renderer shows.
func (r *Renderer) Keys() Keys { return r.keys }

// Markdown is the renderer for ordinary markdown text (for callers that render other text, e.g. a
// /session report).
func (r *Renderer) Markdown() *Markdown { return r.text() }

// shortenPath replaces the home directory prefix with "~".
func (r *Renderer) shortenPath(p string) string {
	if r.home != "" && (p == r.home || strings.HasPrefix(p, r.home+"/")) {
		return "~" + p[len(r.home):]
	}
	return p
}

// KeyHint is pi's "<key> <description>" hint: the key dim, the description muted.
func (r *Renderer) KeyHint(key, desc string) string { return r.keyHint(key, desc) }

func (r *Renderer) keyHint(key, desc string) string {
	return r.th.Fg(theme.Dim, key) + r.th.Fg(theme.Muted, " "+desc)
}

// moreLines is pi's collapsed-output hint: "... (N more lines, ctrl+o to expand)".
func (r *Renderer) moreLines(n int, what string) string {
	return r.th.Fg(theme.Muted, "... ("+itoa(n)+" "+what+",") + " " + r.keyHint(r.keys.Expand, "to expand") +
		r.th.Fg(theme.Muted, ")")
}

func itoa(n int) string { return strconv.Itoa(n) }
