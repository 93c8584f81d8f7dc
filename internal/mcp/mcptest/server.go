// Package mcptest is an MCP server for tests, built on the official SDK's server side: the same
// server runs in-process behind a streamable HTTP handler on 127.0.0.1, or as a stdio child process
// (testdata/server), so the client is tested against real transports.
package mcptest

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PNG is a 1×1 transparent PNG, the image the image tool returns.
var PNG = []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82}

// Options shape the server.
type Options struct {
	// Name is the server's name in initialize.
	Name string
	// Instructions are sent in initialize.
	Instructions string
	// ExtraTools adds that many trivial tools (tool_n), for benchmarks over many tools.
	ExtraTools int
	// MarkerDir, when set, receives files that let a test observe the server: "cancelled" when a
	// slow call was cancelled, "child.pid" with the pid of the sleep the spawn tool starts.
	MarkerDir string
	// OnCancelled is called when a slow call was cancelled by the client (in-process servers).
	OnCancelled func()
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type slowIn struct {
	Steps int `json:"steps" jsonschema:"progress notifications to send before waiting for cancellation; 0 waits at once"`
	// Finish makes the call return after its steps instead of waiting to be cancelled.
	Finish bool `json:"finish,omitempty"`
}

type emptyIn struct{}

// New returns the test server: tools echo, add (structured output), image, fail, slow (progress,
// then waits for cancellation), spawn (starts a child process and blocks); a text resource
// test://readme and a blob resource test://blob.bin.
func New(o Options) *sdk.Server {
	if o.Name == "" {
		o.Name = "testserver"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: o.Name, Version: "1.0.0"}, &sdk.ServerOptions{Instructions: o.Instructions})
	closedWorld := false
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the given text back unchanged",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closedWorld}}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers and return the sum as structured content"}, func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Return a tiny PNG image"}, func(context.Context, *sdk.CallToolRequest, emptyIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a pixel"}, &sdk.ImageContent{Data: PNG, MIMEType: "image/png"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always report an error result"}, func(context.Context, *sdk.CallToolRequest, emptyIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it failed on purpose"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Send progress notifications, then wait until cancelled"}, func(ctx context.Context, req *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
		for i := 1; i <= in.Steps; i++ {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d of %d", i, in.Steps)})
			}
		}
		if in.Finish {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
		}
		<-ctx.Done()
		o.mark("cancelled", "1")
		if o.OnCancelled != nil {
			o.OnCancelled()
		}
		return nil, nil, ctx.Err()
	})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Start a long-running child process and block"}, func(ctx context.Context, req *sdk.CallToolRequest, _ emptyIn) (*sdk.CallToolResult, any, error) {
		cmd := exec.Command("sleep", "300")
		// The child shares the server's stderr, so the client's stderr pipe stays open until the child
		// too is gone: a test that sees the server stopped knows its group was.
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		o.mark("child.pid", strconv.Itoa(cmd.Process.Pid))
		// A progress notification tells the client the child runs (and its pid is written).
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "child " + strconv.Itoa(cmd.Process.Pid)})
		}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	for i := range o.ExtraTools {
		sdk.AddTool(s, &sdk.Tool{Name: fmt.Sprintf("tool_%d", i), Description: fmt.Sprintf("Synthetic tool number %d for %s of widget %d", i, verbs[i%len(verbs)], i%37)}, func(context.Context, *sdk.CallToolRequest, emptyIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
		})
	}
	s.AddResource(&sdk.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain", Description: "A short text"}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello from a resource"}}}, nil
	})
	s.AddResource(&sdk.Resource{URI: "test://blob.bin", Name: "blob", MIMEType: "application/octet-stream"}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 3}}}}, nil
	})
	return s
}

var verbs = []string{"listing", "creating", "deleting", "searching", "updating", "reading", "archiving"}

func (o Options) mark(name, value string) {
	if o.MarkerDir != "" {
		_ = os.WriteFile(o.MarkerDir+"/"+name, []byte(value), 0o644)
	}
}

// DecodePNG is PNG as base64, as image content carries it.
func DecodePNG() string { return base64.StdEncoding.EncodeToString(PNG) }
