package theme

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Spec is a validated theme file: every token resolved to a colour, in no colour profile yet.
type Spec struct {
	Name string
	// Path is the file the theme came from ("" for a built-in theme).
	Path string
	// Appearance is "dark" or "light": declared by the file or detected from its colours.
	Appearance string
	colors     [numKeys]Color
	// terminalDefault marks the tokens set to "": the terminal's own foreground or background.
	terminalDefault [numKeys]bool
}

// Color is the resolved colour of k; ok is false for a token set to the terminal's default.
func (s *Spec) Color(k Key) (c Color, ok bool) { return s.colors[k], !s.terminalDefault[k] }

// InvalidError is a theme file that does not follow pi's theme schema. It names the file and each
// offending key, so one notice tells the user what to fix.
type InvalidError struct {
	Path     string
	Problems []string // "colors.accent: ...", sorted by key within each section
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid theme %s: %s", e.Path, strings.Join(e.Problems, "; "))
}

// Load reads and validates the theme file at path.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read theme: %w", err)
	}
	return Parse(path, data)
}

// Parse validates a theme document as pi 1.6's schema does (strict: unknown top-level fields,
// colour tokens and export keys are errors; the optional tokens take their fallbacks), resolves
// its variables and colours, and decides its appearance. label names the file in errors.
func Parse(label string, data []byte) (*Spec, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	bad := &InvalidError{Path: label}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			bad.Problems = append(bad.Problems, fmt.Sprintf("not valid JSON at byte %d: %v", syntax.Offset, err))
		} else {
			bad.Problems = append(bad.Problems, "must be a JSON object")
		}
		return nil, bad
	}
	spec := &Spec{Path: label}
	for _, key := range slices.Sorted(maps.Keys(top)) {
		switch key {
		case "$schema", "name", "appearance", "vars", "colors", "export":
		default:
			bad.Problems = append(bad.Problems, fmt.Sprintf("%s: unknown property (custom colours go under \"vars\")", key))
		}
	}
	if raw, ok := top["name"]; !ok {
		bad.Problems = append(bad.Problems, "name: required")
	} else if json.Unmarshal(raw, &spec.Name) != nil || spec.Name == "" {
		bad.Problems = append(bad.Problems, "name: must be a non-empty string")
	} else if strings.Contains(spec.Name, "/") {
		bad.Problems = append(bad.Problems, fmt.Sprintf("name: %q cannot contain \"/\" (reserved for the light/dark theme setting)", spec.Name))
	} else if spec.Name == SystemTheme {
		bad.Problems = append(bad.Problems, "name: \"system\" is reserved for the theme built from the terminal's colours")
	}
	if raw, ok := top["appearance"]; ok {
		if json.Unmarshal(raw, &spec.Appearance) != nil || (spec.Appearance != "dark" && spec.Appearance != "light") {
			bad.Problems = append(bad.Problems, "appearance: must be \"dark\" or \"light\"")
			spec.Appearance = ""
		}
	}
	vars := map[string]any{}
	if raw, ok := top["vars"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			bad.Problems = append(bad.Problems, "vars: must be an object")
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if v, err := colorValue(m[name]); err != nil {
				bad.Problems = append(bad.Problems, fmt.Sprintf("vars.%s: %v", name, err))
			} else {
				vars[name] = v
			}
		}
	}
	values := map[Key]any{}
	if raw, ok := top["colors"]; !ok {
		bad.Problems = append(bad.Problems, "colors: required")
	} else {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			bad.Problems = append(bad.Problems, "colors: must be an object")
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			k, known := KeyByName(name)
			if !known {
				bad.Problems = append(bad.Problems, fmt.Sprintf("colors.%s: unknown colour token", name))
				continue
			}
			v, err := colorValue(m[name])
			if err != nil {
				bad.Problems = append(bad.Problems, fmt.Sprintf("colors.%s: %v", name, err))
				continue
			}
			values[k] = v
		}
		if m != nil {
			var missing []string
			for _, t := range tokens {
				if _, ok := m[t.name]; !ok && t.fallback < 0 {
					missing = append(missing, t.name)
				}
			}
			if len(missing) > 0 {
				slices.Sort(missing)
				bad.Problems = append(bad.Problems, "colors: missing required tokens "+strings.Join(missing, ", "))
			}
		}
	}
	if raw, ok := top["export"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			bad.Problems = append(bad.Problems, "export: must be an object")
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if name != "pageBg" && name != "cardBg" && name != "infoBg" {
				bad.Problems = append(bad.Problems, fmt.Sprintf("export.%s: unknown property", name))
			} else if v, err := colorValue(m[name]); err != nil {
				bad.Problems = append(bad.Problems, fmt.Sprintf("export.%s: %v", name, err))
			} else if _, err := resolveVar(v, vars, nil); err != nil {
				bad.Problems = append(bad.Problems, fmt.Sprintf("export.%s: %v", name, err))
			}
		}
	}
	for k := range Key(numKeys) {
		v, ok := values[k]
		if !ok {
			continue
		}
		c, isDefault, err := resolveColor(v, vars)
		if err != nil {
			bad.Problems = append(bad.Problems, fmt.Sprintf("colors.%s: %v", k.Name(), err))
			continue
		}
		spec.colors[k], spec.terminalDefault[k] = c, isDefault
	}
	if len(bad.Problems) > 0 {
		return nil, bad
	}
	for k, t := range tokens {
		if _, ok := values[Key(k)]; !ok && t.fallback >= 0 {
			spec.colors[k], spec.terminalDefault[k] = spec.colors[t.fallback], spec.terminalDefault[t.fallback]
		}
	}
	if spec.Appearance == "" {
		spec.Appearance = spec.detectAppearance()
	}
	return spec, nil
}

