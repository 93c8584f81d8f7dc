package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Settings is the merged view of the global and the project settings.json (pi-reference §3.7). Pointer
// and zero fields mean "not set"; the accessor methods apply pi's defaults.
type Settings struct {
	DefaultProvider      string             `json:"defaultProvider,omitempty"`
	DefaultModel         string             `json:"defaultModel,omitempty"`
	DefaultThinkingLevel string             `json:"defaultThinkingLevel,omitempty"`
	Transport            string             `json:"transport,omitempty"`
	SteeringModeValue    string             `json:"steeringMode,omitempty"`
	FollowUpModeValue    string             `json:"followUpMode,omitempty"`
	Theme                string             `json:"theme,omitempty"`
	Compaction           CompactionSettings `json:"compaction"`
	BranchSummary        BranchSummarySet   `json:"branchSummary"`
	Retry                RetrySettings      `json:"retry"`
	HideThinkingBlock    bool               `json:"hideThinkingBlock,omitempty"`
	ShellPath            string             `json:"shellPath,omitempty"`
	ShellCommandPrefix   string             `json:"shellCommandPrefix,omitempty"`
	QuietStartup         bool               `json:"quietStartup,omitempty"`
	EnabledModels        []string           `json:"enabledModels,omitempty"`
	DoubleEscapeAction   string             `json:"doubleEscapeAction,omitempty"`
	TreeFilterMode       string             `json:"treeFilterMode,omitempty"`
	ThinkingBudgets      map[string]int     `json:"thinkingBudgets,omitempty"`
	EditorPaddingX       int                `json:"editorPaddingX,omitempty"`
	SessionDir           string             `json:"sessionDir,omitempty"`
	Images               ImageSettings      `json:"images"`
	Terminal             TerminalSettings   `json:"terminal"`
	Markdown             MarkdownSettings   `json:"markdown"`
	// HTTPIdleTimeoutMs and ContentIdleTimeoutMs are kept raw: a number, a numeric string or
	// "disabled" (see network.go).
	HTTPIdleTimeoutMs    json.RawMessage `json:"httpIdleTimeoutMs,omitempty"`
	ContentIdleTimeoutMs json.RawMessage `json:"contentIdleTimeoutMs,omitempty"`
}

// CompactionSettings controls automatic context compaction.
type CompactionSettings struct {
	Enabled          *bool `json:"enabled,omitempty"`
	ReserveTokens    int   `json:"reserveTokens,omitempty"`
	KeepRecentTokens int   `json:"keepRecentTokens,omitempty"`
}

// BranchSummarySet controls /tree branch summaries.
type BranchSummarySet struct {
	ReserveTokens int  `json:"reserveTokens,omitempty"`
	SkipPrompt    bool `json:"skipPrompt,omitempty"`
}

// RetrySettings controls automatic retry of transient provider errors.
type RetrySettings struct {
	Enabled     *bool `json:"enabled,omitempty"`
	MaxRetries  *int  `json:"maxRetries,omitempty"`
	BaseDelayMs int   `json:"baseDelayMs,omitempty"`
	// MaxAgentDelayMs caps the wait before a retry (pi 1.6; see network.go).
	MaxAgentDelayMs int `json:"maxAgentDelayMs,omitempty"`
}

// ImageSettings controls images sent to the model.
type ImageSettings struct {
	AutoResize  *bool `json:"autoResize,omitempty"`
	BlockImages bool  `json:"blockImages,omitempty"`
}

// TerminalSettings controls terminal features of the TUI.
type TerminalSettings struct {
	ShowImages    *bool `json:"showImages,omitempty"`
	ClearOnShrink bool  `json:"clearOnShrink,omitempty"`
}

// MarkdownSettings controls markdown rendering.
type MarkdownSettings struct {
	CodeBlockIndent *string `json:"codeBlockIndent,omitempty"`
}

// Defaults of pi's settings.
const (
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
	DefaultMaxRetries       = 3
	DefaultBaseDelay        = 2 * time.Second
)

// CompactionEnabled is compaction.enabled (default true).
func (s Settings) CompactionEnabled() bool {
	return s.Compaction.Enabled == nil || *s.Compaction.Enabled
}

// ReserveTokens is compaction.reserveTokens (default 16384).
func (s Settings) ReserveTokens() int {
	if s.Compaction.ReserveTokens > 0 {
		return s.Compaction.ReserveTokens
	}
	return DefaultReserveTokens
}

