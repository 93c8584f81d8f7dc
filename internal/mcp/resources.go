package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// The resource tools are the ones Codex, OpenCode and pi 1.6 give the model: list resources, list
// resource templates, read a resource. They reach every enabled, non-hidden server with resources.
const (
	listResourcesTool         = "list_mcp_resources"
	listResourceTemplatesTool = "list_mcp_resource_templates"
	readResourceTool          = "read_mcp_resource"
)

var (
	listParams = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"MCP server name. Omit to list every server with resources."},"cursor":{"type":"string","description":"Opaque cursor from a previous call with the same server; omit for the first page."}},"additionalProperties":false}`)
	readParams = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."},"uri":{"type":"string","description":"Resource URI to read. Must be one of the URIs returned by list_mcp_resources."}},"required":["server","uri"],"additionalProperties":false}`)
)

type resourceTool struct {
	ts   *Toolset
	kind string
}

func (t *Toolset) resourceTools() []loop.Tool {
	return []loop.Tool{&resourceTool{t, listResourcesTool}, &resourceTool{t, listResourceTemplatesTool}, &resourceTool{t, readResourceTool}}
}

// Annotations mark the resource tools read-only, as pi does.
func (r *resourceTool) Annotations() map[string]bool { return map[string]bool{"readOnlyHint": true} }

func (r *resourceTool) Definition() provider.ToolDefinition {
	switch r.kind {
	case listResourcesTool:
		return provider.ToolDefinition{Name: r.kind, Parameters: listParams, Description: "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible."}
	case listResourceTemplatesTool:
		return provider.ToolDefinition{Name: r.kind, Parameters: listParams, Description: "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible."}
	}
	return provider.ToolDefinition{Name: r.kind, Parameters: readParams, Description: "Read a specific resource from an MCP server given the server name and resource URI."}
}

// resourceServers are the connected, enabled, non-hidden servers that offer resources, by name.
func (r *resourceTool) resourceServers() []*conn {
	var out []*conn
	for _, c := range r.ts.m.snapshot() {
		st := c.status()
		if st.State == StateConnected && st.HasResources && st.Server.Config.ServerExposure() != ExposureHidden {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].server.Name < out[j].server.Name })
	return out
}

func (r *resourceTool) find(name string) (*conn, error) {
	servers := r.resourceServers()
	var names []string
	for _, c := range servers {
		if c.server.Name == name {
			return c, nil
		}
		names = append(names, c.server.Name)
	}
	msg := fmt.Sprintf("MCP server %q has no resources", name)
	if len(names) > 0 {
		msg += ". Servers with resources: " + strings.Join(names, ", ")
	}
	return nil, errors.New(msg)
}

var mcpAppMIME = regexp.MustCompile(`(?i);\s*profile\s*=\s*"?mcp-app"?`)

// listed is one resource or template as the model sees it: {server, ...fields} without _meta,
// icons and MCP App resources (pi does not render them).
func listed(server string, item any, uri, mime string) *jsonx.Object {
	if strings.HasPrefix(uri, "ui://") || mcpAppMIME.MatchString(mime) {
		return nil
	}
	data, err := json.Marshal(item)
	if err != nil {
		return nil
	}
	fields, err := jsonx.ParseObject(data)
	if err != nil {
		return nil
	}
	out := jsonx.NewObject()
	_ = setJS(out, "server", server)
	for k, v := range fields.All() {
		if k != "_meta" && k != "icons" {
			out.Set(k, v)
		}
	}
	return out
}

