package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNothingToExport is returned for a session that has no file yet (no message was exchanged).
var ErrNothingToExport = errors.New("Nothing to export yet - start a conversation first") //nolint:staticcheck // pi's text

// DefaultHTMLPath is where an HTML export goes when no path is given: pi-session-<file name>.html in
// the current directory, as pi names it.
func DefaultHTMLPath(sessionFile string) string {
	return "pi-session-" + strings.TrimSuffix(filepath.Base(sessionFile), ".jsonl") + ".html"
}

// DefaultJSONLPath is pi's name for a JSONL export without a path (session-<time>.jsonl).
func DefaultJSONLPath(now time.Time) string {
	return "session-" + strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format("2006-01-02T15:04:05.000Z")) + ".jsonl"
}

// IsJSONL reports whether an export path asks for a session file rather than a page.
func IsJSONL(path string) bool { return strings.HasSuffix(path, ".jsonl") }

// HTMLFile writes the HTML export of src to path (DefaultHTMLPath when empty, relative paths from
// cwd) and returns the path written. The page is written to a temporary file beside it and renamed,
// so a failed export never leaves half a page under the asked-for name.
func HTMLFile(ctx context.Context, src Source, path, cwd string, opts HTMLOptions) (string, error) {
	if src.File == "" || !exists(src.File) {
		return "", ErrNothingToExport
	}
	if path == "" {
		path = DefaultHTMLPath(src.File)
	}
	return writeFile(ResolvePath(path, cwd), func(w io.Writer) error { return WriteHTML(ctx, w, src, opts) })
}

// JSONLFile writes the JSONL export of src to path (DefaultJSONLPath when empty) and returns the
// path written.
func JSONLFile(src Source, path, cwd string, now time.Time) (string, error) {
	if path == "" {
		path = DefaultJSONLPath(now)
	}
	return writeFile(ResolvePath(path, cwd), func(w io.Writer) error { return WriteJSONL(w, src, now) })
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ResolvePath is path with a leading "~/" expanded to the home directory and, when relative, joined
// to cwd ("": left relative), cleaned.
func ResolvePath(path, cwd string) string {
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path)
}

func writeFile(path string, write func(io.Writer) error) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("export to %s: %w", path, err)
	}
	return path, nil
}
