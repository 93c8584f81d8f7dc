package tui

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/picker"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/screen"
	"github.com/pi-go/pi-go/internal/tui/termimage"
)

// frameInterval is the shortest time between two frames: a burst of events is drawn at most this
// often, however many arrive.
const frameInterval = 16 * time.Millisecond

// model is the Bubble Tea model. Everything in it belongs to the UI goroutine (Update); commands
// only return messages.
type model struct {
	ctx    context.Context
	cancel context.CancelFunc
	sess   *harness.Session
	opts   Options
	r      *render.Renderer
	in     *inbox
	scr    *screen.Writer
	term   *screen.Terminal
	ops    opGroup
	unsub  func()

	width, height int

	// chat holds the blocks not yet printed into the scrollback, oldest first; done the blocks
	// printed (the transcript), drawn again when the width or a toggle changes.
	chat []*chatItem
	done []*chatItem
	// layoutGen counts the changes of Ctrl+O and Ctrl+T: a block's cached lines are for one.
	layoutGen int
	// mdx answers for extensions' markdown transformers (mdx.go; nil: none registered). mdxStale:
	// the scrollback was printed with stand-ins; mdxChanged: an answer since changed a text.
	mdx                  *mdxCache
	mdxStale, mdxChanged bool
	// relayoutSeq counts width changes; relayoutTimed is the last one waited for (relayout.go),
	// relayoutDone the last one laid out.
	relayoutSeq, relayoutTimed, relayoutDone int
	// relayoutOnResume: a relayout came while another program had the terminal.
	relayoutOnResume bool
	// fullscreen: the alternate screen with the transcript in a viewport (tuiMode "fullscreen"),
	// scrolled to vp.
	fullscreen bool
	vp         viewport
	tools      map[string]*chatItem // tool blocks by call id, until their result arrives

	ed   *editor.Editor
	comp *completion
	sel  picker.Picker // the picker shown instead of the editor, or nil
	// settingsUI is the open /settings (settingsmenu.go), or nil.
	settingsUI *settingsMenu
	// pastedImages are the files of images pasted with Ctrl+V, attached when their path is sent.
	pastedImages []string
	// imageProtocol is how the terminal draws images (images.go).
	imageProtocol termimage.Protocol

	run runState
	// pendingBash are `!` commands started while the agent works: shown under the chat and moved
	// into it when the run ends (the session records them then).
	pendingBash []*chatItem
	bashSeq     int
	bashRunning *chatItem
	// queued are the display queues (queue_update).
	steering, followUp []string

	// nav is a tree navigation writing a branch summary (Escape cancels it), or nil.
	nav *navigation
	// mcpSignIn cancels the /mcp login waiting for its callback (Escape), or is nil.
	mcpSignIn context.CancelFunc
	// login cancels the /login in progress (Escape), or is nil.
	login context.CancelFunc
	// compacted is set by compaction_end, so that /compact reports only errors no event showed.
	compacted bool
	// compactionQueue holds messages typed while a compaction runs.
	compactionQueue []queuedText

	expandTools  bool
	hideThinking bool

	footer      []string
	borderLevel string // the editor border's thinking level, refreshed with the footer
	footerWidth int
	footerDirty bool
	gitBranch   string

	frameScheduled bool
	// resourcesRequested: the templates and skills are being read (after the first frame).
	resourcesRequested bool
	lastFrame          time.Time
	// spin is the working indicator (a bubbles spinner); ticking: its tick is running, which it does
	// only while something animates (animate).
	spin    spinner.Model
	ticking bool

	lastCtrlC, lastEsc time.Time
	// ctrlCHint numbers the Ctrl+C press whose "again to exit" hint is shown (0: none).
	ctrlCHint     int
	initial       []string // initial messages not sent yet
	initialImages bool     // the first initial message still carries the images

	quitting          bool
	shutdownAsked     bool // an extension's ctx.shutdown(): quit once idle (extshutdown.go)
	noSessionSelected bool

	themes themeState
	keys   *keymap.Keymap
	ext    extView // what extensions show besides dialogs (extview.go)
	// extDialogs are extensions' dialogs: the open one and those waiting for it (extui.go).
	extDialogs extDialogQueue
}

