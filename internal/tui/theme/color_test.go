package theme

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// piColors is testdata/pi-colors.json: values computed by pi 1.6.0's own code under Node
// (testdata/pi-colors.mjs regenerates it).
type piColors struct {
	Colors []struct {
		Input     string  `json:"input"`
		Hex       string  `json:"hex"`
		ANSI256   uint8   `json:"ansi256"`
		Lightness float64 `json:"lightness"`
	} `json:"colors"`
	Indexed []struct {
		Index uint8  `json:"index"`
		Hex   string `json:"hex"`
	} `json:"indexed"`
	Themes map[string]map[string]string `json:"themes"`
}

func loadPiColors(t *testing.T) piColors {
	t.Helper()
	data, err := os.ReadFile("testdata/pi-colors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f piColors
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestColorsMatchPi(t *testing.T) {
	f := loadPiColors(t)
	if len(f.Colors) < 500 {
		t.Fatalf("only %d fixtures", len(f.Colors))
	}
	for _, want := range f.Colors {
		c, err := ParseColor(want.Input)
		if err != nil {
			t.Errorf("ParseColor(%q): %v", want.Input, err)
			continue
		}
		if got := c.Hex(); got != want.Hex {
			t.Errorf("ParseColor(%q) = %s, pi: %s", want.Input, got, want.Hex)
		}
		if got := c.ANSI256(); got != want.ANSI256 {
			t.Errorf("ANSI256(%q) = %d, pi: %d", want.Input, got, want.ANSI256)
		}
		if got := c.lightness(); math.Abs(got-want.Lightness) > 1e-9 {
			t.Errorf("lightness(%q) = %v, pi: %v", want.Input, got, want.Lightness)
		}
	}
	for _, want := range f.Indexed {
		if got := (Color{Indexed: true, Index: want.Index}).Hex(); got != want.Hex {
			t.Errorf("index %d = %s, pi: %s", want.Index, got, want.Hex)
		}
	}
}

func TestParseColorRejects(t *testing.T) {
	for _, s := range []string{"#12", "#12345", "#1234567", "red", "okhsl(10 120% 50%)", "oklch(120% 0.1 20)",
		"oklch(50% -0.1 20)", "okhsl(10, 50%, 50%)", "rgb(1 2 3)", "#ggg"} {
		if c, err := ParseColor(s); err == nil {
			t.Errorf("ParseColor(%q) = %v, want an error", s, c)
		}
	}
}
