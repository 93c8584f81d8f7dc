package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// Options wire a Session. Store, Stream and Settings are required.
type Options struct {
	// Cwd is the project directory: tools and `!` commands run there.
	Cwd      string
	AgentDir string
	Settings *config.SettingsManager
	// Store is the session file (or an in-memory session).
	Store *session.Manager
	// Stream sends a request to the provider of req.Model.
	Stream loop.StreamFunc
	// Models lists the models the user may switch to (nil: switching finds nothing).
	Models *provider.Registry
	// HasAuth reports whether a provider has credentials (or needs none).
	HasAuth func(provider string) bool
	// RequestAuth resolves the key and extra headers of one request, once per request (the loop calls
	// it just before each request, compaction once for its summaries); nil sends none.
	RequestAuth func(ctx context.Context, m *provider.Model) (key string, headers map[string]string, err error)
	// Model and ThinkingLevel are the initial choice (already resolved by the caller). A resumed session
	// switches to the model it names unless KeepModel is set (the model was chosen on the command line),
	// and to its thinking level unless KeepThinking is set (the level was). As pi 0.73.1 builds every
	// session it replaces this one with (new, switch, fork, clone) from the command line again, a kept
	// model and level also win over the model and level of those sessions.
	Model         *provider.Model
	ThinkingLevel provider.ThinkingLevel
	KeepModel     bool
	KeepThinking  bool
	// ScopedModels are --models / enabledModels for cycling.
	ScopedModels []provider.ScopedModel
	// UnknownContextWindow reports models whose context window is a guess (a --base-url server): threshold
	// compaction is skipped for them; an overflow error still compacts, since the server said it is full.
	UnknownContextWindow func(*provider.Model) bool
	// Tools are the active tools, in the order the system prompt lists them.
	Tools []loop.Tool
	// Loadout, when set, lets a session take the tools its transcript declared (pi 1.6); nil keeps
	// Tools whatever the session declared.
	Loadout *ToolLoadout
	// Prompt is how the system prompt is built (Cwd and Tools are filled in by the session, Skills
	// from LoadResources). The sections reach the transcript as system messages: the first prompt of
	// a session declares them all, a later one what changed.
	Prompt SystemPromptOptions
	// LoadResources finds the templates and skills; it is called on first need and by Reload (nil:
	// none). ReloadPrompt re-reads Prompt's files for Reload (nil: Prompt stays).
	LoadResources func() *resources.Set
	ReloadPrompt  func() (SystemPromptOptions, error)
	// Sections add system prompt sections on every prompt (nil: none); see SectionSource.
	Sections SectionSource
	// Extensions are the extension host's commands and input handlers (nil: none).
	Extensions Extensions
	// Hooks are the extension events that act on a run (nil: none).
	Hooks ExtensionHooks
	// BashShellPath, BashCommandPrefix and BashBinDir (~/.pi/agent/bin, put on PATH) configure the
	// user's `!` commands.
	BashShellPath     string
	BashCommandPrefix string
	BashBinDir        string
	// BashOutputDir receives the full output of long `!` commands (nil: the system temp directory).
	BashOutputDir *shell.OutputDir
	// OnWarning receives problems that do not stop the session (a failed session write, say).
	OnWarning func(error)
	// Sleep waits for a retry delay; nil uses a timer. Tests inject it so no test sleeps.
	Sleep func(ctx context.Context, d time.Duration) error
	// OpenCheckpoints opens the project's checkpoint store on first need (nil: no checkpoints; the
	// checkpoints setting can turn them off too). See checkpoints.go.
	OpenCheckpoints func() (*checkpoint.Store, error)
}

// StreamingBehavior says what Prompt does with a message while a run is active.
type StreamingBehavior string

const (
	// BehaviorNone rejects a prompt while a run is active.
	BehaviorNone     StreamingBehavior = ""
	BehaviorSteer    StreamingBehavior = "steer"
	BehaviorFollowUp StreamingBehavior = "followUp"
)

// ErrBusy is returned by Prompt while a run is active and no streaming behaviour was given.
var ErrBusy = errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")

