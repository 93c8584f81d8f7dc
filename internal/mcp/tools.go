package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
)

// maxOutputBytes is where a text result is cut in the middle (pi's 20 KB).
const maxOutputBytes = 20 * 1024

// Tool is one server tool as the model sees it: mcp__<server>__<tool>, its description and input
// schema. Arguments reach it validated by the loop against that schema (internal/toolargs).
type Tool struct {
	m        *Manager
	server   string
	tool     *sdk.Tool
	name     string
	exposure Exposure
	// namespaceText is the server's name, description and instructions, for tool search.
	namespaceText string
	def           provider.ToolDefinition

	docOnce sync.Once
	doc     searchDoc
}

func newTool(m *Manager, server, name string, t *sdk.Tool, exposure Exposure, namespaceText string) *Tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("MCP tool %s from server %s", t.Name, server)
	}
	return &Tool{m: m, server: server, tool: t, name: name, exposure: exposure, namespaceText: namespaceText,
		def: provider.ToolDefinition{Name: name, Description: desc, Parameters: inputSchema(t.InputSchema)}}
}

// inputSchema is the tool's input schema as an object schema: type defaults to object and
// properties to {} (pi's normalizeMcpInputSchema).
func inputSchema(schema any) json.RawMessage {
	var obj map[string]any
	if data, err := json.Marshal(schema); err == nil {
		_ = json.Unmarshal(data, &obj)
	}
	if obj == nil {
		obj = map[string]any{}
	}
	if _, ok := obj["type"]; !ok {
		obj["type"] = "object"
	}
	if _, ok := obj["properties"]; !ok {
		obj["properties"] = map[string]any{}
	}
	data, _ := provider.MarshalJS(obj)
	return data
}

// Definition implements loop.Tool.
func (t *Tool) Definition() provider.ToolDefinition { return t.def }

// Annotations are the hints the server declared for the tool (readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint), nil when none: pi.getAllTools() reports them, so permission
// extensions can decide which calls to confirm. The SDK reads readOnlyHint and idempotentHint as
// plain booleans, so a declared false is not told from a missing one (both mean false).
func (t *Tool) Annotations() map[string]bool {
	a := t.tool.Annotations
	if a == nil {
		return nil
	}
	out := map[string]bool{}
	if a.ReadOnlyHint {
		out["readOnlyHint"] = true
	}
	if a.DestructiveHint != nil {
		out["destructiveHint"] = *a.DestructiveHint
	}
	if a.IdempotentHint {
		out["idempotentHint"] = true
	}
	if a.OpenWorldHint != nil {
		out["openWorldHint"] = *a.OpenWorldHint
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Server and ToolName name the tool on its server.
func (t *Tool) Server() string   { return t.server }
func (t *Tool) ToolName() string { return t.tool.Name }

// Exposure is the tool's effective exposure.
func (t *Tool) Exposure() Exposure { return t.exposure }

// Execute calls the tool on its server. Progress notifications become partial updates; cancelling
// ctx (Escape) cancels the call on the server.
func (t *Tool) Execute(ctx context.Context, call loop.ToolCall, onUpdate func(loop.ToolResult)) (loop.ToolResult, error) {
	var args map[string]any
	if len(call.Args) > 0 {
		if err := json.Unmarshal(call.Args, &args); err != nil {
			return loop.ToolResult{}, fmt.Errorf("arguments: %w", err)
		}
	}
	details := map[string]any{"server": t.server, "tool": t.tool.Name}
	// Notifications are handled on the SDK's goroutines and may trail the result: none reaches
	// onUpdate once Execute returned.
	var mu sync.Mutex
	returned := false
	defer func() { mu.Lock(); returned = true; mu.Unlock() }()
	res, err := t.m.CallTool(ctx, t.server, t.tool.Name, args, func(p *sdk.ProgressNotificationParams) {
		mu.Lock()
		defer mu.Unlock()
		if onUpdate == nil || returned {
			return
		}
		text := p.Message
		if text == "" {
			text = fmt.Sprintf("Progress %s", jsNumber(p.Progress))
			if p.Total != 0 {
				text += "/" + jsNumber(p.Total)
			}
		}
		onUpdate(loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}, Details: details})
	})
	if err != nil {
		return loop.ToolResult{}, err
	}
	return t.m.convertResult(t.server, t.tool.Name, res), nil
}

func jsNumber(f float64) string {
	data, _ := json.Marshal(f)
	return string(data)
}

// convertResult maps an MCP result to a tool result as pi does (convertMcpResult): text and images
// for the model, resource links naming read_mcp_resource, binary resources saved to files, a long
// text cut in the middle with the full text saved; the whole result (without _meta) as structured
// content for programmatic callers; isError as an error result.
func (m *Manager) convertResult(server, tool string, res *sdk.CallToolResult) loop.ToolResult {
	readable := false
	if st, err := m.Status(server); err == nil {
		readable = st.HasResources
	}
	var content []provider.Content
	for _, block := range res.Content {
		content = append(content, blockContent(server, block, readable)...)
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		data, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		content = append(content, provider.TextContent(string(data)))
	}
	if res.IsError && textOf(content) == "" {
		content = append(content, provider.TextContent(fmt.Sprintf("MCP tool %s/%s returned an error", server, tool)))
	}
	details := map[string]any{"server": server, "tool": tool}
	content, full := limitContent(content)
	if full != "" {
		details["fullOutputPath"] = full
	}
	structured := map[string]any{"content": res.Content}
	if res.Content == nil {
		structured["content"] = []any{}
	}
	if res.StructuredContent != nil {
		structured["structuredContent"] = res.StructuredContent
	}
	if res.IsError {
		structured["isError"] = true
	}
	return loop.ToolResult{Content: content, Details: details, StructuredContent: structured, IsError: res.IsError}
}

