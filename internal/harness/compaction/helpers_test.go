package compaction

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// branch builds a session branch in memory, entry by entry.
type branch struct {
	t testing.TB
	m *session.Manager
}

func newBranch(t testing.TB) *branch {
	return &branch{t: t, m: session.InMemory("/work")}
}

func (b *branch) add(m provider.Message) string {
	b.t.Helper()
	id, err := b.m.AppendMessage(m)
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

func (b *branch) user(text string) string { return b.add(provider.NewUserMessage(text)) }

func (b *branch) assistant(text string, u provider.Usage) string {
	return b.add(assistantMsg(u, provider.TextContent(text)))
}

// toolCall adds an assistant message calling one tool, then its result.
func (b *branch) toolCall(name, args, result string) (callID, resultID string) {
	callID = b.add(assistantMsg(usage(0, 10, 0, 0), provider.ToolCallContent("call_"+name, name, json.RawMessage(args))))
	resultID = b.add(&provider.ToolResultMessage{ToolCallID: "call_" + name, ToolName: name,
		Content: []provider.Content{provider.TextContent(result)}, Timestamp: provider.Now()})
	return callID, resultID
}

func (b *branch) compaction(summary, firstKept string, details any) string {
	b.t.Helper()
	id, err := b.m.AppendCompaction(summary, firstKept, 10000, details, false, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return id
}

func (b *branch) entries() []*session.Entry { return b.m.Path("") }

func (b *branch) index(id string) int {
	for i, e := range b.entries() {
		if e.ID == id {
			return i
		}
	}
	b.t.Fatalf("no entry %s", id)
	return -1
}

func usage(input, output, cacheRead, cacheWrite int) provider.Usage {
	return provider.Usage{Input: input, Output: output, CacheRead: cacheRead, CacheWrite: cacheWrite,
		TotalTokens: input + output + cacheRead + cacheWrite}
}

func assistantMsg(u provider.Usage, content ...provider.Content) *provider.AssistantMessage {
	return &provider.AssistantMessage{Content: content, API: provider.APIOpenAICompletions, Provider: "test",
		Model: "test-model", Usage: u, StopReason: provider.StopReasonStop, Timestamp: provider.Now()}
}

// words returns a text of about n tokens by pi's estimate (4 characters a token).
func words(n int) string { return strings.Repeat("abc ", n) }

// scriptedStream answers summary requests through provider.StreamBuilder and records them.
type scriptedStream struct {
	mu       sync.Mutex
	requests []*provider.Request
	// answer returns the text of the answer to a request, or an error message with fail set.
	answer func(ctx context.Context, req *provider.Request) (text string, fail string)
}

func (s *scriptedStream) stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	sb := provider.NewStreamBuilder(req.Model, emit)
	sb.Start()
	text, fail := "summary", ""
	if s.answer != nil {
		text, fail = s.answer(ctx, req)
	}
	if ctx.Err() != nil {
		return sb.Fail(provider.StopReasonAborted, "Request was aborted")
	}
	if fail != "" {
		return sb.Fail(provider.StopReasonError, fail)
	}
	sb.Text(text)
	// Every answer costs the same: a split turn's result adds up two of them.
	sb.SetUsage(provider.Usage{Input: 100, Output: 10, TotalTokens: 110})
	return sb.Finish()
}

func (s *scriptedStream) all() []*provider.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*provider.Request(nil), s.requests...)
}

// promptOf is the text of a summary request's only user message.
func promptOf(t testing.TB, req *provider.Request) string {
	t.Helper()
	if len(req.Messages) != 1 {
		t.Fatalf("request has %d messages, want 1", len(req.Messages))
	}
	u, ok := req.Messages[0].(*provider.UserMessage)
	if !ok || len(u.Content) != 1 || u.Content[0].Type != provider.ContentText {
		t.Fatalf("request message is %#v", req.Messages[0])
	}
	return u.Content[0].Text
}

var testModel = &provider.Model{ID: "test-model", Provider: "test", API: provider.APIOpenAICompletions, ContextWindow: 128000, MaxTokens: 8192}

// convert is harness.ConvertToLLM's twin (this package may not import the harness), checked against
// pi's convertToLlm by the golden test: bash executions, custom messages and summaries become user
// messages with pi's wrappers.
func convert(msgs []provider.Message) []provider.Message {
	out := make([]provider.Message, 0, len(msgs))
	text := func(s string, ts int64) *provider.UserMessage {
		return &provider.UserMessage{Content: []provider.Content{provider.TextContent(s)}, Timestamp: ts}
	}
	for _, m := range msgs {
		switch m := m.(type) {
		case *provider.UserMessage, *provider.AssistantMessage, *provider.ToolResultMessage:
			out = append(out, m)
		case *provider.CompactionSummaryMessage:
			out = append(out, text("The conversation history before this point was compacted into the following summary:\n\n<summary>\n"+m.Summary+"\n</summary>", m.Timestamp))
		case *provider.BranchSummaryMessage:
			out = append(out, text("The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"+m.Summary+"</summary>", m.Timestamp))
		case *provider.BashExecutionMessage:
			if m.ExcludeFromContext {
				continue
			}
			s := "Ran `" + m.Command + "`\n"
			if m.Output != "" {
				s += "```\n" + m.Output + "\n```"
			} else {
				s += "(no output)"
			}
			if m.Cancelled {
				s += "\n\n(command cancelled)"
			} else if m.ExitCode != nil && *m.ExitCode != 0 {
				s += "\n\nCommand exited with code " + strconv.Itoa(*m.ExitCode)
			}
			if m.Truncated && m.FullOutputPath != "" {
				s += "\n\n[Output truncated. Full output: " + m.FullOutputPath + "]"
			}
			out = append(out, text(s, m.Timestamp))
		case *provider.CustomMessage:
			out = append(out, &provider.UserMessage{Content: m.Content, Timestamp: m.Timestamp})
		}
	}
	return out
}
