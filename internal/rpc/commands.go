package rpc

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// handler runs one command type and returns its response (nil when it wrote its own).
type handler struct {
	fn func(*server, *command) *response
	// background commands run in their own goroutine: they wait for the agent, a process or the
	// network, and pi lets later commands (abort, get_state) overtake them.
	background bool
}

// handlers is pi 1.6's command table (pi-reference §4.3 and pi 1.6's docs/rpc.md) for the features
// pi-go has.
var handlers = map[string]handler{
	"prompt":                        {fn: (*server).prompt},
	"steer":                         {fn: (*server).steer},
	"follow_up":                     {fn: (*server).followUp},
	"abort":                         {fn: (*server).abort, background: true},
	"clear_queue":                   {fn: (*server).clearQueue},
	"new_session":                   {fn: (*server).newSession, background: true},
	"get_state":                     {fn: (*server).getState},
	"get_messages":                  {fn: (*server).getMessages},
	"set_model":                     {fn: (*server).setModel},
	"cycle_model":                   {fn: (*server).cycleModel},
	"get_available_models":          {fn: (*server).getAvailableModels},
	"set_thinking_level":            {fn: (*server).setThinkingLevel},
	"cycle_thinking_level":          {fn: (*server).cycleThinkingLevel},
	"get_available_thinking_levels": {fn: (*server).getAvailableThinkingLevels},
	"set_steering_mode":             {fn: (*server).setSteeringMode},
	"set_follow_up_mode":            {fn: (*server).setFollowUpMode},
	"compact":                       {fn: (*server).compact, background: true},
	"set_auto_compaction":           {fn: (*server).setAutoCompaction},
	"set_auto_retry":                {fn: (*server).setAutoRetry},
	"abort_retry":                   {fn: (*server).abortRetry},
	"bash":                          {fn: (*server).bash}, // starts its own goroutine, see bash
	"abort_bash":                    {fn: (*server).abortBash},
	"get_session_stats":             {fn: (*server).getSessionStats},
	"export_html":                   {fn: (*server).exportHTML, background: true},
	"switch_session":                {fn: (*server).switchSession, background: true},
	"fork":                          {fn: (*server).fork, background: true},
	"clone":                         {fn: (*server).clone, background: true},
	"get_fork_messages":             {fn: (*server).getForkMessages},
	"get_entries":                   {fn: (*server).getEntries},
	"get_tree":                      {fn: (*server).getTree},
	"get_last_assistant_text":       {fn: (*server).getLastAssistantText},
	"set_session_name":              {fn: (*server).setSessionName},
	"get_commands":                  {fn: (*server).getCommands},
	// pi-go's extensions (checkpoints.go). A restore is not overtaken: a prompt sent after it must
	// not run tools while files are being restored.
	"get_checkpoints":    {fn: (*server).getCheckpoints, background: true},
	"restore_checkpoint": {fn: (*server).restoreCheckpoint},
}

// prompt answers once, after preflight: accepted (the run starts), queued (a run is active and a
// streaming behaviour was given) or rejected. The run goes on in the background; its later failures
// are in the event stream. The next command is read once the session has taken or refused the prompt
// (not after the compaction a prompt may need first), so prompts and steering messages sent one after
// another keep their order and a slow preflight never holds up abort or get_state.
func (s *server) prompt(c *command) *response {
	text, images, err := c.message()
	if err != nil {
		return c.fail(err)
	}
	behavior := harness.BehaviorNone
	if b, ok, err := c.optStr("streamingBehavior"); err != nil {
		return c.fail(err)
	} else if ok {
		switch harness.StreamingBehavior(b) {
		case harness.BehaviorSteer, harness.BehaviorFollowUp:
			behavior = harness.StreamingBehavior(b)
		default:
			return c.fail(fmt.Errorf(`Invalid "streamingBehavior" in prompt: %q (expected "steer" or "followUp")`, b))
		}
	}

	decided := make(chan struct{})
	var decideOnce, answerOnce sync.Once
	decide := func() { decideOnce.Do(func() { close(decided) }) }
	answer := func(resp *response) (written bool) {
		answerOnce.Do(func() {
			s.write(resp, true)
			written = true
		})
		return written
	}
	earlier, progress, inRun, end := s.runs.beginPrompt()
	s.beginTask()
	go func() {
		defer s.endTask()
		defer end()
		defer decide()
		defer func() {
			if r := recover(); r != nil {
				s.logf("rpc: prompt failed: %v\n%s", r, debug.Stack())
				answer(c.failText(fmt.Sprint(r)))
			}
		}()
		s.awaitSettled(earlier, progress, inRun)
		err := s.sess.PromptWithHooks(s.runCtx, text, images, behavior, harness.PromptHooks{
			Source:  harness.SourceRPC,
			Decided: decide,
			Preflight: func(d harness.Disposition, err error) {
				if err != nil {
					answer(c.fail(err))
				} else {
					answer(c.okData(dispositionData{Disposition: d}))
				}
			},
		})
		// The preflight has answered by now; an error after it came from the run, which pi reports
		// only through events. The answers below are written only if the preflight never reported.
		if err != nil {
			if !answer(c.fail(err)) {
				s.logf("rpc: prompt: %v", err)
			}
			return
		}
		answer(c.ok())
	}()
	<-decided
	return nil
}

