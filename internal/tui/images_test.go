package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// shotTool is a tool whose result is a 90x36 PNG (10 x 2 cells at pi's 9x18 cell).
type shotTool struct{ data string }

func newShotTool(t *testing.T) *shotTool {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 90, 36))); err != nil {
		t.Fatal(err)
	}
	return &shotTool{data: base64.StdEncoding.EncodeToString(buf.Bytes())}
}

func (s *shotTool) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: "shot", Description: "takes a screenshot",
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (s *shotTool) Execute(context.Context, loop.ToolCall, func(loop.ToolResult)) (loop.ToolResult, error) {
	return loop.ToolResult{Content: []provider.Content{provider.TextContent("screenshot taken"),
		provider.ImageContent(s.data, "image/png")}}, nil
}

// runShot starts a UI (mode, image protocol and settings as given), lets the model call shot and
// waits for the answer after it.
func runShot(t *testing.T, protocol, mode string, settings config.Settings) (*ui, *shotTool) {
	t.Helper()
	t.Setenv("PI_IMAGE_PROTOCOL", protocol)
	tool := newShotTool(t)
	sc := newScript(toolTurn("", "shot", `{}`), textTurn("got the picture"))
	sess := newTestSession(t, sc, nil, tool)
	u := startUI(t, sess, Options{TUIMode: mode, Settings: config.InMemorySettings(settings)})
	u.submit("take a screenshot")
	return u, tool
}

func TestImagePlaceholderWithoutProtocol(t *testing.T) {
	u, _ := runShot(t, "none", TUIModeRegular, config.Settings{})
	u.waitAll("the labelled placeholder", contains("screenshot taken", "[Image: [image/png] 90x36]", "got the picture"))
	if apc, osc := u.vt.APC(), imageOSC(u.vt.OSC()); len(apc) > 0 || len(osc) > 0 {
		t.Errorf("image sequences sent to a terminal without a protocol: %d kitty, %d iTerm2", len(apc), len(osc))
	}
}

func TestImageDrawnWithKitty(t *testing.T) {
	u, tool := runShot(t, "kitty", TUIModeRegular, config.Settings{})
	u.waitAll("the answer", contains("[Image: [image/png] 90x36]", "got the picture"))
	apc := u.vt.APC()
	if len(apc) != 1 {
		t.Fatalf("kitty commands: %d, want 1", len(apc))
	}
	want := "Ga=T,f=100,q=2,C=1,c=60,r=12,i="
	if !strings.HasPrefix(apc[0], want) || !strings.HasSuffix(apc[0], ";"+tool.data) {
		t.Errorf("kitty command %.60q…, want prefix %q and the PNG data", apc[0], want)
	}
}

func TestImageDrawnWithITerm2AtTheSettingsWidth(t *testing.T) {
	width := 30.0
	u, tool := runShot(t, "iterm2", TUIModeRegular, config.Settings{Terminal: config.TerminalSettings{ImageWidthCells: width}})
	u.waitAll("the answer", contains("got the picture"))
	osc := imageOSC(u.vt.OSC())
	if len(osc) != 1 || osc[0] != "1337;File=inline=1;size="+itoa(base64.StdEncoding.DecodedLen(len(tool.data))-strings.Count(tool.data, "="))+";width=30;height=auto:"+tool.data {
		t.Errorf("iTerm2 sequences %.80q", osc)
	}
}

func TestImageNotDrawnWhenShowImagesIsOffOrFullscreen(t *testing.T) {
	off := false
	u, _ := runShot(t, "kitty", TUIModeRegular, config.Settings{Terminal: config.TerminalSettings{ShowImages: &off}})
	u.waitAll("the answer", contains("[Image: [image/png] 90x36]", "got the picture"))
	if n := len(u.vt.APC()); n != 0 {
		t.Errorf("showImages false: %d kitty commands", n)
	}
}

func TestImagePlaceholderInFullscreen(t *testing.T) {
	u, _ := runShot(t, "kitty", TUIModeFullscreen, config.Settings{})
	u.waitScreen("the labelled placeholder", contains("[Image: [image/png] 90x36]", "got the picture"))
	if n := len(u.vt.APC()); n != 0 {
		t.Errorf("fullscreen: %d kitty commands", n)
	}
}

// imageOSC keeps iTerm2's inline-image commands.
func imageOSC(osc []string) []string {
	var out []string
	for _, o := range osc {
		if strings.HasPrefix(o, "1337;File=") {
			out = append(out, o)
		}
	}
	return out
}
