package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func settingsWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSettingsMergeProjectWins(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"),
		`{"defaultModel":"gpt-4o","compaction":{"enabled":false,"reserveTokens":1000},"enabledModels":["a","b"]}`)
	settingsWrite(t, filepath.Join(cwd, ".pi", "settings.json"),
		`{"defaultModel":"local","compaction":{"reserveTokens":2000},"enabledModels":["c"]}`)
	m := LoadSettings(agent, cwd)
	if errs := m.Errors(); len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	s := m.Settings()
	if s.DefaultModel != "local" {
		t.Errorf("defaultModel = %q, want project value", s.DefaultModel)
	}
	if s.CompactionEnabled() {
		t.Errorf("compaction.enabled from global lost in nested merge")
	}
	if s.ReserveTokens() != 2000 {
		t.Errorf("reserveTokens = %d, want 2000", s.ReserveTokens())
	}
	if strings.Join(s.EnabledModels, ",") != "c" {
		t.Errorf("arrays must be replaced, got %v", s.EnabledModels)
	}
}

func TestSettingsDefaults(t *testing.T) {
	m := LoadSettings(t.TempDir(), t.TempDir())
	s := m.Settings()
	if !s.CompactionEnabled() || s.ReserveTokens() != 16384 || s.KeepRecentTokens() != 20000 {
		t.Errorf("compaction defaults wrong: %+v", s.Compaction)
	}
	if !s.RetryEnabled() || s.MaxRetries() != 3 || s.BaseDelay().Milliseconds() != 2000 {
		t.Errorf("retry defaults wrong: %+v", s.Retry)
	}
	if s.SteeringMode() != "one-at-a-time" || s.FollowUpMode() != "one-at-a-time" {
		t.Errorf("queue mode defaults wrong")
	}
}

func TestSettingsSetPreservesUnknownKeysAndOrder(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	path := filepath.Join(agent, "settings.json")
	settingsWrite(t, path, "{\n  \"zeta\": {\"custom\": [1, 2]},\n  \"defaultModel\": \"x\",\n  \"alpha\": true\n}")
	m := LoadSettings(agent, cwd)
	// Another program edits the file after we loaded it.
	settingsWrite(t, path, "{\n  \"zeta\": {\"custom\": [1, 2]},\n  \"defaultModel\": \"x\",\n  \"alpha\": true,\n  \"external\": 7\n}")
	if err := m.Set("defaultModel", "y"); err != nil {
		t.Fatal(err)
	}
	if err := m.Set("compaction.enabled", false); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	want := "{\n  \"zeta\": {\n    \"custom\": [\n      1,\n      2\n    ]\n  },\n  \"defaultModel\": \"y\",\n  \"alpha\": true,\n  \"external\": 7,\n  \"compaction\": {\n    \"enabled\": false\n  }\n}"
	if got != want {
		t.Errorf("file after Set:\n%s\nwant:\n%s", got, want)
	}
	if m.Settings().CompactionEnabled() {
		t.Errorf("in-memory value not updated")
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock directory left behind")
	}
}

func TestSettingsInvalidJSONReportedAndNotOverwritten(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	path := filepath.Join(agent, "settings.json")
	settingsWrite(t, path, `{"defaultModel": "x",,}`)
	m := LoadSettings(agent, cwd)
	errs := m.Errors()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "invalid JSON") || !strings.Contains(errs[0].Error(), path) {
		t.Fatalf("want one invalid-JSON error naming the file, got %v", errs)
	}
	if err := m.Set("defaultModel", "y"); err == nil {
		t.Errorf("Set must report that the broken file is not saved")
	}
	data, _ := os.ReadFile(path)
	if string(data) != `{"defaultModel": "x",,}` {
		t.Errorf("broken file was overwritten: %s", data)
	}
	if m.Settings().DefaultModel != "y" {
		t.Errorf("the change must still apply in memory")
	}
}

func TestSettingsMigratesQueueMode(t *testing.T) {
	agent := t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"), `{"queueMode":"all"}`)
	m := LoadSettings(agent, t.TempDir())
	if m.Settings().SteeringMode() != "all" {
		t.Errorf("queueMode not migrated to steeringMode")
	}
}

func TestSettingsProjectDirNotCreatedOnGlobalWrite(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	m := LoadSettings(agent, cwd)
	if err := m.Set("theme", "light"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cwd, ".pi")); !os.IsNotExist(err) {
		t.Errorf(".pi directory created by a global write")
	}
}

func TestSettingsWrongTypeIgnoredFieldByField(t *testing.T) {
	agent := t.TempDir()
	settingsWrite(t, filepath.Join(agent, "settings.json"), `{"defaultModel": 5, "theme": "light"}`)
	s := LoadSettings(agent, t.TempDir()).Settings()
	if s.Theme != "light" {
		t.Errorf("a bad field must not hide the good ones: %+v", s)
	}
}

// Reload reads both files again and keeps the trust decision: an untrusted project's file still does
// not count.
func TestSettingsReload(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(agent, "settings.json"), `{"prompts":["a"]}`)
	write(filepath.Join(cwd, ".pi", "settings.json"), `{"prompts":["p"]}`)
	m := LoadSettings(agent, cwd)
	m.SetProjectTrusted(false)
	write(filepath.Join(agent, "settings.json"), `{"prompts":["b"],"skills":["s"],"theme":7}`)
	errs := m.Reload()
	global, project := m.ResourceLists()
	if len(global.Prompts) != 1 || global.Prompts[0] != "b" || len(global.Skills) != 1 || len(project.Prompts) != 0 {
		t.Errorf("after reload: %+v %+v", global, project)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "theme") {
		t.Errorf("problems: %v", errs)
	}
	if got := m.Settings().Prompts; len(got) != 1 || got[0] != "b" {
		t.Errorf("merged prompts %v", got)
	}
}

func TestSettingsUnsetRemovesOnlyThatKey(t *testing.T) {
	agent := t.TempDir()
	path := filepath.Join(agent, "settings.json")
	if err := os.WriteFile(path, []byte(`{"enabledModels": ["a/b"], "mine": 1, "compaction": {"enabled": false, "reserveTokens": 5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := LoadSettings(agent, t.TempDir())
	if err := m.Unset("enabledModels"); err != nil {
		t.Fatal(err)
	}
	if err := m.Unset("compaction.enabled"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"mine\": 1,\n  \"compaction\": {\n    \"reserveTokens\": 5\n  }\n}"
	if strings.TrimSpace(string(data)) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	if s := m.Settings(); s.EnabledModels != nil || !s.CompactionEnabled() {
		t.Errorf("in memory: enabledModels %v, compaction enabled %v", s.EnabledModels, s.CompactionEnabled())
	}
}
