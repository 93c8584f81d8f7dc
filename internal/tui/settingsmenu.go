package tui

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tui/picker"
	"github.com/pi-go/pi-go/internal/tui/termimage"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// settingsMenu is the state of an open /settings: the theme setting to go back to when a preview
// is abandoned.
type settingsMenu struct {
	list          *picker.SettingsList
	originalTheme string
}

// httpIdleChoices are pi's choices for httpIdleTimeoutMs.
var httpIdleChoices = []struct {
	label string
	ms    int
}{{"30 sec", 30_000}, {"1 min", 60_000}, {"2 min", 120_000}, {"5 min", 300_000}, {"disabled", 0}}

var projectTrustLabels = map[string]string{"ask": "Ask", "always": "Always trust", "never": "Never trust"}

// cmdSettings is /settings: pi's settings list over the keys pi-go honours. Each change is saved to
// the global settings.json at once (the locked, field-preserving writer) and applied where pi
// applies it live.
func (m *model) cmdSettings(string) tea.Cmd {
	if m.opts.Settings == nil {
		m.addError("Settings are not available in this session")
		return nil
	}
	s := m.settings()
	boolStr := strconv.FormatBool
	themeSetting := s.Theme
	if themeSetting == "" {
		themeSetting = theme.SystemTheme
	}
	items := []picker.Setting{
		{ID: "autocompact", Label: "Auto-compact", Description: "Automatically compact context when it gets too large",
			Value: boolStr(m.sess.AutoCompactionEnabled()), Values: bools},
	}
	if img := m.images(); img.protocol != termimage.None {
		// As pi: only on a terminal that draws images.
		items = append(items,
			picker.Setting{ID: "show-images", Label: "Show images", Description: "Render images inline in terminal",
				Value: boolStr(img.show), Values: bools},
			picker.Setting{ID: "image-width-cells", Label: "Image width", Description: "Preferred inline image width in terminal cells",
				Value: strconv.Itoa(img.widthCells), Values: imageWidths(img.widthCells)})
	}
	items = append(items,
		picker.Setting{ID: "auto-resize-images", Label: "Auto-resize images", Description: "Resize large images to 2000x2000 max for better model compatibility",
			Value: boolStr(s.AutoResizeImages()), Values: bools},
		picker.Setting{ID: "block-images", Label: "Block images", Description: "Prevent images from being sent to LLM providers",
			Value: boolStr(s.Images.BlockImages), Values: bools},
		picker.Setting{ID: "skill-commands", Label: "Skill commands", Description: "Register skills as /skill:name commands",
			Value: boolStr(s.EnableSkillCommands == nil || *s.EnableSkillCommands), Values: bools},
		picker.Setting{ID: "steering-mode", Label: "Steering mode",
			Description: "Enter while streaming queues steering messages. 'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.",
			Value:       string(m.sess.SteeringMode()), Values: queueModes},
		picker.Setting{ID: "follow-up-mode", Label: "Follow-up mode",
			Description: m.keys.Key("app.message.followUp") + " queues follow-up messages until agent stops. 'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.",
			Value:       string(m.sess.FollowUpMode()), Values: queueModes},
		picker.Setting{ID: "auto-retry", Label: "Auto-retry", Description: "Retry transient provider errors (overloaded, rate limits, 5xx) with back-off",
			Value: boolStr(m.sess.AutoRetryEnabled()), Values: bools},
		picker.Setting{ID: "http-idle-timeout", Label: "HTTP idle timeout",
			Description: "Maximum idle gap while waiting for HTTP headers or body chunks. Disable for local models that pause longer than five minutes.",
			Value:       httpIdleLabel(s.HTTPIdleTimeout()), Values: httpIdleLabels()},
		picker.Setting{ID: "hide-thinking", Label: "Hide thinking", Description: "Hide thinking blocks in assistant responses",
			Value: boolStr(m.hideThinking), Values: bools},
		picker.Setting{ID: "quiet-startup", Label: "Quiet startup", Description: "Disable verbose printing at startup (header: keep only the startup header)",
			Value: quietStartupValue(s.QuietStartup), Values: []string{"true", "header", "false"}},
		picker.Setting{ID: "default-project-trust", Label: "Default project trust",
			Description: "Fallback behavior when no extension or saved trust decision decides project trust",
			Value:       projectTrustLabels[s.DefaultProjectTrust()], Values: []string{"Ask", "Always trust", "Never trust"}},
		picker.Setting{ID: "double-escape-action", Label: "Double-escape action", Description: "Action when pressing Escape twice with empty editor",
			Value: orDefault(s.DoubleEscapeAction, "tree"), Values: []string{"tree", "fork", "none"}},
		picker.Setting{ID: "tui-mode", Label: "TUI mode", Description: "Interface layout; regular mode uses the terminal's normal scrollback",
			Value: tuiModeName(m.fullscreen), Values: []string{"regular", "fullscreen"}},
		picker.Setting{ID: "fullscreen-exit-output", Label: "Fullscreen exit output",
			Description: "Print the transcript or only a session resume hint when exiting fullscreen mode",
			Value:       orDefault(s.FullscreenExitOutput, "transcript"), Values: []string{"transcript", "resume-hint"}},
		picker.Setting{ID: "fullscreen-scrollbar", Label: "Fullscreen scrollbar", Description: "Scrollbar behavior in fullscreen mode; has no effect in regular mode",
			Value: orDefault(s.FullscreenScrollbar, "auto"), Values: []string{"auto", "always", "hidden"}},
		picker.Setting{ID: "fullscreen-copy-on-select", Label: "Fullscreen copy on select",
			Description: "Automatically copy selected text in fullscreen mode; disable to copy selections with Ctrl+X",
			Value:       boolStr(s.FullscreenCopyOnSelect == nil || *s.FullscreenCopyOnSelect), Values: bools},
		picker.Setting{ID: "fullscreen-wheel-scroll-lines", Label: "Fullscreen wheel scrolling",
			Description: "Lines per mouse-wheel event in fullscreen mode; 'auto' speeds up fast wheel spins where the terminal does not",
			Value:       wheelLinesValue(s.FullscreenWheelScrollLines), Values: wheelLinesValues(s.FullscreenWheelScrollLines)},
		picker.Setting{ID: "theme", Label: "Theme", Description: "Color theme for the interface", Value: themeSetting,
			Submenu: m.themeSubmenu},
	)
	list := picker.NewSettingsList(m.r, "Settings", items)
	m.settingsUI = &settingsMenu{list: list, originalTheme: s.Theme}
	m.sel = list
	return nil
}