func (r *resourceTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	var args struct {
		Server string `json:"server"`
		Cursor string `json:"cursor"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return loop.ToolResult{}, fmt.Errorf("arguments: %w", err)
	}
	args.Server, args.Cursor, args.URI = strings.TrimSpace(args.Server), strings.TrimSpace(args.Cursor), strings.TrimSpace(args.URI)
	r.ts.m.Wait(ctx)
	if r.kind == readResourceTool {
		return r.read(ctx, args.Server, args.URI)
	}
	key := "resources"
	if r.kind == listResourceTemplatesTool {
		key = "resourceTemplates"
	}
	payload := jsonx.NewObject()
	if args.Server != "" {
		c, err := r.find(args.Server)
		if err != nil {
			return loop.ToolResult{}, err
		}
		items, next, err := r.page(ctx, c, args.Cursor)
		if err != nil {
			return loop.ToolResult{}, err
		}
		_ = setJS(payload, "server", c.server.Name)
		_ = setJS(payload, key, items)
		if next != "" {
			_ = setJS(payload, "nextCursor", next)
		}
		return jsonResult(r.kind, c.server.Name, payload)
	}
	if args.Cursor != "" {
		return loop.ToolResult{}, errors.New("cursor can only be used when a server is specified")
	}
	servers := r.resourceServers()
	results := make([][]*jsonx.Object, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, c := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursor := ""
			for {
				items, next, err := r.page(ctx, c, cursor)
				if err != nil {
					errs[i] = err
					return
				}
				results[i] = append(results[i], items...)
				if next == "" {
					return
				}
				cursor = next
			}
		}()
	}
	wg.Wait()
	all := []*jsonx.Object{}
	var failures []map[string]string
	for i, c := range servers {
		if errs[i] != nil {
			failures = append(failures, map[string]string{"server": c.server.Name, "error": errs[i].Error()})
			continue
		}
		all = append(all, results[i]...)
	}
	_ = setJS(payload, key, all)
	if len(failures) > 0 {
		_ = setJS(payload, "errors", failures)
	}
	return jsonResult(r.kind, "", payload)
}

// page lists one page of resources or templates of one server.
func (r *resourceTool) page(ctx context.Context, c *conn, cursor string) ([]*jsonx.Object, string, error) {
	items := []*jsonx.Object{}
	var next string
	err := c.withSession(ctx, func(ctx context.Context, s *sdk.ClientSession) error {
		if r.kind == listResourcesTool {
			res, err := s.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return err
			}
			for _, it := range res.Resources {
				if o := listed(c.server.Name, it, it.URI, it.MIMEType); o != nil {
					items = append(items, o)
				}
			}
			next = res.NextCursor
			return nil
		}
		res, err := s.ListResourceTemplates(ctx, &sdk.ListResourceTemplatesParams{Cursor: cursor})
		var werr *jsonrpc.Error
		if errors.As(err, &werr) && werr.Code == jsonrpc.CodeMethodNotFound {
			return nil // servers that do not implement templates have none
		}
		if err != nil {
			return err
		}
		for _, it := range res.ResourceTemplates {
			if o := listed(c.server.Name, it, it.URITemplate, it.MIMEType); o != nil {
				items = append(items, o)
			}
		}
		next = res.NextCursor
		return nil
	})
	return items, next, err
}

func (r *resourceTool) read(ctx context.Context, server, uri string) (loop.ToolResult, error) {
	if server == "" {
		return loop.ToolResult{}, errors.New("server must be provided")
	}
	if uri == "" {
		return loop.ToolResult{}, errors.New("uri must be provided")
	}
	c, err := r.find(server)
	if err != nil {
		return loop.ToolResult{}, err
	}
	var res *sdk.ReadResourceResult
	err = c.withSession(ctx, func(ctx context.Context, s *sdk.ClientSession) error {
		res, err = s.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		return err
	})
	if err != nil {
		return loop.ToolResult{}, err
	}
	var content []provider.Content
	for _, rc := range res.Contents {
		if len(res.Contents) > 1 {
			content = append(content, provider.TextContent(rc.URI+":"))
		}
		content = append(content, resourceContent(rc)...)
	}
	if len(content) == 0 {
		content = []provider.Content{provider.TextContent(fmt.Sprintf("Resource %s is empty.", uri))}
	}
	content, full := limitContent(content)
	details := map[string]any{"server": server, "tool": readResourceTool}
	if full != "" {
		details["fullOutputPath"] = full
	}
	return loop.ToolResult{Content: content, Details: details, StructuredContent: map[string]any{"server": server, "uri": uri, "contents": res.Contents}}, nil
}

// jsonResult is a listing as compact JSON text, cut like any long MCP result.
func jsonResult(tool, server string, payload *jsonx.Object) (loop.ToolResult, error) {
	data, err := payload.MarshalJSON()
	if err != nil {
		return loop.ToolResult{}, err
	}
	content, full := limitContent([]provider.Content{provider.TextContent(string(data))})
	details := map[string]any{"server": server, "tool": tool}
	if full != "" {
		details["fullOutputPath"] = full
	}
	return loop.ToolResult{Content: content, Details: details, StructuredContent: json.RawMessage(data)}, nil
}