// Session is pi's AgentSession: the agent, its session file, and everything a coding agent adds.
// All methods are safe for concurrent use. Listeners receive events one at a time, in order.
type Session struct {
	opts  Options
	agent *loop.Agent

	mu             sync.Mutex
	store          *session.Manager
	steeringTexts  []string
	followUpTexts  []string
	queueSnapshots uint64             // queue_update snapshots taken; see emitQueueUpdate
	busy           bool               // a prompt, its retries and compactions are in progress
	opCancel       context.CancelFunc // cancels the whole operation (run, retry wait, compaction)
	opDone         chan struct{}      // closed when the operation has ended
	retryAttempt   int
	retryCancel    context.CancelFunc
	lastAssistant  *provider.AssistantMessage // the last assistant message_end of the current run
	overflowTried  bool
	compacting     bool
	compactCancel  context.CancelFunc
	pendingBash    []*provider.BashExecutionMessage
	bashCancel     context.CancelFunc
	scoped         []provider.ScopedModel
	autoCompaction bool
	autoRetry      bool
	reported       reportedWindow // a smaller window the model's server named in an overflow error
	// runSystemPrompt replaces the system prompt for the current operation (before_agent_start).
	runSystemPrompt string
	// runPrompt are the prompt options before_agent_start edited for the current operation (nil none).
	runPrompt   *SystemPromptOptions
	overhead    overheadCache
	sections    sectionsCache
	res         resourceState
	checkpoints checkpointState
	ext         extState   // what extensions queued (extsession.go)
	extTools    extToolSet // the tools extensions registered (exttools.go)

	emitMu sync.Mutex
	// queueDelivered is the sequence number of the last queue_update delivered (under emitMu);
	// queueSnapshots counts the snapshots taken (under mu).
	queueDelivered uint64
	listeners      []*listener
	nextID         int
}

type listener struct {
	id int
	fn func(Event)
}

