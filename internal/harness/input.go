package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
)

// This file is what happens to a user's text before it reaches the agent (pi's session.prompt()),
// the same for every mode; the interactive mode has run its built-in commands (/model, /reload, …)
// before it calls Prompt. In pi's order: a registered extension command runs at once (even during a
// run) and nothing is sent; otherwise the extensions' input handlers may transform or handle the text;
// then "/skill:name args" becomes the skill's instructions, "/template args" the template's text; any
// other text is sent unchanged.

// DispositionHandled: an extension command or input handler dealt with the prompt; nothing was sent.
const DispositionHandled Disposition = "handled"

// InputSource says where a prompt came from, as pi tells input handlers.
type InputSource string

const (
	SourceInteractive InputSource = "interactive"
	SourceRPC         InputSource = "rpc"
	SourceExtension   InputSource = "extension"
)

// InputAction is what an input handler decided.
type InputAction string

const (
	InputContinue  InputAction = "continue"
	InputTransform InputAction = "transform"
	InputHandled   InputAction = "handled"
)

// InputEvent is the text an input handler sees (before template and skill expansion).
type InputEvent struct {
	Text   string
	Images []provider.Content
	Source InputSource
	// StreamingBehavior is set only while a run is active.
	StreamingBehavior StreamingBehavior
}

// InputResult is an input handler's answer: Transform replaces the text (and the images, when it
// gives any), Handled stops the prompt.
type InputResult struct {
	Action InputAction
	Text   string
	Images []provider.Content
}

// ExtensionCommand is a slash command an extension registered.
type ExtensionCommand struct {
	// Name is what follows the "/" (pi's invocationName).
	Name        string
	Description string
	Source      resources.SourceInfo
	// Complete lists completions of the argument text (nil: the command completes nothing).
	Complete func(ctx context.Context, prefix string) ([]resources.ArgumentCompletion, error)
}

// Extensions is where the extension host plugs into the prompt pipeline. A nil Extensions in Options
// is a session without extensions: every text falls through to skills and templates.
type Extensions interface {
	// Commands lists the registered commands, for get_commands and the editor's completion.
	Commands() []ExtensionCommand
	// RunCommand runs the command registered as name with the text after its first space; found is
	// false when there is none (the text goes on through the pipeline). The command's own failure
	// is err; the prompt counts as handled either way, as in pi.
	RunCommand(ctx context.Context, name, args string) (found bool, err error)
	// Input runs the input handlers in turn.
	Input(ctx context.Context, ev InputEvent) (InputResult, error)
}

// commandName is pi's split of "/name args" at the first space.
func commandName(text string) (name, args string) {
	name, args, _ = strings.Cut(text[1:], " ")
	return name, args
}

// runExtensionCommand runs text when it names a registered extension command.
func (s *Session) runExtensionCommand(ctx context.Context, text string) bool {
	ext := s.opts.Extensions
	if ext == nil || !strings.HasPrefix(text, "/") {
		return false
	}
	name, args := commandName(text)
	found, err := ext.RunCommand(ctx, name, args)
	if err != nil {
		s.warn(fmt.Errorf("command /%s: %w", name, err))
	}
	return found
}

// isExtensionCommand reports whether text names a registered extension command.
func (s *Session) isExtensionCommand(text string) (string, bool) {
	ext := s.opts.Extensions
	if ext == nil || !strings.HasPrefix(text, "/") {
		return "", false
	}
	name, _ := commandName(text)
	for _, c := range ext.Commands() {
		if c.Name == name {
			return name, true
		}
	}
	return "", false
}

// transformInput runs the input handlers and expands skills and templates. handled: a handler took
// the text and nothing is to be sent.
func (s *Session) transformInput(ctx context.Context, text string, images []provider.Content, source InputSource,
	behavior StreamingBehavior) (string, []provider.Content, bool) {
	if ext := s.opts.Extensions; ext != nil {
		ev := InputEvent{Text: text, Images: images, Source: source}
		if s.IsStreaming() {
			ev.StreamingBehavior = behavior
		}
		res, err := ext.Input(ctx, ev)
		switch {
		case err != nil:
			s.warn(fmt.Errorf("input handler: %w", err))
		case res.Action == InputHandled:
			return "", nil, true
		case res.Action == InputTransform:
			text = res.Text
			if res.Images != nil {
				images = res.Images
			}
		}
	}
	return s.expandInput(text), images, false
}

// expandInput expands a /skill:name command or a /template command as the pipeline does (a text that
// is neither comes back unchanged). A skill that cannot be read is reported and its command sent as
// typed, as pi does.
func (s *Session) expandInput(text string) string {
	if !strings.HasPrefix(text, "/") {
		return text
	}
	set := s.Resources()
	expanded, err := resources.ExpandSkill(text, set.Skills)
	if err != nil && !errors.Is(err, resources.ErrUnknownSkill) {
		s.warn(err)
	}
	return resources.ExpandTemplate(expanded, set.Templates)
}

// QueueInput queues text as a steering message (followUp false) or a follow-up through the pipeline
// (pi's steer() and followUp()): input handlers, then skill and template expansion. An extension
// command cannot be queued.
func (s *Session) QueueInput(ctx context.Context, text string, images []provider.Content, followUp bool,
	source InputSource) (Disposition, error) {
	if name, ok := s.isExtensionCommand(text); ok {
		return "", fmt.Errorf("Extension command \"/%s\" cannot be queued. Use prompt() or execute the command when not streaming.", name)
	}
	behavior := BehaviorSteer
	if followUp {
		behavior = BehaviorFollowUp
	}
	text, images, handled := s.transformInput(ctx, text, images, source, behavior)
	if handled {
		return DispositionHandled, nil
	}
	if followUp {
		s.FollowUp(text, images)
	} else {
		s.Steer(text, images)
	}
	return DispositionQueued, nil
}

// Commands are the slash commands of extensions, templates and skills, in pi's order (get_commands).
func (s *Session) Commands() []resources.Command {
	var out []resources.Command
	if ext := s.opts.Extensions; ext != nil {
		for _, c := range ext.Commands() {
			out = append(out, resources.Command{Name: c.Name, Description: c.Description, Source: "extension", SourceInfo: c.Source, CompletesArguments: c.Complete != nil})
		}
	}
	return append(out, s.Resources().Commands()...)
}

// CompleteArguments asks the extension command name for completions of prefix, the text typed after
// "/name "; none when no such command completes its arguments.
func (s *Session) CompleteArguments(ctx context.Context, name, prefix string) ([]resources.ArgumentCompletion, error) {
	ext := s.opts.Extensions
	if ext == nil {
		return nil, nil
	}
	for _, c := range ext.Commands() {
		if c.Name == name && c.Complete != nil {
			return c.Complete(ctx, prefix)
		}
	}
	return nil, nil
}
