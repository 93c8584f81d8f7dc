package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

//go:embed write.md
var writeDescription string

const writeSchema = `{"type":"object","required":["path","content"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to write (relative or absolute)"},` +
	`"content":{"type":"string","description":"Content to write to the file"}}}`

// WriteOptions configure the write tool.
type WriteOptions struct {
	// Mutations serialises this tool's writes with the edit tool's changes of the same file. Pass the
	// queue given to NewEdit; nil gives the tool a queue of its own (its own calls are still ordered).
	Mutations *MutationQueue
}

// WriteArgs are the write tool's arguments.
type WriteArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type writeTool struct {
	cwd    string
	queue  *MutationQueue
	writer atomicWriter
}

// NewWrite returns the write tool, resolving relative paths against cwd.
func NewWrite(cwd string, opts WriteOptions) loop.Tool {
	return &writeTool{cwd: cwd, queue: queueOrNew(opts.Mutations)}
}

func (t *writeTool) Definition() provider.ToolDefinition {
	return withPreferStrictSampling(toolDefinition("write", writeDescription, writeSchema))
}

func (t *writeTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	var args WriteArgs
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return loop.ToolResult{}, fmt.Errorf("write: invalid arguments: %w", err)
	}
	abs := ResolvePath(args.Path, t.cwd)
	unlock, err := lockForChange(ctx, t.queue, abs)
	if err != nil {
		return loop.ToolResult{}, err
	}
	defer unlock()
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return loop.ToolResult{}, nodeError(err, "mkdir", dir)
	}
	if err := t.writer.write(abs, args.Content); err != nil {
		return loop.ToolResult{}, err
	}
	// pi 1.6 says no size (0.73.1 gave one).
	return loop.ToolResult{Content: []provider.Content{provider.TextContent("Successfully wrote to " + args.Path)}}, nil
}
