package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Wrongly typed settings are reported by file and key path and ignored, one key at a time: their
// siblings and the other file still count, and the file is never rewritten.
func TestSettingsWithWrongTypesWarnAndFallBack(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	global := filepath.Join(agent, "settings.json")
	project := filepath.Join(cwd, ".pi", "settings.json")
	globalText := `{"compaction": {"enabled": "yes", "reserveTokens": 5000}, "retry": 5, "defaultThinkingLevel": 3,
  "enabledModels": ["a", 3], "thinkingBudgets": {"low": "x", "high": 2048}, "editorPaddingX": 1.5,
  "hideThinkingBlock": "no", "defaultModel": "ok-model", "images": {"autoResize": 1, "blockImages": true},
  "steeringMode": "all", "piOnlySetting": {"anything": [1, "x"]}}`
	projectText := `{"defaultModel": false, "compaction": {"keepRecentTokens": "many"}}`
	settingsWrite(t, global, globalText)
	settingsWrite(t, project, projectText)

	m := LoadSettings(agent, cwd)
	var got []string
	for _, e := range m.Errors() {
		got = append(got, e.Error())
	}
	want := []string{
		global + ": compaction.enabled: expected a boolean, got a string (ignored)",
		global + ": defaultThinkingLevel: expected a string, got a number (ignored)",
		global + ": editorPaddingX: expected an integer, got a number with a fraction (ignored)",
		global + ": enabledModels: expected an array of strings, got a number at index 1 (ignored)",
		global + ": hideThinkingBlock: expected a boolean, got a string (ignored)",
		global + ": images.autoResize: expected a boolean, got a number (ignored)",
		global + ": retry: expected an object, got a number (ignored)",
		global + ": thinkingBudgets.low: expected an integer, got a string (ignored)",
		project + ": compaction.keepRecentTokens: expected an integer, got a string (ignored)",
		project + ": defaultModel: expected a string, got a boolean (ignored)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := m.Settings()
	if !s.CompactionEnabled() || s.ReserveTokens() != 5000 || s.KeepRecentTokens() != DefaultKeepRecentTokens {
		t.Errorf("compaction: %+v (enabled falls back to true, its sibling stays)", s.Compaction)
	}
	if s.MaxRetries() != DefaultMaxRetries || !s.RetryEnabled() || s.DefaultThinkingLevel != "" || s.EnabledModels != nil ||
		s.EditorPaddingX != 0 || s.HideThinkingBlock || !s.AutoResizeImages() {
		t.Errorf("wrong types did not fall back to defaults: %+v", s)
	}
	if s.DefaultModel != "ok-model" {
		t.Errorf("defaultModel = %q: the project's wrong value must not hide the global one", s.DefaultModel)
	}
	if !reflect.DeepEqual(s.ThinkingBudgets, map[string]int{"high": 2048}) || !s.Images.BlockImages || s.SteeringMode() != "all" {
		t.Errorf("valid values lost: %+v", s)
	}
	for path, text := range map[string]string{global: globalText, project: projectText} {
		if data, _ := os.ReadFile(path); string(data) != text {
			t.Errorf("%s was rewritten", path)
		}
	}
	// a change through Set writes only its key: the wrong values stay in the file as the user wrote them
	if err := m.Set("defaultProvider", "openai"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(global)
	for _, keep := range []string{`"enabled": "yes"`, `"retry": 5`, `"defaultThinkingLevel": 3`} {
		if !strings.Contains(string(data), keep) {
			t.Errorf("Set dropped %s:\n%s", keep, data)
		}
	}
}

// Every key pi-go reads from settings.json is checked: a value of the wrong type for any of them is
// reported with its path and does not reach the settings.
func TestEverySettingIsTypeChecked(t *testing.T) {
	for _, leaf := range settingLeaves(reflect.TypeOf(Settings{}), "") {
		t.Run(leaf.path, func(t *testing.T) {
			agent := t.TempDir()
			path := filepath.Join(agent, "settings.json")
			settingsWrite(t, path, nestedJSON(leaf.path, wrongValue(leaf.typ)))
			m := LoadSettings(agent, t.TempDir())
			errs := m.Errors()
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), path+": "+leaf.path+": expected ") {
				t.Fatalf("errors = %v", errs)
			}
			if !reflect.DeepEqual(m.Settings(), Settings{}) {
				t.Errorf("the wrong value reached the settings: %+v", m.Settings())
			}
		})
	}
}

type settingLeaf struct {
	path string
	typ  reflect.Type
}

// settingLeaves lists the JSON key paths of the leaf fields of a settings struct.
func settingLeaves(t reflect.Type, prefix string) []settingLeaf {
	var out []settingLeaf
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if f.Type == rawMessageType {
			continue // validated by its own reader (the timeouts: TestTimeoutSettings)
		}
		if f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(jsonUnmarshaler) {
			out = append(out, settingLeaves(f.Type, prefix+name+".")...)
			continue
		}
		out = append(out, settingLeaf{prefix + name, f.Type})
	}
	return out
}

// wrongValue is a JSON value no field of type t accepts.
func wrongValue(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return "[]" // the unions take booleans, strings, numbers or objects, never an array
	}
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		return "true"
	}
	return `"text"`
}

func nestedJSON(path, value string) string {
	parts := strings.Split(path, ".")
	out := value
	for i := len(parts) - 1; i >= 0; i-- {
		key, _ := json.Marshal(parts[i])
		out = fmt.Sprintf("{%s: %s}", key, out)
	}
	return out
}

// auth.json entries of the wrong shape are reported by file and provider (never quoting a value)
// and ignored; the file is not rewritten.
func TestAuthFileWithWrongTypesWarns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.json")
	text := `{"acme": {"type": "api_key", "key": 123}, "bee": "sk-NOTQUOTED-1", "cee": {"type": 5, "key": "sk-NOTQUOTED-2"},
  "ok": {"type": "api_key", "key": "sk-fine"}, "oauthy": {"type": "oauth", "refresh": "r", "expires": 5}}`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	af, err := LoadAuthFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + ": acme.key: expected a string, got a number (entry ignored)",
		path + ": bee: expected an object, got a string (entry ignored)",
		path + ": cee.type: expected a string, got a number (entry ignored)",
	}
	if strings.Join(af.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(af.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if len(af.Entries) != 2 || af.Entries["ok"].Key != "sk-fine" || af.Entries["oauthy"].Type != "oauth" {
		t.Errorf("entries: %v", af.Entries)
	}
	if data, _ := os.ReadFile(path); string(data) != text {
		t.Error("auth.json was rewritten")
	}
}

// Fields that decode themselves (the timeouts take a number, a numeric string or "disabled") are not
// second-guessed by the type check.
func TestSelfDecodingFieldsAreNotTypeChecked(t *testing.T) {
	dir := t.TempDir()
	data := `{"httpIdleTimeoutMs": "disabled", "contentIdleTimeoutMs": 100}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	m := LoadSettings(dir, t.TempDir())
	if errs := m.Errors(); len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	s := m.Settings()
	if string(s.HTTPIdleTimeoutMs) != `"disabled"` || string(s.ContentIdleTimeoutMs) != `100` {
		t.Fatalf("timeouts %s %s", s.HTTPIdleTimeoutMs, s.ContentIdleTimeoutMs)
	}
}