// runState is what the status line shows about the agent.
type runState struct {
	active  bool // agent_start .. agent_end
	started time.Time
	turns   int // turn_start events of the run so far
	// turnPending is the label of a turn's rule not drawn yet: nothing of the turn is shown so far.
	turnPending string
	thinking    bool
	// retry countdown (auto_retry_start .. the next agent_start or auto_retry_end); attempt and
	// retryReason (the failed attempt's error) last until auto_retry_end
	retrying    bool
	retryUntil  time.Time
	attempt     int
	maxAttempts int
	retryReason string
	// compaction in progress and its reason
	compacting       bool
	compactionReason string
	compactStarted   time.Time
	// prompting: a Prompt call is in flight (Enter when idle) before agent_start arrives
	prompting bool
}

func newModel(ctx context.Context, sess *harness.Session, opts Options, width, height int, term *screen.Terminal) *model {
	ctx, cancel := context.WithCancel(ctx)
	settings := config.Settings{}
	if opts.Settings != nil {
		settings = opts.Settings.Settings()
	}
	home, _ := os.UserHomeDir()
	m := &model{
		spin:         spinner.New(spinner.WithSpinner(render.PiSpinner)),
		ctx:          ctx,
		cancel:       cancel,
		sess:         sess,
		opts:         opts,
		in:           newInbox(),
		scr:          screen.New(opts.Out, width, height, screen.TerminalReflows()),
		term:         term,
		width:        width,
		height:       height,
		tools:        map[string]*chatItem{},
		ed:           editor.New(),
		hideThinking: settings.HideThinkingBlock,
		footerDirty:  true,
		initial:      append([]string(nil), opts.InitialMessages...),
	}
	m.detectImages()
	keyNotices := m.loadKeys()
	th, themeWarnings := m.pickTheme()
	m.r = render.New(render.Options{Theme: th, Keys: m.renderKeys(), Home: home})
	m.opts.Warnings = append(append(keyNotices, themeWarnings...), m.opts.Warnings...)
	m.initialImages = len(opts.InitialImages) > 0
	m.fullscreen = resolveTUIMode(opts.TUIMode, settings.TUIMode) == TUIModeFullscreen
	m.vp.follow = true
	if m.fullscreen {
		m.scr.SetAlternate(true)
		term.SetAlternate(true)
	}
	m.comp = newCompletion(sess.Cwd())
	m.unsub = sess.Subscribe(m.in.pushEvent)
	opts.WarningSink.attach(func(w string) { m.in.pushMsg(warningMsg(w)) })
	opts.ExtensionUI.attach(m.in.pushMsg)
	m.gitBranch = gitBranch(sess.Cwd())
	return m
}

func (m *model) unsubscribe() {
	if m.unsub != nil {
		m.unsub()
		m.unsub = nil
	}
}

func (m *model) cancelAll() { m.cancel() }

// Init prints the header and the resumed conversation, then starts listening to the session and
// sends the initial messages.
func (m *model) Init() tea.Cmd {
	m.printHeader()
	cmds := []tea.Cmd{m.in.wait(m.ctx), m.setTitle(), m.watchTheme()}
	if m.opts.ResumePicker {
		cmds = append(cmds, m.openSessionPicker(true))
	} else {
		cmds = append(cmds, m.printHistory(), m.sendNextInitial())
	}
	return tea.Batch(append(cmds, m.requestFrame())...)
}

// View is empty: the screen is drawn by the model itself (view.go, through the screen package) when a
// frame is due.
func (m *model) View() string { return "" }

// opGroup counts the session calls running in commands, so shutdown can wait for them.
type opGroup struct {
	mu   sync.Mutex
	n    int
	zero *sync.Cond
}

func (g *opGroup) start() {
	g.mu.Lock()
	g.n++
	g.mu.Unlock()
}

func (g *opGroup) done() {
	g.mu.Lock()
	g.n--
	if g.n == 0 && g.zero != nil {
		g.zero.Broadcast()
	}
	g.mu.Unlock()
}

// Wait returns when no operation runs.
func (g *opGroup) Wait() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.zero == nil {
		g.zero = sync.NewCond(&g.mu)
	}
	for g.n > 0 {
		g.zero.Wait()
	}
}

// op runs fn off the UI goroutine as a command; it does nothing once the UI is shutting down. Its
// result goes through the inbox, behind every session event emitted before fn returned, so Update
// sees a run's last events before the message saying the call returned.
func (m *model) op(fn func() tea.Msg) tea.Cmd {
	return func() tea.Msg {
		m.ops.start()
		defer m.ops.done()
		if m.ctx.Err() != nil {
			return nil
		}
		if msg := fn(); msg != nil {
			m.in.pushMsg(msg)
		}
		return nil
	}
}