// New builds a session around opts.Store: a new session gets its model_change and
// thinking_level_change entries; a resumed one has its transcript restored.
func New(opts Options) (*Session, error) {
	if opts.Store == nil || opts.Stream == nil || opts.Settings == nil {
		return nil, errors.New("harness: Store, Stream and Settings are required")
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.HasAuth == nil {
		opts.HasAuth = func(string) bool { return true }
	}
	settings := opts.Settings.Settings()
	s := &Session{
		opts:           opts,
		store:          opts.Store,
		scoped:         opts.ScopedModels,
		autoCompaction: settings.CompactionEnabled(),
		autoRetry:      settings.RetryEnabled(),
	}
	level := opts.ThinkingLevel
	if level == "" {
		level = provider.ThinkingOff
	}
	if opts.Model != nil {
		level = provider.ClampThinkingLevel(opts.Model, level)
	} else {
		level = provider.ThinkingOff
	}
	steering, _ := loop.ParseQueueMode(settings.SteeringMode())
	followUp, _ := loop.ParseQueueMode(settings.FollowUpMode())
	cfg := loop.Config{
		Stream:          s.agentRequest,
		ConvertToLLM:    new(llmConverter).convert,
		RequestAuth:     opts.RequestAuth,
		PrepareNextTurn: s.prepareNextTurn,
		SteeringMode:    steering,
		FollowUpMode:    followUp,
	}
	s.installHooks(&cfg)
	s.agent = loop.NewAgent(cfg, loop.State{
		Model:         opts.Model,
		ThinkingLevel: level,
	})
	// Set apart from the initial state, which would declare the tools in an unsaved system message:
	// the first prompt declares them in the session.
	s.agent.SetTools(opts.Tools)
	s.agent.SetSessionID(s.store.SessionID())
	s.agent.Subscribe(s.onAgentEvent)
	if err := s.restoreOrStart(level); err != nil {
		return nil, err
	}
	return s, nil
}

// restoreOrStart loads the transcript of a resumed session, or writes the opening entries of a new one.
func (s *Session) restoreOrStart(level provider.ThinkingLevel) error {
	if s.store.IsFresh() {
		s.reportStoreWarnings()
		if m := s.agent.Model(); m != nil {
			s.appendEntry(s.store.AppendModelChange(m.Provider, m.ID))
		}
		s.appendEntry(s.store.AppendThinkingLevelChange(level))
		return nil
	}
	return s.reloadFromStore(s.agent.ThinkingLevel())
}

// reportStoreWarnings passes on what the store met while loading (and rebuilding the context): lines
// skipped, files passed over or left alone, a torn line moved aside.
func (s *Session) reportStoreWarnings() {
	for _, w := range s.Store().Warnings() {
		s.warn(fmt.Errorf("session: %s", w.String()))
	}
}

// adoptStore sets the agent up for the store it has just been given (new_session, switch_session,
// fork, clone), as pi sets up the fresh session it builds for each: an empty session gets the model and
// level a new one starts with and records them; a session with entries has its transcript, model and
// level restored. The model of a new session is the one chosen at startup (the command line's, or
// the saved default then), or the saved default now: pi 1.6 resolves it again, and since switching
// models saves no default, the model switched to last does not carry over.
func (s *Session) adoptStore() error {
	if len(s.Store().Entries()) > 0 {
		return s.reloadFromStore(s.settingsThinkingLevel())
	}
	s.reportStoreWarnings()
	// An empty session has declared no prompt yet: its first prompt declares it in full, with the
	// startup tools.
	s.agent.ReplaceMessages(nil)
	if s.opts.Loadout != nil {
		s.agent.SetTools(s.opts.Tools)
	}
	m := s.opts.Model
	if d := s.settingsDefaultModel(); d != nil && !s.opts.KeepModel {
		m = d
	}
	if m == nil {
		m = s.agent.Model()
	}
	level := s.settingsThinkingLevel()
	if s.opts.KeepThinking {
		level = s.opts.ThinkingLevel
	}
	if m != nil {
		level = provider.ClampThinkingLevel(m, level)
		s.agent.SetModel(m)
		s.appendEntry(s.Store().AppendModelChange(m.Provider, m.ID))
	} else {
		level = provider.ThinkingOff
	}
	s.agent.SetThinkingLevel(level)
	s.appendEntry(s.Store().AppendThinkingLevelChange(level))
	return nil
}

// settingsThinkingLevel is the saved default thinking level, else pi's default (medium).
func (s *Session) settingsThinkingLevel() provider.ThinkingLevel {
	if saved := s.opts.Settings.Settings().DefaultThinkingLevel; provider.IsThinkingLevel(saved) {
		return provider.ThinkingLevel(saved)
	}
	return provider.DefaultThinkingLevel
}

// settingsDefaultModel is the saved default model when it exists and has credentials.
func (s *Session) settingsDefaultModel() *provider.Model {
	st := s.opts.Settings.Settings()
	if s.opts.Models == nil || st.DefaultProvider == "" || st.DefaultModel == "" {
		return nil
	}
	if m := s.opts.Models.Find(st.DefaultProvider, st.DefaultModel); m != nil && s.opts.HasAuth(m.Provider) {
		return m
	}
	return nil
}

// reloadFromStore replaces the agent's transcript with the store's context, and takes the session's
// model and thinking level unless the command line named them (KeepModel, KeepThinking). A session
// without a thinking level gets fallback, recorded.
func (s *Session) reloadFromStore(fallback provider.ThinkingLevel) error {
	ctx, err := s.store.BuildContext()
	if err != nil {
		return fmt.Errorf("load session: %w", err)
	}
	s.reportStoreWarnings()
	s.agent.ReplaceMessages(ctx.Messages)
	// Each opened session starts from the startup tools, then takes those its transcript declared.
	if l := s.opts.Loadout; l != nil {
		s.agent.SetTools(s.opts.Tools)
		if l.Restore {
			s.restoreTools(l.Modifiers)
		}
	}
	if s.opts.KeepModel && s.opts.Model != nil {
		s.agent.SetModel(s.opts.Model)
	} else if ctx.Model != nil && s.opts.Models != nil {
		if m := s.opts.Models.Find(ctx.Model.Provider, ctx.Model.ModelID); m != nil && s.opts.HasAuth(m.Provider) {
			s.agent.SetModel(m)
		} else if cur := s.agent.Model(); cur == nil || cur.Provider != ctx.Model.Provider || cur.ID != ctx.Model.ModelID {
			s.warn(fmt.Errorf("Could not restore model %s/%s", ctx.Model.Provider, ctx.Model.ModelID))
		}
	}
	hasLevel := false
	for _, e := range s.store.Path("") {
		if e.Type == session.TypeThinkingLevelChange {
			hasLevel = true
			break
		}
	}
	level := ctx.ThinkingLevel
	switch {
	case s.opts.KeepThinking:
		level = s.opts.ThinkingLevel
	case !hasLevel:
		level = fallback
	}
	if m := s.agent.Model(); m != nil {
		level = provider.ClampThinkingLevel(m, level)
	} else {
		level = provider.ThinkingOff
	}
	if !hasLevel {
		s.appendEntry(s.store.AppendThinkingLevelChange(level))
	}
	s.agent.SetThinkingLevel(level)
	return nil
}

// sectionsCache holds the prompt sections of one tool set (the footer asks for the context usage,
// which needs them, on every frame).
type sectionsCache struct {
	tools    []string
	prompts  map[string]ToolPrompt    // the PromptedTools' lines they were built with
	prompt   *SystemPromptOptions     // the Reload generation the sections were built from
	run      *SystemPromptOptions     // the run's edited options they were built from (nil none)
	res      *resources.Set           // the resources they were built with
	extra    []provider.PromptSection // the SectionSource's sections they were built with
	sections []provider.PromptSection
}

// activeToolPrompts are the active tools' names and the lines of those that bring their own.
func (s *Session) activeToolPrompts() ([]string, map[string]ToolPrompt) {
	var names []string
	var prompts map[string]ToolPrompt
	for _, t := range s.agent.Tools() {
		name := t.Definition().Name
		names = append(names, name)
		if pt, ok := t.(PromptedTool); ok {
			if prompts == nil {
				prompts = map[string]ToolPrompt{}
			}
			snippet, guidelines := pt.PromptLines()
			prompts[name] = normalizeToolPrompt(ToolPrompt{Snippet: snippet, Guidelines: guidelines})
		}
	}
	return names, prompts
}

// promptSections are the system prompt sections for the active tools and the prompt options (the
// run's, when before_agent_start edited them).
func (s *Session) promptSections() []provider.PromptSection {
	names, prompts := s.activeToolPrompts()
	s.mu.Lock()
	c := s.sections
	run := s.runPrompt
	s.mu.Unlock()
	gen := s.res.prompt.Load()
	o, set := s.promptOptions()
	extra := s.sourceSections()
	if c.sections != nil && slices.Equal(c.tools, names) && maps.EqualFunc(c.prompts, prompts, ToolPrompt.equal) &&
		c.prompt == gen && c.run == run && c.res == set && slices.Equal(c.extra, extra) {
		return c.sections
	}
	if run != nil {
		o = *run
	}
	o = assemblePromptOptions(o, s.opts.Cwd, names, prompts, extra, run != nil)
	c = sectionsCache{tools: names, prompts: prompts, prompt: gen, run: run, res: set, extra: extra, sections: BuildSystemPromptSections(o)}
	s.mu.Lock()
	s.sections = c
	s.mu.Unlock()
	return c.sections
}

// currentPromptOptions are the options the next prompt's sections are built from, complete.
func (s *Session) currentPromptOptions() SystemPromptOptions {
	names, prompts := s.activeToolPrompts()
	o, _ := s.promptOptions()
	return assemblePromptOptions(o, s.opts.Cwd, names, prompts, s.sourceSections(), false)
}

// assemblePromptOptions completes o with the active tools and their own lines and the added
// sections. Options a handler edited (edited) already hold the tools' lines, the added sections
// and the cwd: only lines of tools they do not name are added.
func assemblePromptOptions(o SystemPromptOptions, cwd string, names []string, prompts map[string]ToolPrompt,
	extra []provider.PromptSection, edited bool) SystemPromptOptions {
	o.Tools = names
	if len(prompts) > 0 {
		merged := maps.Clone(o.ToolPrompts)
		if merged == nil {
			merged = map[string]ToolPrompt{}
		}
		for name, p := range prompts {
			if _, named := merged[name]; !edited || !named {
				merged[name] = p
			}
		}
		o.ToolPrompts = merged
	}
	if edited {
		return o
	}
	o.Cwd = cwd
	o.Sections = append(slices.Clip(o.Sections), extra...)
	return o
}

// promptPatch is the system message that brings the prompt the transcript declares up to date (all
// sections for a session that declared none yet), or nil when it is. The tool declarations are the
// loop's to add.
func (s *Session) promptPatch() *provider.SystemMessage {
	return s.promptPatchOf(s.agent.SystemMessage())
}

// promptPatchOf is promptPatch for the replayed system message cur (nil: none).
func (s *Session) promptPatchOf(cur *provider.SystemMessage) *provider.SystemMessage {
	var declared []provider.PromptSection
	if cur != nil {
		declared = cur.Sections
	}
	patch := provider.DiffSections(declared, s.promptSections())
	if patch == nil {
		return nil
	}
	m := provider.NewSystemMessage(provider.Now())
	m.Sections = patch
	return m
}

// Subscribe registers fn for every event; the returned function unregisters it. fn runs on the
// goroutine that produced the event and must return quickly (buffer as the TUI's inbox does).
func (s *Session) Subscribe(fn func(Event)) (unsubscribe func()) {
	s.emitMu.Lock()
	s.nextID++
	id := s.nextID
	s.listeners = append(s.listeners, &listener{id: id, fn: fn})
	s.emitMu.Unlock()
	return func() {
		s.emitMu.Lock()
		defer s.emitMu.Unlock()
		for i, l := range s.listeners {
			if l.id == id {
				s.listeners = append(s.listeners[:i:i], s.listeners[i+1:]...)
				return
			}
		}
	}
}

// emit delivers one event to every listener, one event at a time.
func (s *Session) emit(e Event) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.emitLocked(e)
}

