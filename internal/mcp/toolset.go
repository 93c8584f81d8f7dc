package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// ToolSearchName is pi's tool discovery tool.
const ToolSearchName = "tool_search"

// DefaultToolSearchLimit is how many tools one search loads unless limit says otherwise.
const DefaultToolSearchLimit = 8

// directWait bounds how long a prompt waits for servers with direct tools (pi's 10 seconds).
const directWait = 10 * time.Second

// toolSearchDescription stays the same while servers connect, so the request prefix stays cached.
const toolSearchDescription = "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search`."

var toolSearchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Search query for deferred tools."},"limit":{"type":"number","description":"Maximum number of tools to return. Defaults to 8."}},"required":["query"]}`)

// ActiveTools is the agent's tool set as the toolset changes it (loop.Agent implements it).
type ActiveTools interface {
	Tools() []loop.Tool
	SetTools([]loop.Tool)
	Subscribe(func(loop.Event)) (unsubscribe func())
}

// Toolset turns the manager's servers into the model's tools: tool_search and the resource tools
// from the start, direct tools once their server connects (before a prompt, waiting up to 10
// seconds for them), deferred and codemode tools when tool_search loads them.
type Toolset struct {
	m *Manager
	// Allowed, when set, says which server tools may be active (--tools naming mcp__ patterns).
	Allowed func(name string) bool

	mu     sync.Mutex
	agent  ActiveTools
	cache  map[string]*Tool // by model-facing name; rebuilt names keep their *Tool
	unsub  func()
	search *toolSearch
}

// NewToolset is the tool set of m's servers.
func NewToolset(m *Manager) *Toolset {
	t := &Toolset{m: m, cache: map[string]*Tool{}}
	t.search = &toolSearch{ts: t}
	return t
}

// StaticTools are the tools declared from the start: tool_search when any enabled server may have
// searchable tools, and the resource tools when any server is enabled.
func (t *Toolset) StaticTools() []loop.Tool {
	var out []loop.Tool
	searchable, enabled := false, false
	for _, st := range t.m.Statuses() {
		s := st.Server
		if !s.Config.Enabled {
			continue
		}
		enabled = true
		if s.Config.ServerExposure().Searchable() || slices.ContainsFunc(s.Config.ToolExposure, func(r ToolExposureRule) bool { return r.Exposure.Searchable() }) {
			searchable = true
		}
	}
	if searchable {
		out = append(out, t.search)
	}
	if enabled {
		out = append(out, t.resourceTools()...)
	}
	return out
}

// Attach lets the toolset change agent's tools: before each run it adds the direct tools of the
// connected servers. Detach with the returned function.
func (t *Toolset) Attach(agent ActiveTools) (detach func()) {
	t.mu.Lock()
	t.agent = agent
	t.mu.Unlock()
	unsub := agent.Subscribe(func(e loop.Event) {
		if e.Type == loop.EventAgentStart {
			t.m.WaitDirect(context.Background(), directWait)
			t.addDirect()
		}
	})
	return unsub
}

// ActivateStatic activates the static tools that are not active yet: servers extensions register
// after the session started can need tool_search or the resource tools.
func (t *Toolset) ActivateStatic() {
	t.mu.Lock()
	agent := t.agent
	t.mu.Unlock()
	if agent == nil {
		return
	}
	active := agent.Tools()
	changed := false
	for _, tool := range t.StaticTools() {
		name := tool.Definition().Name
		if !slices.ContainsFunc(active, func(a loop.Tool) bool { return a.Definition().Name == name }) {
			active = append(active, tool)
			changed = true
		}
	}
	if changed {
		agent.SetTools(active)
	}
}

// addDirect activates the direct tools that are not active yet.
func (t *Toolset) addDirect() {
	var direct []loop.Tool
	for _, tool := range t.Tools() {
		if tool.exposure == ExposureDirect {
			direct = append(direct, tool)
		}
	}
	t.activate(direct)
}

// activate appends tools to the agent's active tools, skipping names already active.
func (t *Toolset) activate(tools []loop.Tool) {
	t.mu.Lock()
	agent := t.agent
	t.mu.Unlock()
	if agent == nil || len(tools) == 0 {
		return
	}
	active := agent.Tools()
	changed := false
	for _, tool := range tools {
		name := tool.Definition().Name
		if t.Allowed != nil && !t.Allowed(name) {
			continue
		}
		if !slices.ContainsFunc(active, func(a loop.Tool) bool { return a.Definition().Name == name }) {
			active = append(active, tool)
			changed = true
		}
	}
	if changed {
		agent.SetTools(active)
	}
}

