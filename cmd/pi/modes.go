package main

import (
	"context"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
)

// runRPC and runInteractive are wired to internal/rpc and internal/tui as those packages land; until
// then these modes say so instead of pretending.
func (a *app) runRPC(ctx context.Context, sess *harness.Session) error {
	return &exitError{code: 1, msg: "Error: --mode rpc is not available in this build yet"}
}

func (a *app) runInteractive(ctx context.Context, sess *harness.Session, sel modelSelection, initial string, images []provider.Content) error {
	return &exitError{code: 1, msg: "Error: the interactive TUI is not available in this build yet; use -p or --mode json"}
}
