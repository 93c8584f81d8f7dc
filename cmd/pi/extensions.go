package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui"
)

// extensionHost connects the extension host to the session: it is the session's Extensions (commands,
// input) and Hooks (tool_call, tool_result, context, before_agent_start), answers what extensions ask
// (dialogs, sendUserMessage, …), forwards the session's events and keeps the state mirror current.
type extensionHost struct {
	a    *app
	host *extensions.Host
	mode string
	ui   extensionUI

	sess *harness.Session
	// bound is sess for the host's own goroutines (later registrations, the providers and virtual
	// models, the session mirror): nil until start binds it.
	bound     atomic.Pointer[harness.Session]
	mirror    sessionMirror
	readyOnce sync.Once
	toolsMu   sync.Mutex    // serialises syncTools
	shutdown  chan struct{} // RPC mode: an extension's ctx.shutdown() (extensions_shutdown.go)
	providers *extensionProviders

	levelMu   sync.Mutex
	lastLevel provider.ThinkingLevel // for thinking_level_select's previousLevel

	resources extensionResources // resources_discover's paths (extensions_provider.go)
}

// extensionUI shows what extensions ask of the user in one mode.
type extensionUI interface {
	// request shows one extension_ui_request body (its method, title, …); for a dialog it returns the
	// answer as an extension_ui_response object, nil when there is none (cancelled, timed out).
	request(ctx context.Context, params json.RawMessage, dialog bool) (json.RawMessage, error)
	// reportError shows an extension's failure.
	reportError(e extensions.ExtensionError)
}

// newExtensionHost finds the extensions and prepares their host (started in the background by
// start); nil when there are none, so a run without extensions starts nothing. Without Node or pi's
// package, the TypeScript extensions are left out with one line saying what to install. A host
// preloaded to decide project trust (trust_ext.go) is completed instead of made again.
func (a *app) newExtensionHost(store *session.Manager) *extensionHost {
	found, sc := a.findExtensions(store.Cwd(), true)
	if a.ext != nil {
		a.ext.host.SetExtensions(sc, found.Executables)
		return a.ext
	}
	return a.buildExtensionHost(store, found, sc)
}

// buildExtensionHost prepares the host of found (nil when nothing can run).
func (a *app) buildExtensionHost(store *session.Manager, found extensions.Found, sc *extensions.Sidecar) *extensionHost {
	if found.Empty() {
		return nil
	}
	mode := a.extensionMode()
	cfg := extensions.Config{
		Cwd: store.Cwd(), AgentDir: a.paths.Dir, Mode: mode, HasUI: mode == "rpc" || mode == "tui",
		SessionFile: store.SessionFile(), Executables: found.Executables, Flags: a.opts.ExtensionFlags,
		CallTimeout: extensionCallTimeout(), Sidecar: sc,
	}
	e := &extensionHost{a: a, mode: mode, shutdown: make(chan struct{}, 1)}
	e.providers = a.newExtensionProviders(&e.bound)
	cfg.SessionEntries = func() *extensions.SessionEntries { return e.mirror.delta(e.bound.Load()) }
	switch mode {
	case "rpc":
		e.ui = newRPCExtensionUI()
	case "tui":
		e.ui = &tuiExtensionUI{a: a, ui: tui.NewExtensionUI()}
	default:
		e.ui = &warningExtensionUI{a: a}
	}
	cfg.OnError = e.ui.reportError
	cfg.OnMCPServers = a.setRegisteredMCP
	cfg.OnProvider = e.providers.apply
	cfg.OnVirtualModel = a.newExtensionVirtualModels(&e.bound).apply
	if u, ok := e.ui.(*tuiExtensionUI); ok {
		cfg.OnMarkdownTransformers = u.ui.SetMarkdownTransformers
	}
	cfg.OnRegister = e.registeredAgain
	e.host = extensions.New(cfg)
	if e.host.Empty() {
		return nil
	}
	e.bindTUI()
	return e
}

