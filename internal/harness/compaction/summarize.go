package compaction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// Summarizer asks a model for summaries: the harness gives it the session's stream function, model
// and credentials; tests give it a scripted stream.
type Summarizer struct {
	Stream  loop.StreamFunc
	Model   *provider.Model
	APIKey  string
	Headers map[string]string
	// ThinkingLevel is the session's level: a reasoning model summarises with it, compactions and
	// branch summaries alike (pi 1.6), other models without reasoning.
	ThinkingLevel provider.ThinkingLevel
	// ConvertToLLM turns coding-agent messages (bash executions, custom messages, summaries) into LLM
	// messages before they are serialised: the harness's ConvertToLLM.
	ConvertToLLM func([]provider.Message) []provider.Message
}

func (s Summarizer) validate() error {
	switch {
	case s.Stream == nil:
		return errors.New("compaction: no stream function")
	case s.Model == nil:
		return errors.New("compaction: no model")
	case s.ConvertToLLM == nil:
		return errors.New("compaction: no message conversion")
	}
	return nil
}

// reasoning is the reasoning level of compaction requests: the session's, for reasoning models.
func (s Summarizer) reasoning() provider.ThinkingLevel {
	if s.Model.Reasoning && s.ThinkingLevel != "" && s.ThinkingLevel != provider.ThinkingOff {
		return s.ThinkingLevel
	}
	return ""
}

// request sends one summary request: the system prompt and a single user message. A cancelled ctx,
// before or during the stream, or an aborted answer gives ErrCancelled.
func (s Summarizer) request(ctx context.Context, prompt string, maxTokens int, reasoning provider.ThinkingLevel) (*provider.AssistantMessage, error) {
	if ctx.Err() != nil {
		return nil, ErrCancelled
	}
	req := &provider.Request{
		Model:        s.Model,
		SystemPrompt: SystemPrompt,
		Messages: []provider.Message{&provider.UserMessage{
			Content:   []provider.Content{provider.TextContent(prompt)},
			Timestamp: provider.Now(),
		}},
		Options: provider.StreamOptions{APIKey: s.APIKey, Headers: s.Headers, MaxTokens: maxTokens, Reasoning: reasoning},
	}
	msg := s.Stream(provider.WithDirectRequest(ctx), req, func(*provider.AssistantEvent) {})
	if ctx.Err() != nil || (msg != nil && msg.StopReason == provider.StopReasonAborted) {
		return nil, ErrCancelled
	}
	if msg == nil {
		return nil, errors.New("compaction: the stream ended without a message")
	}
	return msg, nil
}

// prompt is a summary prompt: msgs serialised inside the <conversation> tags every summary prompt
// starts with, then the rest. It is written once, at its final size (a long history makes a prompt of
// tens of megabytes).
func (s Summarizer) prompt(msgs []provider.Message, rest ...string) string {
	pieces := []string{"<conversation>\n"}
	pieces = serializedPieces(pieces, s.ConvertToLLM(msgs))
	pieces = append(pieces, "\n</conversation>\n\n")
	return concat(append(pieces, rest...))
}

// answerText joins the text blocks of a summary answer with newlines.
func answerText(m *provider.AssistantMessage) string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == provider.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// failure says why an answer cannot be used as a summary (pi 1.6's getSummarizationFailure and its
// tool-call check), or "": an error ("<label> failed: <message>"), an answer cut at the output limit
// (its text is incomplete), a tool call.
func failure(m *provider.AssistantMessage, label string) string {
	switch m.StopReason {
	case provider.StopReasonError:
		msg := m.ErrorMessage
		if msg == "" {
			msg = "Unknown error"
		}
		return label + " failed: " + msg
	case provider.StopReasonLength:
		return label + " failed: generation hit the token cap and the summary is incomplete"
	}
	for _, c := range m.Content {
		if c.Type == provider.ContentToolCall {
			return label + " attempted to call a tool"
		}
	}
	return ""
}

