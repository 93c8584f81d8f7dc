package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui"
)

// The session operations extensions take part in (harness.UserBashHook, CompactionHook, TreeHook,
// ModelHook) and what they ask of the session beyond a prompt: custom messages, the model, the
// active tools, and session switching from commands.

// --- harness.UserBashHook ---

func (e *extensionHost) UserBash(ctx context.Context, command string, excludeFromContext bool, cwd string, onChunk func(string)) (*harness.BashResult, bool, error) {
	e.ready(ctx)
	if !e.host.HasHandlers(ctx, "user_bash") {
		return nil, false, nil
	}
	r, err := e.host.UserBash(ctx, command, excludeFromContext, cwd, onChunk)
	if err != nil {
		return nil, true, fmt.Errorf("an extension's user_bash handler failed: %w", err)
	}
	if r == nil {
		return nil, false, nil
	}
	res := &harness.BashResult{Output: r.Output, Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath}
	if r.ExitCode != nil {
		res.ExitCode = r.ExitCode
	}
	return res, true, nil
}

// --- harness.CompactionHook ---

// piPreparation is a compaction preparation as pi's session_before_compact carries it.
func piPreparation(p *compaction.Preparation) map[string]any {
	keys := func(m map[string]struct{}) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	prep := map[string]any{
		"firstKeptEntryId":    p.FirstKeptEntryID,
		"messagesToSummarize": jsMessages(p.MessagesToSummarize),
		"turnPrefixMessages":  jsMessages(p.TurnPrefixMessages),
		"isSplitTurn":         p.IsSplitTurn,
		"tokensBefore":        p.TokensBefore,
		"settings": map[string]any{"enabled": p.Settings.Enabled, "reserveTokens": p.Settings.ReserveTokens,
			"keepRecentTokens": p.Settings.KeepRecentTokens},
	}
	if p.PreviousSummary != "" {
		prep["previousSummary"] = p.PreviousSummary
	}
	if p.FileOps != nil {
		prep["fileOps"] = map[string]any{"read": keys(p.FileOps.Read), "written": keys(p.FileOps.Written), "edited": keys(p.FileOps.Edited)}
	}
	return prep
}

// jsMessages are messages as pi writes them (an empty list, never null).
func jsMessages(msgs []provider.Message) json.RawMessage {
	if len(msgs) == 0 {
		return json.RawMessage("[]")
	}
	data, err := provider.MarshalJS(msgs)
	if err != nil {
		return json.RawMessage("[]")
	}
	return data
}

// jsEntries are session entries as the file has them.
func jsEntries(entries []*session.Entry) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(entries))
	for _, en := range entries {
		if raw, err := en.Raw(); err == nil {
			out = append(out, raw)
		}
	}
	return out
}

func jsEntry(en *session.Entry) json.RawMessage {
	if en == nil {
		return nil
	}
	raw, err := en.Raw()
	if err != nil {
		return nil
	}
	return raw
}

