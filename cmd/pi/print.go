package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/rpc"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tools"
)

// headerRecord is the session header as pi writes it (first line of the file and of --mode json).
type headerRecord struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

func newHeaderRecord(h session.Header) headerRecord {
	v := h.Version
	if v == 0 {
		v = session.CurrentVersion
	}
	return headerRecord{Type: "session", Version: v, ID: h.ID, Timestamp: h.Timestamp, Cwd: h.Cwd, ParentSession: h.ParentSession}
}

// runPrint is -p (the final answer on stdout) and --mode json (every event as a JSON line). Prompts
// run one after another; SIGINT/SIGTERM/SIGHUP abort the run cleanly and exit with 130/143/129.
func (a *app) runPrint(ctx context.Context, sess *harness.Session, initial string, images []provider.Content) error {
	jsonMode := a.opts.Mode == "json"
	if jsonMode {
		out := rpc.NewLineWriter(a.io.Out)
		defer out.Close()
		if err := out.WriteRecord(newHeaderRecord(sess.Store().Header()), true); err != nil {
			return err
		}
		events := rpc.NewEventWriter(out)
		unsubscribe := sess.Subscribe(func(e harness.Event) { _ = events.Write(e) })
		defer unsubscribe()
	} else {
		// Text mode prints only the answer on stdout; what the user waits for goes to stderr.
		unsubscribe := sess.Subscribe(func(e harness.Event) { a.printProgress(e) })
		defer unsubscribe()
	}
	prompts := a.opts.Messages
	if initial != "" {
		prompts = append([]string{initial}, prompts...)
	} else if len(images) > 0 && len(prompts) == 0 {
		prompts = []string{""}
	}
	for i, text := range prompts {
		var imgs []provider.Content
		if i == 0 {
			imgs = images
		}
		if err := sess.Prompt(ctx, text, imgs, harness.BehaviorNone); err != nil {
			if code := signalExitCode(ctx); code != 0 {
				return &exitError{code: code}
			}
			return &exitError{code: 1, msg: err.Error()}
		}
		if code := signalExitCode(ctx); code != 0 {
			return &exitError{code: code}
		}
	}
	msgs := sess.Messages()
	if len(msgs) == 0 {
		return nil
	}
	last, ok := msgs[len(msgs)-1].(*provider.AssistantMessage)
	if !ok {
		return nil
	}
	// A failed run exits 1 in both modes (pi 1.6 exits 0 in JSON mode, so scripts cannot tell); in
	// JSON mode the last events on stdout say why as well.
	if last.StopReason == provider.StopReasonError || last.StopReason == provider.StopReasonAborted {
		msg := last.ErrorMessage
		if msg == "" {
			msg = "Request " + string(last.StopReason)
		}
		return &exitError{code: 1, msg: msg}
	}
	if jsonMode {
		return nil
	}
	var b strings.Builder
	for _, c := range last.Content {
		if c.Type == provider.ContentText {
			b.WriteString(c.Text)
			b.WriteByte('\n')
		}
	}
	if _, err := fmt.Fprint(a.io.Out, b.String()); err != nil {
		return err
	}
	if last.StopReason == provider.StopReasonLength {
		// pi 1.6: the truncated answer is printed, and the exit status says it is incomplete.
		return &exitError{code: 1, msg: "Response was truncated: the model reached its output token limit."}
	}
	return nil
}

// printProgress tells a -p user on stderr why nothing happens for a while.
func (a *app) printProgress(e harness.Event) {
	switch e.Type {
	case harness.EventAutoRetryStart:
		fmt.Fprintf(a.io.Err, "Retrying (%d/%d) in %.1fs: %s\n", e.Attempt, e.MaxAttempts, float64(e.DelayMs)/1000, e.ErrorMessage)
	case harness.EventCompactionStart:
		fmt.Fprintf(a.io.Err, "Compacting the context (%s)...\n", e.Reason)
	case harness.EventCompactionEnd:
		if e.ErrorMessage != "" {
			fmt.Fprintln(a.io.Err, e.ErrorMessage)
		}
	}
}

// initialMessage builds the first prompt from piped stdin, @file arguments and the first message, as
// pi does: stdin, then the files, then the first message, joined without separators.
func (a *app) initialMessage(stdinText string) (string, []provider.Content, error) {
	var text strings.Builder
	var images []provider.Content
	text.WriteString(stdinText)
	for _, arg := range a.opts.FileArgs {
		path := tools.ResolveReadPath(arg, a.cwd) // absolute: relative paths are joined to cwd
		info, err := os.Stat(path)
		if err != nil {
			return "", nil, &exitError{code: 1, msg: "Error: File not found: " + path}
		}
		if info.IsDir() {
			return "", nil, &exitError{code: 1, msg: "Error: Could not read file " + path + ": it is a directory"}
		}
		if info.Size() == 0 {
			continue
		}
		img, note, isImage, err := tools.LoadImageFile(path, !a.settings.Settings().AutoResizeImages())
		if err != nil {
			return "", nil, &exitError{code: 1, msg: "Error: Could not read file " + path + ": " + err.Error()}
		}
		if isImage {
			if img == nil {
				fmt.Fprintf(&text, "<file name=\"%s\">%s</file>\n", path, note)
				continue
			}
			images = append(images, *img)
			fmt.Fprintf(&text, "<file name=\"%s\">%s</file>\n", path, note)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", nil, &exitError{code: 1, msg: "Error: Could not read file " + path + ": " + err.Error()}
		}
		fmt.Fprintf(&text, "<file name=\"%s\">\n%s\n</file>\n", path, data)
	}
	if len(a.opts.Messages) > 0 {
		text.WriteString(a.opts.Messages[0])
		a.opts.Messages = a.opts.Messages[1:]
	}
	return text.String(), images, nil
}