func (s *server) steer(c *command) *response    { return s.queueMessage(c, false) }
func (s *server) followUp(c *command) *response { return s.queueMessage(c, true) }

// queueMessage queues the command's message and images as a steering message or follow-up, through
// the session's input pipeline (skills and templates expand; an input handler may handle it). pi 1.6
// answers with the disposition, queued or handled.
func (s *server) queueMessage(c *command, followUp bool) *response {
	text, images, err := c.message()
	if err != nil {
		return c.fail(err)
	}
	d, err := s.sess.QueueInput(s.runCtx, text, images, followUp, harness.SourceRPC)
	if err != nil {
		return c.fail(err)
	}
	return c.okData(dispositionData{Disposition: d})
}

// abort cancels whatever runs (the run with its retries, a compaction, manual ones included) and
// answers once the session is idle again: after the run's agent_settled, or after the cancelled
// compact command's own answer, as in pi.
func (s *server) abort(c *command) *response {
	s.sess.Abort()
	s.runs.waitCompacts(s.runCtx)
	return c.ok()
}

// clearQueue empties both queues (announced with queue_update) and answers with what they held.
func (s *server) clearQueue(c *command) *response {
	steering, followUp := s.sess.ClearQueue()
	return c.okData(queueData{Steering: nonNilStrings(steering), FollowUp: nonNilStrings(followUp)})
}

func (s *server) newSession(c *command) *response {
	parent, _, err := c.optStr("parentSession")
	if err != nil {
		return c.fail(err)
	}
	return s.replaceSession(c, func() error { return s.sess.NewSession(parent) })
}

// replaceSession stops the agent and replaces the session through change (new, switch, clone); pi
// answers {cancelled: false}.
func (s *server) replaceSession(c *command, change func() error) *response {
	s.quiesce()
	if err := change(); errors.Is(err, harness.ErrCancelledByExtension) {
		return c.okData(cancelledData{Cancelled: true})
	} else if err != nil {
		return c.fail(err)
	}
	return c.okData(cancelledData{})
}

func (s *server) getState(c *command) *response {
	return c.okData(s.state())
}

func (s *server) getMessages(c *command) *response {
	return c.okData(messagesData{Messages: nonNilMessages(s.sess.Messages())})
}

func (s *server) setModel(c *command) *response {
	providerName, err := c.str("provider")
	if err != nil {
		return c.fail(err)
	}
	modelID, err := c.str("modelId")
	if err != nil {
		return c.fail(err)
	}
	var model *provider.Model
	for _, m := range s.sess.AvailableModels() {
		if m.Provider == providerName && m.ID == modelID {
			model = m
			break
		}
	}
	if model == nil {
		return c.failText("Model not found: " + providerName + "/" + modelID)
	}
	if err := s.sess.SetModel(model); err != nil {
		return c.fail(err)
	}
	return c.okData(model)
}

func (s *server) cycleModel(c *command) *response {
	res := s.sess.CycleModel(false)
	if res == nil {
		return c.okData(jsonNull)
	}
	return c.okData(cycleModelData{Model: res.Model, ThinkingLevel: res.ThinkingLevel, IsScoped: res.IsScoped})
}

