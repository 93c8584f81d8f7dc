package harness

import (
	"context"
	"errors"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// ErrBashRunning is returned when a `!` command is started while another one runs.
var ErrBashRunning = errors.New("A bash command is already running. Press Esc to cancel it first.")

// BashResult is the outcome of a user's `!` command (pi's BashResult).
type BashResult = shell.UserResult

// ExecuteBash runs a command the user typed (`!cmd`; `!!cmd` sets excludeFromContext) in the project
// directory, streaming output to onChunk. The result is recorded as a bashExecution message: at once
// when idle, or after the current run so it never lands between a tool call and its result.
func (s *Session) ExecuteBash(ctx context.Context, command string, excludeFromContext bool, onChunk func(string)) (BashResult, error) {
	bashCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.bashCancel != nil {
		s.mu.Unlock()
		cancel()
		return BashResult{}, ErrBashRunning
	}
	s.bashCancel = cancel
	s.mu.Unlock()
	defer func() {
		cancel()
		s.mu.Lock()
		s.bashCancel = nil
		s.mu.Unlock()
	}()
	// user_bash: an extension may run the command itself, or refuse it by failing.
	if res, handled, err := s.userBash(bashCtx, command, excludeFromContext, onChunk); err != nil || handled {
		if err == nil && res != nil {
			s.recordBash(&provider.BashExecutionMessage{Command: command, Output: res.Output, ExitCode: res.ExitCode,
				Cancelled: res.Cancelled, Truncated: res.Truncated, FullOutputPath: res.FullOutputPath,
				Timestamp: provider.Now(), ExcludeFromContext: excludeFromContext})
			return *res, nil
		}
		return BashResult{}, err
	}
	s.checkpointBefore(TriggerBash, s.Store().LeafID())
	defer func() {
		// What the command left is the session's own state: recorded before the result is returned.
		s.checkpointAfter()
		s.waitCheckpoints()
	}()
	res, err := shell.RunUser(bashCtx, command, s.opts.Cwd, shell.Options{
		ShellPath:     s.opts.BashShellPath,
		CommandPrefix: s.opts.BashCommandPrefix,
		BinDir:        s.opts.BashBinDir,
		OutputDir:     s.opts.BashOutputDir,
	}, onChunk)
	if err != nil {
		return res, err
	}
	s.recordBash(&provider.BashExecutionMessage{
		Command:            command,
		Output:             res.Output,
		ExitCode:           res.ExitCode,
		Cancelled:          res.Cancelled,
		Truncated:          res.Truncated,
		FullOutputPath:     res.FullOutputPath,
		Timestamp:          provider.Now(),
		ExcludeFromContext: excludeFromContext,
	})
	return res, nil
}

// AbortBash kills the running `!` command, if any.
func (s *Session) AbortBash() {
	s.mu.Lock()
	cancel := s.bashCancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// IsBashRunning reports whether a `!` command runs.
func (s *Session) IsBashRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bashCancel != nil
}

func (s *Session) recordBash(m *provider.BashExecutionMessage) {
	s.mu.Lock()
	if s.busy || s.agent.IsRunning() {
		s.pendingBash = append(s.pendingBash, m)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.agent.AppendMessage(m)
	s.appendEntry(s.Store().AppendMessage(m))
}

// flushPendingBash adds the `!` results that arrived during a run, in order.
func (s *Session) flushPendingBash() {
	s.mu.Lock()
	pending := s.pendingBash
	s.pendingBash = nil
	s.mu.Unlock()
	for _, m := range pending {
		s.agent.AppendMessage(m)
		s.appendEntry(s.Store().AppendMessage(m))
	}
	s.flushAfterRun()
}
