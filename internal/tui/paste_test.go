package tui

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
)

// fakeClipboard makes a directory holding only an xclip script the whole PATH (an X11 session:
// no Wayland variables), and temporary files go to a directory of the test. targets is what
// `xclip -t TARGETS -o` lists; imageFile, if set, is what it prints for image/png.
func fakeClipboard(t *testing.T, targets, imageFile string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "")
	t.Setenv("TMPDIR", t.TempDir())
	if targets == "" {
		return // no tool at all
	}
	script := "#!/bin/sh\ncase \"$*\" in\n" +
		"\"-selection clipboard -t TARGETS -o\") printf '" + targets + "' ;;\n" +
		"\"-selection clipboard -t image/png -o\") exec /bin/cat '" + imageFile + "' ;;\n" +
		"\"-selection clipboard -o\") exit 0 ;;\n" +
		"*) exit 1 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// pngFile writes a small PNG into a temporary directory.
func pngFile(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clip.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var visionModel = func() *provider.Model {
	m := *testModel
	m.Input = []string{"text", "image"}
	return &m
}()

func TestCtrlVPastesClipboardImageAsAttachment(t *testing.T) {
	fakeClipboard(t, `TARGETS\ntext/plain\nimage/png\n`, pngFile(t))
	sc := newScript(textTurn("I see it"))
	sess := newTestSessionWith(t, sc, nil, func(o *harness.Options) { o.Model = visionModel })
	u := startUI(t, sess, Options{})
	u.typeText("what is in ")
	u.key(tea.KeyCtrlV)
	marker := regexp.MustCompile(`what is in (/\S+/pi-clipboard-[0-9a-f-]+\.png)`)
	// The editor wraps the long path onto a line of its own.
	flat := func(s string) string { return strings.Join(strings.Fields(editorOf(s)), " ") }
	screen := u.waitScreen("the image's path in the editor", func(s string) bool { return marker.MatchString(flat(s)) })
	path := marker.FindStringSubmatch(flat(screen))[1]
	if !strings.HasPrefix(path, os.Getenv("TMPDIR")) {
		t.Errorf("image saved to %s, not the temporary directory", path)
	}
	u.typeText("?")
	u.key(tea.KeyEnter)
	u.waitAll("the answer", contains("I see it"))
	u.waitSettled()

	user := sc.request(0).Messages[len(sc.request(0).Messages)-1].(*provider.UserMessage)
	var text string
	images := 0
	for _, c := range user.Content {
		switch c.Type {
		case "text":
			text += c.Text
		case "image":
			images++
			if c.MimeType != "image/png" || c.Data == "" {
				t.Errorf("image block %q with %d bytes of data", c.MimeType, len(c.Data))
			}
		}
	}
	if images != 1 || !strings.Contains(text, "what is in "+path+"?") {
		t.Errorf("sent %d images with text %q", images, text)
	}

	// Sent once: the same path typed again is plain text.
	u.typeText("again " + path)
	u.key(tea.KeyEnter)
	u.waitSettled()
	last := sc.request(1).Messages[len(sc.request(1).Messages)-1].(*provider.UserMessage)
	for _, c := range last.Content {
		if c.Type == "image" {
			t.Error("the pasted image was attached a second time")
		}
	}
}

func TestCtrlVWithoutClipboardTool(t *testing.T) {
	fakeClipboard(t, "", "")
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.key(tea.KeyCtrlV)
	u.waitScreen("the message", contains("Cannot paste from the clipboard: no clipboard tool found: install xclip"))
}

func TestCtrlVWithoutImage(t *testing.T) {
	fakeClipboard(t, `TARGETS\nUTF8_STRING\n`, "")
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.key(tea.KeyCtrlV)
	u.waitScreen("the message", contains("Nothing to paste: the clipboard holds no image"))
}