func (s *server) getAvailableModels(c *command) *response {
	models := s.sess.AvailableModels()
	if models == nil {
		models = []*provider.Model{}
	}
	return c.okData(modelsData{Models: models})
}

func (s *server) setThinkingLevel(c *command) *response {
	level, err := c.str("level")
	if err != nil {
		return c.fail(err)
	}
	if !provider.IsThinkingLevel(level) {
		return c.fail(fmt.Errorf(`Invalid "level" in set_thinking_level: %q (expected one of off, minimal, low, medium, high, xhigh, max)`, level))
	}
	s.sess.SetThinkingLevel(provider.ThinkingLevel(level))
	return c.ok()
}

func (s *server) cycleThinkingLevel(c *command) *response {
	level, ok := s.sess.CycleThinkingLevel()
	if !ok {
		return c.okData(jsonNull)
	}
	return c.okData(levelData{Level: level})
}

// getAvailableThinkingLevels lists the levels of the current model (every level without one).
func (s *server) getAvailableThinkingLevels(c *command) *response {
	return c.okData(levelsData{Levels: s.sess.AvailableThinkingLevels()})
}

func (s *server) setSteeringMode(c *command) *response {
	return s.setQueueMode(c, s.sess.SetSteeringMode)
}

func (s *server) setFollowUpMode(c *command) *response {
	return s.setQueueMode(c, s.sess.SetFollowUpMode)
}

func (s *server) setQueueMode(c *command, set func(loop.QueueMode) error) *response {
	mode, err := c.str("mode")
	if err != nil {
		return c.fail(err)
	}
	if _, err := loop.ParseQueueMode(mode); err != nil {
		return c.fail(fmt.Errorf(`Invalid "mode" in %s: %q (expected "all" or "one-at-a-time")`, c.typ, mode))
	}
	if err := set(loop.QueueMode(mode)); err != nil {
		return c.fail(err)
	}
	return c.ok()
}

// compact summarises the history now, after aborting a running agent; abort cancels it. It writes its
// own answer, so that an abort answering after it can wait for that.
func (s *server) compact(c *command) *response {
	answered := s.runs.beginCompact()
	defer answered()
	s.write(s.compactResponse(c), true)
	return nil
}

func (s *server) compactResponse(c *command) *response {
	instructions, _, err := c.optStr("customInstructions")
	if err != nil {
		return c.fail(err)
	}
	s.quiesce()
	res, err := s.sess.Compact(s.runCtx, instructions)
	if err != nil {
		return c.fail(err)
	}
	return c.okData(res)
}

func (s *server) setAutoCompaction(c *command) *response {
	return s.setEnabled(c, s.sess.SetAutoCompaction)
}
func (s *server) setAutoRetry(c *command) *response { return s.setEnabled(c, s.sess.SetAutoRetry) }

// setEnabled hands the command's "enabled" flag to set.
func (s *server) setEnabled(c *command, set func(bool)) *response {
	enabled, err := c.boolean("enabled")
	if err != nil {
		return c.fail(err)
	}
	set(enabled)
	return c.ok()
}

func (s *server) abortRetry(c *command) *response {
	s.sess.AbortRetry()
	return c.ok()
}

// bash runs a command as the user's `!`: the result is recorded in the transcript (after the current
// run, if one is active) and reaches the model with the next prompt, unless excludeFromContext says it
// is for the user only. Its output streams as bash_execution_update events carrying the command's id.
// bash runs the command in the background (later commands overtake it), but registers its
// cancellation before the next command is read: an abort_bash sent right after it stops it, as in pi,
// where the command has started before abort_bash is handled.
func (s *server) bash(c *command) *response {
	cmd, err := c.str("command")
	if err != nil {
		return c.fail(err)
	}
	exclude, err := c.optBoolean("excludeFromContext")
	if err != nil {
		return c.fail(err)
	}
	ctx, cancel := context.WithCancel(s.runCtx)
	s.bashMu.Lock()
	s.nextBash++
	id := s.nextBash
	if s.bashCancels == nil {
		s.bashCancels = map[int]context.CancelFunc{}
	}
	s.bashCancels[id] = cancel
	s.bashMu.Unlock()
	s.beginTask()
	go func() {
		defer s.endTask()
		defer func() {
			s.bashMu.Lock()
			delete(s.bashCancels, id)
			s.bashMu.Unlock()
			cancel()
		}()
		s.run(c, handler{fn: func(s *server, c *command) *response {
			res, err := s.sess.ExecuteBash(ctx, cmd, exclude, func(delta string) {
				s.write(bashUpdate{id: c.id, delta: delta}, false)
			})
			if err != nil {
				return c.fail(err)
			}
			return c.okData(bashData{Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled,
				Truncated: res.Truncated, FullOutputPath: res.FullOutputPath})
		}})
	}()
	return nil
}