func (e *extensionHost) BeforeCompact(ctx context.Context, ev harness.CompactionEvent) (bool, *harness.CompactionResult) {
	e.ready(ctx)
	if !e.host.HasHandlers(ctx, "session_before_compact") {
		return false, nil
	}
	payload := map[string]any{"type": "session_before_compact", "preparation": piPreparation(ev.Preparation),
		"branchEntries": jsEntries(ev.Branch), "reason": ev.Reason, "willRetry": ev.WillRetry}
	if ev.CustomInstructions != "" {
		payload["customInstructions"] = ev.CustomInstructions
	}
	var custom *harness.CompactionResult
	for _, res := range e.host.Emit(ctx, "session_before_compact", payload) {
		var r struct {
			Cancel     bool `json:"cancel"`
			Compaction *struct {
				Summary          string          `json:"summary"`
				FirstKeptEntryID string          `json:"firstKeptEntryId"`
				TokensBefore     int             `json:"tokensBefore"`
				Usage            *provider.Usage `json:"usage"`
				Details          *struct {
					ReadFiles     []string `json:"readFiles"`
					ModifiedFiles []string `json:"modifiedFiles"`
				} `json:"details"`
			} `json:"compaction"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			e.ui.reportError(extensions.ExtensionError{Event: "session_before_compact", Error: err.Error()})
			continue
		}
		if r.Cancel {
			return true, nil
		}
		if c := r.Compaction; c != nil && c.Summary != "" {
			// The last handler that supplies a summary wins, as pi keeps the last result.
			custom = &harness.CompactionResult{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: c.TokensBefore}
			if custom.FirstKeptEntryID == "" {
				custom.FirstKeptEntryID = ev.Preparation.FirstKeptEntryID
			}
			if c.Usage != nil {
				custom.Usage = *c.Usage
			}
			if c.Details != nil {
				custom.Details = harness.CompactionDetails{ReadFiles: c.Details.ReadFiles, ModifiedFiles: c.Details.ModifiedFiles}
			}
		}
	}
	return false, custom
}

func (e *extensionHost) Compacted(entry *session.Entry, fromExtension bool, reason string, willRetry bool) {
	e.host.Notify("session_compact", map[string]any{"type": "session_compact", "compactionEntry": jsEntry(entry),
		"fromExtension": fromExtension, "reason": reason, "willRetry": willRetry})
}

// --- harness.TreeHook ---

func (e *extensionHost) BeforeTree(ctx context.Context, p harness.TreePreparation) harness.TreeVerdict {
	e.ready(ctx)
	var v harness.TreeVerdict
	if !e.host.HasHandlers(ctx, "session_before_tree") {
		return v
	}
	prep := map[string]any{"targetId": p.TargetID, "oldLeafId": nullable(p.OldLeafID), "commonAncestorId": nullable(p.CommonAncestorID),
		"entriesToSummarize": jsEntries(p.EntriesToSummarize), "userWantsSummary": p.UserWantsSummary}
	if p.CustomInstructions != "" {
		prep["customInstructions"] = p.CustomInstructions
	}
	if p.ReplaceInstructions {
		prep["replaceInstructions"] = true
	}
	if p.Label != "" {
		prep["label"] = p.Label
	}
	for _, res := range e.host.Emit(ctx, "session_before_tree", map[string]any{"type": "session_before_tree", "preparation": prep}) {
		var r struct {
			Cancel  bool `json:"cancel"`
			Summary *struct {
				Summary string          `json:"summary"`
				Usage   *provider.Usage `json:"usage"`
				Details *struct {
					ReadFiles     []string `json:"readFiles"`
					ModifiedFiles []string `json:"modifiedFiles"`
				} `json:"details"`
			} `json:"summary"`
			CustomInstructions  *string `json:"customInstructions"`
			ReplaceInstructions *bool   `json:"replaceInstructions"`
			Label               *string `json:"label"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			e.ui.reportError(extensions.ExtensionError{Event: "session_before_tree", Error: err.Error()})
			continue
		}
		if r.Cancel {
			return harness.TreeVerdict{Cancel: true}
		}
		if s := r.Summary; s != nil && s.Summary != "" {
			v.Summary = &compaction.BranchSummary{Summary: s.Summary, Usage: s.Usage}
			if s.Details != nil {
				v.Summary.ReadFiles, v.Summary.ModifiedFiles = s.Details.ReadFiles, s.Details.ModifiedFiles
			}
		}
		if r.CustomInstructions != nil {
			v.CustomInstructions = r.CustomInstructions
		}
		if r.ReplaceInstructions != nil {
			v.ReplaceInstructions = r.ReplaceInstructions
		}
		if r.Label != nil {
			v.Label = r.Label
		}
	}
	return v
}

func nullable(id string) any {
	if id == "" {
		return nil
	}
	return id
}

