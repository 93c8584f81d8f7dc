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

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Settings is the merged view of the global and the project settings.json: every key of pi 1.6.0's
// settings schema (schemas/settings.schema.json), so each is type-checked when the files load (a value
// of the wrong type is named and ignored), plus contentIdleTimeoutMs, checkpoints and checkpointLimits
// of pi-go's own. Keys pi-go gives no meaning are read and kept for pi; writing a setting rewrites only
// that key of the file. Pointer and zero fields mean "not set"; the accessor methods apply pi's defaults.
type Settings struct {
	Schema                     string             `json:"$schema,omitempty"`
	LastChangelogVersion       string             `json:"lastChangelogVersion,omitempty"`
	ExtensionChangelogVersions map[string]string  `json:"extensionChangelogVersions,omitempty"`
	DefaultProvider            string             `json:"defaultProvider,omitempty"`
	DefaultModel               string             `json:"defaultModel,omitempty"`
	DefaultThinkingLevel       string             `json:"defaultThinkingLevel,omitempty"`
	ModelThinkingLevels        map[string]string  `json:"modelThinkingLevels,omitempty"`
	Transport                  string             `json:"transport,omitempty"`
	SessionShareDestination    string             `json:"sessionShareDestination,omitempty"`
	SteeringModeValue          string             `json:"steeringMode,omitempty"`
	FollowUpModeValue          string             `json:"followUpMode,omitempty"`
	Theme                      string             `json:"theme,omitempty"`
	Compaction                 CompactionSettings `json:"compaction"`
	BranchSummary              BranchSummarySet   `json:"branchSummary"`
	Retry                      RetrySettings      `json:"retry"`
	HideThinkingBlock          bool               `json:"hideThinkingBlock,omitempty"`
	ShowCacheMissNotices       bool               `json:"showCacheMissNotices,omitempty"`
	ExternalEditor             string             `json:"externalEditor,omitempty"`
	ShellPath                  string             `json:"shellPath,omitempty"`
	QuietStartup               QuietStartup       `json:"quietStartup,omitempty"`
	DefaultProjectTrustValue   string             `json:"defaultProjectTrust,omitempty"` // global only
	ShellCommandPrefix         string             `json:"shellCommandPrefix,omitempty"`
	NpmCommand                 []string           `json:"npmCommand,omitempty"`
	SelfUpdateCommand          []string           `json:"selfUpdateCommand,omitempty"` // global only
	CollapseChangelog          bool               `json:"collapseChangelog,omitempty"`
	EnableInstallTelemetry     *bool              `json:"enableInstallTelemetry,omitempty"`
	EnableAnalytics            bool               `json:"enableAnalytics,omitempty"`
	TrackingID                 string             `json:"trackingId,omitempty"`
	Packages                   []PackageSource    `json:"packages,omitempty"`
	Extensions                 []string           `json:"extensions,omitempty"`
	DeviceID                   string             `json:"deviceId,omitempty"`
	Skills                     []string           `json:"skills,omitempty"`
	Prompts                    []string           `json:"prompts,omitempty"`
	Themes                     []string           `json:"themes,omitempty"`
	EnableSkillCommands        *bool              `json:"enableSkillCommands,omitempty"`
	Terminal                   TerminalSettings   `json:"terminal"`
	Images                     ImageSettings      `json:"images"`
	EnabledModels              []string           `json:"enabledModels,omitempty"`
	DefaultToolsValue          []string           `json:"defaultTools,omitempty"`
	DoubleEscapeAction         string             `json:"doubleEscapeAction,omitempty"`
	TreeFilterMode             string             `json:"treeFilterMode,omitempty"`
	ThinkingBudgets            map[string]int     `json:"thinkingBudgets,omitempty"`
	EditorPaddingX             int                `json:"editorPaddingX,omitempty"`
	OutputPad                  *int               `json:"outputPad,omitempty"`
	AutocompleteMaxVisible     int                `json:"autocompleteMaxVisible,omitempty"`
	ShowHardwareCursor         bool               `json:"showHardwareCursor,omitempty"`
	Markdown                   MarkdownSettings   `json:"markdown"`
	Warnings                   WarningSettings    `json:"warnings"`
	Codemode                   CodemodeSettings   `json:"codemode"`
	SessionDir                 string             `json:"sessionDir,omitempty"`
	HTTPProxy                  string             `json:"httpProxy,omitempty"`    // global only
	CacheWarming               string             `json:"cacheWarming,omitempty"` // global only
	TUIMode                    string             `json:"tuiMode,omitempty"`
	FullscreenExitOutput       string             `json:"fullscreenExitOutput,omitempty"`
	FullscreenScrollbar        string             `json:"fullscreenScrollbar,omitempty"`
	FullscreenCopyOnSelect     *bool              `json:"fullscreenCopyOnSelect,omitempty"`
	FullscreenWheelScrollLines NumberOrAuto       `json:"fullscreenWheelScrollLines,omitempty"`
	QueueMode                  string             `json:"queueMode,omitempty"`  // pi's old name of steeringMode
	Websockets                 *bool              `json:"websockets,omitempty"` // pi's old form of transport
	// HTTPIdleTimeoutMs, WebsocketConnectTimeoutMs and ContentIdleTimeoutMs are kept raw: a number, a
	// numeric string or "disabled" (see network.go).
	HTTPIdleTimeoutMs         json.RawMessage `json:"httpIdleTimeoutMs,omitempty"`
	WebsocketConnectTimeoutMs json.RawMessage `json:"websocketConnectTimeoutMs,omitempty"`
	ContentIdleTimeoutMs      json.RawMessage `json:"contentIdleTimeoutMs,omitempty"`
	// Checkpoints and CheckpointLimits are pi-go's rewind store (see checkpoints.go).
	Checkpoints      *bool                   `json:"checkpoints,omitempty"`
	CheckpointLimits CheckpointLimitSettings `json:"checkpointLimits"`
}