func (s *Session) emitLocked(e Event) {
	for _, l := range s.listeners {
		l.fn(e)
	}
}

func (s *Session) warn(err error) {
	if err != nil && s.opts.OnWarning != nil {
		s.opts.OnWarning(err)
	}
}

// appendEntry reports a failed session write; the entry stays pending in the store and is retried on
// the next Sync, so nothing is lost while the process lives.
func (s *Session) appendEntry(_ string, err error) {
	if err != nil {
		s.warn(fmt.Errorf("could not save the session: %w", err))
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Agent exposes the underlying agent (state queries, tests).
func (s *Session) Agent() *loop.Agent { return s.agent }

// Store is the current session file.
func (s *Session) Store() *session.Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store
}

// Cwd is the project directory.
func (s *Session) Cwd() string { return s.opts.Cwd }

// Model is the current model (nil when none is selected).
func (s *Session) Model() *provider.Model { return s.agent.Model() }

// ThinkingLevel is the current thinking level.
func (s *Session) ThinkingLevel() provider.ThinkingLevel { return s.agent.ThinkingLevel() }

// Messages is a copy of the transcript.
func (s *Session) Messages() []provider.Message { return s.agent.Messages() }

// SystemPrompt is the system prompt the next prompt sends: the transcript's, brought up to date.
func (s *Session) SystemPrompt() string {
	var msgs []provider.Message
	cur := s.agent.SystemMessage()
	if cur != nil {
		msgs = append(msgs, cur)
	}
	if patch := s.promptPatchOf(cur); patch != nil {
		msgs = append(msgs, patch)
	}
	return provider.CurrentSystemPrompt(msgs)
}

// IsStreaming reports whether a run (or its retries and compactions) is in progress.
func (s *Session) IsStreaming() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy || s.agent.IsRunning()
}

