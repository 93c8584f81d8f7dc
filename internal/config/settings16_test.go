package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// pi 1.6's settings: every key of its schema loads without a warning, the file keeps what pi-go does
// not use when a setting is written, and the defaults are 1.6's.
func TestSettingsPi16KeysLoadAndSurviveAWrite(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	path := filepath.Join(agent, "settings.json")
	text := `{
  "$schema": "https://pi.dev/schemas/settings.schema.json",
  "theme": "light/dark",
  "quietStartup": "header",
  "defaultThinkingLevel": "max",
  "modelThinkingLevels": {"openai/gpt-5": "high"},
  "defaultTools": ["+grep", "-bash"],
  "defaultProjectTrust": "always",
  "httpProxy": "http://proxy.example:3128",
  "httpIdleTimeoutMs": "disabled",
  "websocketConnectTimeoutMs": 15000,
  "cacheWarming": "streaming",
  "transport": "websocket-cached",
  "retry": {"maxAgentDelayMs": 30000, "provider": {"timeoutMs": 1000, "maxRetries": 0, "maxRetryDelayMs": 0}},
  "compaction": {"modelOverrides": {"openai/gpt-5": {"reserveTokens": 1000}}},
  "terminal": {"hyperlinks": "auto", "images": false, "trueColor": true, "showTerminalProgress": true, "imageWidthCells": 60},
  "markdown": {"mermaid": "final"},
  "codemode": {"mode": "only", "inlineBudget": 0},
  "warnings": {"anthropicExtraUsage": false},
  "packages": ["npm:some-pkg", {"source": "git:github.com/a/b", "autoload": false, "skills": ["x"]}],
  "extensions": ["-builtin:mcp"],
  "selfUpdateCommand": ["mise", "use", "-g", "npm:{packageName}@{version}"],
  "tuiMode": "regular",
  "fullscreenWheelScrollLines": "auto",
  "outputPad": 0,
  "sessionShareDestination": "gist",
  "enableAnalytics": false,
  "deviceId": "7f1e6a2c",
  "aFutureKey": {"kept": [1, 2]}
}`
	settingsWrite(t, path, text)
	m := LoadSettings(agent, cwd)
	if errs := m.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	s := m.Settings()
	if tools, ok := s.DefaultTools(); !ok || !slices.Equal(tools, []string{"read", "edit", "write", "grep"}) {
		t.Errorf("defaultTools = %v %v", tools, ok)
	}
	if s.DefaultProjectTrust() != "always" || s.HTTPProxy != "http://proxy.example:3128" || s.MaxAgentDelay().Milliseconds() != 30000 ||
		s.HTTPIdleTimeout() >= 0 || s.QuietStartup.HidesHeader() || s.Theme != "light/dark" || len(s.Packages) != 2 ||
		s.Packages[1].Source != "git:github.com/a/b" || s.Packages[1].Filter == nil {
		t.Errorf("settings: %+v", s)
	}
	if v, set := s.Terminal.TrueColor.Override(); !v || !set {
		t.Error("terminal.trueColor")
	}
	if err := m.Set("defaultModel", "gpt-5"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, keep := range []string{`"$schema": "https://pi.dev/schemas/settings.schema.json"`, `"aFutureKey": {`, `"kept": [`,
		`"quietStartup": "header"`, `"images": false`, `"autoload": false`, `"defaultModel": "gpt-5"`} {
		if !strings.Contains(string(data), keep) {
			t.Errorf("after a write the file lacks %s:\n%s", keep, data)
		}
	}
}

func TestSettingsPi16Defaults(t *testing.T) {
	s := LoadSettings(t.TempDir(), t.TempDir()).Settings()
	if tools, ok := s.DefaultTools(); ok || tools != nil {
		t.Errorf("defaultTools unset: %v %v", tools, ok)
	}
	if s.DefaultProjectTrust() != "ask" || s.MaxAgentDelay() != DefaultMaxAgentDelay || s.QuietStartup.HidesHeader() {
		t.Errorf("defaults: %+v", s)
	}
	if s.Theme != "" { // the TUI reads "" as "system" (theme.Resolve)
		t.Errorf("theme %q", s.Theme)
	}
}

// Objects merge at every depth (retry.provider); defaultTools of only +name/-name entries in the project
// modify the global list, a plain name replaces it.
func TestSettingsDeepMergeAndDefaultTools(t *testing.T) {
	for _, tc := range []struct {
		global, project string
		want            []string
	}{
		{`["read", "grep"]`, `["+ls", "-read"]`, []string{"grep", "ls"}},
		{`["+ls"]`, `["-bash"]`, []string{"read", "edit", "write", "ls"}},
		{`["read", "grep"]`, `["bash", "+ls"]`, []string{"bash", "ls"}},
		{`["read"]`, `[]`, []string{"read"}},                               // as in pi: an empty list has no plain name, so it modifies
		{`[]`, `["+ls"]`, []string{"read", "bash", "edit", "write", "ls"}}, // pi merges to ["+ls"]
		{``, `["-bash", "+grep"]`, []string{"read", "edit", "write", "grep"}},
	} {
		agent, cwd := t.TempDir(), t.TempDir()
		global := `{"retry": {"provider": {"timeoutMs": 5, "maxRetries": 2}}}`
		if tc.global != "" {
			global = `{"retry": {"provider": {"timeoutMs": 5, "maxRetries": 2}}, "defaultTools": ` + tc.global + `}`
		}
		settingsWrite(t, filepath.Join(agent, "settings.json"), global)
		settingsWrite(t, filepath.Join(cwd, ".pi", "settings.json"), `{"retry": {"provider": {"maxRetries": 1}}, "defaultTools": `+tc.project+`}`)
		m := LoadSettings(agent, cwd)
		s := m.Settings()
		if tools, _ := s.DefaultTools(); !reflect.DeepEqual(tools, tc.want) {
			t.Errorf("%s + %s: %q, want %q", tc.global, tc.project, tools, tc.want)
		}
		if p := s.Retry.Provider; p.TimeoutMs == nil || *p.TimeoutMs != 5 || p.MaxRetries == nil || *p.MaxRetries != 1 {
			t.Errorf("retry.provider not merged deeply: %+v", p)
		}
		// An untrusted project's settings do not count.
		m.SetProjectTrusted(false)
		if tools, ok := m.Settings().DefaultTools(); tc.global == "" && ok || *m.Settings().Retry.Provider.MaxRetries != 2 {
			t.Errorf("untrusted project still counts: %v", tools)
		}
	}
}

// defaultProjectTrust, httpProxy, cacheWarming and selfUpdateCommand count only in the agent
// directory's settings.json; in a project file they are named and ignored.
func TestSettingsGlobalOnlyKeys(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"), `{"httpProxy": "http://global:1"}`)
	project := filepath.Join(cwd, ".pi", "settings.json")
	settingsWrite(t, project, `{"defaultProjectTrust": "always", "httpProxy": "http://evil:1", "theme": "light"}`)
	m := LoadSettings(agent, cwd)
	s := m.Settings()
	if s.DefaultProjectTrust() != "ask" || s.HTTPProxy != "http://global:1" || s.Theme != "light" {
		t.Errorf("settings: trust %q proxy %q theme %q", s.DefaultProjectTrust(), s.HTTPProxy, s.Theme)
	}
	var got []string
	for _, e := range m.Errors() {
		got = append(got, e.Error())
	}
	global := filepath.Join(agent, "settings.json")
	want := []string{
		project + ": defaultProjectTrust can only be set in " + global + " (ignored)",
		project + ": httpProxy can only be set in " + global + " (ignored)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// pi 1.6's migrations: the skills object, retry.maxDelayMs, and queueMode/websockets only when the
// new key is absent.
func TestSettingsPi16Migrations(t *testing.T) {
	agent := t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"), `{"skills": {"enableSkillCommands": false, "customDirectories": ["~/s"]},
		"retry": {"maxDelayMs": 9000}, "queueMode": "all", "steeringMode": "one-at-a-time", "websockets": true}`)
	m := LoadSettings(agent, t.TempDir())
	if errs := m.Errors(); len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	s := m.Settings()
	if !slices.Equal(s.Skills, []string{"~/s"}) || s.EnableSkillCommands == nil || *s.EnableSkillCommands ||
		s.Retry.Provider.MaxRetryDelayMs == nil || *s.Retry.Provider.MaxRetryDelayMs != 9000 ||
		s.SteeringMode() != "one-at-a-time" || s.QueueMode != "all" || s.Transport != "websocket" {
		t.Errorf("migrated: %+v", s)
	}
}

func TestProxyEnv(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	if got := ProxyEnv(" http://p:1 ", env(nil)); !reflect.DeepEqual(got, map[string]string{"HTTP_PROXY": "http://p:1", "HTTPS_PROXY": "http://p:1"}) {
		t.Errorf("unset: %v", got)
	}
	if got := ProxyEnv("http://p:1", env(map[string]string{"https_proxy": "http://mine:2"})); !reflect.DeepEqual(got, map[string]string{"HTTP_PROXY": "http://p:1"}) {
		t.Errorf("user's https_proxy: %v", got)
	}
	if got := ProxyEnv("  ", env(nil)); got != nil {
		t.Errorf("blank: %v", got)
	}
}