func textOf(content []provider.Content) string {
	var parts []string
	for _, c := range content {
		if c.Type == provider.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// blockContent is the model-facing content of one block.
func blockContent(server string, block sdk.Content, readable bool) []provider.Content {
	switch b := block.(type) {
	case *sdk.TextContent:
		return []provider.Content{provider.TextContent(b.Text)}
	case *sdk.ImageContent:
		return []provider.Content{provider.ImageContent(base64.StdEncoding.EncodeToString(b.Data), b.MIMEType)}
	case *sdk.AudioContent:
		return []provider.Content{provider.TextContent(fmt.Sprintf("[audio %s omitted]", b.MIMEType))}
	case *sdk.ResourceLink:
		var info []string
		if b.MIMEType != "" {
			info = append(info, b.MIMEType)
		}
		if b.Size != nil {
			info = append(info, output.FormatSize(int(*b.Size)))
		}
		title := b.Title
		if title == "" {
			title = b.Name
		}
		text := fmt.Sprintf("[Resource %s %q", b.URI, title)
		if len(info) > 0 {
			text += " (" + strings.Join(info, ", ") + ")"
		}
		if b.Description != "" {
			text += ": " + b.Description
		}
		if readable {
			text += fmt.Sprintf(". Read it with %s (server %q)", readResourceTool, server)
		}
		return []provider.Content{provider.TextContent(text + "]")}
	case *sdk.EmbeddedResource:
		if b.Resource == nil {
			return nil
		}
		return resourceContent(b.Resource)
	default:
		return []provider.Content{provider.TextContent("[unsupported MCP content]")}
	}
}

// resourceContent is one resource's contents for the model: text as text, images as images, text
// blobs decoded, other blobs saved to a temporary file named in the text.
func resourceContent(r *sdk.ResourceContents) []provider.Content {
	if r.Blob == nil {
		return []provider.Content{provider.TextContent(r.Text)}
	}
	if strings.HasPrefix(r.MIMEType, "image/") {
		return []provider.Content{provider.ImageContent(base64.StdEncoding.EncodeToString(r.Blob), r.MIMEType)}
	}
	if isTextMIME(r.MIMEType) {
		return []provider.Content{provider.TextContent(string(r.Blob))}
	}
	kind := r.MIMEType
	if kind == "" {
		kind = "unknown type"
	}
	kind += ", " + output.FormatSize(len(r.Blob))
	p, err := saveTemp(r.Blob, extensionOf(r.URI))
	if err != nil {
		return []provider.Content{provider.TextContent(fmt.Sprintf("[Binary resource %s (%s) could not be saved: %v]", r.URI, kind, err))}
	}
	return []provider.Content{provider.TextContent(fmt.Sprintf("[Binary resource %s (%s) saved to %s]", r.URI, kind, p))}
}

func isTextMIME(m string) bool {
	t, _, _ := strings.Cut(m, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	return t != "" && (strings.HasPrefix(t, "text/") || t == "application/json" || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml"))
}

var extRE = regexp.MustCompile(`\.[A-Za-z0-9]{1,8}$`)

func extensionOf(uri string) string {
	p := uri
	if u, err := url.Parse(uri); err == nil && u.Path != "" {
		p = u.Path
	} else if err == nil && u.Opaque != "" {
		p = u.Opaque
	}
	if e := extRE.FindString(path.Base(p)); e != "" {
		return e
	}
	return ".bin"
}

// saveTemp writes data to a new temporary file and returns its path.
func saveTemp(data []byte, ext string) (string, error) {
	f, err := os.CreateTemp("", "pi-mcp-*"+ext)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// limitContent cuts text over maxOutputBytes in the middle, saving the full text to a file (pi's
// limitMcpContent); images are kept.
func limitContent(content []provider.Content) ([]provider.Content, string) {
	combined := textOf(content)
	if len(combined) <= maxOutputBytes {
		return content, ""
	}
	headEnd := maxOutputBytes / 2
	for headEnd > 0 && !utf8.RuneStart(combined[headEnd]) {
		headEnd--
	}
	tailStart := len(combined) - (maxOutputBytes - maxOutputBytes/2)
	for tailStart < len(combined) && !utf8.RuneStart(combined[tailStart]) {
		tailStart++
	}
	removed := utf8.RuneCountInString(combined[headEnd:tailStart])
	lines := strings.Count(combined, "\n") + 1
	if strings.HasSuffix(combined, "\n") {
		lines--
	}
	where := ""
	full, err := saveTemp([]byte(combined), ".txt")
	if err != nil {
		where = fmt.Sprintf("\n\n[Could not save the full output: %v]", err)
		full = ""
	} else {
		where = fmt.Sprintf("\n\n[Full output: %s (read it with offset/limit)]", full)
	}
	tokens := (len(combined) + 3) / 4
	text := fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s…%d chars truncated…%s%s",
		tokens, lines, combined[:headEnd], removed, combined[tailStart:], where)
	out := []provider.Content{provider.TextContent(text)}
	for _, c := range content {
		if c.Type == provider.ContentImage {
			out = append(out, c)
		}
	}
	return out, full
}