func (e *extensionHost) TreeNavigated(newLeafID, oldLeafID string, summaryEntry *session.Entry, fromExtension bool) {
	e.pushState()
	ev := map[string]any{"type": "session_tree", "newLeafId": nullable(newLeafID), "oldLeafId": nullable(oldLeafID)}
	if summaryEntry != nil {
		ev["summaryEntry"] = jsEntry(summaryEntry)
		ev["fromExtension"] = fromExtension
	}
	e.host.Notify("session_tree", ev)
}

// --- harness.ModelHook ---

func (e *extensionHost) ModelSelected(model, previous *provider.Model, source string) {
	e.pushState()
	if e.mode != "tui" {
		// RPC and print serve once the extensions are loaded, as pi does: a selection right after the
		// start still reaches them. (The TUI never waits for them.)
		_ = e.host.Wait(context.Background())
	}
	next, err := provider.MarshalJS(model)
	if err != nil {
		e.ui.reportError(extensions.ExtensionError{Event: "model_select", Error: err.Error()})
		return
	}
	ev := map[string]any{"type": "model_select", "source": source, "model": json.RawMessage(next)}
	if previous != nil {
		if prev, err := provider.MarshalJS(previous); err == nil {
			ev["previousModel"] = json.RawMessage(prev)
		}
	}
	e.host.Notify("model_select", ev)
}

// thinkingLevelSelected raises thinking_level_select for a level change the session announced.
func (e *extensionHost) thinkingLevelSelected(level provider.ThinkingLevel) {
	e.levelMu.Lock()
	prev := e.lastLevel
	e.lastLevel = level
	e.levelMu.Unlock()
	if prev == level {
		return
	}
	ev := map[string]any{"type": "thinking_level_select", "level": level}
	if prev != "" {
		ev["previousLevel"] = prev
	}
	e.host.Notify("thinking_level_select", ev)
}

// --- what extensions ask of the session ---

