package render

import (
	"strings"
	"testing"
)

// Expected values were produced by node (JavaScript's toFixed and pi's formatTokens).
func TestToFixedMatchesJavaScript(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{
		{0.0425, 3, "0.043"}, {1.25, 1, "1.3"}, {1.15, 1, "1.1"}, {1.05, 1, "1.1"}, {2.345, 1, "2.3"},
		{12.345, 1, "12.3"}, {0.0005, 3, "0.001"}, {0.0015, 3, "0.002"}, {99.95, 1, "100.0"},
		{70.05, 1, "70.0"}, {0, 3, "0.000"}, {123.456, 3, "123.456"}, {9.995, 2, "9.99"}, {1e-7, 3, "0.000"},
	} {
		if got := toFixed(c.v, c.d); got != c.want {
			t.Errorf("toFixed(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

func TestFormatTokensMatchesPi(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1.0k"}, {1050, "1.1k"}, {1250, "1.3k"}, {1949, "1.9k"}, {1950, "1.9k"},
		{9949, "9.9k"}, {9950, "9.9k"}, {9999, "10.0k"}, {10000, "10k"}, {12345, "12k"}, {12500, "13k"},
		{13500, "14k"}, {999499, "999k"}, {999500, "1000k"}, {1000000, "1.0M"}, {1250000, "1.3M"},
		{9950000, "9.9M"}, {9999999, "10.0M"}, {10000000, "10M"}, {12500000, "13M"}, {13500000, "14M"},
	} {
		if got := FormatTokens(c.n); got != c.want {
			t.Errorf("FormatTokens(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// Like pi's footer test: whatever the content, no footer line is wider than the terminal.
func TestFooterNeverWiderThanTerminal(t *testing.T) {
	r := newGoldenRenderer()
	long := strings.Repeat("very-long-name-", 12)
	infos := []FooterInfo{
		{Cwd: "/home/user/" + long, GitBranch: "feature/" + long, SessionName: long, Input: 123456789, Output: 98765432,
			CacheRead: 5555555, CacheWrite: 4444444, Cost: 1234.5678, Subscription: true, ContextPercent: 95.5,
			ContextWindow: 2000000, AutoCompact: true, Model: "model-" + long, Provider: "provider-" + long,
			ProviderCount: 3, Reasoning: true, ThinkingLevel: "xhigh", ExtensionStatuses: map[string]string{"x": long + "\t日本語"}},
		{Cwd: "/日本語/ディレクトリ/とても長い名前のディレクトリ", Model: "模型-名前-とても長い", Reasoning: true, ContextUnknown: true},
		{},
	}
	for _, f := range infos {
		for w := 1; w <= 160; w++ {
			lines := r.Footer(f, w)
			assertFits(t, lines, w)
			assertClosed(t, lines)
		}
	}
}

func TestFooterPlacesModelRight(t *testing.T) {
	r := newGoldenRenderer()
	f := FooterInfo{Cwd: "/x", Input: 1500, ContextPercent: 5, ContextWindow: 128000, Model: "gpt-4o", Provider: "openai", ProviderCount: 2}
	got := plain(r.Footer(f, 60))
	want := "/x\n↑1.5k 5.0%/128k" + strings.Repeat(" ", 60-15-len("(openai) gpt-4o")) + "(openai) gpt-4o\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	// No room for the provider: it is dropped before the model is cut.
	got = plain(r.Footer(f, 26))
	if !strings.HasSuffix(strings.Split(got, "\n")[1], "  gpt-4o") {
		t.Fatalf("narrow footer: %q", got)
	}
	// Thinking level and context colours.
	f.Reasoning, f.ThinkingLevel, f.ContextPercent = true, "", 91
	lines := r.Footer(f, 80)
	if !strings.Contains(plain(lines), "gpt-4o • thinking off") {
		t.Fatalf("thinking off missing: %q", plain(lines))
	}
	if !strings.Contains(lines[1], r.th.FgSeq(errorKey())+"91.0%/128k") {
		t.Fatalf("context above 90%% is not in the error colour: %q", lines[1])
	}
}
