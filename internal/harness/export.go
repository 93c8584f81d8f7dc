package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/session"
)

// ExportHTML writes the session as an HTML page (/export, RPC export_html) to path, or to
// pi-session-<file>.html in the project directory when path is empty, and returns the path written.
// The page carries the system prompt and tool list of the session as it is now. Entries still
// waiting to be written (a session before its first answer) are exported from memory.
func (s *Session) ExportHTML(ctx context.Context, path string, theme export.Theme) (string, error) {
	opts := export.HTMLOptions{Theme: theme, SystemPrompt: s.SystemPrompt()}
	for _, t := range s.agent.Tools() {
		d := t.Definition()
		opts.Tools = append(opts.Tools, export.ToolInfo{Name: d.Name, Description: d.Description})
	}
	return export.HTMLFile(ctx, export.FromManager(s.Store()), path, s.opts.Cwd, opts)
}

// ExportJSONL writes the active branch as a pi session file (/export file.jsonl) and returns the
// path written.
func (s *Session) ExportJSONL(path string) (string, error) {
	return export.JSONLFile(export.FromManager(s.Store()), path, s.opts.Cwd, time.Now())
}

// ErrImportNotFound is returned by ImportJSONL for a path that does not exist.
var ErrImportNotFound = errors.New("File not found") //nolint:staticcheck // pi's text

// ImportJSONL copies a pi session file into this session's directory and resumes it (/import), as
// pi does: the copy keeps the file's name (with -1, -2, ... when taken), its session id and its
// working directory; a file already in the directory is resumed in place. A file that is not a
// session is refused before anything is copied.
func (s *Session) ImportJSONL(path string) (string, error) {
	src, err := filepath.Abs(export.ResolvePath(path, ""))
	if err != nil {
		return "", fmt.Errorf("import %s: %w", path, err)
	}
	if _, err := os.Stat(src); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: %s", ErrImportNotFound, src)
		}
		return "", fmt.Errorf("import %s: %w", src, err)
	}
	if _, ok := session.Describe(src); !ok {
		return "", fmt.Errorf("import %s: not a pi session file (its first line is not a session header)", src)
	}
	dir := s.Store().SessionDir()
	if dir == "" {
		return "", errors.New("import: this session is not saved (--no-session), so there is no session directory to import into")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("import: session directory %s: %w", dir, err)
	}
	dest := filepath.Join(dir, filepath.Base(src))
	copied := false
	if !sameFile(dest, src) {
		if dest, err = copyExclusive(src, dest); err != nil {
			return "", fmt.Errorf("import %s: %w", src, err)
		}
		copied = true
	}
	if err := s.SwitchSession(dest); err != nil {
		if copied {
			os.Remove(dest)
		}
		return "", err
	}
	return dest, nil
}

// copyExclusive copies src to dest, or to dest with -1, -2, ... before its extension when dest
// exists, never overwriting a file; it returns the path written.
func copyExclusive(src, dest string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	ext := filepath.Ext(dest)
	stem := strings.TrimSuffix(dest, ext)
	for n := 1; ; n++ {
		out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			dest = stem + "-" + strconv.Itoa(n) + ext
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			os.Remove(dest)
			return "", err
		}
		if err := out.Close(); err != nil {
			os.Remove(dest)
			return "", err
		}
		return dest, nil
	}
}

// Share exports the session as HTML to a temporary file and uploads it as a secret GitHub gist
// (/share). viewerBase is the share viewer's URL ("" for pi's; PI_SHARE_VIEWER_URL in pi).
func (s *Session) Share(ctx context.Context, theme export.Theme, viewerBase string) (export.Shared, error) {
	gh, err := export.CheckGH(ctx) // before writing a page that could not be sent
	if err != nil {
		return export.Shared{}, err
	}
	dir, err := os.MkdirTemp("", "pi-share-")
	if err != nil {
		return export.Shared{}, fmt.Errorf("share: %w", err)
	}
	defer os.RemoveAll(dir)
	page, err := s.ExportHTML(ctx, filepath.Join(dir, "session.html"), theme)
	if err != nil {
		return export.Shared{}, fmt.Errorf("Failed to export session: %w", err) //nolint:staticcheck // pi's text
	}
	return export.ShareGist(ctx, gh, page, viewerBase)
}