// GenerateSummary summarises msgs in pi's structured format (Goal, Constraints & Preferences,
// Progress, Key Decisions, Next Steps, Critical Context). With a previousSummary the model is asked
// to update it with the new messages instead. customInstructions are added as "Additional focus".
// The answer may use the model's whole output limit (pi 1.6; 0.73.1 allowed 80 % of reserveTokens).
// A failed answer gives "Summarization failed: …" (see failure).
func (s Summarizer) GenerateSummary(ctx context.Context, msgs []provider.Message, customInstructions, previousSummary string) (string, error) {
	text, _, err := s.generateSummary(ctx, msgs, customInstructions, previousSummary)
	return text, err
}

// generateSummary is GenerateSummary that also returns the request's usage.
func (s Summarizer) generateSummary(ctx context.Context, msgs []provider.Message, customInstructions, previousSummary string) (string, provider.Usage, error) {
	if err := s.validate(); err != nil {
		return "", provider.Usage{}, err
	}
	instructions := summarizationPrompt
	if previousSummary != "" {
		instructions = updateSummarizationPrompt
	}
	if customInstructions != "" {
		instructions += "\n\nAdditional focus: " + customInstructions
	}
	var prompt string
	if previousSummary != "" {
		prompt = s.prompt(msgs, "<previous-summary>\n", previousSummary, "\n</previous-summary>\n\n", instructions)
	} else {
		prompt = s.prompt(msgs, instructions)
	}
	msg, err := s.request(ctx, prompt, 0, s.reasoning())
	if err != nil {
		return "", provider.Usage{}, err
	}
	if f := failure(msg, "Summarization"); f != "" {
		return "", provider.Usage{}, errors.New(f)
	}
	return answerText(msg), msg.Usage, nil
}

// GenerateTurnPrefixSummary summarises the beginning of a split turn (Original Request, Progress So
// Far, Context Needed to Continue), with the user's customInstructions as "Additional focus" (pi
// 1.6), up to the model's output limit. A failed answer gives "Turn prefix summarization failed: …".
func (s Summarizer) GenerateTurnPrefixSummary(ctx context.Context, msgs []provider.Message, customInstructions string) (string, error) {
	text, _, err := s.generateTurnPrefixSummary(ctx, msgs, customInstructions)
	return text, err
}

// generateTurnPrefixSummary is GenerateTurnPrefixSummary that also returns the request's usage.
func (s Summarizer) generateTurnPrefixSummary(ctx context.Context, msgs []provider.Message, customInstructions string) (string, provider.Usage, error) {
	if err := s.validate(); err != nil {
		return "", provider.Usage{}, err
	}
	pieces := serializedPieces([]string{"# Conversation\n"}, s.ConvertToLLM(msgs))
	pieces = append(pieces, "\n\n# Instructions\n", turnPrefixPrompt)
	if customInstructions != "" {
		pieces = append(pieces, "\n\nAdditional focus: ", customInstructions)
	}
	msg, err := s.request(ctx, concat(pieces), 0, s.reasoning())
	if err != nil {
		return "", provider.Usage{}, err
	}
	if f := failure(msg, "Turn prefix summarization"); f != "" {
		return "", provider.Usage{}, errors.New(f)
	}
	return answerText(msg), msg.Usage, nil
}

// noPriorHistory stands for the history summary of a split turn that has no history before it and no
// earlier summary.
const noPriorHistory = "No prior history."