// handleSession answers the requests about the session; anything else is not supported.
func (e *extensionHost) handleSession(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "sendMessage":
		var p struct {
			Message json.RawMessage `json:"message"`
			Options struct {
				DeliverAs   string `json:"deliverAs"`
				TriggerTurn *bool  `json:"triggerTurn"`
			} `json:"options"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("sendMessage: %w", err)
		}
		m, err := customMessage(p.Message)
		if err != nil {
			return nil, fmt.Errorf("sendMessage: %w", err)
		}
		cm, ok := m.(*provider.CustomMessage)
		if !ok {
			return nil, errors.New("sendMessage: not a custom message")
		}
		run, err := e.sess.SendCustomMessage(context.WithoutCancel(ctx), cm, p.Options.DeliverAs, p.Options.TriggerTurn)
		if err != nil {
			return nil, fmt.Errorf("sendMessage: %w", err)
		}
		if run != nil {
			// A triggered turn runs until it settles: it must not hold the extension's requests.
			go func() {
				if err := run(); err != nil {
					e.ui.reportError(extensions.ExtensionError{Event: "sendMessage", Error: err.Error()})
				}
			}()
		}
		return nil, nil
	case "setModel":
		var p struct {
			Provider string `json:"provider"`
			ID       string `json:"id"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("setModel: %w", err)
		}
		for _, m := range e.sess.AvailableModels() {
			if m.Provider == p.Provider && m.ID == p.ID {
				if e.sess.SetModel(m) != nil {
					break
				}
				e.tuiSessionChanged(tui.SessionChange{Kind: tui.SessionSettingsChanged})
				return json.RawMessage("true"), nil
			}
		}
		return json.RawMessage("false"), nil
	case "setActiveTools":
		var p struct {
			Names []string `json:"names"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("setActiveTools: %w", err)
		}
		e.sess.SetActiveTools(p.Names)
		e.pushState()
		e.tuiSessionChanged(tui.SessionChange{Kind: tui.SessionSettingsChanged})
		return nil, nil
	case "newSession", "fork", "switchSession":
		var p struct {
			ParentSession string `json:"parentSession"`
			EntryID       string `json:"entryId"`
			Position      string `json:"position"`
			SessionPath   string `json:"sessionPath"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var err error
		change := tui.SessionChange{Kind: tui.SessionResumed}
		switch method {
		case "newSession":
			change.Kind = tui.SessionStarted
			err = e.sess.NewSession(p.ParentSession)
		case "fork":
			change.Kind = tui.SessionForked
			if p.Position == "at" {
				err = e.sess.ForkAt(p.EntryID)
			} else {
				change.EditorText, err = e.sess.Fork(p.EntryID)
			}
		default:
			err = e.sess.SwitchSession(p.SessionPath)
		}
		if errors.Is(err, harness.ErrCancelledByExtension) {
			return json.RawMessage(`{"cancelled":true}`), nil
		}
		if err != nil {
			return nil, err
		}
		change.Messages = e.sess.Messages()
		e.tuiSessionChanged(change)
		e.pushState()
		return json.RawMessage(`{"cancelled":false}`), nil
	case "navigateTree":
		var p struct {
			TargetID            string `json:"targetId"`
			Summarize           bool   `json:"summarize"`
			CustomInstructions  string `json:"customInstructions"`
			ReplaceInstructions bool   `json:"replaceInstructions"`
			Label               string `json:"label"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("navigateTree: %w", err)
		}
		r, err := e.sess.NavigateTree(ctx, p.TargetID, harness.NavigateOptions{Summarize: p.Summarize,
			CustomInstructions: p.CustomInstructions, ReplaceInstructions: p.ReplaceInstructions, Label: p.Label})
		if err != nil {
			return nil, err
		}
		if !r.Cancelled && !r.Aborted {
			e.tuiSessionChanged(tui.SessionChange{Kind: tui.SessionNavigated, Messages: e.sess.Messages(), EditorText: r.EditorText})
		}
		e.pushState()
		out := map[string]any{"cancelled": r.Cancelled}
		if r.EditorText != "" {
			out["editorText"] = r.EditorText
		}
		if r.Aborted {
			out["aborted"] = true
		}
		return json.Marshal(out)
	}
	return nil, fmt.Errorf("%s is not supported by pi-go's extension host yet", method)
}

// --- harness.BoundaryHook ---

func (e *extensionHost) TurnEnd(ctx context.Context, turnIndex int, t loop.TurnContext, outcome string) harness.Boundary {
	if !e.host.Started() || !e.host.HasHandlers(ctx, "turn_end") {
		return harness.Boundary{}
	}
	e.pushState() // the turn's context usage, for ctx.getContextUsage() in the handlers
	fields := map[string]any{"turnIndex": turnIndex, "outcome": outcome, "timestamp": provider.Now()}
	if t.Message != nil {
		if m, err := provider.MarshalJS(t.Message); err == nil {
			fields["message"] = json.RawMessage(m)
		}
	}
	results := make([]provider.Message, 0, len(t.ToolResults))
	for _, r := range t.ToolResults {
		results = append(results, r)
	}
	fields["toolResults"] = jsMessages(results)
	return e.boundary(ctx, "turn_end", fields)
}

func (e *extensionHost) BeforeSettle(ctx context.Context, outcome string) harness.Boundary {
	if !e.host.Started() || !e.host.HasHandlers(ctx, "agent_before_settle") {
		return harness.Boundary{}
	}
	return e.boundary(ctx, "agent_before_settle", map[string]any{"outcome": outcome})
}

// boundary runs the handlers and turns their drafts into entries. pi-go takes custom entries and
// custom messages; a proposal with another kind of draft (context_edit, compaction) is refused whole,
// as pi refuses a proposal that does not validate.
func (e *extensionHost) boundary(ctx context.Context, event string, fields map[string]any) harness.Boundary {
	r := e.host.Boundary(ctx, event, fields)
	out := harness.Boundary{Continue: r.Continue}
	for _, raw := range r.Entries {
		var d map[string]json.RawMessage
		if err := json.Unmarshal(raw, &d); err != nil {
			e.ui.reportError(extensions.ExtensionError{ExtensionPath: "<boundary>", Event: event, Error: "Invalid boundary entries: " + err.Error()})
			return harness.Boundary{}
		}
		var kind, customType string
		_ = json.Unmarshal(d["type"], &kind)
		_ = json.Unmarshal(d["customType"], &customType)
		switch kind {
		case "custom":
			out.Entries = append(out.Entries, harness.BoundaryEntry{CustomType: customType, Data: d["data"]})
		case "custom_message":
			delete(d, "type")
			body, _ := json.Marshal(d)
			m, err := customMessage(body)
			cm, ok := m.(*provider.CustomMessage)
			if err != nil || !ok {
				e.ui.reportError(extensions.ExtensionError{ExtensionPath: "<boundary>", Event: event, Error: fmt.Sprintf("Invalid boundary entries: %v", err)})
				return harness.Boundary{}
			}
			out.Entries = append(out.Entries, harness.BoundaryEntry{Message: cm})
		default:
			e.ui.reportError(extensions.ExtensionError{ExtensionPath: "<boundary>", Event: event,
				Error: fmt.Sprintf("Invalid boundary entries: pi-go does not apply %q drafts", kind)})
			return harness.Boundary{}
		}
	}
	return out
}

// --- harness.CustomStartHook ---

func (e *extensionHost) BeforeCustomStart(ctx context.Context, m *provider.CustomMessage, systemPrompt string) ([]provider.Message, string) {
	if !e.host.HasHandlers(ctx, "before_agent_start") {
		return nil, ""
	}
	data, err := provider.MarshalJS(m)
	if err != nil {
		e.ui.reportError(extensions.ExtensionError{Event: "before_agent_start", Error: err.Error()})
		return nil, ""
	}
	r := e.host.BeforeAgentStartMessage(ctx, data, systemPrompt)
	var msgs []provider.Message
	for _, raw := range r.Messages {
		if cm, err := customMessage(raw); err == nil {
			msgs = append(msgs, cm)
		} else {
			e.ui.reportError(extensions.ExtensionError{Event: "before_agent_start", Error: err.Error()})
		}
	}
	return msgs, r.SystemPrompt
}

// tuiSessionChanged tells the TUI, when there is one, about a change an extension made to the
// session, before the extension hears back: what it does next is shown after the change.
func (e *extensionHost) tuiSessionChanged(c tui.SessionChange) {
	if u := e.tuiUI(); u != nil {
		u.SessionChanged(c)
	}
}

// --- harness.PromptOptionsHook ---

// BeforeAgentStartWithOptions runs before_agent_start with pi 1.6's systemPromptOptions, for a prompt
// or a custom message; a structure the handlers edited comes back as the run's prompt options.
func (e *extensionHost) BeforeAgentStartWithOptions(ctx context.Context, start harness.AgentStart) harness.AgentStartResult {
	if !e.host.HasHandlers(ctx, "before_agent_start") {
		return harness.AgentStartResult{}
	}
	report := func(err error) {
		e.ui.reportError(extensions.ExtensionError{Event: "before_agent_start", Error: err.Error()})
	}
	t := extensions.StartTrigger{Prompt: start.Prompt, Images: start.Images}
	if start.Custom != nil {
		data, err := provider.MarshalJS(start.Custom)
		if err != nil {
			report(err)
			return harness.AgentStartResult{}
		}
		t.Message = data
	}
	options, err := start.Options.MarshalPi()
	if err != nil {
		report(err)
		return harness.AgentStartResult{}
	}
	r := e.host.BeforeAgentStartWith(ctx, t, start.SystemPrompt, options)
	out := harness.AgentStartResult{SystemPrompt: r.SystemPrompt}
	for _, raw := range r.Messages {
		if m, err := customMessage(raw); err == nil {
			out.Messages = append(out.Messages, m)
		} else {
			report(err)
		}
	}
	if r.Options != nil {
		if o, err := harness.UnmarshalPiPromptOptions(r.Options); err == nil {
			out.Options = &o
		} else {
			report(err)
		}
	}
	return out
}
