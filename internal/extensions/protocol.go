package extensions

import "encoding/json"

// ProtocolVersion is the version of the JSON-lines protocol this host speaks (docs/extension-protocol.md).
const ProtocolVersion = 2

// Message types, host to extension.
const (
	msgInit     = "init"
	msgEvent    = "event"
	msgExecute  = "execute_tool"
	msgCommand  = "run_command"
	msgCancel   = "cancel"
	msgState    = "state"
	msgResponse = "response"
	msgShutdown = "shutdown"
	msgComplete = "complete_command"
	// The terminal UI's messages (ui.go): its size, a key for a component, a shortcut pressed.
	msgUIResize   = "ui_resize"
	msgUIInput    = "ui_input"
	msgUIShortcut = "run_shortcut"
	msgRenderMsg  = "render_message"
	// v2 additions (render.go): a tool call's block and a custom entry drawn by their extension.
	msgRenderTool   = "render_tool"
	msgRenderEntry  = "render_entry"
	msgUIEditor     = "ui_editor"          // the editor's text, mirrored for ctx.ui.getEditorText()
	msgAutocomplete = "complete_editor"    // addAutocompleteProvider's suggestions (render.go)
	msgTermInput    = "terminal_input"     // a key offered to onTerminalInput listeners (render.go)
	msgTransformMD  = "transform_markdown" // markdown through a registered transformer (markdown.go)

	// msgStream asks an extension's provider stream function for one answer (provider.go).
	msgStream = "stream_provider"
	// msgSessionEntries is what an in-memory session gained, for the sidecar's ctx.sessionManager
	// (the sidecar's own message: executables are not sent it).
	msgSessionEntries = "session_entries"
)

// Message types, extension to host.
const (
	msgRegister   = "register"
	msgResult     = "result"
	msgToolUpdate = "tool_update"
	msgRequest    = "request"
	msgError      = "error"
	// msgStreamUpdate is one event of a stream_provider call's answer.
	msgStreamUpdate = "stream_update"
)

// hostMessage is one line the host writes. Fields are set by type; empty ones are left out.
type hostMessage struct {
	Type string `json:"type"`
	ID   any    `json:"id,omitempty"`

	// init
	Protocol    int             `json:"protocol,omitempty"`
	Cwd         string          `json:"cwd,omitempty"`
	AgentDir    string          `json:"agentDir,omitempty"`
	Mode        string          `json:"mode,omitempty"`
	HasUI       *bool           `json:"hasUI,omitempty"`
	SessionFile string          `json:"sessionFile,omitempty"`
	Paths       []string        `json:"paths,omitempty"`
	Flags       map[string]any  `json:"flags,omitempty"`
	State       *State          `json:"state,omitempty"`
	Options     json.RawMessage `json:"options,omitempty"`

	// event
	Event json.RawMessage `json:"event,omitempty"`

	// session_entries
	Session *SessionEntries `json:"session,omitempty"`

	// execute_tool
	ToolCallID string          `json:"toolCallId,omitempty"`
	Name       string          `json:"name,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`

	// run_command
	CommandArgs *string `json:"commandArgs,omitempty"`
	// complete_command: the text after "/name "
	Prefix *string `json:"prefix,omitempty"`

	// response
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`

	// ui_resize (also in init), ui_input
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Theme     *Theme `json:"theme,omitempty"`
	Component string `json:"component,omitempty"`
	Data      string `json:"data,omitempty"`

	// render_message
	Message  json.RawMessage `json:"message,omitempty"`
	Expanded bool            `json:"expanded,omitempty"`

	// render_tool (with toolCallId, args, result and width), render_entry (with width)
	toolRenderFields
	Entry json.RawMessage `json:"entry,omitempty"`

	// ui_editor
	Text *string `json:"text,omitempty"`

	// transform_markdown (with context, a MarkdownContext)
	Markdown *string `json:"markdown,omitempty"`

	// complete_editor
	Lines      []string `json:"lines,omitempty"`
	CursorLine *int     `json:"cursorLine,omitempty"`
	CursorCol  *int     `json:"cursorCol,omitempty"`

	// stream_provider (with name, the provider, and options, the stream options)
	Model   json.RawMessage `json:"model,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`

	// provider_login (with name), provider_refresh and provider_auth (with name and credential)
	LoginID    string          `json:"loginId,omitempty"`
	Credential json.RawMessage `json:"credential,omitempty"`
}

