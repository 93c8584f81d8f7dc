package theme

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// customTheme is a complete theme document built from pi's dark theme with edits applied.
func customTheme(t *testing.T, edit func(doc map[string]any)) []byte {
	t.Helper()
	data, err := builtinFS.ReadFile("builtin/dark.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["name"] = "custom"
	if edit != nil {
		edit(doc)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func colorsOf(doc map[string]any) map[string]any { return doc["colors"].(map[string]any) }

func TestParseCustomTheme(t *testing.T) {
	data := customTheme(t, func(doc map[string]any) {
		delete(doc, "appearance")
		c := colorsOf(doc)
		c["accent"] = "#0af"
		c["border"] = 39
		c["text"] = ""
		c["mdLink"] = "link"
		doc["vars"].(map[string]any)["link"] = "blue" // a chain of variables
		for _, optional := range []string{"scrollbarTrack", "scrollbarThumb", "searchMatchBg", "searchMatchText", "thinkingMax"} {
			delete(c, optional)
		}
	})
	spec, err := Parse("custom.json", append([]byte("\ufeff"), data...))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Name != "custom" || spec.Appearance != "dark" {
		t.Errorf("name %q appearance %q", spec.Name, spec.Appearance)
	}
	check := func(k Key, want string) {
		t.Helper()
		c, ok := spec.Color(k)
		got := ""
		if ok {
			got = c.Hex()
			if c.Indexed {
				got = "index " + itoa(c.Index)
			}
		}
		if got != want {
			t.Errorf("%s = %q, want %q", k.Name(), got, want)
		}
	}
	dark, _ := Builtin("dark")
	hex := func(k Key) string { c, _ := dark.Color(k); return c.Hex() }
	check(Accent, "#00aaff")
	check(Border, "index 39")
	check(Text, "")
	check(MdLink, hex(MdLink))
	// The optional tokens take their fallbacks.
	check(ScrollbarTrack, hex(Muted))
	check(ScrollbarThumb, "") // text, which is the terminal's default here
	check(SearchMatchBg, hex(SelectedBg))
	check(ThinkingMax, hex(ThinkingXHigh))
}

func TestParseDetectsAppearance(t *testing.T) {
	spec, err := Parse("light-ish.json", customTheme(t, func(doc map[string]any) {
		delete(doc, "appearance")
		light, _ := builtinFS.ReadFile("builtin/light.json")
		var l map[string]any
		_ = json.Unmarshal(light, &l)
		doc["colors"], doc["vars"] = l["colors"], l["vars"]
	}))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Appearance != "light" {
		t.Errorf("appearance = %q, want light", spec.Appearance)
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(doc map[string]any)
		want []string // every problem named, by key
	}{
		{"missing token", func(d map[string]any) { delete(colorsOf(d), "accent"); delete(colorsOf(d), "mdHr") },
			[]string{"colors: missing required tokens accent, mdHr"}},
		{"unknown token", func(d map[string]any) { colorsOf(d)["accentt"] = "#fff" }, []string{"colors.accentt: unknown colour token"}},
		{"bad colour", func(d map[string]any) { colorsOf(d)["error"] = "#ff00" }, []string{"colors.error: invalid color value \"#ff00\""}},
		{"bad function", func(d map[string]any) { colorsOf(d)["error"] = "okhsl(20 172% 50%)" },
			[]string{"colors.error: invalid color value \"okhsl(20 172% 50%)\""}},
		{"index out of range", func(d map[string]any) { colorsOf(d)["error"] = 256 }, []string{"colors.error: palette index 256"}},
		{"fractional index", func(d map[string]any) { colorsOf(d)["error"] = 1.5 }, []string{"colors.error: palette index 1.5"}},
		{"wrong type", func(d map[string]any) { colorsOf(d)["error"] = true }, []string{"colors.error: must be a colour string"}},
		{"missing variable", func(d map[string]any) { colorsOf(d)["error"] = "crimson" },
			[]string{"colors.error: variable \"crimson\" is not defined"}},
		{"circular variables", func(d map[string]any) {
			v := d["vars"].(map[string]any)
			v["a"], v["b"] = "b", "a"
			colorsOf(d)["error"] = "a"
		}, []string{"colors.error: circular variable reference a → b → a"}},
		{"slash in name", func(d map[string]any) { d["name"] = "light/dark" }, []string{"name: \"light/dark\" cannot contain \"/\""}},
		{"reserved name", func(d map[string]any) { d["name"] = "system" }, []string{"name: \"system\" is reserved"}},
		{"no name", func(d map[string]any) { delete(d, "name") }, []string{"name: required"}},
		{"bad appearance", func(d map[string]any) { d["appearance"] = "dim" }, []string{"appearance: must be"}},
		{"extra field", func(d map[string]any) { d["author"] = "me" }, []string{"author: unknown property"}},
		{"extra export key", func(d map[string]any) { d["export"].(map[string]any)["footerBg"] = "#000" },
			[]string{"export.footerBg: unknown property"}},
		{"two problems", func(d map[string]any) { colorsOf(d)["error"] = "nope"; d["appearance"] = 1 },
			[]string{"appearance: must be", "colors.error: variable \"nope\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/home/u/.pi/agent/themes/custom.json", customTheme(t, tt.edit))
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("err = %v, want an InvalidError", err)
			}
			if !strings.HasPrefix(err.Error(), "invalid theme /home/u/.pi/agent/themes/custom.json: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	for _, doc := range []string{"", "[]", "{", `{"name":"x","colors":[]}`} {
		if _, err := Parse("x.json", []byte(doc)); err == nil || !strings.Contains(err.Error(), "x.json") {
			t.Errorf("Parse(%q) = %v", doc, err)
		}
	}
}

func writeTheme(t *testing.T, path, name string, edit func(map[string]any)) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := customTheme(t, func(doc map[string]any) {
		doc["name"] = name
		if edit != nil {
			edit(doc)
		}
	})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