// globalOnlyKeys are read from the agent directory's settings.json only (pi 1.6): a project file
// cannot make pi trust projects, proxy its traffic, spend money warming caches or update itself.
var globalOnlyKeys = []string{"defaultProjectTrust", "httpProxy", "cacheWarming", "selfUpdateCommand"}

// CompactionSettings controls automatic context compaction.
type CompactionSettings struct {
	Enabled          *bool                              `json:"enabled,omitempty"`
	ReserveTokens    int                                `json:"reserveTokens,omitempty"`
	KeepRecentTokens int                                `json:"keepRecentTokens,omitempty"`
	ModelOverrides   map[string]CompactionModelOverride `json:"modelOverrides,omitempty"`
}

// CompactionModelOverride is a compaction.modelOverrides entry, keyed by "provider/modelId".
type CompactionModelOverride struct {
	ReserveTokens    *int `json:"reserveTokens,omitempty"`
	KeepRecentTokens *int `json:"keepRecentTokens,omitempty"`
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
	MaxAgentDelayMs int                   `json:"maxAgentDelayMs,omitempty"`
	Provider        ProviderRetrySettings `json:"provider"`
}

// ProviderRetrySettings are retry.provider: the SDK-level retries pi 1.6 leaves off by default.
type ProviderRetrySettings struct {
	TimeoutMs       *float64 `json:"timeoutMs,omitempty"`
	MaxRetries      *int     `json:"maxRetries,omitempty"`
	MaxRetryDelayMs *float64 `json:"maxRetryDelayMs,omitempty"`
}

// ImageSettings controls images sent to the model.
type ImageSettings struct {
	AutoResize  *bool `json:"autoResize,omitempty"`
	BlockImages bool  `json:"blockImages,omitempty"`
}

// TerminalSettings controls terminal features of the TUI.
type TerminalSettings struct {
	ShowImages           *bool          `json:"showImages,omitempty"`
	ImageWidthCells      float64        `json:"imageWidthCells,omitempty"`
	ClearOnShrink        bool           `json:"clearOnShrink,omitempty"`
	ShowTerminalProgress bool           `json:"showTerminalProgress,omitempty"`
	Hyperlinks           BoolOrAuto     `json:"hyperlinks,omitempty"`
	Images               TerminalImages `json:"images,omitempty"`
	TrueColor            BoolOrAuto     `json:"trueColor,omitempty"`
}

// MarkdownSettings controls markdown rendering.
type MarkdownSettings struct {
	CodeBlockIndent *string `json:"codeBlockIndent,omitempty"`
	Mermaid         string  `json:"mermaid,omitempty"`
}

// WarningSettings are pi's optional warnings.
type WarningSettings struct {
	AnthropicExtraUsage *bool `json:"anthropicExtraUsage,omitempty"`
}

