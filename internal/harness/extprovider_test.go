package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/resources"
)

// observingHooks acts on nothing; it records the provider requests it replaced, the failed
// compactions and the resource discoveries.
type observingHooks struct {
	mu       sync.Mutex
	failed   []string
	discover []string
	order    *[]string
}

func (*observingHooks) ToolCall(context.Context, string, string, json.RawMessage) ToolCallVerdict {
	return ToolCallVerdict{}
}
func (*observingHooks) ToolResult(context.Context, ToolResultInfo) *ToolResultChange { return nil }
func (*observingHooks) Context(context.Context, []provider.Message) []provider.Message {
	return nil
}
func (*observingHooks) BeforeAgentStart(context.Context, string, []provider.Content, string) ([]provider.Message, string) {
	return nil, ""
}

func (h *observingHooks) CompactionFailed(reason, errorMessage string, aborted, fromExtension bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed = append(h.failed, strings.Join([]string{reason, errorMessage, boolWord(aborted), boolWord(fromExtension)}, "|"))
}

func (h *observingHooks) DiscoverResources(_ context.Context, reason string) {
	h.discover = append(h.discover, reason)
	*h.order = append(*h.order, "discover "+reason)
}

func (h *observingHooks) RequestHooks(context.Context) provider.RequestHooks { return replacingHooks{} }

type replacingHooks struct{}

func (replacingHooks) BeforeRequest(context.Context, []byte) []byte          { return []byte("replaced") }
func (replacingHooks) AfterResponse(context.Context, int, map[string]string) {}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestFailedCompactionsAreToldToExtensions(t *testing.T) {
	hooks := &observingHooks{}
	overflow := errorTurn("prompt is too long: 1500 tokens > 1000 maximum")
	model := *testModel
	model.ContextWindow = 1000
	var summaries []*provider.Request
	sc := &script{turns: []scriptedTurn{usageTurn("a", 300), overflow, overflow}}
	gate := make(chan struct{})
	f := newFixture(t, nil, func(o *Options) {
		o.Model = &model
		o.Settings = config.InMemorySettings(config.Settings{Compaction: config.CompactionSettings{ReserveTokens: 100, KeepRecentTokens: 5}})
		o.Stream = summaryAware(sc, gate, &summaries)
		o.Hooks = hooks
	})
	close(gate)
	ctx := context.Background()
	_ = f.s.Prompt(ctx, "one", nil, BehaviorNone)
	_ = f.s.Prompt(ctx, "the second request, longer than what is kept", nil, BehaviorNone)
	if want := "overflow|" + compaction.OverflowRecoveryFailed + "|false|false"; len(hooks.failed) != 1 || hooks.failed[0] != want {
		t.Fatalf("session_compact_failed: %q, want %q", hooks.failed, want)
	}
	if _, err := f.s.Compact(ctx, ""); err == nil {
		// The overflow recovery compacted; a second manual compaction finds nothing new to compact.
		t.Fatal("the second compaction should fail")
	}
	if len(hooks.failed) != 2 || !strings.HasPrefix(hooks.failed[1], "manual|Compaction failed: ") || !strings.HasSuffix(hooks.failed[1], "|false|false") {
		t.Fatalf("session_compact_failed after a failed /compact: %q", hooks.failed)
	}
}

func TestProviderHooksReachTheAgentsRequestsOnly(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	client := provider.HookClient(&http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})})
	var summaries []*provider.Request
	sc := &script{turns: []scriptedTurn{usageTurn("a", 300), usageTurn("b", 300)}}
	inner := summaryAware(sc, nil, &summaries)
	f := newFixture(t, nil, func(o *Options) {
		o.Settings = config.InMemorySettings(config.Settings{Compaction: config.CompactionSettings{ReserveTokens: 100, KeepRecentTokens: 5}})
		o.Stream = func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
			// The request as an API package would send it.
			body := "agent"
			if req.SystemPrompt == compaction.SystemPrompt {
				body = "summary"
			}
			hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/", bytes.NewReader([]byte(body)))
			if resp, err := client.Do(hr); err == nil {
				resp.Body.Close()
			}
			return inner(ctx, req, emit)
		}
		o.Hooks = &observingHooks{}
	})
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "two, longer than what is kept", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 3 || bodies[0] != "replaced" || bodies[1] != "replaced" || bodies[2] != "summary" {
		t.Fatalf("bodies sent: %q (the agent's replaced, the summary's not)", bodies)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestReloadAsksExtensionsForResourcesFirst(t *testing.T) {
	var order []string
	hooks := &observingHooks{order: &order}
	f := newFixture(t, nil, func(o *Options) {
		o.Hooks = hooks
		o.LoadResources = func() *resources.Set {
			order = append(order, "load")
			return &resources.Set{}
		}
	})
	f.s.Resources()
	if err := f.s.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ", "); got != "load, discover reload, load" {
		t.Fatalf("order: %s", got)
	}
	f.s.RefreshResources()
	if len(order) != 4 || order[3] != "load" {
		t.Fatalf("RefreshResources did not read the resources again: %v", order)
	}
}
