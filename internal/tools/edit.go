package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/textdiff"
)

//go:embed edit.md
var editDescription string

const editSchema = `{"type":"object","required":["path","edits"],"properties":{` +
	`"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},` +
	`"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{` +
	`"oldText":{"type":"string","description":"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},` +
	`"newText":{"type":"string","description":"Replacement text for this targeted edit."}},"additionalProperties":false},` +
	`"description":"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."}},"additionalProperties":false}`

// EditOptions configure the edit tool.
type EditOptions struct {
	// Mutations serialises this tool's changes with the write tool's writes of the same file. Pass the
	// queue given to NewWrite; nil gives the tool a queue of its own.
	Mutations *MutationQueue
}

// EditArgs are the edit tool's arguments (after PrepareArguments).
type EditArgs struct {
	Path  string            `json:"path"`
	Edits []EditReplacement `json:"edits"`
}

// EditDetails is the edit tool's details object.
type EditDetails struct {
	Diff             string `json:"diff"`
	FirstChangedLine int    `json:"firstChangedLine,omitempty"`
}

type editTool struct {
	cwd    string
	queue  *MutationQueue
	writer rwAtomicWriter
}

// NewEdit returns the edit tool, resolving relative paths against cwd.
func NewEdit(cwd string, opts EditOptions) loop.Tool {
	return &editTool{cwd: cwd, queue: queueOrNew(opts.Mutations)}
}

func (t *editTool) Definition() provider.ToolDefinition {
	return toolDefinition("edit", editDescription, editSchema)
}

// PrepareArguments accepts what models send besides the schema (pi's prepareArguments): edits as a
// JSON string, and the legacy top-level oldText/newText, which become one more entry of edits.
func (t *editTool) PrepareArguments(raw json.RawMessage) json.RawMessage {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return raw
	}
	changed := false
	if v, ok := args["edits"]; ok && len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			var list []json.RawMessage
			if json.Unmarshal([]byte(s), &list) == nil && list != nil {
				args["edits"], changed = json.RawMessage(s), true
			}
		}
	}
	var oldText, newText string
	if json.Unmarshal(args["oldText"], &oldText) == nil && json.Unmarshal(args["newText"], &newText) == nil &&
		editIsJSONString(args["oldText"]) && editIsJSONString(args["newText"]) {
		var list []json.RawMessage
		if v, ok := args["edits"]; ok {
			if json.Unmarshal(v, &list) != nil {
				list = nil
			}
		}
		legacy, err := json.Marshal(EditReplacement{OldText: oldText, NewText: newText})
		if err != nil {
			return raw
		}
		list = append(list, legacy)
		edits, err := json.Marshal(list)
		if err != nil {
			return raw
		}
		args["edits"] = edits
		delete(args, "oldText")
		delete(args, "newText")
		changed = true
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

func editIsJSONString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

func (t *editTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errRWAborted
	}
	var args EditArgs
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return loop.ToolResult{}, fmt.Errorf("edit: invalid arguments: %w", err)
	}
	if len(args.Edits) == 0 {
		return loop.ToolResult{}, errors.New("Edit tool input is invalid. edits must contain at least one replacement.")
	}
	abs := ResolvePath(args.Path, t.cwd)
	unlock, err := lockForChange(ctx, t.queue, abs)
	if err != nil {
		return loop.ToolResult{}, err
	}
	defer unlock()

	cannotEdit := func(err error) error {
		if code := rwErrnoCode(err); code != "" {
			return fmt.Errorf("Could not edit file: %s. Error code: %s.", args.Path, code)
		}
		return fmt.Errorf("Could not edit file: %s. %v.", args.Path, rwUnwrapPath(err))
	}
	if err := unix.Access(abs, unix.R_OK|unix.W_OK); err != nil {
		return loop.ToolResult{}, cannotEdit(err)
	}
	if info, err := os.Stat(abs); err != nil {
		return loop.ToolResult{}, cannotEdit(err)
	} else if info.IsDir() {
		return loop.ToolResult{}, cannotEdit(unix.EISDIR)
	} else if !info.Mode().IsRegular() {
		return loop.ToolResult{}, fmt.Errorf("Could not edit file: %s. It is not a regular file (a device, socket or pipe).", args.Path)
	}
	raw, err := editReadFile(abs)
	if err != nil {
		return loop.ToolResult{}, rwNodeError(err, "read", abs)
	}
	if ctx.Err() != nil {
		return loop.ToolResult{}, errRWAborted
	}

	// The model never types the invisible BOM: match without it and put it back.
	content, bom := raw, ""
	if rest, ok := strings.CutPrefix(content, "\uFEFF"); ok {
		content, bom = rest, "\uFEFF"
	}
	ending := editDetectLineEnding(content)
	base, next, err := editApply(editNormalizeToLF(content), args.Edits, args.Path)
	if err != nil {
		return loop.ToolResult{}, err
	}
	if ctx.Err() != nil {
		return loop.ToolResult{}, errRWAborted
	}
	if err := t.writer.write(abs, bom+editRestoreLineEndings(next, ending)); err != nil {
		return loop.ToolResult{}, err
	}
	diff, first := textdiff.Format(base, next, textdiff.DefaultContext)
	return loop.ToolResult{
		Content: []provider.Content{provider.TextContent(fmt.Sprintf("Successfully replaced %d block(s) in %s.", len(args.Edits), args.Path))},
		Details: &EditDetails{Diff: diff, FirstChangedLine: first},
	}, nil
}

// editReadFile reads a file straight into a string (os.ReadFile and a conversion would copy it twice).
func editReadFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if info, err := f.Stat(); err == nil {
		b.Grow(int(info.Size()) + 1)
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}
