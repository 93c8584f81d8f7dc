package harness

import (
	"fmt"
	"strings"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// BuiltinToolNames lists every built-in tool in pi's order.
var BuiltinToolNames = []string{"read", "bash", "edit", "write", "grep", "find", "ls"}

// DefaultToolNames are the tools active when --tools is not given.
var DefaultToolNames = []string{"read", "bash", "edit", "write"}

// ToolOptions configure the built-in tools.
type ToolOptions struct {
	Cwd                string
	ShellPath          string
	ShellCommandPrefix string
	BinDir             string
	DisableImageResize bool
	// OutputDir receives the bash tool's full-output files (nil: the system temp directory).
	OutputDir *shell.OutputDir
	// ModelAcceptsImages reports whether the current model takes images (nil: yes).
	ModelAcceptsImages func() bool
}

// BuildTools creates the named built-in tools in the given order. Unknown names are returned as
// warnings (pi drops them with a warning).
func BuildTools(names []string, o ToolOptions) ([]loop.Tool, []string) {
	mutations := tools.NewMutationQueue()
	var out []loop.Tool
	var warnings []string
	seen := map[string]bool{}
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		switch name {
		case "read":
			out = append(out, tools.NewRead(o.Cwd, tools.ReadOptions{
				DisableImageResize: o.DisableImageResize,
				ModelAcceptsImages: o.ModelAcceptsImages,
			}))
		case "bash":
			out = append(out, tools.NewBash(o.Cwd, shell.Options{
				ShellPath:     o.ShellPath,
				CommandPrefix: o.ShellCommandPrefix,
				BinDir:        o.BinDir,
				OutputDir:     o.OutputDir,
			}))
		case "edit":
			out = append(out, tools.NewEdit(o.Cwd, tools.EditOptions{Mutations: mutations}))
		case "write":
			out = append(out, tools.NewWrite(o.Cwd, tools.WriteOptions{Mutations: mutations}))
		case "grep":
			out = append(out, tools.NewGrep(o.Cwd))
		case "find":
			out = append(out, tools.NewFind(o.Cwd))
		case "ls":
			out = append(out, tools.NewLs(o.Cwd))
		default:
			warnings = append(warnings, fmt.Sprintf("Unknown tool %q (available: %s)", name, strings.Join(BuiltinToolNames, ", ")))
		}
	}
	return out, warnings
}