// IsCompacting reports whether a compaction is running.
func (s *Session) IsCompacting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compacting
}

// IsRetrying reports whether a retry is pending or running.
func (s *Session) IsRetrying() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retryAttempt > 0
}

// PendingMessageCount is the number of queued steering and follow-up messages shown to the user.
func (s *Session) PendingMessageCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steeringTexts) + len(s.followUpTexts)
}

// QueuedTexts returns the display queues.
func (s *Session) QueuedTexts() (steering, followUp []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.steeringTexts...), append([]string(nil), s.followUpTexts...)
}

// ScopedModels are the models of --models / enabledModels.
func (s *Session) ScopedModels() []provider.ScopedModel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]provider.ScopedModel(nil), s.scoped...)
}

// SetScopedModels replaces the models Ctrl+P cycles through for this session (nil: all available
// models), as pi's /scoped-models does before anything is saved.
func (s *Session) SetScopedModels(scoped []provider.ScopedModel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scoped = append([]provider.ScopedModel(nil), scoped...)
}

// AutoCompactionEnabled reports whether threshold and overflow compaction run by themselves.
func (s *Session) AutoCompactionEnabled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.autoCompaction
}

// AutoRetryEnabled reports whether transient errors are retried by themselves.
func (s *Session) AutoRetryEnabled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.autoRetry
}

// SetAutoCompaction turns automatic compaction on or off and saves the choice in settings.json.
func (s *Session) SetAutoCompaction(enabled bool) {
	s.mu.Lock()
	s.autoCompaction = enabled
	s.mu.Unlock()
	s.warn(s.opts.Settings.Set("compaction.enabled", enabled))
}

// SetAutoRetry turns automatic retry on or off and saves the choice in settings.json.
func (s *Session) SetAutoRetry(enabled bool) {
	s.mu.Lock()
	s.autoRetry = enabled
	s.mu.Unlock()
	s.warn(s.opts.Settings.Set("retry.enabled", enabled))
}

// Close flushes and releases the session file.
func (s *Session) Close() error {
	s.Abort()
	s.waitCheckpoints()
	s.stopCheckpointPrune()
	return s.Store().Close()
}