// CodemodeSettings configure pi's codemode tool.
type CodemodeSettings struct {
	Mode         string   `json:"mode,omitempty"`
	InlineBudget *float64 `json:"inlineBudget,omitempty"`
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

// DefaultProjectTrust is the global defaultProjectTrust: "always", "never", or "ask" (the default, and
// what any other value means).
func (s Settings) DefaultProjectTrust() string {
	switch s.DefaultProjectTrustValue {
	case "always", "never":
		return s.DefaultProjectTrustValue
	}
	return "ask"
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
	global      *jsonx.Object
	project     *jsonx.Object
	globalErr   error
	projectErr  error
	// typeErrs are the values of the wrong type in either file: reported, and left out of the
	// merge (the file itself is never rewritten for them).
	typeErrs []error
	// projectIgnored: the project is not trusted, so its settings do not count (pi 1.6).
	projectIgnored bool
	merged         Settings
}

var settingsType = reflect.TypeOf(Settings{})

// LoadSettings reads both files. Problems are recorded (see Errors), never fatal: a missing file is
// empty, an invalid one is reported and ignored.
func LoadSettings(agentDir, cwd string) *SettingsManager {
	m := &SettingsManager{
		globalPath:  filepath.Join(agentDir, "settings.json"),
		projectPath: filepath.Join(cwd, ".pi", "settings.json"),
	}
	m.readFiles()
	return m
}

// readFiles (re)reads both files, records their problems and merges them.
func (m *SettingsManager) readFiles() {
	m.global, m.globalErr = loadSettingsFile(m.globalPath)
	m.project, m.projectErr = loadSettingsFile(m.projectPath)
	m.typeErrs = nil
	for _, f := range []struct {
		path string
		obj  *jsonx.Object
	}{{m.globalPath, m.global}, {m.projectPath, m.project}} {
		values, _ := toMap(f.obj)
		_, problems := checkObject(values, settingsType, "")
		for _, p := range problems {
			m.typeErrs = append(m.typeErrs, fmt.Errorf("%s: %s (ignored)", f.path, p))
		}
	}
	for _, k := range globalOnlyKeys {
		if _, ok := m.project.Get(k); ok {
			m.typeErrs = append(m.typeErrs, fmt.Errorf("%s: %s can only be set in %s (ignored)", m.projectPath, k, m.globalPath))
		}
	}
	m.remerge()
}

// Reload re-reads both files (pi's /reload), keeping the project's trust decision, and returns their
// problems as Errors does. A manager made by InMemorySettings has no files and keeps its settings.
func (m *SettingsManager) Reload() []error {
	m.mu.Lock()
	if m.globalPath != "" {
		m.readFiles()
	}
	m.mu.Unlock()
	return m.Errors()
}

// InMemorySettings returns a manager that never touches the disk (tests, --no-session style runs).
func InMemorySettings(s Settings) *SettingsManager {
	m := &SettingsManager{global: jsonx.NewObject(), project: jsonx.NewObject(), merged: s}
	return m
}

func loadSettingsFile(path string) (*jsonx.Object, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return jsonx.NewObject(), nil
	}
	if err != nil {
		return jsonx.NewObject(), fmt.Errorf("settings %s: %w", path, err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return jsonx.NewObject(), nil
	}
	obj, err := jsonx.ParseObject(data)
	if err != nil {
		return jsonx.NewObject(), fmt.Errorf("settings %s: invalid JSON: %w", path, err)
	}
	migrateSettings(obj)
	return obj, nil
}

// migrateSettings applies pi 1.6's migrations (SettingsManager.migrateSettings): queueMode →
// steeringMode and boolean websockets → transport when the new key is not set, the old skills object
// → the skills array (and enableSkillCommands), retry.maxDelayMs → retry.provider.maxRetryDelayMs.
func migrateSettings(obj *jsonx.Object) {
	if v, ok := obj.Get("queueMode"); ok && isJSONString(v) {
		if _, has := obj.Get("steeringMode"); !has {
			obj.Set("steeringMode", v)
			obj.Delete("queueMode")
		}
	}
	if v, ok := obj.Get("websockets"); ok {
		var b bool
		if _, has := obj.Get("transport"); !has && json.Unmarshal(v, &b) == nil {
			if b {
				obj.Set("transport", json.RawMessage(`"websocket"`))
			} else {
				obj.Set("transport", json.RawMessage(`"sse"`))
			}
			obj.Delete("websockets")
		}
	}
	if v, ok := obj.Get("skills"); ok {
		if old, err := jsonx.ParseObject(v); err == nil {
			if enable, ok := old.Get("enableSkillCommands"); ok {
				if _, has := obj.Get("enableSkillCommands"); !has {
					obj.Set("enableSkillCommands", enable)
				}
			}
			var dirs []json.RawMessage
			if raw, ok := old.Get("customDirectories"); ok && json.Unmarshal(raw, &dirs) == nil && len(dirs) > 0 {
				obj.Set("skills", raw)
			} else {
				obj.Delete("skills")
			}
		}
	}
	if v, ok := obj.Get("retry"); ok {
		if retry, err := jsonx.ParseObject(v); err == nil {
			if old, ok := retry.Get("maxDelayMs"); ok {
				var n float64
				if json.Unmarshal(old, &n) == nil {
					prov := jsonx.NewObject()
					if raw, ok := retry.Get("provider"); ok {
						if p, err := jsonx.ParseObject(raw); err == nil {
							prov = p
						}
					}
					if cur, ok := prov.Get("maxRetryDelayMs"); !ok || string(cur) == "null" {
						prov.Set("maxRetryDelayMs", old)
						if raw, err := prov.MarshalJSON(); err == nil {
							retry.Set("provider", raw)
						}
					}
				}
				retry.Delete("maxDelayMs")
				if raw, err := retry.MarshalJSON(); err == nil {
					obj.Set("retry", raw)
				}
			}
		}
	}
}

func isJSONString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil
}

