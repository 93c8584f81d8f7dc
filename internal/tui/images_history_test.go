package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// imageHistory is a stored conversation with two images: one attached to the prompt, one returned
// by a tool, preceded by filler exchanges (a conversation longer than syncHistoryMax is rendered off
// the UI goroutine).
func imageHistory(t *testing.T, filler int) (*session.Manager, string) {
	t.Helper()
	data := newShotTool(t).data
	store := session.InMemory(t.TempDir())
	var msgs []provider.Message
	for i := 0; i < filler; i++ {
		msgs = append(msgs, provider.NewUserMessage("filler question "+itoa(i)),
			&provider.AssistantMessage{API: provider.APIOpenAICompletions, Provider: "test", Model: "test-model",
				StopReason: provider.StopReasonStop, Content: []provider.Content{provider.TextContent("filler answer " + itoa(i))}})
	}
	msgs = append(msgs,
		&provider.UserMessage{Content: []provider.Content{provider.TextContent("look at this"), provider.ImageContent(data, "image/png")}},
		&provider.AssistantMessage{API: provider.APIOpenAICompletions, Provider: "test", Model: "test-model",
			StopReason: provider.StopReasonToolUse, Content: []provider.Content{provider.ToolCallContent("call-1", "shot", json.RawMessage(`{}`))}},
		&provider.ToolResultMessage{ToolCallID: "call-1", ToolName: "shot",
			Content: []provider.Content{provider.TextContent("screenshot taken"), provider.ImageContent(data, "image/png")}},
		&provider.AssistantMessage{API: provider.APIOpenAICompletions, Provider: "test", Model: "test-model",
			StopReason: provider.StopReasonStop, Content: []provider.Content{provider.TextContent("both seen")}},
	)
	for _, msg := range msgs {
		if _, err := store.AppendMessage(msg); err != nil {
			t.Fatal(err)
		}
	}
	return store, data
}

// resumeImages starts a UI on the image conversation with the protocol, mode and settings given,
// and waits for its last answer.
func resumeImages(t *testing.T, protocol, mode string, filler int, settings config.Settings) (*ui, string) {
	t.Helper()
	t.Setenv("PI_IMAGE_PROTOCOL", protocol)
	store, data := imageHistory(t, filler)
	sess := newTestSession(t, newScript(), store)
	u := startUI(t, sess, Options{TUIMode: mode, Settings: config.InMemorySettings(settings)})
	u.waitAll("the resumed conversation", contains("look at this", "screenshot taken", "both seen"))
	return u, data
}

// waitKitty waits until n kitty commands were received, each drawing data.
func (u *ui) waitKitty(n int, data string) {
	u.t.Helper()
	u.vt.WaitFor(u.t, itoa(n)+" kitty commands", func() string { return itoa(len(u.vt.APC())) },
		func(s string) bool { return s == itoa(n) })
	for i, apc := range u.vt.APC() {
		if !strings.HasPrefix(apc, "Ga=T,f=100,q=2,") || !strings.HasSuffix(apc, ";"+data) {
			u.t.Errorf("kitty command %d: %.60q…", i, apc)
		}
	}
}

func TestResumedImagesDrawnWithKitty(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filler int
	}{{"short", 0}, {"rendered in the background", syncHistoryMax}} {
		t.Run(tc.name, func(t *testing.T) {
			u, data := resumeImages(t, "kitty", TUIModeRegular, tc.filler, config.Settings{})
			u.waitKitty(2, data) // the prompt's image and the tool's
			all := strings.Join(u.vt.AllLines(), "\n")
			if i, j, k := strings.Index(all, "look at this"), strings.Index(all, "screenshot taken"), strings.Index(all, "both seen"); i < 0 || i > j || j > k {
				t.Errorf("history out of order:\n%s", all)
			}
		})
	}
}

func TestResumedImagesDrawnWithITerm2(t *testing.T) {
	u, data := resumeImages(t, "iterm2", TUIModeRegular, 0, config.Settings{})
	u.vt.WaitFor(t, "two iTerm2 images", func() string { return itoa(len(imageOSC(u.vt.OSC()))) },
		func(s string) bool { return s == "2" })
	for _, osc := range imageOSC(u.vt.OSC()) {
		if !strings.Contains(osc, ";width=60;height=auto:") || !strings.HasSuffix(osc, ":"+data) {
			t.Errorf("iTerm2 sequence %.80q", osc)
		}
	}
}

// Ctrl+O lays the transcript out again: the resumed images are drawn again with it (the same
// kitty ids, so the terminal replaces them).
func TestResumedImagesDrawnAgainAfterCtrlO(t *testing.T) {
	u, data := resumeImages(t, "kitty", TUIModeRegular, 0, config.Settings{})
	u.waitKitty(2, data)
	u.key(tea.KeyCtrlO)
	u.waitKitty(4, data)
	apc := u.vt.APC()
	if id := func(s string) string { return s[strings.Index(s, ",i="):strings.Index(s, ";")] }; id(apc[0]) != id(apc[2]) {
		t.Errorf("the image got a new id when drawn again: %q then %q", id(apc[0]), id(apc[2]))
	}
}

func TestResumedImagesKeepTheLabelWhenNotDrawn(t *testing.T) {
	off := false
	for _, tc := range []struct {
		name, protocol, mode string
		settings             config.Settings
	}{
		{"no protocol", "none", TUIModeRegular, config.Settings{}},
		{"showImages false", "kitty", TUIModeRegular, config.Settings{Terminal: config.TerminalSettings{ShowImages: &off}}},
		{"fullscreen", "kitty", TUIModeFullscreen, config.Settings{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PI_IMAGE_PROTOCOL", tc.protocol)
			store, _ := imageHistory(t, 0)
			u := startUI(t, newTestSession(t, newScript(), store), Options{TUIMode: tc.mode, Settings: config.InMemorySettings(tc.settings)})
			wait := u.waitAll
			if tc.mode == TUIModeFullscreen {
				wait = u.waitScreen
			}
			s := wait("both labels", contains("look at this", "screenshot taken", "both seen"))
			if n := strings.Count(s, "[Image: [image/png] 90x36]"); n != 2 {
				t.Errorf("%d image labels, want 2:\n%s", n, s)
			}
			if apc, osc := u.vt.APC(), imageOSC(u.vt.OSC()); len(apc)+len(osc) > 0 {
				t.Errorf("images drawn: %d kitty, %d iTerm2", len(apc), len(osc))
			}
		})
	}
}

// A prompt with an image sent in this run is drawn as a resumed one is.
func TestLivePromptImageDrawnWithKitty(t *testing.T) {
	t.Setenv("PI_IMAGE_PROTOCOL", "kitty")
	data := newShotTool(t).data
	sess := newTestSession(t, newScript(textTurn("seen it")), nil)
	u := startUI(t, sess, Options{Settings: config.InMemorySettings(config.Settings{})})
	done := make(chan error, 1)
	go func() {
		done <- sess.Prompt(context.Background(), "look at this", []provider.Content{provider.ImageContent(data, "image/png")}, harness.BehaviorNone)
	}()
	u.waitAll("the answer", contains("look at this", "seen it"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	u.waitKitty(1, data)
}
