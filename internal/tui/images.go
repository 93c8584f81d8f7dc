package tui

import (
	"hash/fnv"
	"math"
	"os"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/termimage"
)

// imageConfig is how the transcript shows images: the terminal's protocol (detected once, at start),
// the terminal.showImages and terminal.imageWidthCells settings (read when drawn, so /settings
// applies at once), and whether the mode draws them. It is a value: a conversation rendered off the
// UI goroutine draws with the configuration taken when it started.
type imageConfig struct {
	protocol   termimage.Protocol
	show       bool
	widthCells int
	fullscreen bool
}

// detectImages picks the terminal's image protocol as pi-tui does (terminal.images, then
// PI_IMAGE_PROTOCOL, then the environment).
func (m *model) detectImages() {
	m.imageProtocol = termimage.Detect(os.Getenv, string(m.settings().Terminal.Images))
}

// images is the current image configuration.
func (m *model) images() imageConfig {
	s := m.settings().Terminal
	width := 60 // pi's default
	if s.ImageWidthCells > 0 && !math.IsInf(s.ImageWidthCells, 0) {
		width = max(1, int(s.ImageWidthCells))
	}
	return imageConfig{protocol: m.imageProtocol, show: s.ShowImages == nil || *s.ShowImages, widthCells: width,
		fullscreen: m.fullscreen}
}

// inline reports whether images are drawn in the transcript: the terminal speaks a protocol,
// showImages is on, and the mode is regular. Fullscreen redraws its viewport on every scroll, where
// pi-go would have to place and delete each image as the rows move; it shows the label there.
func (c imageConfig) inline() bool {
	return c.protocol != termimage.None && c.show && !c.fullscreen
}

// drawer is the transcript's image hook (render.TranscriptOptions.Images): nil when images are not
// drawn inline, so every block keeps its labels alone.
func (c imageConfig) drawer() func([]provider.Content, int) []string {
	if !c.inline() {
		return nil
	}
	return c.lines
}

// withImages appends the images of content to a finished block's lines when the terminal draws them.
func (m *model) withImages(lines []string, content []provider.Content, width int) []string {
	if c := m.images(); c.inline() {
		lines = append(lines, c.lines(content, width)...)
	}
	return lines
}

// lines draws the images of content, each under a blank line as pi's tool output shows them (the
// block they follow keeps its one-line label). An image that cannot be drawn leaves the label as
// its only trace, as pi's fallback.
func (c imageConfig) lines(content []provider.Content, width int) []string {
	var out []string
	for _, img := range content {
		if img.Type != provider.ContentImage || img.Data == "" {
			continue
		}
		w, h, ok := render.ImageSize(img.Data, img.MimeType)
		if !ok {
			w, h = 800, 600 // pi's assumption for an image whose size cannot be read
		}
		drawn, ok := termimage.Lines(c.protocol, img.Data, img.MimeType, w, h, min(width-2, c.widthCells), imageID(img.Data))
		if !ok {
			continue
		}
		out = append(append(out, ""), drawn...)
	}
	return out
}

// imageID is a stable kitty image id for data, so drawing a block again (a relayout) replaces the
// image instead of adding one.
func imageID(data string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(data))
	return max(h.Sum32(), 1)
}
