// Package clipboard reads the system clipboard through the command-line tools pi uses: wl-paste in
// a Wayland session (and on WSL), xclip on X11, osascript and pbpaste on macOS. It knows nothing of
// the TUI: it returns the bytes and their type, or an error saying which tool is missing.
package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Image is an image read from the clipboard.
type Image struct {
	Data     []byte
	MIMEType string // image/png, image/jpeg, image/webp or image/gif
}

// ErrNoTool: no clipboard tool for this system is installed; its message says what to install.
var ErrNoTool = errors.New("no clipboard tool found")

// ErrNoImage: the clipboard holds no image.
var ErrNoImage = errors.New("the clipboard holds no image")

// Env is what decides the tool: the environment and the operating system (runtime.GOOS).
type Env struct {
	Getenv func(string) string
	GOOS   string
}

// SystemEnv is this process's environment.
func SystemEnv() Env { return Env{Getenv: os.Getenv, GOOS: runtime.GOOS} }

// Timeouts of pi's clipboard commands: listing the types, and reading the data.
const (
	listTimeout = time.Second
	readTimeout = 3 * time.Second
	// maxBytes is pi's limit on what a clipboard command may print.
	maxBytes = 50 << 20
)

// supportedTypes are the image types pi sends to models, in its order of preference.
var supportedTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// ReadImage returns the clipboard's image. On Linux it asks wl-paste first in a Wayland session
// or on WSL, then xclip when wl-paste is missing or failed (as pi does: a Wayland clipboard without
// an image is not read again through X11); on macOS it asks osascript for PNG data.
func ReadImage(ctx context.Context, env Env) (*Image, error) {
	if env.Getenv("TERMUX_VERSION") != "" {
		return nil, ErrNoImage
	}
	switch env.GOOS {
	case "darwin":
		return readImageMac(ctx)
	case "linux", "freebsd", "openbsd", "netbsd":
	default:
		return nil, fmt.Errorf("%w: image paste is not supported on %s", ErrNoTool, env.GOOS)
	}
	tried := false
	if wayland(env) || wsl(env) {
		img, err := readImageWith(ctx, "wl-paste", []string{"--list-types"}, func(t string) []string {
			return []string{"--type", t, "--no-newline"}
		})
		if !errors.Is(err, errUnavailable) {
			return img, err
		}
		tried = true
	}
	img, err := readImageWith(ctx, "xclip", []string{"-selection", "clipboard", "-t", "TARGETS", "-o"}, func(t string) []string {
		return []string{"-selection", "clipboard", "-t", t, "-o"}
	})
	if !errors.Is(err, errUnavailable) {
		return img, err
	}
	if tried || wayland(env) {
		return nil, fmt.Errorf("%w: install wl-clipboard (wl-paste) or xclip", ErrNoTool)
	}
	return nil, fmt.Errorf("%w: install xclip (X11) or wl-clipboard (Wayland)", ErrNoTool)
}

// ReadText returns the clipboard's text with the same tools ("" when it holds none).
func ReadText(ctx context.Context, env Env) (string, error) {
	var candidates [][]string
	switch {
	case env.GOOS == "darwin":
		candidates = [][]string{{"pbpaste"}}
	case wayland(env) || wsl(env):
		candidates = [][]string{{"wl-paste", "--no-newline"}, {"xclip", "-selection", "clipboard", "-o"}}
	default:
		candidates = [][]string{{"xclip", "-selection", "clipboard", "-o"}}
	}
	for _, c := range candidates {
		out, err := run(ctx, readTimeout, c[0], c[1:]...)
		if errors.Is(err, errUnavailable) {
			continue
		}
		return string(out), nil
	}
	return "", ErrNoTool
}

func wayland(env Env) bool {
	return env.Getenv("WAYLAND_DISPLAY") != "" || env.Getenv("XDG_SESSION_TYPE") == "wayland"
}

func wsl(env Env) bool {
	if env.Getenv("WSL_DISTRO_NAME") != "" || env.Getenv("WSL_INTEROP") != "" {
		return true
	}
	data, err := os.ReadFile("/proc/version")
	return err == nil && bytes.Contains(bytes.ToLower(data), []byte("microsoft"))
}

// errUnavailable: the tool is not installed, failed or timed out (pi's "undefined": try the next).
var errUnavailable = errors.New("clipboard tool unavailable")

// readImageWith lists the clipboard's types with tool, picks pi's preferred image type and reads it.
func readImageWith(ctx context.Context, tool string, list []string, read func(mime string) []string) (*Image, error) {
	types, err := run(ctx, listTimeout, tool, list...)
	if err != nil {
		return nil, err
	}
	mime := preferredImageType(strings.Split(string(types), "\n"))
	if mime == "" {
		return nil, ErrNoImage
	}
	data, err := run(ctx, readTimeout, tool, read(mime)...)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, ErrNoImage
	}
	base := baseType(mime)
	if !isSupported(base) {
		return nil, fmt.Errorf("%w (it holds %s, which cannot be sent to a model)", ErrNoImage, base)
	}
	return &Image{Data: data, MIMEType: base}, nil
}

// readImageMac asks AppleScript for the clipboard as PNG, written to a temporary file.
func readImageMac(ctx context.Context) (*Image, error) {
	if _, err := exec.LookPath("osascript"); err != nil {
		return nil, fmt.Errorf("%w: osascript is missing", ErrNoTool)
	}
	dir, err := os.MkdirTemp("", "pi-clip-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "clip.png")
	script := []string{
		"-e", `set f to open for access (POSIX file "` + path + `") with write permission`,
		"-e", "try",
		"-e", "write (the clipboard as «class PNGf») to f",
		"-e", "end try",
		"-e", "close access f",
	}
	if _, err := run(ctx, readTimeout, "osascript", script...); err != nil {
		return nil, ErrNoImage
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return nil, ErrNoImage
	}
	return &Image{Data: data, MIMEType: "image/png"}, nil
}

// preferredImageType is pi's choice among the offered types: a supported image type in pi's order,
// else any image type, else "".
func preferredImageType(types []string) string {
	var trimmed []string
	for _, t := range types {
		if t = strings.TrimSpace(t); t != "" {
			trimmed = append(trimmed, t)
		}
	}
	for _, want := range supportedTypes {
		for _, t := range trimmed {
			if baseType(t) == want {
				return t
			}
		}
	}
	for _, t := range trimmed {
		if strings.HasPrefix(baseType(t), "image/") {
			return t
		}
	}
	return ""
}

func baseType(t string) string {
	base, _, _ := strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(base))
}

func isSupported(base string) bool {
	for _, t := range supportedTypes {
		if t == base {
			return true
		}
	}
	return false
}

// Extension is the file extension of an image type ("png" for anything unknown).
func Extension(mime string) string {
	switch baseType(mime) {
	case "image/jpeg":
		return "jpg"
	case "image/webp":
		return "webp"
	case "image/gif":
		return "gif"
	}
	return "png"
}