// extMessage is one line an extension writes.
type extMessage struct {
	Type string          `json:"type"`
	ID   json.RawMessage `json:"id,omitempty"`

	// register
	Protocol  int            `json:"protocol,omitempty"`
	Name      string         `json:"name,omitempty"`
	Events    []string       `json:"events,omitempty"`
	Tools     []ToolSpec     `json:"tools,omitempty"`
	Commands  []CommandSpec  `json:"commands,omitempty"`
	Flags     []FlagSpec     `json:"flags,omitempty"`
	Shortcuts []ShortcutSpec `json:"shortcuts,omitempty"`
	// MessageRenderers are the customTypes of the messages the extension draws (registerMessageRenderer).
	MessageRenderers []string `json:"messageRenderers,omitempty"`
	// ToolRenderers are the tools the extension registered with renderCall or renderResult;
	// ToolRendererResolvers says it registered registerToolRenderer resolvers, which may draw any
	// tool. EntryRenderers are the customTypes of the entries it draws (registerEntryRenderer).
	ToolRenderers         []string    `json:"toolRenderers,omitempty"`
	ToolRendererResolvers bool        `json:"toolRendererResolvers,omitempty"`
	EntryRenderers        []string    `json:"entryRenderers,omitempty"`
	Errors                []LoadError `json:"errors,omitempty"`
	// MCPServers are the servers registered with pi.registerMcpServer while loading.
	MCPServers []MCPServer `json:"mcpServers,omitempty"`
	// MarkdownTransformer is the process's markdown transformer (pi's registerMarkdownTransformer);
	// later changes come as the request "markdownTransformer".
	MarkdownTransformer *MarkdownTransformerSpec `json:"markdownTransformer,omitempty"`

	// result, tool_update
	Result  json.RawMessage `json:"result,omitempty"`
	Partial json.RawMessage `json:"partial,omitempty"`
	Error   string          `json:"error,omitempty"`

	// request
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`

	// error
	ExtensionPath string `json:"extensionPath,omitempty"`
	EventName     string `json:"event,omitempty"`
}

// ToolSpec is a tool an extension registered.
type ToolSpec struct {
	Name        string          `json:"name"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// PromptSnippet and PromptGuidelines feed the system prompt as a built-in tool's do.
	PromptSnippet    string   `json:"promptSnippet,omitempty"`
	PromptGuidelines []string `json:"promptGuidelines,omitempty"`
	// ExecutionMode "sequential" keeps the batch that calls it sequential.
	ExecutionMode string `json:"executionMode,omitempty"`
	// ExtensionPath is the extension that registered it (filled by the sidecar; a plain process is
	// its own path).
	ExtensionPath string `json:"extensionPath,omitempty"`
}

// CommandSpec is a slash command an extension registered.
type CommandSpec struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	ExtensionPath string `json:"extensionPath,omitempty"`
	// Completes: the command completes its arguments (pi's getArgumentCompletions); pi-go asks
	// with complete_command.
	Completes bool `json:"completes,omitempty"`
}

// FlagSpec is a CLI flag an extension registered (pi's registerFlag).
type FlagSpec struct {
	Name          string `json:"name"`
	Type          string `json:"type"` // "boolean" or "string"
	Description   string `json:"description,omitempty"`
	Default       any    `json:"default,omitempty"`
	ExtensionPath string `json:"extensionPath,omitempty"`
}

// ShortcutSpec is a key an extension registered.
type ShortcutSpec struct {
	Key           string `json:"key"`
	Description   string `json:"description,omitempty"`
	ExtensionPath string `json:"extensionPath,omitempty"`
}

// MCPServer is an MCP server an extension registered (pi.registerMcpServer): Config is its
// mcpServers entry. Later registrations and withdrawals arrive as the request "mcpServers" with the
// whole list ({"servers": [...]}), which the host does not answer.
type MCPServer struct {
	Name          string          `json:"name"`
	Config        json.RawMessage `json:"config"`
	ExtensionPath string          `json:"extensionPath"`
}

// LoadError is an extension that failed to load (the others still run).
type LoadError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// State is the mirror of pi-go's state that extensions read synchronously (ctx.model, ctx.isIdle(),
// pi.getActiveTools(), …). The host pushes it whenever it changes.
type State struct {
	Model          json.RawMessage `json:"model,omitempty"`
	ThinkingLevel  string          `json:"thinkingLevel,omitempty"`
	Idle           bool            `json:"idle"`
	PendingMessage bool            `json:"hasPendingMessages"`
	SessionName    string          `json:"sessionName,omitempty"`
	SystemPrompt   string          `json:"systemPrompt,omitempty"`
	ActiveTools    []string        `json:"activeTools,omitempty"`
	AllTools       []ToolInfo      `json:"allTools,omitempty"`
	ContextUsage   json.RawMessage `json:"contextUsage,omitempty"`
	ProjectTrusted bool            `json:"projectTrusted"`
	// ScopedModels are --models / enabledModels as pi's ctx.scopedModels: [{model, thinkingLevel?}].
	ScopedModels json.RawMessage `json:"scopedModels,omitempty"`
	// SessionFile is the session's file now (it changes with /new, /resume and /fork).
	SessionFile string `json:"sessionFile,omitempty"`
}

// SessionEntries is what an in-memory session (--no-session) gained since the sidecar last heard:
// with no file to read, its ctx.sessionManager is built from these.
type SessionEntries struct {
	// Header, set for the first entries of a session (also after /new), starts the mirror over.
	Header json.RawMessage `json:"header,omitempty"`
	// Entries are the lines appended since, as a session file would hold them.
	Entries []json.RawMessage `json:"entries"`
	// LeafID is the session's leaf ("" before the first entry or after a reset to the root).
	LeafID string `json:"leafId"`
}

// ToolInfo is what pi.getAllTools() tells of one tool.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// Annotations are an MCP tool's hints (readOnlyHint, destructiveHint, idempotentHint,
	// openWorldHint), when it has any.
	Annotations map[string]bool `json:"annotations,omitempty"`
}

// ExtensionError is an extension's failure: a handler that threw, a process that crashed or timed
// out. pi's RPC mode reports it as extension_error.
type ExtensionError struct {
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`
	Error         string `json:"error"`
}