// Tools are every tool of the connected servers that is not hidden, named as the model sees them.
// Tools whose sanitized names collide all get a hash suffix.
func (t *Toolset) Tools() []*Tool {
	type entry struct {
		server, ns string
		st         Status
	}
	var entries []entry
	counts := map[string]int{}
	for _, st := range t.m.Statuses() {
		if st.State != StateConnected {
			continue
		}
		ns := strings.Join([]string{st.Server.Name, st.Server.Config.Description, st.Instructions}, " ")
		entries = append(entries, entry{st.Server.Name, ns, st})
		for _, tool := range st.Tools {
			counts[ToolName(st.Server.Name, tool.Name, nil)]++
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*Tool
	for _, e := range entries {
		for _, tool := range e.st.Tools {
			exposure := e.st.Server.Config.ToolExposureOf(tool.Name)
			if exposure == ExposureHidden {
				continue
			}
			name := ToolName(e.server, tool.Name, func(n string) bool { return counts[n] > 1 })
			cached := t.cache[name]
			if cached == nil || cached.tool != tool || cached.exposure != exposure || cached.namespaceText != e.ns {
				cached = newTool(t.m, e.server, name, tool, exposure, e.ns)
				t.cache[name] = cached
			}
			out = append(out, cached)
		}
	}
	return out
}

// Available are the tools a restored transcript may declare: the static ones and every tool of the
// connected servers.
func (t *Toolset) Available() []loop.Tool {
	out := t.StaticTools()
	for _, tool := range t.Tools() {
		out = append(out, tool)
	}
	return out
}

// toolSearch is the tool_search tool.
type toolSearch struct{ ts *Toolset }

func (s *toolSearch) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: ToolSearchName, Description: toolSearchDescription, Parameters: toolSearchSchema}
}

// Search ranks the searchable tools that are not active and returns the best, at most limit.
func (t *Toolset) Search(query string, limit int, active []loop.Tool) []*Tool {
	var candidates []*Tool
	for _, tool := range t.Tools() {
		if !tool.exposure.Searchable() || t.Allowed != nil && !t.Allowed(tool.name) {
			continue
		}
		if slices.ContainsFunc(active, func(a loop.Tool) bool { return a.Definition().Name == tool.name }) {
			continue
		}
		candidates = append(candidates, tool)
	}
	docs := make([]searchDoc, len(candidates))
	for i, c := range candidates {
		docs[i] = c.searchDoc()
	}
	var out []*Tool
	for _, i := range rank(query, docs, limit) {
		out = append(out, candidates[i])
	}
	return out
}

func (s *toolSearch) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	var args struct {
		Query string   `json:"query"`
		Limit *float64 `json:"limit"`
	}
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return loop.ToolResult{}, fmt.Errorf("arguments: %w", err)
	}
	if strings.TrimSpace(args.Query) == "" {
		return loop.ToolResult{}, errors.New("query must not be empty")
	}
	limit := DefaultToolSearchLimit
	if args.Limit != nil {
		if *args.Limit <= 0 || *args.Limit != float64(int(*args.Limit)) {
			return loop.ToolResult{}, errors.New("limit must be a positive integer")
		}
		limit = int(*args.Limit)
	}
	// A query can match any server's tools, so every server that is still connecting is waited for.
	s.ts.m.Wait(ctx)
	s.ts.mu.Lock()
	agent := s.ts.agent
	s.ts.mu.Unlock()
	var active []loop.Tool
	if agent != nil {
		active = agent.Tools()
	}
	found := s.ts.Search(args.Query, limit, active)
	loaded := make([]loop.Tool, len(found))
	names := make([]string, len(found))
	for i, f := range found {
		loaded[i], names[i] = f, f.name
	}
	s.ts.activate(loaded)
	text := "No matching tools found."
	if len(found) > 0 {
		var b strings.Builder
		plural := "s"
		if len(found) == 1 {
			plural = ""
		}
		fmt.Fprintf(&b, "Loaded %d tool%s. They are available from your next call:", len(found), plural)
		for _, f := range found {
			first, _, _ := strings.Cut(strings.TrimSpace(f.def.Description), "\n")
			fmt.Fprintf(&b, "\n- %s: %s", f.name, strings.TrimSuffix(first, "\r"))
		}
		text = b.String()
	}
	if names == nil {
		names = []string{}
	}
	return loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}, Details: map[string]any{"loaded": names}}, nil
}

// searchDoc is the tool as tool search indexes it: its description and schema text, its name and
// its server's text. Built once per tool: a server's tool list replaces the *Tool when it changes.
func (t *Tool) searchDoc() searchDoc {
	t.docOnce.Do(func() {
		parts := []string{t.def.Description}
		var root map[string]any
		_ = json.Unmarshal(t.def.Parameters, &root)
		schemaText(root, root, &parts, map[string]bool{})
		var kept []string
		for _, p := range parts {
			if strings.TrimSpace(p) != "" {
				kept = append(kept, p)
			}
		}
		t.doc = newSearchDoc(t.name, strings.Join(kept, " "), t.namespaceText)
	})
	return t.doc
}
