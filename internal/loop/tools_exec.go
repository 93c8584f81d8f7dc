package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// toolCallState is one call of a batch from tool_execution_start to its result message.
type toolCallState struct {
	call provider.Content
	tool Tool
	// args are the validated arguments Execute receives.
	args      json.RawMessage
	result    ToolResult
	isError   bool
	immediate bool
	// durationMs is how long Execute ran (nil for a call that never ran).
	durationMs *int64

	// mu and returned make onUpdate a no-op once Execute has returned.
	mu       sync.Mutex
	returned bool
}

// batch is what the hooks of one tool batch see.
type batch struct {
	msg      *provider.AssistantMessage
	tools    []Tool
	messages []provider.Message
}

func (b *batch) hookContext(s *toolCallState) ToolCallContext {
	return ToolCallContext{AssistantMessage: b.msg, ToolCall: s.call, Args: s.args, Messages: b.messages}
}

// executeToolCalls runs the tool calls of msg as one batch and returns their result messages in the
// model's order, and whether every result asked to terminate.
func (r *run) executeToolCalls(msg *provider.AssistantMessage, calls []provider.Content, tools []Tool) ([]*provider.ToolResultMessage, bool) {
	cfg := &r.a.cfg
	b := &batch{msg: msg, tools: tools}
	if cfg.BeforeToolCall != nil || cfg.AfterToolCall != nil {
		b.messages = r.a.Messages()
	}
	r.a.mu.Lock()
	sequential := r.a.toolExecution == ExecutionSequential
	r.a.mu.Unlock()
	for _, c := range calls {
		if st, ok := findTool(tools, c.Name).(SequentialTool); ok && st.ExecutionMode() == ExecutionSequential {
			sequential = true
		}
	}

	states := make([]*toolCallState, len(calls))
	results := make([]*provider.ToolResultMessage, 0, len(calls))
	if sequential {
		// Each call's whole event group completes before the next call starts.
		for i, c := range calls {
			r.emitToolStart(c)
			s := r.prepare(c, b)
			states[i] = s
			if s.immediate {
				r.emitToolEnd(s)
			} else {
				r.runTools([]*toolCallState{s}, b)
			}
			m := s.resultMessage()
			r.emitMessage(m)
			results = append(results, m)
		}
	} else {
		// Every tool_execution_start first (immediate outcomes end at once), then the runnable calls
		// run together, each ending as it finishes; result messages follow in the model's order.
		var runnable []*toolCallState
		for i, c := range calls {
			r.emitToolStart(c)
			s := r.prepare(c, b)
			states[i] = s
			if s.immediate {
				r.emitToolEnd(s)
			} else {
				runnable = append(runnable, s)
			}
		}
		r.runTools(runnable, b)
		for _, s := range states {
			m := s.resultMessage()
			r.emitMessage(m)
			results = append(results, m)
		}
	}

	terminate := len(states) > 0
	for _, s := range states {
		if !s.result.Terminate {
			terminate = false
		}
	}
	return results, terminate
}

// failTruncatedToolCalls answers every call of a message cut off by the output token limit with an
// error result, without running any: their arguments may be incomplete even when they parse. Each
// call's events complete before the next call's, as in a sequential batch.
func (r *run) failTruncatedToolCalls(calls []provider.Content) []*provider.ToolResultMessage {
	results := make([]*provider.ToolResultMessage, 0, len(calls))
	for _, c := range calls {
		r.emitToolStart(c)
		s := &toolCallState{call: c}
		s.fail(`Tool call "` + c.Name + `" was not executed: the response hit the output token limit, so its ` +
			`arguments may be truncated. Re-issue the tool call with complete arguments.`)
		r.emitToolEnd(s)
		m := s.resultMessage()
		r.emitMessage(m)
		results = append(results, m)
	}
	return results
}

func findTool(tools []Tool, name string) Tool {
	for _, t := range tools {
		if t.Definition().Name == name {
			return t
		}
	}
	return nil
}

// abortedText is the result of every call that had not started when the run was aborted (pi 1.6: no
// call is left without a result, and none starts after an abort).
const abortedText = "Operation aborted"

// prepare finds the tool, prepares and validates the arguments and asks BeforeToolCall. Any failure
// makes the call immediate: it gets an error result without running. Once the run is aborted nothing
// is prepared and no hook runs.
func (r *run) prepare(c provider.Content, b *batch) *toolCallState {
	s := &toolCallState{call: c}
	if r.ctx.Err() != nil {
		s.fail(abortedText)
		return s
	}
	tool := findTool(b.tools, c.Name)
	if tool == nil {
		s.fail(fmt.Sprintf("Tool %s not found", c.Name))
		return s
	}
	args := c.Arguments
	if p, ok := tool.(ArgumentPreparer); ok {
		if err := guard(func() error { args = p.PrepareArguments(args); return nil }); err != nil {
			s.fail(err.Error())
			return s
		}
	}
	validated, err := r.a.args.Validate(c.Name, tool.Definition().Parameters, args)
	if err != nil {
		s.fail(err.Error())
		return s
	}
	s.args = validated
	if hook := r.a.cfg.BeforeToolCall; hook != nil {
		var res BeforeToolCallResult
		err := guard(func() error {
			var herr error
			res, herr = hook(r.ctx, b.hookContext(s))
			return herr
		})
		if err != nil {
			s.fail(err.Error())
			return s
		}
		if r.ctx.Err() != nil {
			s.fail(abortedText)
			return s
		}
		if res.Block {
			reason := res.Reason
			if reason == "" {
				reason = "Tool execution was blocked"
			}
			s.fail(reason)
			s.result.Terminate = res.Terminate
			return s
		}
		if res.Args != nil {
			s.args = res.Args
		}
	}
	s.tool = tool
	return s
}