var (
	bools      = []string{"true", "false"}
	queueModes = []string{string(loop.QueueOneAtATime), string(loop.QueueAll)}
)

// imageWidths are pi's choices, plus a width set by hand.
func imageWidths(current int) []string {
	out := []string{"60", "80", "120"}
	if c := strconv.Itoa(current); !slices.Contains(out, c) {
		out = append([]string{c}, out...)
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func tuiModeName(fullscreen bool) string {
	if fullscreen {
		return TUIModeFullscreen
	}
	return "regular"
}

func quietStartupValue(q config.QuietStartup) string {
	switch {
	case q.HidesHeader():
		return "true"
	case q.HeaderOnly():
		return "header"
	}
	return "false"
}

func httpIdleLabel(d time.Duration) string {
	switch {
	case d == 0:
		return "5 min" // pi's default
	case d < 0:
		return "disabled"
	}
	for _, c := range httpIdleChoices {
		if time.Duration(c.ms)*time.Millisecond == d {
			return c.label
		}
	}
	return fmt.Sprintf("%g sec", d.Seconds())
}

func httpIdleLabels() []string {
	out := make([]string, len(httpIdleChoices))
	for i, c := range httpIdleChoices {
		out[i] = c.label
	}
	return out
}

func wheelLinesValue(v config.NumberOrAuto) string {
	if n, ok := v.Number(); ok {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return "auto"
}

// wheelLinesValues are pi's choices plus a number set by hand.
func wheelLinesValues(v config.NumberOrAuto) []string {
	out := []string{"auto"}
	nums := []float64{1, 2, 3, 5, 10}
	if n, ok := v.Number(); ok {
		found := false
		for _, x := range nums {
			found = found || x == n
		}
		if !found {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		out = append(out, strconv.FormatFloat(n, 'f', -1, 64))
	}
	return out
}

// themeSubmenu lists the themes, and pi's automatic light/dark pair; moving the cursor previews.
func (m *model) themeSubmenu(current string) picker.Picker {
	var choices []picker.Choice
	for _, name := range m.themes.catalog.Names() {
		c := picker.Choice{Value: name}
		if name == theme.SystemTheme {
			c.Description = "Built-in theme matching your terminal's light or dark background"
		}
		choices = append(choices, c)
	}
	return picker.NewThemeSubmenu(m.r, current, m.themes.appearance, choices)
}

// previewTheme draws the UI with the theme setting named, without saving it.
func (m *model) previewTheme(setting string) {
	th, err := m.themes.catalog.Select(setting, m.themes.appearance, m.themes.profile)
	if err != nil {
		return
	}
	m.setTheme(th)
	m.toggled()
}

// settingsPickerMsg handles the messages of an open /settings; ok is false for any other.
func (m *model) settingsPickerMsg(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	if m.settingsUI == nil || m.sel != picker.Picker(m.settingsUI.list) {
		m.settingsUI = nil
		return nil, false
	}
	switch msg := msg.(type) {
	case picker.ChoicePreview:
		m.previewTheme(msg.Value)
	case picker.SettingChanged:
		return m.applySetting(msg.ID, msg.Value), true
	case picker.SubmenuCancelled:
		if msg.ID == "theme" {
			m.previewTheme(orDefault(m.settingsUI.originalTheme, theme.SystemTheme))
		}
	case picker.Cancelled:
		// The theme shown is the one saved: a preview left by Escape in the submenu is undone there.
		m.settingsUI, m.sel = nil, nil
	default:
		return nil, false
	}
	return nil, true
}

// applySetting saves one changed row and applies it live where pi does.
func (m *model) applySetting(id, value string) tea.Cmd {
	set := func(key string, v any) {
		if err := m.opts.Settings.Set(key, v); err != nil {
			m.addWarning(err.Error())
		}
	}
	on := value == "true"
	switch id {
	case "autocompact":
		m.sess.SetAutoCompaction(on)
		m.footerDirty = true
	case "show-images":
		set("terminal.showImages", on)
		m.toggled()
	case "image-width-cells":
		n, _ := strconv.Atoi(value)
		set("terminal.imageWidthCells", n)
		m.toggled()
	case "auto-resize-images":
		set("images.autoResize", on)
	case "block-images":
		set("images.blockImages", on)
	case "skill-commands":
		set("enableSkillCommands", on)
	case "steering-mode":
		m.warnErr(m.sess.SetSteeringMode(loop.QueueMode(value)))
	case "follow-up-mode":
		m.warnErr(m.sess.SetFollowUpMode(loop.QueueMode(value)))
	case "auto-retry":
		m.sess.SetAutoRetry(on)
	case "http-idle-timeout":
		for _, c := range httpIdleChoices {
			if c.label == value {
				set("httpIdleTimeoutMs", c.ms)
				m.addStatus("HTTP idle timeout: " + value)
			}
		}
	case "hide-thinking":
		if m.hideThinking != on {
			m.hideThinking = on
			set("hideThinkingBlock", on)
			m.toggled()
		}
	case "quiet-startup":
		if value == "header" {
			set("quietStartup", "header")
		} else {
			set("quietStartup", on)
		}
	case "default-project-trust":
		for k, label := range projectTrustLabels {
			if label == value {
				set("defaultProjectTrust", k)
			}
		}
	case "double-escape-action":
		set("doubleEscapeAction", value)
	case "tui-mode":
		if !m.switchTUIMode(value == TUIModeFullscreen) {
			m.settingsUI.list.SetValue("tui-mode", tuiModeName(m.fullscreen))
			m.addStatus("Cannot change the TUI mode while another program has the terminal")
			return nil
		}
		set("tuiMode", value)
		m.addStatus("TUI mode: " + value)
	case "fullscreen-exit-output":
		set("fullscreenExitOutput", value)
	case "fullscreen-scrollbar":
		set("fullscreenScrollbar", value)
	case "fullscreen-copy-on-select":
		set("fullscreenCopyOnSelect", on)
	case "fullscreen-wheel-scroll-lines":
		if value == "auto" {
			set("fullscreenWheelScrollLines", "auto")
		} else if n, err := strconv.Atoi(value); err == nil {
			set("fullscreenWheelScrollLines", n)
		}
	case "theme":
		set("theme", value)
		m.settingsUI.originalTheme = value
		m.previewTheme(value)
		return m.watchTheme()
	}
	return nil
}

// switchTUIMode moves between fullscreen and regular mode at once, as pi's /settings does: the
// terminal enters or leaves the alternate screen, and the transcript is laid out again for the new
// mode (regular mode prints it into the scrollback). false when the terminal is lent to another
// program.
func (m *model) switchTUIMode(fullscreen bool) bool {
	if m.fullscreen == fullscreen {
		return true
	}
	if m.scr.Paused() {
		return false
	}
	m.term.SwitchAlternate(fullscreen)
	m.scr.SetAlternate(fullscreen)
	m.fullscreen = fullscreen
	if fullscreen {
		m.vp.follow = true
	}
	m.toggled()
	return true
}

// warnErr shows err as a warning.
func (m *model) warnErr(err error) {
	if err != nil {
		m.addWarning(err.Error())
	}
}