// findExtensions discovers the extensions as the project's trust now allows, and the sidecar for
// the scripts among them (nil: none, or it cannot run). Only the final pass (final) warns about
// what is missing, so a pass before the trust decision does not say it twice.
func (a *app) findExtensions(cwd string, final bool) (extensions.Found, *extensions.Sidecar) {
	home, _ := os.UserHomeDir()
	if h := os.Getenv("HOME"); h != "" {
		home = h
	}
	global, project := a.settings.ResourceLists()
	var configured []string
	for _, p := range project.Extensions {
		configured = append(configured, resolveFrom(filepath.Join(cwd, ".pi"), p))
	}
	for _, p := range global.Extensions {
		configured = append(configured, resolveFrom(a.paths.Dir, p))
	}
	pkgs := a.installedPackages(cwd, home)
	if final {
		a.warnMissingPackages(pkgs)
	}
	packages := packageFiles(pkgs, pkgKindExtensions, home)
	found := extensions.Discover(extensions.Sources{
		AgentDir: a.paths.Dir, Cwd: cwd, Home: home, ProjectTrusted: a.projectTrusted,
		Settings: configured, Packages: packages, CLI: a.cliExtensions(cwd, home), NoDiscovery: a.opts.NoExtensions,
	})
	if len(found.Scripts) == 0 {
		return found, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sc, err := extensions.NewSidecar(extensions.Locate{AgentDir: a.paths.Dir, Home: home,
		CacheDir: filepath.Join(cache, "pi-go")}, found.Scripts)
	if err != nil {
		if final {
			a.warn("%d extension(s) not loaded: %v", len(found.Scripts), err)
		}
		found.Scripts = nil
		return found, nil
	}
	return found, sc
}

// extensionMode is ctx.mode as pi names it.
func (a *app) extensionMode() string {
	switch {
	case a.opts.Mode == "rpc":
		return "rpc"
	case a.opts.Mode == "json":
		return "json"
	case a.sink != nil:
		return "tui"
	}
	return "print"
}

// extensionCallTimeout is PI_GO_EXTENSION_TIMEOUT (a Go duration) or the host's default.
func extensionCallTimeout() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("PI_GO_EXTENSION_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return 0
}

func resolveFrom(dir, p string) string {
	if filepath.IsAbs(p) || p == "~" || len(p) > 1 && p[:2] == "~/" {
		return p
	}
	return filepath.Join(dir, p)
}

// sessionOptions are the harness options of a session with extensions (none when e is nil: the
// interfaces must stay nil, not typed nils).
func (e *extensionHost) sessionOptions(o *harness.Options) {
	if e == nil {
		return
	}
	o.Extensions = e
	o.Hooks = e
}

// start binds the session and starts the processes in the background.
func (e *extensionHost) start(sess *harness.Session) {
	if e == nil {
		return
	}
	e.sess = sess
	e.bound.Store(sess)
	// Set with the session: a host started early for the model selection answers "still starting" before.
	e.host.SetHandler(e.handle)
	e.lastLevel = sess.ThinkingLevel()
	e.pushState()
	sess.Subscribe(e.onEvent)
	e.host.Start()
	go func() {
		_ = e.host.Wait(context.Background())
		e.ready(context.Background())
	}()
}

// ready makes the registered tools active and tells the extensions the session started, once. Every
// path into the extensions waits for it, so the first prompt already has their tools.
func (e *extensionHost) ready(ctx context.Context) {
	e.readyOnce.Do(func() {
		e.syncTools()
		e.tuiShortcuts()
		e.pushState()
		// Awaited, as pi awaits it before serving: a handler that restores state (the active tools,
		// a mode) has done so before the first prompt.
		e.host.Emit(ctx, "session_start", map[string]any{"type": "session_start", "reason": "startup"})
		e.discoverAtStartup(ctx)
	})
}

// syncTools makes the extensions' registered tools the session's (at the start, and whenever a
// process registers again: pi's refreshTools after a registerTool), and tells the extensions the
// tools they now see.
func (e *extensionHost) syncTools() {
	e.toolsMu.Lock()
	defer e.toolsMu.Unlock()
	// Read under the lock: a sync with older registrations never lands after a newer one.
	var tools []loop.Tool
	for _, t := range e.host.Tools(context.Background()) {
		tools = append(tools, t)
	}
	e.sess.SyncExtensionTools(tools)
	e.pushState()
}

func (e *extensionHost) close() {
	if e == nil {
		return
	}
	e.host.Close()
}

// --- harness.Extensions ---

func (e *extensionHost) Commands() []harness.ExtensionCommand {
	if e.mode != "tui" {
		// RPC's get_commands and the print modes come after the start, as pi starts serving only
		// once its extensions are loaded; the TUI's completion shows what is there.
		e.ready(context.Background())
	}
	var out []harness.ExtensionCommand
	for _, c := range e.host.Commands() {
		ec := harness.ExtensionCommand{Name: c.Name, Description: c.Description,
			Source: resources.SourceInfo{Path: c.ExtensionPath}}
		if c.Completes {
			ec.Complete = e.completer(c.Name)
		}
		out = append(out, ec)
	}
	return out
}

func (e *extensionHost) RunCommand(ctx context.Context, name, args string) (bool, error) {
	e.ready(ctx)
	found, _ := e.host.RunCommand(ctx, name, args)
	// A failed command is reported once, by the host (pi's emitError: extension_error in RPC, a
	// warning line in the TUI); the session's own warning would say it a second time.
	return found, nil
}

func (e *extensionHost) Input(ctx context.Context, ev harness.InputEvent) (harness.InputResult, error) {
	e.ready(ctx)
	out := e.host.Input(ctx, ev.Text, ev.Images, string(ev.Source), string(ev.StreamingBehavior))
	return harness.InputResult{Action: harness.InputAction(out.Action), Text: out.Text, Images: out.Images}, nil
}

// --- harness.ExtensionHooks ---

func (e *extensionHost) ToolCall(ctx context.Context, toolName, toolCallID string, args json.RawMessage) harness.ToolCallVerdict {
	v := e.host.ToolCall(ctx, toolName, toolCallID, args)
	return harness.ToolCallVerdict{Block: v.Block, Reason: v.Reason, Terminate: v.Terminate, Args: v.Input}
}

func (e *extensionHost) ToolResult(ctx context.Context, r harness.ToolResultInfo) *harness.ToolResultChange {
	if !e.host.HasHandlers(ctx, "tool_result") {
		return nil
	}
	ch := e.host.ToolResult(ctx, extensions.ToolResultEvent{ToolName: r.ToolName, ToolCallID: r.ToolCallID, Input: r.Args,
		Content: r.Result.Content, Details: r.Result.Details, StructuredContent: r.Result.StructuredContent, IsError: r.IsError})
	if ch == nil {
		return nil
	}
	out := &harness.ToolResultChange{Content: ch.Content, IsError: ch.IsError}
	if ch.Details != nil {
		out.Details = ch.Details
	}
	return out
}

func (e *extensionHost) Context(ctx context.Context, msgs []provider.Message) []provider.Message {
	return e.rewriteMessages(ctx, "context", msgs, e.host.Context)
}

func (e *extensionHost) BeforeAgentStart(ctx context.Context, prompt string, images []provider.Content, systemPrompt string) ([]provider.Message, string) {
	if !e.host.HasHandlers(ctx, "before_agent_start") {
		return nil, ""
	}
	r := e.host.BeforeAgentStart(ctx, prompt, images, systemPrompt)
	var msgs []provider.Message
	for _, raw := range r.Messages {
		if m, err := customMessage(raw); err == nil {
			msgs = append(msgs, m)
		} else {
			e.ui.reportError(extensions.ExtensionError{Event: "before_agent_start", Error: err.Error()})
		}
	}
	return msgs, r.SystemPrompt
}

// BeforeSessionChange runs session_before_switch or session_before_fork; any handler may cancel.
func (e *extensionHost) BeforeSessionChange(ctx context.Context, event string, fields map[string]any) bool {
	e.ready(ctx)
	if !e.host.HasHandlers(ctx, event) {
		return false
	}
	fields["type"] = event
	for _, res := range e.host.Emit(ctx, event, fields) {
		var r struct {
			Cancel bool `json:"cancel"`
		}
		if json.Unmarshal(res, &r) == nil && r.Cancel {
			return true
		}
	}
	return false
}

// SessionChanged tells the extensions the session they see is another one now.
func (e *extensionHost) SessionChanged(reason, previousSessionFile string) {
	e.pushState()
	ev := map[string]any{"type": "session_start", "reason": reason}
	if previousSessionFile != "" {
		ev["previousSessionFile"] = previousSessionFile
	}
	e.host.Notify("session_start", ev)
}

// customMessage is an extension's message ({customType, content, display, details}) as the custom
// message pi appends.
func customMessage(raw json.RawMessage) (provider.Message, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	fields["role"] = json.RawMessage(`"custom"`)
	if _, ok := fields["display"]; !ok {
		fields["display"] = json.RawMessage(`true`)
	}
	fields["timestamp"] = json.RawMessage(fmt.Sprint(provider.Now()))
	data, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	return provider.UnmarshalMessage(data)
}

// --- events and state ---

// forwarded are the session events extensions may subscribe to (pi's names).
var forwarded = map[string]bool{
	"agent_start": true, "agent_end": true, "turn_start": true, // turn_end is a boundary (extensions_session.go)
	"message_start": true, "message_update": true, "message_end": true,
	"tool_execution_start": true, "tool_execution_update": true, "tool_execution_end": true,
	harness.EventAgentSettled: true,
}

func (e *extensionHost) onEvent(ev harness.Event) {
	switch ev.Type {
	case "agent_start", harness.EventAgentSettled, "agent_end", harness.EventThinkingLevelChanged:
		e.pushState()
	}
	if ev.Type == harness.EventThinkingLevelChanged && e.host.Started() {
		e.thinkingLevelSelected(ev.Level)
	}
	if forwarded[ev.Type] && e.host.Started() {
		e.host.Notify(ev.Type, ev)
	}
}

// pushState sends the state extensions read synchronously.
func (e *extensionHost) pushState() {
	s := e.sess
	if s == nil {
		return
	}
	st := extensions.State{
		ThinkingLevel:  string(s.ThinkingLevel()),
		Idle:           !s.IsStreaming(),
		SessionName:    s.Store().SessionName(),
		SystemPrompt:   s.SystemPrompt(),
		ProjectTrusted: e.a.projectTrusted,
		SessionFile:    s.Store().SessionFile(),
	}
	if m := s.Model(); m != nil {
		st.Model, _ = provider.MarshalJS(m)
	}
	st.ScopedModels = scopedModelsJS(s.ScopedModels())
	if u, ok := s.ContextUsage(); ok {
		st.ContextUsage, _ = json.Marshal(u) // ctx.getContextUsage()
	}
	for _, t := range s.Agent().Tools() {
		st.ActiveTools = append(st.ActiveTools, t.Definition().Name)
	}
	for _, t := range s.AllTools() {
		d := t.Definition()
		info := extensions.ToolInfo{Name: d.Name, Description: d.Description, Parameters: d.Parameters}
		if a, ok := t.(interface{ Annotations() map[string]bool }); ok { // MCP tools
			info.Annotations = a.Annotations()
		}
		st.AllTools = append(st.AllTools, info)
	}
	e.host.SetState(st)
}

// --- what extensions ask ---

type sendUserMessageParams struct {
	Content json.RawMessage `json:"content"`
	Options struct {
		DeliverAs string `json:"deliverAs"`
	} `json:"options"`
}

func (e *extensionHost) handle(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "ui":
		var p struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(params, &p)
		switch p.Method {
		case "select", "confirm", "input", "editor":
			return e.ui.request(ctx, params, true)
		}
		return e.ui.request(ctx, params, false)
	case "sendUserMessage":
		var p sendUserMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		text, images := userContent(p.Content)
		behavior := harness.StreamingBehavior(p.Options.DeliverAs)
		if behavior == "" && e.sess.IsStreaming() {
			return nil, errors.New("Agent is already processing. Specify deliverAs ('steer' or 'followUp') to queue the message.")
		}
		// A prompt runs until its run settles: it must not hold the extension's request.
		go func() {
			if err := e.sess.PromptWithHooks(context.WithoutCancel(ctx), text, images, behavior,
				harness.PromptHooks{Source: harness.SourceExtension}); err != nil {
				e.ui.reportError(extensions.ExtensionError{Event: "sendUserMessage", Error: err.Error()})
			}
		}()
		return nil, nil
	case "appendEntry":
		var p struct {
			CustomType string `json:"customType"`
			Data       any    `json:"data"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		id, err := e.sess.Store().AppendCustomEntry(p.CustomType, p.Data)
		if err == nil {
			e.showCustomEntry(id, p.CustomType, p.Data)
		}
		return nil, err
	case "setSessionName":
		var p struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return nil, e.sess.SetSessionName(p.Name)
	case "setLabel":
		var p struct {
			EntryID string `json:"entryId"`
			Label   string `json:"label"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		_, err := e.sess.Store().AppendLabelChange(p.EntryID, p.Label)
		return nil, err
	case "setThinkingLevel":
		var p struct {
			Level provider.ThinkingLevel `json:"level"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		e.sess.SetThinkingLevel(p.Level)
		return nil, nil
	case "abort":
		go e.sess.Abort()
		return nil, nil
	case "shutdown":
		e.requestShutdown()
		return nil, nil
	case "reload":
		// ctx.reload(): pi's session reload, the extensions' included (ReloadExtensions).
		return nil, e.sess.Reload()
	case "waitForIdle":
		return nil, e.sess.WaitForIdle(ctx)
	case "compact":
		var p struct {
			CustomInstructions string `json:"customInstructions"`
		}
		_ = json.Unmarshal(params, &p)
		// Answered when the compaction ends: the sidecar calls ctx.compact's onComplete or onError.
		res, err := e.sess.Compact(context.WithoutCancel(ctx), p.CustomInstructions)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	return e.handleSession(ctx, method, params)
}

// userContent is sendUserMessage's content: a string, or text and image blocks.
func userContent(raw json.RawMessage) (string, []provider.Content) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, nil
	}
	var blocks []provider.Content
	_ = json.Unmarshal(raw, &blocks)
	var images []provider.Content
	for _, b := range blocks {
		if b.Type == "text" {
			text += b.Text
		} else {
			images = append(images, b)
		}
	}
	return text, images
}

// warningExtensionUI is the UI of the modes without extension dialogs (print, json, and the TUI
// until it has them): notifications and errors are warnings; dialogs have no answer.
type warningExtensionUI struct{ a *app }

func (w *warningExtensionUI) request(_ context.Context, params json.RawMessage, dialog bool) (json.RawMessage, error) {
	var p struct {
		Method     string `json:"method"`
		Message    string `json:"message"`
		NotifyType string `json:"notifyType"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Method == "notify" && p.Message != "" {
		w.a.sessionWarning(errors.New(p.Message))
	}
	return nil, nil
}

func (w *warningExtensionUI) reportError(e extensions.ExtensionError) {
	w.a.sessionWarning(fmt.Errorf("extension %s (%s): %s", e.ExtensionPath, e.Event, e.Error))
}

// completer asks the extensions for completions of one command's arguments.
func (e *extensionHost) completer(name string) func(ctx context.Context, prefix string) ([]resources.ArgumentCompletion, error) {
	return func(ctx context.Context, prefix string) ([]resources.ArgumentCompletion, error) {
		items, err := e.host.CompleteCommand(ctx, name, prefix)
		out := make([]resources.ArgumentCompletion, 0, len(items))
		for _, it := range items {
			out = append(out, resources.ArgumentCompletion{Value: it.Value, Label: it.Label, Description: it.Description})
		}
		return out, err
	}
}

// registeredAgain is a process's later registration: its tools join the session (commands, events
// and renderers are read from the registrations as they are used). Before the session is bound
// ready reads them with the rest; the atomic session orders this read of e.sess after start's write
// (a host started early for the model selection runs before start).
func (e *extensionHost) registeredAgain() {
	if e.bound.Load() != nil {
		e.syncTools()
	}
}