// Summarize generates the summary of a prepared compaction (pi's compact): the history summary, and
// for a split turn the turn-prefix summary in parallel, merged under "**Turn Context (split turn):**";
// then the read and modified file lists. Cancelling ctx at any point gives ErrCancelled, and the
// caller must write nothing.
func (s Summarizer) Summarize(ctx context.Context, prep *Preparation, customInstructions string) (Result, error) {
	if err := s.validate(); err != nil {
		return Result{}, err
	}
	if ctx.Err() != nil {
		return Result{}, ErrCancelled
	}
	var summary string
	var usage provider.Usage
	if prep.IsSplitTurn && len(prep.TurnPrefixMessages) > 0 {
		var history, prefix string
		var historyUsage, prefixUsage provider.Usage
		g, gctx := errgroup.WithContext(ctx)
		g.Go(func() error {
			if len(prep.MessagesToSummarize) == 0 {
				// pi 1.6 keeps the earlier summary as the history (0.73.1 said "No prior history.").
				history = prep.PreviousSummary
				if history == "" {
					history = noPriorHistory
				}
				return nil
			}
			var err error
			history, historyUsage, err = s.generateSummary(gctx, prep.MessagesToSummarize, customInstructions, prep.PreviousSummary)
			return err
		})
		g.Go(func() error {
			var err error
			prefix, prefixUsage, err = s.generateTurnPrefixSummary(gctx, prep.TurnPrefixMessages, customInstructions)
			return err
		})
		err := g.Wait()
		if ctx.Err() != nil {
			return Result{}, ErrCancelled
		}
		if err != nil {
			return Result{}, err
		}
		summary = history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix
		usage = historyUsage
		usage.Add(prefixUsage)
	} else {
		var err error
		summary, usage, err = s.generateSummary(ctx, prep.MessagesToSummarize, customInstructions, prep.PreviousSummary)
		if err != nil {
			return Result{}, err
		}
	}
	ops := prep.FileOps
	if ops == nil {
		ops = NewFileOps()
	}
	readFiles, modifiedFiles := ops.Lists()
	summary += FormatFileOperations(readFiles, modifiedFiles)
	if ctx.Err() != nil {
		return Result{}, ErrCancelled
	}
	return Result{
		Summary:          summary,
		FirstKeptEntryID: prep.FirstKeptEntryID,
		TokensBefore:     prep.TokensBefore,
		Usage:            usage,
		Details:          Details{ReadFiles: readFiles, ModifiedFiles: modifiedFiles},
	}, nil
}

// Params is a whole compaction: who summarises, the branch (root → leaf entries, from
// session.Manager.Path("")), the settings, the limits of the requests it makes room in and the user's
// instructions (/compact <instructions>). A Limits.ContextWindow of 0 means the summarising model's.
type Params struct {
	Summarizer         Summarizer
	Branch             []*session.Entry
	Settings           Settings
	Limits             Limits
	CustomInstructions string
}

// Compact prepares and summarises a compaction of a branch, for manual, threshold and overflow
// compaction alike. The harness appends the result as a compaction entry
// (session.Manager.AppendCompaction(r.Summary, r.FirstKeptEntryID, r.TokensBefore, r.Details, false, &r.Usage))
// and rebuilds the transcript from the session.
//
// Errors: ErrAlreadyCompacted and ErrNothingToCompact when there is nothing to do and *FitError when
// compacting cannot make the context fit (both before any request); ErrCancelled when ctx was
// cancelled (nothing must be written); "Summarization failed: …" and "Turn prefix summarization
// failed: …" when the model answered with an error; an error saying so when the summary came back
// too long for the window. EndState turns an error into what compaction_end reports.
func Compact(ctx context.Context, p Params) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, ErrCancelled
	}
	prep, err := p.Prepare()
	if err != nil {
		return Result{}, err
	}
	return p.Summarize(ctx, prep)
}

// limits are p.Limits with the summarising model's window when none is given.
func (p Params) limits() Limits {
	l := p.Limits
	if l.ContextWindow <= 0 && p.Summarizer.Model != nil {
		l.ContextWindow = p.Summarizer.Model.ContextWindow
	}
	return l
}

// Prepare is Compact's first half: it decides what to summarise and keep, without any request.
func (p Params) Prepare() (*Preparation, error) {
	if err := p.Summarizer.validate(); err != nil {
		return nil, err
	}
	return Prepare(p.Branch, p.Settings, p.limits())
}

// Summarize is Compact's second half: it asks for the summary of prep and checks that the result fits.
func (p Params) Summarize(ctx context.Context, prep *Preparation) (Result, error) {
	res, err := p.Summarizer.Summarize(ctx, prep, p.CustomInstructions)
	if err != nil {
		return res, err
	}
	l := p.limits()
	if l.ContextWindow > 0 {
		summary := EstimateTokens(&provider.CompactionSummaryMessage{Summary: res.Summary})
		if after := l.Overhead + summary + prep.KeptTokens; after > l.ContextWindow {
			return Result{}, fmt.Errorf("the summary (about %d tokens), the kept messages (about %d tokens) and the "+
				"system prompt and tools (about %d tokens) do not fit the model's context window of %d tokens",
				summary, prep.KeptTokens, l.Overhead, l.ContextWindow)
		}
	}
	return res, nil
}