// KeepRecentTokens is compaction.keepRecentTokens (default 20000).
func (s Settings) KeepRecentTokens() int {
	if s.Compaction.KeepRecentTokens > 0 {
		return s.Compaction.KeepRecentTokens
	}
	return DefaultKeepRecentTokens
}

// BranchSummaryReserveTokens is branchSummary.reserveTokens (default 16384).
func (s Settings) BranchSummaryReserveTokens() int {
	if s.BranchSummary.ReserveTokens > 0 {
		return s.BranchSummary.ReserveTokens
	}
	return DefaultReserveTokens
}

// RetryEnabled is retry.enabled (default true).
func (s Settings) RetryEnabled() bool { return s.Retry.Enabled == nil || *s.Retry.Enabled }

// MaxRetries is retry.maxRetries (default 3).
func (s Settings) MaxRetries() int {
	if s.Retry.MaxRetries != nil && *s.Retry.MaxRetries >= 0 {
		return *s.Retry.MaxRetries
	}
	return DefaultMaxRetries
}

// BaseDelay is retry.baseDelayMs (default 2 s).
func (s Settings) BaseDelay() time.Duration {
	if s.Retry.BaseDelayMs > 0 {
		return time.Duration(s.Retry.BaseDelayMs) * time.Millisecond
	}
	return DefaultBaseDelay
}

// SteeringMode is steeringMode (default one-at-a-time).
func (s Settings) SteeringMode() string { return queueModeOr(s.SteeringModeValue) }

// FollowUpMode is followUpMode (default one-at-a-time).
func (s Settings) FollowUpMode() string { return queueModeOr(s.FollowUpModeValue) }

func queueModeOr(v string) string {
	if v == "all" {
		return "all"
	}
	return "one-at-a-time"
}

// AutoResizeImages is images.autoResize (default true).
func (s Settings) AutoResizeImages() bool { return s.Images.AutoResize == nil || *s.Images.AutoResize }

// SettingsManager loads the global (<agentDir>/settings.json) and project (<cwd>/.pi/settings.json)
// files and writes changes back to the global file. Writes change only the fields modified through Set
// and keep everything else in the file as it is, including keys pi-go does not know and edits made by
// another program since the file was loaded. A file with invalid JSON is reported, treated as empty,
// and never overwritten.
type SettingsManager struct {
	mu          sync.Mutex
	globalPath  string
	projectPath string
	global      *orderedObject
	project     *orderedObject
	globalErr   error
	projectErr  error
	// typeErrs are the values of the wrong type in either file: reported, and left out of the
	// merge (the file itself is never rewritten for them).
	typeErrs []error
	merged   Settings
}

var settingsType = reflect.TypeOf(Settings{})

// LoadSettings reads both files. Problems are recorded (see Errors), never fatal: a missing file is
// empty, an invalid one is reported and ignored.
func LoadSettings(agentDir, cwd string) *SettingsManager {
	m := &SettingsManager{
		globalPath:  filepath.Join(agentDir, "settings.json"),
		projectPath: filepath.Join(cwd, ".pi", "settings.json"),
	}
	m.global, m.globalErr = loadSettingsFile(m.globalPath)
	m.project, m.projectErr = loadSettingsFile(m.projectPath)
	for _, f := range []struct {
		path string
		obj  *orderedObject
	}{{m.globalPath, m.global}, {m.projectPath, m.project}} {
		values, _ := f.obj.toMap()
		_, problems := checkObject(values, settingsType, "")
		for _, p := range problems {
			m.typeErrs = append(m.typeErrs, fmt.Errorf("%s: %s (ignored)", f.path, p))
		}
	}
	m.remerge()
	return m
}

// InMemorySettings returns a manager that never touches the disk (tests, --no-session style runs).
func InMemorySettings(s Settings) *SettingsManager {
	m := &SettingsManager{global: newOrderedObject(), project: newOrderedObject(), merged: s}
	return m
}

func loadSettingsFile(path string) (*orderedObject, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return newOrderedObject(), nil
	}
	if err != nil {
		return newOrderedObject(), fmt.Errorf("settings %s: %w", path, err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return newOrderedObject(), nil
	}
	obj, err := parseOrderedObject(data)
	if err != nil {
		return newOrderedObject(), fmt.Errorf("settings %s: invalid JSON: %w", path, err)
	}
	migrateSettings(obj)
	return obj, nil
}

