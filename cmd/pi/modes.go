package main

import (
	"context"
	"errors"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/demo"
	"github.com/pi-go/pi-go/internal/rpc"
	"github.com/pi-go/pi-go/internal/tui"
)

// errInputEnded reports that RPC mode ended because its input did: the shutdown that started then is
// orderly and exits 0, even if a signal arrives meanwhile (pi 1.6).
var errInputEnded = errors.New("rpc: the input ended")

// runRPC speaks pi's RPC protocol on stdin/stdout until stdin ends (errInputEnded) or ctx does.
func (a *app) runRPC(ctx context.Context, sess *harness.Session) error {
	opts := rpc.ServeOptions{Stderr: a.io.Err, ExportTheme: a.exportTheme(), Shutdown: a.ext.shutdownRequests()}
	if ui, ok := a.ext.rpcUI(); ok {
		opts.ExtensionUI = ui
	}
	defer startSettleRelease(ctx)()
	err := rpc.Serve(ctx, sess, a.io.In, a.io.Out, opts)
	if err == nil {
		return errInputEnded
	}
	return err
}

// runInteractive runs the TUI.
func (a *app) runInteractive(ctx context.Context, sess *harness.Session, sel modelSelection, initial string, images []provider.Content) error {
	var messages []string
	if initial != "" {
		messages = append(messages, initial)
	}
	messages = append(messages, a.opts.Messages...)
	opts := tui.Options{
		Version:         version,
		InitialMessages: messages,
		InitialImages:   images,
		Demo:            sel.demo,
		DemoHint:        demo.Hint,
		ResumePicker:    a.opts.Resume,
		SessionsDir:     a.sessDir,
		SessionsRoot:    a.paths.Sessions(),
		Warnings:        a.warnings,
		WarningSink:     a.sink,
		ExtensionUI:     a.ext.tuiUI(),
		Settings:        a.settings,
		Trust:           config.NewTrustStore(a.paths.Dir),
		ProjectTrusted:  a.projectTrusted,
		MCP:             a.mcp,
		Logins:          a.tuiLogins(),
		TUIMode:         a.opts.TUIMode,
		AgentDir:        a.paths.Dir,
	}
	a.warnings = nil
	if f, ok := a.io.In.(interface{ Fd() uintptr }); ok && f != nil {
		opts.In = a.io.In
	}
	opts.Out = a.io.Out
	defer startSettleRelease(ctx)()
	return tui.Run(ctx, sess, opts)
}
