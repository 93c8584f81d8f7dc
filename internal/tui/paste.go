package tui

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/uuid"

	"github.com/pi-go/pi-go/internal/clipboard"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools"
)

// clipboardMsg is what Ctrl+V read: an image saved to path, or text, or why there is neither.
type clipboardMsg struct {
	path, text string
	err        error
}

// pasteClipboard is Ctrl+V (app.clipboard.pasteImage), as pi 1.6 does it: a clipboard image is saved
// to a temporary file whose path is inserted in the editor (the marker of the attachment); without
// an image the clipboard's text is pasted. The tools run off the UI goroutine.
func (m *model) pasteClipboard() tea.Cmd {
	ctx := m.ctx
	return m.op(func() tea.Msg {
		img, err := clipboard.ReadImage(ctx, clipboard.SystemEnv())
		if err == nil {
			path := filepath.Join(os.TempDir(), "pi-clipboard-"+uuid.NewString()+"."+clipboard.Extension(img.MIMEType))
			if werr := os.WriteFile(path, img.Data, 0o600); werr != nil {
				return clipboardMsg{err: werr}
			}
			return clipboardMsg{path: path}
		}
		if errors.Is(err, clipboard.ErrNoImage) {
			if text, terr := clipboard.ReadText(ctx, clipboard.SystemEnv()); terr == nil && text != "" {
				return clipboardMsg{text: text}
			}
		}
		return clipboardMsg{err: err}
	})
}

// clipboardRead puts what Ctrl+V read into the editor.
func (m *model) clipboardRead(msg clipboardMsg) {
	switch {
	case msg.path != "":
		m.ed.InsertText(msg.path)
		m.pastedImages = append(m.pastedImages, msg.path)
	case msg.text != "":
		m.ed.Paste(msg.text)
	case errors.Is(msg.err, clipboard.ErrNoTool):
		m.addError("Cannot paste from the clipboard: " + msg.err.Error())
	case errors.Is(msg.err, clipboard.ErrNoImage):
		m.addStatus("Nothing to paste: " + msg.err.Error())
	case msg.err != nil:
		m.addError("Failed to paste from clipboard: " + msg.err.Error())
	}
}

// takePastedImages returns the images pasted with Ctrl+V whose path is still in text, to be sent
// with it; each is sent once. An image that cannot be read is named in a warning.
func (m *model) takePastedImages(text string) []provider.Content {
	var out []provider.Content
	noResize := !m.settings().AutoResizeImages()
	m.pastedImages = slices.DeleteFunc(m.pastedImages, func(path string) bool {
		if !strings.Contains(text, path) {
			return false
		}
		img, note, _, err := tools.LoadImageFile(path, noResize)
		switch {
		case err != nil:
			m.addWarning("Pasted image not attached: " + err.Error())
		case img == nil:
			m.addWarning("Pasted image not attached: " + note)
		default:
			out = append(out, *img)
		}
		return true
	})
	return out
}