// remerge recomputes the typed view as pi 1.6 merges the files (deepMergeSettings): project values
// win, objects merge at every depth, arrays and other values are replaced, except defaultTools, where a
// project list of only +name/-name entries modifies the global one. Values of the wrong type are left
// out, so the other file's value or the default applies; the global-only keys are read from the
// global file alone, and an untrusted project's file not at all.
func (m *SettingsManager) remerge() {
	g, _ := toMap(m.global)
	g, _ = checkObject(g, settingsType, "")
	merged := g
	if !m.projectIgnored {
		p, _ := toMap(m.project)
		p, _ = checkObject(p, settingsType, "")
		for _, k := range globalOnlyKeys {
			delete(p, k)
		}
		merged = deepMerge(g, p)
		if tools, ok := mergeDefaultTools(g["defaultTools"], p["defaultTools"]); ok {
			merged["defaultTools"] = tools
		}
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

// deepMerge returns base with override's values on top; objects present in both are merged
// recursively; null in override leaves base's value.
func deepMerge(base, override map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(override))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		if v == nil {
			continue
		}
		bv, bIsObj := out[k].(map[string]any)
		ov, oIsObj := v.(map[string]any)
		if bIsObj && oIsObj {
			out[k] = deepMerge(bv, ov)
			continue
		}
		out[k] = v
	}
	return out
}

// mergeDefaultTools merges defaultTools of two layers as pi 1.6 does: a list of only +name/-name
// entries is appended to the inherited list (so it modifies it), any other list replaces it. ok is
// false when override does not set the key.
func mergeDefaultTools(base, override any) (any, bool) {
	if override == nil {
		return nil, false
	}
	b, bIsList := base.([]any)
	o, oIsList := override.([]any)
	if !bIsList || !oIsList {
		return override, true
	}
	for _, e := range o {
		if s, _ := e.(string); !IsToolModifier(s) {
			return override, true
		}
	}
	return append(append([]any{}, b...), o...), true
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

// SetProjectTrusted decides whether the project's settings.json counts (pi 1.6's project trust).
// Until it is called the project file counts, as it does for pi's session-directory lookup before
// trust is resolved.
func (m *SettingsManager) SetProjectTrusted(trusted bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.projectIgnored = !trusted
	m.remerge()
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
	return m.write(key, raw)
}

// Unset removes one global setting from the global settings.json (pi's setX(undefined)), the
// same way Set writes one.
func (m *SettingsManager) Unset(key string) error { return m.write(key, nil) }

// write replaces (or, with raw nil, removes) key in memory and in the global file.
func (m *SettingsManager) write(key string, raw json.RawMessage) error {
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
		data, err := current.MarshalIndent("  ")
		if err != nil {
			return err
		}
		return writeFileAtomic(m.globalPath, data, 0o644)
	})
}

func applyKey(obj *jsonx.Object, key string, raw json.RawMessage) {
	parent, child, nested := strings.Cut(key, ".")
	if !nested {
		if raw == nil {
			obj.Delete(key)
			return
		}
		obj.Set(key, raw)
		return
	}
	inner := jsonx.NewObject()
	if cur, ok := obj.Get(parent); ok {
		if parsed, err := jsonx.ParseObject(cur); err == nil {
			inner = parsed
		}
	}
	if raw == nil {
		inner.Delete(child)
	} else {
		inner.Set(child, raw)
	}
	if data, err := inner.MarshalJSON(); err == nil {
		obj.Set(parent, data)
	}
}

// toMap converts a settings object into a generic map for merging.
func toMap(obj *jsonx.Object) (map[string]any, error) {
	out := map[string]any{}
	for k, raw := range obj.All() {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}