func (s *toolCallState) fail(text string) {
	s.immediate = true
	s.result = errorResult(text)
	s.isError = true
}

// errorResult is the result of a failed call: the message as one text block and empty details.
func errorResult(text string) ToolResult {
	return ToolResult{Content: []provider.Content{provider.TextContent(text)}, Details: map[string]any{}}
}

// toolEvent travels from a running tool to the loop goroutine: an update, or the end of Execute
// (aborted: Execute was not called, the run was aborted first).
type toolEvent struct {
	s       *toolCallState
	update  *ToolResult
	done    bool
	aborted bool
	result  ToolResult
	err     error
	// durationMs is Execute's running time, rounded to the millisecond as pi rounds it.
	durationMs int64
}

// runTools executes the calls concurrently. Their updates and completions are funnelled to this (the
// loop) goroutine, so events are emitted one at a time and hooks never run concurrently; each call
// gets AfterToolCall and tool_execution_end as soon as it finishes.
func (r *run) runTools(states []*toolCallState, b *batch) {
	if len(states) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	ch := make(chan toolEvent)
	for _, s := range states {
		go runTool(ctx, s, ch)
	}
	remaining := len(states)
	defer func() {
		// Only when a hook or subscriber panicked are tools still running here: stop them and wait, so
		// no goroutine outlives the run.
		if remaining > 0 {
			cancel()
			for remaining > 0 {
				if ev := <-ch; ev.done {
					remaining--
				}
			}
		}
	}()
	for remaining > 0 {
		ev := <-ch
		if !ev.done {
			r.emit(&Event{Type: EventToolExecutionUpdate, ToolCallID: ev.s.call.ID, ToolName: ev.s.call.Name,
				Args: ev.s.call.Arguments, Result: ev.update})
			continue
		}
		remaining--
		r.finalize(ev, b)
		r.emitToolEnd(ev.s)
	}
}

// runTool runs one call on its own goroutine; a panic becomes an error result. A call whose turn
// comes after the run was aborted does not start.
func runTool(ctx context.Context, s *toolCallState, ch chan<- toolEvent) {
	if ctx.Err() != nil {
		ch <- toolEvent{s: s, done: true, aborted: true}
		return
	}
	onUpdate := func(partial ToolResult) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.returned {
			return
		}
		ch <- toolEvent{s: s, update: &partial}
	}
	var res ToolResult
	var err error
	started := time.Now()
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("Tool %s panicked: %v", s.call.Name, p)
			}
		}()
		res, err = s.tool.Execute(ctx, ToolCall{ID: s.call.ID, Name: s.call.Name, Args: s.args}, onUpdate)
	}()
	elapsed := (time.Since(started) + time.Millisecond/2).Milliseconds()
	s.mu.Lock()
	s.returned = true
	s.mu.Unlock()
	ch <- toolEvent{s: s, done: true, result: res, err: err, durationMs: elapsed}
}

// finalize records the tool's outcome and applies AfterToolCall, whose error replaces the result. A
// call that never started gets the abort result without the hook.
func (r *run) finalize(ev toolEvent, b *batch) {
	s := ev.s
	if ev.aborted {
		s.result = errorResult(abortedText)
		s.isError = true
		return
	}
	// A copy of its own: a pointer into ev would keep the event, the call's state and the tool's
	// first result alive for as long as the result message stays in the transcript.
	d := ev.durationMs
	s.durationMs = &d
	if ev.err != nil {
		s.result = errorResult(ev.err.Error())
		s.isError = true
	} else {
		s.result = ev.result
		s.isError = ev.result.IsError
	}
	hook := r.a.cfg.AfterToolCall
	if hook == nil {
		return
	}
	var out AfterToolCallResult
	err := guard(func() error {
		var herr error
		out, herr = hook(r.ctx, AfterToolCallContext{ToolCallContext: b.hookContext(s), Result: s.result, IsError: s.isError})
		return herr
	})
	if err != nil {
		s.result = errorResult(err.Error())
		s.isError = true
		return
	}
	if out.Content != nil {
		s.result.Content = out.Content
		s.result.StructuredContent = nil
	}
	if out.StructuredContent != nil {
		s.result.StructuredContent = out.StructuredContent
	}
	if out.Details != nil {
		s.result.Details = out.Details
	}
	if out.Terminate != nil {
		s.result.Terminate = *out.Terminate
	}
	if out.IsError != nil {
		s.isError = *out.IsError
	}
}

func (r *run) emitToolStart(c provider.Content) {
	r.emit(&Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
}

func (r *run) emitToolEnd(s *toolCallState) {
	res := s.result
	r.emit(&Event{Type: EventToolExecutionEnd, ToolCallID: s.call.ID, ToolName: s.call.Name, Result: &res,
		IsError: s.isError, DurationMs: s.durationMs})
}

func (s *toolCallState) resultMessage() *provider.ToolResultMessage {
	return &provider.ToolResultMessage{
		ToolCallID: s.call.ID,
		ToolName:   s.call.Name,
		Content:    s.result.Content,
		Details:    s.result.Details,
		IsError:    s.isError,
		DurationMs: s.durationMs,
		Timestamp:  provider.Now(),
	}
}

// guard runs fn and turns a panic into an error, as pi turns a throwing hook into an error result.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn()
}
