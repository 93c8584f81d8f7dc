package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// TestCacheHitRatioOverTwentyTurns runs a scripted 20-turn session (every other turn a tool call and
// its result, thinking with signatures throughout) against the scripted server's prompt-cache
// simulation, and measures pi's figure: the requests that read from the cache among all requests
// after the first. With the breakpoints where pi puts them (system prompt, last tool, last user
// message) every later request starts with the previous request's cached prefix.
func TestCacheHitRatioOverTwentyTurns(t *testing.T) {
	if hits, requests := cacheRun(t, CacheShort); hits != requests-1 {
		t.Errorf("cache hit ratio %d/%d, want every request after the first", hits, requests-1)
	}
	// Without breakpoints nothing is cached: the measure can fail.
	if hits, _ := cacheRun(t, CacheNone); hits != 0 {
		t.Errorf("%d cache hits without breakpoints", hits)
	}
}

func cacheRun(t *testing.T, retention CacheRetention) (hits, requests int) {
	srv := startServer(t)
	m := testModel(srv)
	tools := []provider.ToolDefinition{
		{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`),
			ConstrainedSampling: json.RawMessage(`{"type":"json_schema","strict":"prefer"}`)},
		{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	}
	system := strings.Repeat("You are a coding agent. Follow the rules. ", 200)
	var msgs []provider.Message
	p := New(Config{CacheRetention: retention})
	var read, input int
	for turn := 1; turn <= 20; turn++ {
		msgs = append(msgs, provider.NewUserMessage(fmt.Sprintf("turn %d: %s", turn, strings.Repeat("context ", 50))))
		for {
			toolTurn := turn%2 == 0 && msgs[len(msgs)-1].Role() == provider.RoleUser
			blocks := []anthropictest.Block{anthropictest.Thinking(fmt.Sprintf("sig-%d-%d", turn, requests), "thinking about it")}
			if toolTurn {
				blocks = append(blocks, anthropictest.ToolUse(fmt.Sprintf("toolu_%d", turn), "bash", `{"command":"ls"}`))
			} else {
				blocks = append(blocks, anthropictest.Text(fmt.Sprintf("answer %d", turn)))
			}
			srv.Enqueue(anthropictest.Reply{Answer: anthropictest.Answer{Blocks: blocks}})
			ans := p.Stream(context.Background(), &provider.Request{Model: m, SystemPrompt: system, Tools: tools, Messages: msgs,
				Options: provider.StreamOptions{APIKey: "k", Reasoning: provider.ThinkingMedium}}, nil)
			if ans.StopReason == provider.StopReasonError {
				t.Fatal(ans.ErrorMessage)
			}
			requests++
			if requests > 1 {
				if ans.Usage.CacheRead > 0 {
					hits++
				}
				read += ans.Usage.CacheRead
				input += ans.Usage.CacheRead + ans.Usage.CacheWrite + ans.Usage.Input
			}
			msgs = append(msgs, ans)
			if !toolTurn {
				break
			}
			msgs = append(msgs, &provider.ToolResultMessage{ToolCallID: fmt.Sprintf("toolu_%d", turn), ToolName: "bash",
				Content: []provider.Content{provider.TextContent("a.go\nb.go\n")}})
		}
	}
	t.Logf("retention %s: %d of %d requests after the first read from the cache (%.2f); %.1f%% of their input tokens were cache reads",
		retention, hits, requests-1, float64(hits)/float64(requests-1), 100*float64(read)/float64(input))
	return hits, requests
}
