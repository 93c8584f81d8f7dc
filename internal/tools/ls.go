package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
)

//go:embed ls.md
var lsDescription string

const lsSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string","description":"Directory to list (default: current directory)"},` +
	`"limit":{"type":"number","description":"Maximum number of entries to return (default: 500)"}}}`

const lsDefaultLimit = 500

// LsDetails is the ls tool's details object; nil when nothing was cut.
type LsDetails struct {
	EntryLimitReached *float64           `json:"entryLimitReached,omitempty"`
	Truncation        *output.Truncation `json:"truncation,omitempty"`
}

type lsTool struct{ cwd string }

// NewLs returns the ls tool, resolving relative paths against cwd.
func NewLs(cwd string) loop.Tool { return &lsTool{cwd: cwd} }

func (t *lsTool) Definition() provider.ToolDefinition {
	return toolDefinition("ls", lsDescription, lsSchema)
}

type lsArgs struct {
	Path  string   `json:"path"`
	Limit *float64 `json:"limit"`
}

func (t *lsTool) Execute(ctx context.Context, call loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ToolResult{}, errAborted
	}
	var args lsArgs
	if err := decodeArgs("ls", call.Args, &args); err != nil {
		return loop.ToolResult{}, err
	}
	path := args.Path
	if path == "" {
		path = "."
	}
	dir := ResolvePath(path, t.cwd)
	limit := float64(lsDefaultLimit)
	if args.Limit != nil {
		limit = *args.Limit
	}
	st, err := os.Stat(dir)
	if err != nil {
		return loop.ToolResult{}, fmt.Errorf("Path not found: %s", dir)
	}
	if !st.IsDir() {
		return loop.ToolResult{}, fmt.Errorf("Not a directory: %s", dir)
	}
	names, err := lsReadNames(dir)
	if err != nil {
		return loop.ToolResult{}, fmt.Errorf("Cannot read directory: %s", lsNodeMessage(err, "scandir", dir))
	}
	lsSort(names)

	var (
		lines   []string
		reached bool
	)
	for i, name := range names {
		if countReached(len(lines), limit) {
			reached = true
			break
		}
		if i%256 == 255 && ctx.Err() != nil {
			return loop.ToolResult{}, errAborted
		}
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			continue // pi skips entries it cannot stat (broken links)
		}
		if st.IsDir() {
			name += "/"
		}
		lines = append(lines, name)
	}
	if len(lines) == 0 {
		return loop.ToolResult{Content: []provider.Content{provider.TextContent("(empty directory)")}}, nil
	}
	var details LsDetails
	var limitNotice string
	if reached {
		limitNotice = fmt.Sprintf("%s entries limit reached. Use limit=%s for more", jsNumber(limit), jsNumber(limit*2))
		details.EntryLimitReached = &limit
	}
	text, cut, noticed := listText(lines, limitNotice, "")
	details.Truncation = cut
	result := loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}}
	if noticed {
		result.Details = &details
	}
	return result, nil
}

func lsReadNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// lsSort orders names as pi does, a.toLowerCase().localeCompare(b.toLowerCase()): Unicode collation
// (CLDR root, what Node's ICU uses for en-US) of the lower-cased names; ties fall back to the bytes so
// the order is stable.
func lsSort(names []string) {
	c := collate.New(language.Und)
	lower := make(map[string]string, len(names))
	for _, n := range names {
		lower[n] = strings.ToLower(n)
	}
	sort.Slice(names, func(i, j int) bool {
		if r := c.CompareString(lower[names[i]], lower[names[j]]); r != 0 {
			return r < 0
		}
		return names[i] < names[j]
	})
}

// lsNodeMessage words a file-system error as Node.js does ("EACCES: permission denied, scandir
// '/x'"), which is the text pi shows.
func lsNodeMessage(err error, syscallName, path string) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if desc := lsErrnoDescription(errno); desc != "" {
			return fmt.Sprintf("%s: %s, %s '%s'", unix.ErrnoName(errno), desc, syscallName, path)
		}
	}
	return err.Error()
}

// lsErrnoCode is the errno's name (ENOENT), or "" when it has none.
func lsErrnoCode(errno syscall.Errno) string { return unix.ErrnoName(errno) }

// lsErrnoDescription is libuv's wording for the errors directory listing meets.
func lsErrnoDescription(errno syscall.Errno) string {
	switch errno {
	case syscall.ENOENT:
		return "no such file or directory"
	case syscall.EACCES:
		return "permission denied"
	case syscall.EPERM:
		return "operation not permitted"
	case syscall.ENOTDIR:
		return "not a directory"
	case syscall.ELOOP:
		return "too many symbolic links encountered"
	case syscall.EMFILE:
		return "too many open files"
	case syscall.ENFILE:
		return "file table overflow"
	case syscall.EIO:
		return "i/o error"
	case syscall.ENAMETOOLONG:
		return "name too long"
	}
	return ""
}