// colorValue checks the JSON type of a colour value: a string, or an integer palette index 0-255.
func colorValue(raw json.RawMessage) (any, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		if i, err := n.Int64(); err == nil && i >= 0 && i <= 255 {
			return int(i), nil
		}
		return nil, fmt.Errorf("palette index %s must be an integer from 0 to 255", n)
	}
	return nil, errors.New("must be a colour string or a palette index 0-255")
}

// resolveVar follows variable references until a colour: a palette index, "", "#...", oklch() or
// okhsl().
func resolveVar(v any, vars map[string]any, seen []string) (any, error) {
	s, ok := v.(string)
	if !ok || s == "" || strings.HasPrefix(s, "#") || isColorFunction(s) {
		return v, nil
	}
	if slices.Contains(seen, s) {
		return nil, fmt.Errorf("circular variable reference %s", strings.Join(append(seen, s), " → "))
	}
	next, ok := vars[s]
	if !ok {
		return nil, fmt.Errorf("variable %q is not defined in vars", s)
	}
	return resolveVar(next, vars, append(seen, s))
}

func isColorFunction(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "oklch(") || strings.HasPrefix(l, "okhsl(")
}

func resolveColor(v any, vars map[string]any) (c Color, terminalDefault bool, err error) {
	v, err = resolveVar(v, vars, nil)
	if err != nil {
		return Color{}, false, err
	}
	switch v := v.(type) {
	case int:
		return Color{Indexed: true, Index: uint8(v)}, false, nil
	case string:
		if v == "" {
			return Color{}, true, nil
		}
		c, err := ParseColor(v)
		return c, false, err
	}
	return Color{}, false, fmt.Errorf("unexpected value %v", v)
}

// detectAppearance decides the background a theme is made for from its own colours, as pi does:
// dark when its backgrounds are darker than its foregrounds (Oklab lightness, averaged; palette
// colours 0-15 follow the terminal's palette and say nothing).
func (s *Spec) detectAppearance() string {
	var fg, bg []float64
	for k, t := range tokens {
		c := s.colors[k]
		if s.terminalDefault[k] || (c.Indexed && c.Index < 16) {
			continue
		}
		if t.background {
			bg = append(bg, c.lightness())
		} else {
			fg = append(fg, c.lightness())
		}
	}
	avg := func(v []float64) float64 {
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		return sum / float64(len(v))
	}
	switch {
	case len(fg) > 0 && len(bg) > 0:
		if avg(bg) < avg(fg) {
			return "dark"
		}
		return "light"
	case len(bg) > 0:
		if avg(bg) < 0.5 {
			return "dark"
		}
		return "light"
	case len(fg) > 0:
		if avg(fg) > 0.5 {
			return "dark"
		}
		return "light"
	}
	return ""
}
