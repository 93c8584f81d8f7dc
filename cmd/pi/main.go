// Command pi is the pi-go coding agent: an interactive terminal UI by default, or print (-p), JSON
// event stream (--mode json) and RPC (--mode rpc) modes for scripts and editors.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pi-go/pi-go/internal/tui"
)

func main() {
	// pi 1.6's process markers: every child (tools, ! commands, !command config values) sees them.
	_ = os.Setenv("PI_CODING_AGENT", "true")
	_ = os.Setenv("AI_AGENT", "pi")
	os.Exit(Main(os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// Streams are the process's standard streams, injected so tests capture them.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// StdinIsTTY overrides terminal detection of In (nil: detect).
	StdinIsTTY *bool
}

func (s Streams) stdinIsTTY() bool {
	if s.StdinIsTTY != nil {
		return *s.StdinIsTTY
	}
	if f, ok := s.In.(*os.File); ok {
		return term.IsTerminal(int(f.Fd()))
	}
	return false
}

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Main runs pi with args and returns the process exit code. Exit codes are decided here only.
func Main(args []string, io Streams) int {
	if len(args) > 0 && args[0] == "checkpoints" {
		return checkpointsMain(args[1:], io)
	}
	if isPackageCommand(args) {
		ctx, stop := signalContext(false)
		defer stop()
		return packageMain(ctx, args, io)
	}
	var opts Options
	var listModels string
	cmd := &cobra.Command{
		Use:           "pi [flags] [@files...] [messages...]",
		Short:         "pi-go: a coding agent in your terminal (read, bash, edit, write tools)",
		Long:          helpText,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := finishOptions(cmd, &opts, listModels, args); err != nil {
				return err
			}
			if opts.Version {
				fmt.Fprintln(io.Out, versionText())
				return nil
			}
			ctx, stop := signalContext(opts.Mode == "rpc")
			defer stop()
			err := run(ctx, &opts, io)
			if errors.Is(err, errInputEnded) {
				return nil // RPC's input ended first: a signal during its shutdown does not change the exit code
			}
			// A signal, or the terminal going away, ends every mode the same way once run has
			// stopped what it started and saved the session: exit 128 + the signal's number.
			if code := signalExitCode(ctx); code != 0 {
				return &exitError{code: code}
			}
			if errors.Is(err, tui.ErrTerminalClosed) {
				return &exitError{code: 128 + int(syscall.SIGHUP)}
			}
			return err
		},
	}
	cmd.SetIn(io.In)
	cmd.SetOut(io.Out)
	cmd.SetErr(io.Err)
	bindFlags(cmd, &opts, &listModels)
	cmd.AddCommand(newMCPCmd(io))
	normalized, err := normalizeArgs(args)
	if err != nil {
		fmt.Fprintln(io.Err, "Error: "+err.Error())
		return 1
	}
	normalized, opts.ExtensionFlags = splitExtensionFlags(cmd.Flags(), normalized)
	cmd.SetArgs(normalized)
	cmd.CompletionOptions.HiddenDefaultCmd = true
	err = cmd.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(io.Err, ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(io.Err, "Error: "+err.Error())
	return 1
}

// signalContext is cancelled by SIGINT, SIGTERM or SIGHUP (the terminal was closed); the signal that
// did it is remembered so the exit code can say which (130 / 143 / 129). A SIGHUP that was ignored
// when pi started (nohup) stays ignored: the user asked for the run to outlive the terminal. With
// exitOnRepeat (RPC mode, as pi 1.6), the orderly shutdown the first signal starts is not cut short by
// the end of the input, but a second signal exits at once with its own code; otherwise later signals
// are ignored.
func signalContext(exitOnRepeat bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case sig := <-ch:
				if n == 1 {
					cancel(&signalError{sig: sig})
					if !exitOnRepeat {
						return
					}
					continue
				}
				os.Exit(exitCodeOf(sig))
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "interrupted by " + e.sig.String() }

// signalExitCode is 128 + the signal number of the signal that cancelled ctx, or 0.
func signalExitCode(ctx context.Context) int {
	var se *signalError
	if errors.As(context.Cause(ctx), &se) {
		return exitCodeOf(se.sig)
	}
	return 0
}

// exitCodeOf is a shell's exit code for a death by sig: 128 + its number.
func exitCodeOf(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

const helpText = `pi-go - a coding agent in your terminal, compatible with pi's config, sessions and protocols.

With no API key configured, interactive pi runs on a built-in offline demo model so you can try
streaming, tools, steering (Enter while it works), follow-ups (Alt+Enter) and abort (Escape).

Examples:
  pi                                         interactive mode
  pi "List all .go files in cmd/"            interactive mode with an initial prompt
  pi @prompt.md @image.png "What is this?"   include files in the first message
  pi -p "Summarise README.md"                print the answer and exit
  pi --mode json "Fix the test"              every event as one JSON line
  pi --mode rpc                              pi's RPC protocol on stdin/stdout
  pi -c "What did we discuss?"               continue the most recent session here
  pi --model openai/gpt-4o-mini              choose a model ("provider/id", fuzzy, ":high" suffix)
  pi --base-url http://localhost:11434/v1 --model qwen2.5-coder    any OpenAI-compatible server
  pi --tools read,grep,find,ls -p "Review the code in internal/"   read-only tools
  pi --tools +grep,-bash                     the default tools with grep and without bash
  pi --session-id fix-login --name "Login bug"   this directory's session with that id, named
  pi --session <id> --rewind <entry>         restore the files to a checkpoint (add --force on conflicts)
  pi checkpoints prune                       apply the rewind store's age and size limits
  pi -p -- "- a prompt starting with a dash" "--" ends the options

Environment:
  OPENAI_API_KEY, OPENROUTER_API_KEY, GROQ_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY, XAI_API_KEY,
  CEREBRAS_API_KEY       provider keys (also ~/.pi/agent/auth.json and models.json)
  OPENAI_BASE_URL        default for --base-url
  PI_CODING_AGENT_DIR    config directory (default ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR  session directory (overridden by --session-dir)
  PI_DEMO_DELAY          pace of the demo model (e.g. 0 for full speed)`