func (s *server) abortBash(c *command) *response {
	s.bashMu.Lock()
	for _, cancel := range s.bashCancels {
		cancel()
	}
	s.bashMu.Unlock()
	s.sess.AbortBash()
	return c.ok()
}

func (s *server) getSessionStats(c *command) *response {
	return c.okData(s.sess.Stats())
}

// exportHTML writes the session's page (pi's export_html), in the background: a large session
// takes a moment, and abort must not wait for it.
func (s *server) exportHTML(c *command) *response {
	path, _, err := c.optStr("outputPath")
	if err != nil {
		return c.fail(err)
	}
	written, err := s.sess.ExportHTML(s.runCtx, path, s.theme)
	if err != nil {
		return c.fail(err)
	}
	return c.okData(struct {
		Path string `json:"path"`
	}{written})
}

func (s *server) switchSession(c *command) *response {
	path, err := c.str("sessionPath")
	if err != nil {
		return c.fail(err)
	}
	return s.replaceSession(c, func() error { return s.sess.SwitchSession(path) })
}

func (s *server) fork(c *command) *response {
	entryID, err := c.str("entryId")
	if err != nil {
		return c.fail(err)
	}
	if e := s.sess.Store().Entry(entryID); e == nil || e.Type != session.TypeMessage || e.Role != provider.RoleUser {
		return c.failText("Invalid entry ID for forking") // checked before the run is aborted, as pi does
	}
	s.quiesce()
	text, err := s.sess.Fork(entryID)
	if errors.Is(err, harness.ErrCancelledByExtension) {
		return c.okData(forkData{Cancelled: true})
	}
	if err != nil {
		return c.fail(err)
	}
	return c.okData(forkData{Text: text})
}

func (s *server) clone(c *command) *response {
	if s.sess.Store().LeafID() == "" {
		return c.failText("Cannot clone session: no current entry selected")
	}
	return s.replaceSession(c, s.sess.Clone)
}

func (s *server) getForkMessages(c *command) *response {
	msgs := s.sess.ForkMessages()
	if msgs == nil {
		msgs = []harness.ForkMessage{}
	}
	return c.okData(forkMessagesData{Messages: msgs})
}

func (s *server) getLastAssistantText(c *command) *response {
	text, ok := s.sess.LastAssistantText()
	if !ok {
		return c.okData(lastTextData{})
	}
	return c.okData(lastTextData{Text: &text})
}

// setSessionName appends a session_info entry and announces it as pi does (session_info_changed,
// before the response).
func (s *server) setSessionName(c *command) *response {
	name, err := c.str("name")
	if err != nil {
		return c.fail(err)
	}
	if err := s.sess.SetSessionName(name); err != nil {
		return c.fail(err)
	}
	s.write(sessionInfoChanged{Type: "session_info_changed", Name: s.sess.Store().SessionName()}, true)
	return c.ok()
}

// getCommands lists the commands a prompt can invoke: pi-go has no extensions, prompt templates or
// skills, so the list is empty.
// getCommands lists the commands a prompt can run: the extensions', the templates' and the skills'.
func (s *server) getCommands(c *command) *response {
	out := []commandData{}
	for _, cmd := range s.sess.Commands() {
		out = append(out, commandData{Name: cmd.Name, Description: cmd.Description, Source: cmd.Source, SourceInfo: cmd.SourceInfo})
	}
	return c.okData(commandsData{Commands: out})
}
