package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
)

// openCheckpoints opens the checkpoint store of the project cwd on first need, with the settings'
// file size limit.
func (a *app) openCheckpoints(cwd string) func() (*checkpoint.Store, error) {
	return func() (*checkpoint.Store, error) {
		return checkpoint.Open(context.Background(), checkpoint.Options{
			AgentDir:    a.paths.Dir,
			ProjectDir:  cwd,
			MaxFileSize: a.settings.Settings().CheckpointMaxFileSize(),
		})
	}
}

// runRewind restores the session's files to a checkpoint (--rewind), without the TUI. Files changed
// outside pi-go since the session's last snapshot are listed and left alone unless --force.
func (a *app) runRewind(ctx context.Context, sess *harness.Session) error {
	a.flushWarnings()
	c, err := sess.FindCheckpoint(ctx, a.opts.Rewind)
	if err != nil {
		return &exitError{code: 1, msg: "Error: " + err.Error()}
	}
	res, err := sess.RestoreCheckpoint(ctx, c, a.opts.Force)
	var ce *checkpoint.ConflictError
	if errors.As(err, &ce) {
		var b strings.Builder
		b.WriteString("Error: these files changed outside pi-go since its last checkpoint and would be overwritten:\n")
		for _, p := range ce.Paths {
			b.WriteString("  " + p + "\n")
		}
		b.WriteString("Nothing was changed. Run again with --force to overwrite them.")
		return &exitError{code: 1, msg: b.String()}
	}
	if err != nil {
		return &exitError{code: 1, msg: "Error: " + err.Error()}
	}
	out := a.io.Out
	if len(res.Changed) == 0 {
		fmt.Fprintln(out, "The files already match the checkpoint; nothing to restore.")
	} else {
		fmt.Fprintf(out, "Restored %d file(s) to checkpoint %s:\n", len(res.Changed), c.ID)
		for _, ch := range res.Changed {
			verb := map[string]string{"added": "restored", "deleted": "removed", "modified": "reverted"}[ch.Status]
			fmt.Fprintf(out, "  %-9s %s\n", verb, ch.Path)
		}
	}
	if res.UndoID != "" {
		fmt.Fprintf(out, "Undo with: pi --session %s --rewind %s\n", sess.Store().SessionID(), res.UndoID)
	}
	return nil
}

// checkpointsMain is `pi checkpoints ...`: maintenance of the rewind store.
func checkpointsMain(args []string, streams Streams) int {
	var maxAgeDays, maxStoreMB float64
	root := &cobra.Command{
		Use:           "pi checkpoints",
		Short:         "Manage pi-go's rewind store (per-turn snapshots of project files)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Delete checkpoints older than checkpointLimits.maxAgeDays and shrink stores above maxStoreMB",
		Long: `Delete checkpoints older than the age limit and, in a project's store above the size limit,
the oldest ones until it fits; then pack what is left. The limits come from settings.json
(checkpointLimits.maxAgeDays, default 30; checkpointLimits.maxStoreMB, default 1024; 0 means no
limit) unless given here. Stores of projects that no longer exist go once they are empty.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			paths, err := config.NewAgentPaths(os.Getenv)
			if err != nil {
				return err
			}
			cwd, _ := os.Getwd()
			sm := config.LoadSettings(paths.Dir, cwd)
			for _, e := range sm.Errors() {
				fmt.Fprintln(streams.Err, "Warning: "+e.Error())
			}
			s := sm.Settings()
			limits := checkpoint.Limits{MaxAge: s.CheckpointMaxAge(), MaxStoreSize: s.CheckpointMaxStoreSize()}
			if cmd.Flags().Changed("max-age-days") {
				limits.MaxAge = config.Settings{CheckpointLimits: config.CheckpointLimitSettings{MaxAgeDays: &maxAgeDays}}.CheckpointMaxAge()
			}
			if cmd.Flags().Changed("max-store-mb") {
				limits.MaxStoreSize = config.Settings{CheckpointLimits: config.CheckpointLimitSettings{MaxStoreMB: &maxStoreMB}}.CheckpointMaxStoreSize()
			}
			reports, err := checkpoint.Prune(cmd.Context(), paths.Dir, limits)
			for _, r := range reports {
				line := fmt.Sprintf("%s: deleted %d, kept %d checkpoint(s), %s -> %s", r.Project, r.Deleted, r.Kept, humanBytes(r.Before), humanBytes(r.After))
				if r.Removed {
					line += " (project gone: store removed)"
				}
				fmt.Fprintln(streams.Out, line)
			}
			if err == nil && len(reports) == 0 {
				fmt.Fprintln(streams.Out, "No checkpoint stores in "+checkpoint.StoresDir(paths.Dir))
			}
			return err
		},
	}
	prune.Flags().Float64Var(&maxAgeDays, "max-age-days", 0, "Age limit in days (0: none; default from settings)")
	prune.Flags().Float64Var(&maxStoreMB, "max-store-mb", 0, "Size limit of each project's store in MB (0: none; default from settings)")
	root.AddCommand(prune)
	root.SetArgs(args)
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.CompletionOptions.DisableDefaultCmd = true
	if err := root.ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(streams.Err, "Error: "+err.Error())
		return 1
	}
	return 0
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