// migrateSettings applies pi's renames: queueMode → steeringMode, boolean websockets → transport.
func migrateSettings(obj *orderedObject) {
	if v, ok := obj.get("queueMode"); ok {
		if _, has := obj.get("steeringMode"); !has {
			obj.set("steeringMode", v)
		}
		obj.delete("queueMode")
	}
	if v, ok := obj.get("websockets"); ok {
		if _, has := obj.get("transport"); !has {
			var b bool
			if json.Unmarshal(v, &b) == nil {
				if b {
					obj.set("transport", json.RawMessage(`"websocket"`))
				} else {
					obj.set("transport", json.RawMessage(`"sse"`))
				}
			}
		}
		obj.delete("websockets")
	}
}

// remerge recomputes the typed view: project values win, nested objects merge one level. Values of
// the wrong type are left out, so the other file's value or the default applies.
func (m *SettingsManager) remerge() {
	g, _ := m.global.toMap()
	p, _ := m.project.toMap()
	g, _ = checkObject(g, settingsType, "")
	p, _ = checkObject(p, settingsType, "")
	merged := map[string]any{}
	for k, v := range g {
		merged[k] = v
	}
	for k, v := range p {
		if v == nil {
			continue
		}
		pv, pIsObj := v.(map[string]any)
		gv, gIsObj := merged[k].(map[string]any)
		if pIsObj && gIsObj {
			n := map[string]any{}
			for kk, vv := range gv {
				n[kk] = vv
			}
			for kk, vv := range pv {
				n[kk] = vv
			}
			merged[k] = n
			continue
		}
		merged[k] = v
	}
	var s Settings
	if data, err := json.Marshal(merged); err == nil {
		// checkObject left out the values of the wrong type; should the decoder still refuse one
		// (a kind of value the check does not know), decode key by key so one does not hide the rest.
		if err := json.Unmarshal(data, &s); err != nil {
			s = decodeTolerant(merged)
		}
	}
	m.merged = s
}

// decodeTolerant decodes each top-level key on its own so one bad value does not hide the others.
func decodeTolerant(merged map[string]any) Settings {
	var s Settings
	for k, v := range merged {
		one, err := json.Marshal(map[string]any{k: v})
		if err != nil {
			continue
		}
		var part Settings
		if json.Unmarshal(one, &part) == nil {
			_ = json.Unmarshal(one, &s)
		}
	}
	return s
}

// Settings returns the merged settings.
func (m *SettingsManager) Settings() Settings {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.merged
}

// Errors lists the problems found while loading (invalid JSON, unreadable files, values of the
// wrong type, each named by file and key path).
func (m *SettingsManager) Errors() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	if m.globalErr != nil {
		errs = append(errs, m.globalErr)
	}
	if m.projectErr != nil {
		errs = append(errs, m.projectErr)
	}
	return append(errs, m.typeErrs...)
}

// Set changes one global setting and writes it to the global settings.json at once. key is a
// top-level name or "parent.child" for nested settings (e.g. "compaction.enabled"). The file is
// re-read under a lock and only this field is replaced. When the global file held invalid JSON the
// change applies in memory only and the file is left alone (the error is returned).
func (m *SettingsManager) Set(key string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("setting %s: %w", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	applyKey(m.global, key, raw)
	m.remerge()
	if m.globalPath == "" {
		return nil
	}
	if m.globalErr != nil {
		return fmt.Errorf("not saving %s: %w", key, m.globalErr)
	}
	return withFileLock(m.globalPath, func() error {
		current, err := loadSettingsFile(m.globalPath)
		if err != nil {
			return err
		}
		applyKey(current, key, raw)
		data, err := current.marshalIndent()
		if err != nil {
			return err
		}
		return writeFileAtomic(m.globalPath, data, 0o644)
	})
}

func applyKey(obj *orderedObject, key string, raw json.RawMessage) {
	parent, child, nested := strings.Cut(key, ".")
	if !nested {
		obj.set(key, raw)
		return
	}
	inner := newOrderedObject()
	if cur, ok := obj.get(parent); ok {
		if parsed, err := parseOrderedObject(cur); err == nil {
			inner = parsed
		}
	}
	inner.set(child, raw)
	data, err := inner.marshalIndent()
	if err != nil {
		return
	}
	var compact json.RawMessage
	if err := json.Unmarshal(data, &compact); err == nil {
		obj.set(parent, compact)
	}
}
